#pragma once
// The rules a source's credentials follow wherever they come from: a manifest (checked while
// it loads, naming the key and its line) or `krow connect`'s flags (checked by the command,
// naming the flags). Pure; any thread may call them.

#include <string>

#include "kafka/source_config.hpp"

namespace krow {

// A SASL protocol (SASL_SSL, SASL_PLAINTEXT) without a user name or without a secret.
bool lacks_sasl_credentials(const SourceConfig& source);

// A URL that carries a user or a password (https://user:secret@host/...). Refused: the
// credentials go in fields of their own, so that they never show in a message naming the URL.
bool url_has_credentials(const std::string& url);

}  // namespace krow
