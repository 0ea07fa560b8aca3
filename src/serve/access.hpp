#pragma once
// Who may call `krow serve` (docs/serve.md), for its API and its console alike: a bearer API
// token or a session cookie checked against the state file, sign-in with its throttling, the
// session cookie's attributes, and the audit log's lines. Nothing here keeps or prints a
// password or a secret: the store holds hashes and digests only.
//
// Thread: any (the store serialises its own calls).

#include <cstdint>
#include <optional>
#include <string>

#include "serve/serve_store.hpp"

namespace krow::serve {

// Who made a request, once its credential is checked.
struct Caller {
  std::string actor = "anonymous";  // user name or token:<id>
  Role role = Role::viewer;
  bool session = false;
  std::string csrf;  // the session's CSRF token
};

// Why a request is refused: its HTTP status, the error's code, the sentence and the fix (the
// fix names API routes; the console words its own).
struct Refusal {
  int status = 401;
  std::string code, message, fix;
  int retry_after_s = 0;  // throttled sign-in
};

class Access {
 public:
  Access(ServeStore& store, bool tls);

  // The caller of a request with these Authorization and Cookie headers: a bearer token when
  // there is an Authorization header, else the session cookie. A refusal when neither holds a
  // valid credential (revoked token, ended session).
  std::optional<Refusal> authenticate(const std::string& authorization, const std::string& cookies,
                                      Caller& caller) const;

  // A sign-in from `address`: throttled after failures in a row (5 per user, 20 per address:
  // then 1 s, doubling, at most 5 min after the last failure), audited either way. On success,
  // the new session's caller and the Set-Cookie value that carries it.
  struct SignedIn {
    Caller caller;
    std::string set_cookie;
    int64_t expires_ms = 0;
  };
  std::optional<Refusal> sign_in(const std::string& name, const std::string& password,
                                 const std::string& address, SignedIn& out) const;
  // Ends the session of the Cookie header; the Set-Cookie value that clears the cookie.
  std::string sign_out(const std::string& cookies) const;

  void audit(const Caller& c, const std::string& action, const std::string& target,
             const std::string& outcome, const std::string& address) const;

  bool tls() const { return tls_; }

 private:
  ServeStore& store_;
  bool tls_;
  // Compared with when the user named in a sign-in does not exist: that takes as long.
  std::string decoy_hash_;
};

// The value of cookie `name` in a Cookie header; none when it has no such cookie.
std::optional<std::string> cookie_value(const std::string& cookies, const std::string& name);

// A name the service takes in a path or a form: a sync ID, a user, a token ID, a run ID —
// letters, digits, '.', '_', '-', '@', starting with a letter or digit, no "..".
bool plain_name(const std::string& s, size_t max = 128);

int64_t now_ms();

}  // namespace krow::serve
