// libFuzzer target for the manifest loader: the fuzzer's bytes as a manifest's YAML text,
// with environment variables looked up from a fixed set (one holds a secret). Every input
// must give either a Manifest or an Error of class config whose message is not empty and
// never contains the secret (unless the text itself does); any other exception, crash, sanitizer report or hang is a bug.
// Seeds: examples/*.yaml (scripts/fuzz.sh passes them).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "manifest/manifest.hpp"
#include "util/error.hpp"

namespace {

constexpr const char* kSecret = "fuzz-secret-value-8f3a";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string yaml(reinterpret_cast<const char*>(data), size);
  const krow::EnvLookup env = [](const char* name) -> const char* {
    if (std::string_view(name) == "KAFKA_SECRET") return kSecret;
    if (std::string_view(name) == "EMPTY") return "";
    return nullptr;
  };
  try {
    const auto manifest = krow::parse_manifest(yaml, "fuzz.yaml", env);
    (void)manifest;
  } catch (const krow::Error& e) {
    const std::string what = e.what();
    // (The fuzzer soon learns to write the secret into the text itself: quoting the text is fine.)
    const bool leaked = what.find(kSecret) != std::string::npos && yaml.find(kSecret) == std::string::npos;
    if (e.error_class() != krow::ErrorClass::config || what.empty() || leaked) __builtin_trap();
  } catch (...) {
    __builtin_trap();  // a YAML library exception, std::out_of_range... escaped the loader
  }
  return 0;
}
