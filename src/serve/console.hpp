#pragma once
// The web console of `krow serve` (docs/console.md): server-rendered pages over the same
// operations as the REST API — each page asks the API for its data as the signed-in user,
// so a role sees and does in the console exactly what the API lets it (the actions it may not
// take are not offered, and the API refuses them anyway). Sessions are the API's: the
// `krow_session` cookie, and the session's CSRF token in a hidden field of every form.
//
// Every value shown is HTML-escaped; pages load nothing but the console's own stylesheet
// (Content-Security-Policy). No page holds a secret.
//
// Thread: any (it keeps no state of its own).

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "serve/access.hpp"

namespace krow::serve {

// A request for a page, as the HTTP server parsed it.
struct PageRequest {
  std::string method, path;
  std::map<std::string, std::string> query;  // ?name=value
  std::map<std::string, std::string> form;   // an application/x-www-form-urlencoded body
  std::string cookies;                       // the Cookie header
  std::string address;                       // the client's
};

struct PageReply {
  int status = 200;
  std::string body;
  std::string type = "text/html";
  std::vector<std::pair<std::string, std::string>> headers;
};

// An API call made for the console as `caller`: the route's role is checked and the call
// audited as any request of the API would be. Its status and JSON body.
struct ApiAnswer {
  int status = 0;
  std::string body;
};
using ApiCall = std::function<ApiAnswer(const std::string& method, const std::string& path,
                                        const std::string& body, const Caller& caller,
                                        const std::string& address)>;

class Console {
 public:
  Console(const Access& access, ApiCall api) : access_(access), api_(std::move(api)) {}

  // The page at `r.path`; none when the path is not the console's (the API's, the health
  // routes).
  std::optional<PageReply> serve(const PageRequest& r) const;

 private:
  const Access& access_;
  ApiCall api_;
};

// Text made safe inside HTML: & < > " ' escaped.
std::string html_escape(std::string_view text);

}  // namespace krow::serve
