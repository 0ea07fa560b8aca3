#pragma once
// The secrets a saved manifest may hold (the values of its `password:` keys) never leave the
// service: what the API and the console show of a manifest has them masked, and a manifest
// sent back with a mask in place keeps the saved value under the same keys.

#include <string>
#include <string_view>

namespace krow::serve {

// What stands for a saved password in a manifest shown to a caller.
inline constexpr std::string_view kSecretMask = "(saved: leave as is to keep it)";

// `yaml` with the value of every `password:` key replaced by the mask.
std::string mask_secrets(const std::string& yaml);

// `edited` with every masked password put back from `saved`: the value of the `password:` key
// under the same parent keys. Throws Error(config) naming the line when a mask has no saved
// value to stand for.
std::string restore_secrets(const std::string& edited, const std::string& saved);

}  // namespace krow::serve
