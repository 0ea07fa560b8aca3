#pragma once
// What `krow serve` keeps of its users' credentials (docs/serve.md): passwords hashed with
// Argon2id, and random secrets (API tokens, session cookies) of which only a digest is kept.
// libsodium does the work; nothing here stores or prints a password or a secret.

#include <string>
#include <string_view>

namespace krow {

// A password's Argon2id hash in the PHC string format ($argon2id$v=19$m=...), salted at
// random: libsodium's crypto_pwhash_str with its interactive limits (64 MiB, 2 passes).
std::string hash_password(std::string_view password);

// Whether `password` is the one `hash` was made from; false for a hash that is not one.
bool password_matches(const std::string& hash, std::string_view password);

// `bytes` random bytes (libsodium's randombytes) as URL-safe base64 without padding: a token
// or session secret that fits in a header, a cookie or a URL.
std::string random_secret(size_t bytes);

// The digest kept for a random secret (BLAKE2b-256, hex). A secret of 32 random bytes needs
// no salt nor slow hash: the digest is compared, never the secret.
std::string secret_digest(std::string_view secret);

// Whether two digests are equal, in a time that does not depend on where they differ.
bool same_digest(std::string_view a, std::string_view b);

}  // namespace krow
