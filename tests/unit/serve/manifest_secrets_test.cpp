// The passwords of a saved manifest (src/serve/manifest_secrets): masked wherever the service
// shows the manifest, put back from the saved manifest where the mask comes back.

#include "serve/manifest_secrets.hpp"

#include <gtest/gtest.h>

#include <string>

#include "util/error.hpp"

namespace krow::serve {
namespace {

const std::string kSaved =
    "name: orders\n"
    "source:\n"
    "  bootstrap_servers: b:9092\n"
    "  username: KEY\n"
    "  password: \"s3cr3t: with colon\"\n"
    "  registry:\n"
    "    url: https://r\n"
    "    password: reg-pass # a comment\n"
    "topics:\n"
    "  names: [password]\n"
    "warehouse: {type: postgres, host: h, password: 'pg''pass', user: u}\n";

TEST(ManifestSecrets, EveryPasswordIsMaskedAndNothingElse) {
  const auto shown = mask_secrets(kSaved);
  for (const char* secret : {"s3cr3t", "reg-pass", "pg''pass"})
    EXPECT_EQ(shown.find(secret), std::string::npos) << secret << " in\n" << shown;
  const std::string mask(kSecretMask);
  EXPECT_NE(shown.find("  password: \"" + mask + "\"\n"), std::string::npos) << shown;
  EXPECT_NE(shown.find("    password: \"" + mask + "\" # a comment\n"), std::string::npos) << shown;
  EXPECT_NE(shown.find("{type: postgres, host: h, password: \"" + mask + "\", user: u}"),
            std::string::npos)
      << shown;
  // A topic named "password" is not a key.
  EXPECT_NE(shown.find("names: [password]"), std::string::npos) << shown;
  EXPECT_NE(shown.find("username: KEY"), std::string::npos) << shown;
}

TEST(ManifestSecrets, TheMasksComeBackAsTheSavedPasswordsAndEditsStay) {
  auto edited = mask_secrets(kSaved);
  edited.replace(edited.find("b:9092"), 6, "c:9093");
  const auto restored = restore_secrets(edited, kSaved);
  auto expected = kSaved;
  expected.replace(expected.find("b:9092"), 6, "c:9093");
  EXPECT_EQ(restored, expected);
  // A password written anew replaces the saved one.
  auto rewritten = mask_secrets(kSaved);
  const std::string masked_line = "  password: \"" + std::string(kSecretMask) + "\"";
  rewritten.replace(rewritten.find(masked_line), masked_line.size(), "  password: new-one");
  EXPECT_NE(restore_secrets(rewritten, kSaved).find("  password: new-one\n"), std::string::npos);
  EXPECT_NE(restore_secrets(rewritten, kSaved).find("reg-pass"), std::string::npos);
  // As a browser's form sends a textarea: CRLF line ends.
  std::string crlf;
  for (char c : mask_secrets(kSaved)) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  EXPECT_EQ(restore_secrets(crlf, kSaved), kSaved);
  // Nothing masked: the text as it came.
  EXPECT_EQ(restore_secrets("name: x\n", kSaved), "name: x\n");
}

TEST(ManifestSecrets, AMaskMovedUnderOtherKeysIsRefusedNamingItsLine) {
  auto moved = mask_secrets(kSaved);
  moved += "other:\n  password: \"" + std::string(kSecretMask) + "\"\n";
  try {
    restore_secrets(moved, kSaved);
    FAIL() << "a mask with no saved password behind it was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("line 13"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Write the password there"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace krow::serve
