#include "serve/access.hpp"

#include <algorithm>
#include <chrono>
#include <regex>

#include "secrets/credentials.hpp"

namespace krow::serve {

namespace {

constexpr int kSessionHours = 12;
// Failed sign-ins in a row let through for one user, and for one address (several people may
// share one); then each attempt waits 1, 2, 4 ... s after the last failure, at most 5 min.
constexpr int kFreeFailuresPerUser = 5;
constexpr int kFreeFailuresPerAddress = 20;

}  // namespace

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool plain_name(const std::string& s, size_t max) {
  static const std::regex ok("[A-Za-z0-9][A-Za-z0-9._@-]*");
  return !s.empty() && s.size() <= max && std::regex_match(s, ok) &&
         s.find("..") == std::string::npos;
}

std::optional<std::string> cookie_value(const std::string& cookies, const std::string& name) {
  size_t at = 0;
  while (at < cookies.size()) {
    const auto end = cookies.find(';', at);
    auto part = cookies.substr(at, end == std::string::npos ? std::string::npos : end - at);
    while (!part.empty() && part.front() == ' ') part.erase(0, 1);
    if (part.rfind(name + "=", 0) == 0) return part.substr(name.size() + 1);
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return std::nullopt;
}

Access::Access(ServeStore& store, bool tls)
    : store_(store), tls_(tls), decoy_hash_(hash_password(random_secret(16))) {}

std::optional<Refusal> Access::authenticate(const std::string& authorization,
                                            const std::string& cookies, Caller& caller) const {
  if (!authorization.empty()) {
    static const std::string bearer = "Bearer ";
    const auto token =
        authorization.rfind(bearer, 0) == 0 ? authorization.substr(bearer.size()) : "";
    // krow_<10 hex>_<secret>
    if (token.size() > 16 && token.rfind("krow_", 0) == 0 && token[15] == '_') {
      const auto id = token.substr(5, 10);
      const auto t = store_.token(id);
      if (t && same_digest(t->digest, secret_digest(token.substr(16)))) {
        caller.actor = "token:" + id;
        if (t->revoked_ms)
          return Refusal{401, "token_revoked", "this API token was revoked",
                         "ask an admin for a new one (POST /api/v1/tokens)"};
        caller.role = t->role;
        store_.token_used(id, now_ms());
        return std::nullopt;
      }
    }
    return Refusal{401, "unauthenticated", "the Authorization header holds no valid API token",
                   "send Authorization: Bearer krow_... with a token from POST /api/v1/tokens or "
                   "`krow serve create-token`"};
  }
  if (const auto cookie = cookie_value(cookies, "krow_session")) {
    const auto s = store_.session(secret_digest(*cookie));
    if (s && s->expires_ms > now_ms()) {
      if (const auto u = store_.user(s->user)) {
        caller = Caller{u->name, u->role, true, s->csrf};
        return std::nullopt;
      }
    }
    return Refusal{401, "session_expired",
                   "the session has ended (expired, signed out or its user removed)",
                   "sign in again (POST /api/v1/sessions)"};
  }
  return Refusal{401, "unauthenticated", "this route needs a credential",
                 "send Authorization: Bearer <API token>, or sign in (POST /api/v1/sessions)"};
}

std::optional<Refusal> Access::sign_in(const std::string& name, const std::string& password,
                                       const std::string& address, SignedIn& out) const {
  const auto now = now_ms();
  const Caller someone{plain_name(name, 64) ? name : "anonymous", Role::viewer, false, ""};
  int64_t wait_ms = 0;
  for (const auto& [key, free] : {std::pair{"user:" + name, kFreeFailuresPerUser},
                                  std::pair{"address:" + address, kFreeFailuresPerAddress}}) {
    const auto [count, last] = store_.failures(key);
    if (count < free) continue;
    const int64_t pause = std::min<int64_t>(300000, int64_t(1000) << std::min(count - free, 9));
    wait_ms = std::max(wait_ms, last + pause - now);
  }
  if (wait_ms > 0) {
    audit(someone, "session.create", "", "refused: throttled", address);
    const int seconds = static_cast<int>((wait_ms + 999) / 1000);
    return Refusal{429, "throttled", "too many failed sign-ins for this user or address",
                   "wait " + std::to_string(seconds) + " s before trying again", seconds};
  }
  const auto user = plain_name(name, 64) ? store_.user(name) : std::nullopt;
  // The decoy when there is no such user: a wrong name takes as long as a wrong password.
  const bool ok = password_matches(user ? user->password_hash : decoy_hash_, password) && user;
  if (!ok) {
    store_.sign_in_failed("user:" + name, now);
    store_.sign_in_failed("address:" + address, now);
    audit(someone, "session.create", "", "refused: wrong name or password", address);
    return Refusal{401, "wrong_credentials", "wrong user name or password",
                   "check them; an admin can set a new password (PUT /api/v1/users/NAME)"};
  }
  store_.sign_in_succeeded("user:" + name);
  store_.sign_in_succeeded("address:" + address);
  const auto secret = random_secret(32);
  const Session s{secret_digest(secret), user->name, random_secret(24), now,
                  now + int64_t(kSessionHours) * 3600 * 1000};
  store_.add_session(s);
  out.caller = Caller{user->name, user->role, true, s.csrf};
  out.expires_ms = s.expires_ms;
  out.set_cookie = "krow_session=" + secret +
                   "; Path=/; Max-Age=" + std::to_string(kSessionHours * 3600) +
                   "; HttpOnly; SameSite=Strict" + (tls_ ? "; Secure" : "");
  audit(out.caller, "session.create", "", "ok", address);
  return std::nullopt;
}

std::string Access::sign_out(const std::string& cookies) const {
  if (const auto cookie = cookie_value(cookies, "krow_session"))
    store_.end_session(secret_digest(*cookie));
  return std::string("krow_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict") +
         (tls_ ? "; Secure" : "");
}

void Access::audit(const Caller& c, const std::string& action, const std::string& target,
                   const std::string& outcome, const std::string& address) const {
  store_.audit(AuditEntry{0, now_ms(), c.actor, action, target, outcome, address});
}

}  // namespace krow::serve
