// TEMPORARY until the auth branch lands: no authentication only.
#include "warehouse/bigquery/bq_auth.hpp"

#include "util/error.hpp"

namespace krow::bigquery {
namespace {
class NoAuth : public TokenSource {
 public:
  std::string authorization() override { return {}; }
  void invalidate() override {}
  std::string describe() const override { return "no authentication (emulator endpoint)"; }
};
}  // namespace

std::unique_ptr<TokenSource> make_token_source(const std::string& credentials, std::chrono::milliseconds) {
  if (credentials == "none") return std::make_unique<NoAuth>();
  throw Error(ErrorClass::config, "credentials are not supported yet");
}
}  // namespace krow::bigquery
