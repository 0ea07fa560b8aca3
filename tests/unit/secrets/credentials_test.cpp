// Passwords hashed with Argon2id and checked against their hash; random secrets and their
// digests.

#include "secrets/credentials.hpp"

#include <gtest/gtest.h>

#include <set>

namespace krow {
namespace {

TEST(Credentials, APasswordMatchesItsArgon2idHashAndNothingElse) {
  const auto hash = hash_password("correct horse battery staple");
  EXPECT_EQ(hash.rfind("$argon2id$", 0), 0u) << hash;
  EXPECT_EQ(hash.find("correct horse"), std::string::npos);
  EXPECT_TRUE(password_matches(hash, "correct horse battery staple"));
  EXPECT_FALSE(password_matches(hash, "correct horse battery stapler"));
  EXPECT_FALSE(password_matches(hash, ""));
  EXPECT_FALSE(password_matches("", "x"));
  EXPECT_FALSE(password_matches("not a hash", "not a hash"));
  // Salted: the same password never hashes the same way twice.
  EXPECT_NE(hash_password("correct horse battery staple"), hash);
}

TEST(Credentials, RandomSecretsAreUrlSafeAndNeverRepeatAndTheirDigestsCompare) {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    const auto s = random_secret(32);
    EXPECT_EQ(s.size(), 43u);
    EXPECT_EQ(
        s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
        std::string::npos)
        << s;
    EXPECT_TRUE(seen.insert(s).second);
  }
  const auto d = secret_digest("abc");
  EXPECT_EQ(d.size(), 64u);
  EXPECT_TRUE(same_digest(d, secret_digest("abc")));
  EXPECT_FALSE(same_digest(d, secret_digest("abd")));
  EXPECT_FALSE(same_digest(d, d.substr(1)));
}

}  // namespace
}  // namespace krow
