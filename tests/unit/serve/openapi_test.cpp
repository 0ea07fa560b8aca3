// docs/openapi.yaml is the API's reference: it has every route the service answers, no route
// it does not, and the least role of each as the service enforces it.

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <set>
#include <string>

#include "serve/api.hpp"

namespace krow::serve {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

TEST(OpenApi, TheDocumentHasEveryRouteOfTheServiceWithItsRoleAndNoOther) {
  const auto doc = YAML::LoadFile(std::string(KROW_SOURCE_DIR) + "/docs/openapi.yaml");
  std::set<std::string> documented, served;
  for (const auto& path : doc["paths"]) {
    for (const auto& op : path.second) {
      const auto method = op.first.as<std::string>();
      if (method == "parameters") continue;
      const auto route = method + " " + path.first.as<std::string>();
      documented.insert(route);
      ASSERT_TRUE(op.second["x-krow-role"]) << route << " has no x-krow-role";
      const auto role = op.second["x-krow-role"].as<std::string>();
      for (const auto& r : api_routes()) {
        if (lower(r.method) + " " + r.path == route) {
          EXPECT_EQ(role, r.open ? "none" : role_name(r.role)) << route;
        }
      }
    }
  }
  for (const auto& r : api_routes()) served.insert(lower(r.method) + " " + r.path);
  for (const auto& r : served)
    EXPECT_TRUE(documented.count(r)) << r << " is served but not in docs/openapi.yaml";
  for (const auto& r : documented)
    EXPECT_TRUE(served.count(r)) << r << " is in docs/openapi.yaml but not served";
  EXPECT_GE(served.size(), 25u);
}

TEST(OpenApi, EveryChangeIsAnAuditedActionAndEveryReadIsNot) {
  for (const auto& r : api_routes()) {
    if (r.method == "GET")
      EXPECT_TRUE(r.action.empty()) << r.path;
    else
      EXPECT_FALSE(r.action.empty()) << r.method << " " << r.path;
  }
}

TEST(UserNames, OnlyPlainNamesAreTaken) {
  EXPECT_TRUE(valid_user_name("alice"));
  EXPECT_TRUE(valid_user_name("ops.team-1@example.com"));
  for (const char* bad :
       {"", "../../etc/passwd", "<script>alert(1)</script>", ".hidden", "a b", "a/b", "..", "x\ny"})
    EXPECT_FALSE(valid_user_name(bad)) << bad;
  EXPECT_FALSE(valid_user_name(std::string(65, 'a')));
}

}  // namespace
}  // namespace krow::serve
