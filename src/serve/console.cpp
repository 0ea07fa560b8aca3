#include "serve/console.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "secrets/credentials.hpp"
#include "util/json_writer.hpp"
#include "util/text.hpp"

namespace krow::serve {

namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

const char* const kStyle =
    R"css(:root{--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--bg:#fff;--panel:#f6f8fa;--accent:#0550ae;--bad:#a40e26;--ok:#116329;--warn:#7d4e00}
*{box-sizing:border-box}body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent)}a:focus,button:focus,input:focus,select:focus,summary:focus{outline:3px solid #0969da;outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;padding:4px}
header{display:flex;align-items:center;justify-content:space-between;gap:16px;padding:8px 24px;border-bottom:1px solid var(--line);background:var(--panel)}
header nav a{margin-right:16px;font-weight:600;text-decoration:none}header nav a[aria-current=page]{text-decoration:underline}
header form{display:flex;align-items:center;gap:8px;margin:0}
main{padding:16px 24px;max-width:1200px}h1{font-size:22px;margin:8px 0 16px}h2{font-size:17px;margin:24px 0 8px}
table{border-collapse:collapse;width:100%;margin:8px 0}th,td{border-bottom:1px solid var(--line);padding:6px 8px;text-align:left;vertical-align:top}
th{background:var(--panel);font-weight:600}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.muted{color:var(--muted)}.bad{color:var(--bad);font-weight:600}.ok{color:var(--ok);font-weight:600}.warn{color:var(--warn);font-weight:600}
.flash{padding:8px 12px;border:1px solid var(--line);border-left:4px solid var(--ok);background:var(--panel);margin:8px 0}
.error{padding:8px 12px;border:1px solid var(--line);border-left:4px solid var(--bad);background:#fff5f5;margin:8px 0}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:8px 0}dl.facts dt{font-weight:600;color:var(--muted)}dl.facts dd{margin:0}
button{font:inherit;padding:4px 12px;border:1px solid var(--line);border-radius:6px;background:#fff;cursor:pointer}button.primary{background:var(--accent);color:#fff;border-color:var(--accent)}
button.danger{color:var(--bad)}details.actions{display:inline-block;position:relative}details.actions summary{cursor:pointer;padding:4px 12px;border:1px solid var(--line);border-radius:6px;list-style:none}
details.actions[open] .menu{position:absolute;left:0;z-index:1;background:#fff;border:1px solid var(--line);border-radius:6px;padding:8px;min-width:220px;display:grid;gap:6px}
form.inline{display:inline}label{display:block;font-weight:600;margin:8px 0 4px}input[type=text],input[type=password],select,textarea{font:inherit;padding:6px;border:1px solid #8c959f;border-radius:6px;width:100%;max-width:640px}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
pre{background:var(--panel);padding:12px;overflow:auto;border:1px solid var(--line)}.filters a{margin-right:12px}
)css";

// The console's only script: a page whose <main> has data-refresh="SECONDS" fetches itself
// again that often and replaces its <main> (not while a menu is open or a form has the focus).
const char* const kScript = R"js((function () {
  "use strict";
  var main = document.querySelector("main[data-refresh]");
  if (!main) return;
  var every = Math.max(2, Number(main.getAttribute("data-refresh"))) * 1000;
  function busy() {
    var focused = document.activeElement;
    return document.querySelector("details[open]") || (focused && focused.closest && focused.closest("form"));
  }
  function refresh() {
    if (document.hidden || busy()) return;
    fetch(location.href, {credentials: "same-origin"}).then(function (answer) {
      if (!answer.ok || answer.redirected) return null;
      return answer.text();
    }).then(function (text) {
      if (!text || busy()) return;
      var fresh = new DOMParser().parseFromString(text, "text/html").querySelector("main");
      if (fresh) main.innerHTML = fresh.innerHTML;
    }).catch(function () {});
  }
  setInterval(refresh, every);
})();
)js";

std::string esc(std::string_view text) {
  return html_escape(text);
}

// "2026-12-06 03:10:52 UTC" (the ISO form, easier to read).
std::string utc(int64_t ms) {
  auto text = utc_time(ms);  // 2026-12-06T03:10:52Z
  text[10] = ' ';
  text.pop_back();
  return text + " UTC";
}

std::string thousands(int64_t n) {
  return n < 0 ? "-" + with_thousands(static_cast<uint64_t>(-n))
               : with_thousands(static_cast<uint64_t>(n));
}

// A figure with its thousands marked, or a dash when it is not known.
std::string figure(std::optional<int64_t> n) {
  return n ? thousands(*n) : "—";
}

std::string text_of(element e, const char* key) {
  std::string_view v;
  return e[key].get(v) ? std::string() : std::string(v);
}
std::optional<int64_t> int_of(element e, const char* key) {
  int64_t v = 0;
  if (e[key].get(v)) return std::nullopt;
  return v;
}
bool bool_of(element e, const char* key) {
  bool v = false;
  return !e[key].get(v) && v;
}

std::string csrf_field(const Caller& c) {
  return "<input type=\"hidden\" name=\"csrf\" value=\"" + esc(c.csrf) + "\">";
}

PageReply html(int status, std::string body) {
  return PageReply{status, std::move(body), "text/html", {}};
}

PageReply redirect(const std::string& to,
                   std::vector<std::pair<std::string, std::string>> headers = {}) {
  headers.emplace_back("Location", to);
  return PageReply{303, "", "text/html", std::move(headers)};
}

// The page around `body`: its title, the navigation a role may use, the signed-in user.
std::string layout(const Caller* who, const std::string& title, const std::string& body,
                   const std::string& section = "", int refresh_s = 0) {
  std::string out =
      "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<title>" +
      esc(title) +
      " · krow</title><link rel=\"stylesheet\" href=\"/static/console.css\"></head><body>"
      "<a class=\"skip\" href=\"#main\">Skip to content</a>";
  if (who) {
    auto link = [&](const char* href, const char* label, const char* name) {
      return std::string("<a href=\"") + href + "\"" +
             (section == name ? " aria-current=\"page\"" : "") + ">" + label + "</a>";
    };
    out += "<header><nav aria-label=\"Main\">" + link("/syncs", "Syncs", "syncs") +
           link("/sources", "Sources", "sources");
    if (who->role == Role::admin)
      out += link("/users", "Users", "users") + link("/tokens", "API tokens", "tokens") +
             link("/audit", "Audit log", "audit");
    out += "</nav><form method=\"post\" action=\"/sign-out\">" + csrf_field(*who) + "<span>" +
           esc(who->actor) + " <span class=\"muted\">(" + role_name(who->role) +
           ")</span></span><button type=\"submit\">Sign out</button>"
           "</form></header>";
  }
  // A page of figures that change (runs, positions, lag) refreshes them in place.
  const std::string refresh =
      refresh_s > 0 ? " data-refresh=\"" + std::to_string(refresh_s) + "\"" : "";
  return out + "<main id=\"main\"" + refresh + "><h1>" + esc(title) + "</h1>" + body +
         "</main><script src=\"/static/console.js\" defer></script></body></html>\n";
}

// An answer of the API that is an error: its message and fix as a page's notice.
std::string error_notice(const ApiAnswer& a) {
  simdjson::dom::parser parser;
  element e;
  if (parser.parse(a.body).get(e))
    return "<div class=\"error\" role=\"alert\">The service answered " + std::to_string(a.status) +
           ".</div>";
  const auto error = e["error"];
  const auto message = text_of(error.value_unsafe(), "message");
  std::string out = "<div class=\"error\" role=\"alert\"><p>" + esc(message) + "</p>";
  // The fix on a line of its own, unless the message ends with it already.
  if (const auto fix = text_of(error.value_unsafe(), "fix");
      !fix.empty() && (message.size() < fix.size() ||
                       message.compare(message.size() - fix.size(), fix.size(), fix) != 0))
    out += "<p class=\"muted\">" + esc(fix) + "</p>";
  return out + "</div>";
}

std::string outcome_class(const std::string& outcome) {
  if (outcome == "success") return "ok";
  if (outcome == "running" || outcome == "interrupted" || outcome == "retry_later") return "warn";
  return "bad";
}

// What a sync's row in the list says of it: running, paused, failing, stuck or idle.
std::string state_of(element s) {
  if (bool_of(s, "stuck")) return "stuck";
  if (bool_of(s, "running")) return "running";
  if (bool_of(s, "paused")) return "paused";
  if (int_of(s, "failures_in_a_row").value_or(0) > 0) return "failing";
  return "idle";
}

std::string run_cell(element run) {
  if (run.is_null()) return "<span class=\"muted\">none yet</span>";
  const auto outcome = text_of(run, "outcome");
  std::string out = "<span class=\"" + outcome_class(outcome) + "\">" + esc(outcome) +
                    "</span> <span class=\"muted\">" + esc(text_of(run, "trigger")) + ", " +
                    utc(int_of(run, "started_at_ms").value_or(0)) + "</span>";
  if (const auto m = text_of(run, "message"); !m.empty() && outcome != "success")
    out += "<br><span class=\"muted\">" + esc(m) + "</span>";
  return out;
}

std::string next_cell(element s) {
  if (bool_of(s, "paused")) return "<span class=\"warn\">paused</span>";
  if (const auto next = int_of(s, "next_run_at_ms")) return esc(utc(*next));
  return "<span class=\"muted\">" + esc(text_of(s, "schedule")) + "</span>";
}

// A JSON object body for the API from form fields (strings).
std::string json_body(const std::vector<std::pair<std::string, std::string>>& fields) {
  JsonWriter w;
  w.begin_object();
  for (const auto& [k, v] : fields) w.field(k, v);
  return w.end_object().str();
}

// The start of a table: its caption, if any, and its header cells. A column named "#Lag"
// holds figures (right-aligned, as "Lag").
std::string table_head(std::initializer_list<std::string_view> columns,
                       std::string_view caption = {}) {
  std::string out = "<table>";
  if (!caption.empty()) out += "<caption class=\"muted\">" + std::string(caption) + "</caption>";
  out += "<thead><tr>";
  for (auto c : columns) {
    const bool figures = !c.empty() && c.front() == '#';
    if (figures) c.remove_prefix(1);
    out += std::string("<th scope=\"col\"") + (figures ? " class=\"num\"" : "") + ">" +
           std::string(c) + "</th>";
  }
  return out + "</tr></thead><tbody>";
}

std::string role_select(const std::string& id, const std::string& chosen) {
  std::string out = "<select id=\"" + id + "\" name=\"role\">";
  for (const char* r : {"viewer", "editor", "admin"})
    out += std::string("<option") + (chosen == r ? " selected" : "") + ">" + r + "</option>";
  return out + "</select>";
}

// A YAML double-quoted scalar of `text` (the form's values go into a manifest as data only).
std::string yaml_quoted(const std::string& text) {
  std::string out = "\"";
  for (const unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// The items of a comma- or newline-separated field, trimmed, empty ones left out.
std::vector<std::string> items_of(const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  for (const char c : text + ",") {
    if (c == ',' || c == '\n' || c == '\r') {
      const auto b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
      if (b != std::string::npos) out.push_back(item.substr(b, e - b + 1));
      item.clear();
    } else {
      item += c;
    }
  }
  return out;
}

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::optional<PageReply> Console::serve(const PageRequest& r) const {
  if (r.path == "/static/console.css") return PageReply{200, kStyle, "text/css", {}};
  if (r.path == "/static/console.js") return PageReply{200, kScript, "text/javascript", {}};
  const bool page = r.path == "/static/console.js" || r.path == "/" || r.path == "/sign-in" ||
                    r.path == "/sign-out" || r.path == "/audit" || r.path == "/users" ||
                    r.path == "/tokens" || r.path == "/sources" || r.path == "/sources/new" ||
                    r.path.rfind("/users/", 0) == 0 || r.path.rfind("/tokens/", 0) == 0 ||
                    r.path == "/syncs" || r.path.rfind("/syncs/", 0) == 0;
  if (!page) return std::nullopt;
  const auto field = [&](const char* name) {
    const auto it = r.form.find(name);
    return it == r.form.end() ? std::string() : it->second;
  };

  if (r.path == "/sign-in") {
    auto form = [&](const std::string& notice, const std::string& name) {
      return layout(
          nullptr, "Sign in to krow",
          notice +
              "<form method=\"post\" action=\"/sign-in\"><label for=\"name\">User name</label>"
              "<input type=\"text\" id=\"name\" name=\"name\" autocomplete=\"username\" required "
              "value=\"" +
              esc(name) +
              "\"><label for=\"password\">Password</label><input type=\"password\" id=\"password\" "
              "name=\"password\" autocomplete=\"current-password\" required><p><button "
              "class=\"primary\" "
              "type=\"submit\">Sign in</button></p></form>");
    };
    if (r.method != "POST") return html(200, form("", ""));
    Access::SignedIn in;
    if (const auto refused = access_.sign_in(field("name"), field("password"), r.address, in)) {
      auto reply =
          html(refused->status,
               form("<div class=\"error\" role=\"alert\">" + esc(refused->message) +
                        (refused->status == 429 ? ": " + esc(refused->fix) : "") + ".</div>",
                    field("name")));
      if (refused->retry_after_s > 0)
        reply.headers.emplace_back("Retry-After", std::to_string(refused->retry_after_s));
      return reply;
    }
    return redirect("/syncs", {{"Set-Cookie", in.set_cookie}});
  }

  // Every other page needs a session.
  Caller caller;
  if (access_.authenticate("", r.cookies, caller)) return redirect("/sign-in");
  if (r.method == "POST" && !same_digest(field("csrf"), caller.csrf)) {
    access_.audit(caller, "console " + r.path, "", "refused: CSRF token missing or wrong",
                  r.address);
    return html(403, layout(&caller, "Refused",
                            "<div class=\"error\" role=\"alert\"><p>This form was not sent from "
                            "this session's page "
                            "(its CSRF token is missing or wrong), so nothing was done.</p><p "
                            "class=\"muted\">Reload "
                            "the page and try again.</p></div>"));
  }
  if (r.path == "/sign-out") {
    if (r.method != "POST") return redirect("/syncs");
    access_.audit(caller, "session.delete", "", "ok", r.address);
    return redirect("/sign-in", {{"Set-Cookie", access_.sign_out(r.cookies)}});
  }
  if (r.path == "/") return redirect("/syncs");
  const auto call = [&](const std::string& method, const std::string& path,
                        const std::string& body = "") {
    return api_(method, path, body, caller, r.address);
  };

  if (r.path == "/syncs") {
    const auto a = call("GET", "/api/v1/syncs");
    if (a.status != 200) return html(a.status, layout(&caller, "Syncs", error_notice(a), "syncs"));
    const auto filter = r.query.count("status") ? r.query.at("status") : std::string("all");
    std::string body;
    if (caller.role >= Role::editor) body += "<p><a href=\"/syncs/new\">New sync</a></p>";
    body += "<p class=\"filters\" aria-label=\"Filter by status\">";
    for (const char* f : {"all", "running", "failing", "paused", "stuck", "idle"})
      body += std::string("<a href=\"/syncs?status=") + f + "\"" +
              (filter == f ? " aria-current=\"true\"" : "") + ">" + f + "</a>";
    body += "</p>" + table_head({"Sync", "Schedule", "Status", "Last run", "#Rows (last run)",
                                 "#Lag", "Next run"},
                                "Hosted syncs");
    simdjson::dom::parser parser;
    array syncs;
    size_t shown = 0;
    if (!parser.parse(a.body).get(syncs))
      for (element s : syncs) {
        const auto state = state_of(s);
        if (filter != "all" && filter != state) continue;
        ++shown;
        const auto id = text_of(s, "id");
        body += "<tr><td><a href=\"/syncs/" + esc(id) + "\">" + esc(id) + "</a></td><td>" +
                esc(text_of(s, "schedule")) + "</td><td><span class=\"" +
                (state == "failing" || state == "stuck" ? "bad"
                 : state == "idle"                      ? "ok"
                                                        : "warn") +
                "\">" + state + "</span></td><td>" + run_cell(s["last_run"].value_unsafe()) +
                "</td><td class=\"num\">" + figure(int_of(s, "rows_last_run")) +
                "</td><td class=\"num\">" + figure(int_of(s, "lag")) + "</td><td>" + next_cell(s) +
                "</td></tr>";
      }
    body += "</tbody></table>";
    if (shown == 0)
      body += "<p class=\"muted\">No sync " +
              (filter == "all" ? std::string("is hosted yet.") : "is " + esc(filter) + ".") +
              "</p>";
    return html(200, layout(&caller, "Syncs", body, "syncs", 10));
  }

  if (r.path == "/users" || r.path.rfind("/users/", 0) == 0) {
    std::string notice;
    if (r.method == "POST") {
      ApiAnswer a;
      if (r.path == "/users") {
        a = call("POST", "/api/v1/users",
                 json_body({{"name", field("name")},
                            {"role", field("role")},
                            {"password", field("password")}}));
      } else {
        const auto rest = r.path.substr(7);
        const auto slash = rest.find('/');
        const auto name = rest.substr(0, slash);
        const auto what = slash == std::string::npos ? "" : rest.substr(slash + 1);
        if (!plain_name(name))
          return html(404, layout(&caller, "No such user", "<p>No such user.</p>"));
        a = what == "delete"
                ? call("DELETE", "/api/v1/users/" + name)
                : call("PUT", "/api/v1/users/" + name, json_body({{"role", field("role")}}));
      }
      if (a.status < 300) return redirect("/users");
      notice = error_notice(a);
    }
    const auto a = call("GET", "/api/v1/users");
    if (a.status != 200) return html(a.status, layout(&caller, "Users", error_notice(a), "users"));
    std::string body = notice + table_head({"User", "Role", "Created", "Change"});
    simdjson::dom::parser parser;
    array users;
    if (!parser.parse(a.body).get(users))
      for (element u : users) {
        const auto name = text_of(u, "name");
        const auto id = "role-" + name;
        body += "<tr><td>" + esc(name) + "</td><td>" + esc(text_of(u, "role")) + "</td><td>" +
                esc(utc(int_of(u, "created_at_ms").value_or(0))) +
                "</td><td><form class=\"inline\" method=\"post\" action=\"/users/" + esc(name) +
                "/role\">" + csrf_field(caller) + "<label class=\"visually-hidden\" for=\"" +
                esc(id) + "\">Role of " + esc(name) + "</label>" +
                role_select(esc(id), text_of(u, "role")) +
                " <button type=\"submit\">Change role</button></form> <form class=\"inline\" "
                "method=\"post\" action=\"/users/" +
                esc(name) + "/delete\">" + csrf_field(caller) +
                "<button class=\"danger\" type=\"submit\">Remove</button></form></td></tr>";
      }
    body += "</tbody></table><h2>Add a user</h2><form method=\"post\" action=\"/users\">" +
            csrf_field(caller) +
            "<label for=\"name\">User name</label><input type=\"text\" id=\"name\" name=\"name\" "
            "required "
            "autocomplete=\"off\"><label for=\"role\">Role</label>" +
            role_select("role", "viewer") +
            "<label for=\"password\">Password (12 characters or more)</label><input "
            "type=\"password\" id=\"password\" "
            "name=\"password\" required minlength=\"12\" autocomplete=\"new-password\"><p><button "
            "class=\"primary\" "
            "type=\"submit\">Add user</button></p></form>";
    return html(200, layout(&caller, "Users", body, "users"));
  }

  if (r.path == "/tokens" || r.path.rfind("/tokens/", 0) == 0) {
    std::string notice;
    if (r.method == "POST") {
      if (r.path == "/tokens") {
        const auto a = call("POST", "/api/v1/tokens",
                            json_body({{"name", field("name")}, {"role", field("role")}}));
        if (a.status != 201) {
          notice = error_notice(a);
        } else {
          // Shown once, on this answer only: the page is not cached (Cache-Control: no-store).
          simdjson::dom::parser parser;
          element made;
          std::string token;
          if (!parser.parse(a.body).get(made)) token = text_of(made, "token");
          return html(
              201,
              layout(&caller, "API token created",
                     "<div class=\"flash\" role=\"status\"><p>Copy the token now: it is not shown "
                     "again (only its digest is kept).</p><p><code>" +
                         esc(token) +
                         "</code></p></div><p><a href=\"/tokens\">Back to the tokens</a></p>",
                     "tokens"));
        }
      } else {
        const auto id =
            r.path.substr(8, r.path.find('/', 8) == std::string::npos ? std::string::npos
                                                                      : r.path.find('/', 8) - 8);
        if (!plain_name(id))
          return html(404, layout(&caller, "No such token", "<p>No such token.</p>"));
        const auto a = call("DELETE", "/api/v1/tokens/" + id);
        if (a.status < 300) return redirect("/tokens");
        notice = error_notice(a);
      }
    }
    const auto a = call("GET", "/api/v1/tokens");
    if (a.status != 200)
      return html(a.status, layout(&caller, "API tokens", error_notice(a), "tokens"));
    std::string body =
        notice + table_head({"Token", "For", "Role", "Created", "Last used", "State"});
    simdjson::dom::parser parser;
    array tokens;
    if (!parser.parse(a.body).get(tokens))
      for (element t : tokens) {
        const auto id = text_of(t, "id");
        const auto used = int_of(t, "last_used_at_ms");
        const bool revoked = int_of(t, "revoked_at_ms").has_value();
        body += "<tr><td><code>" + esc(id) + "</code></td><td>" + esc(text_of(t, "name")) +
                "</td><td>" + esc(text_of(t, "role")) + "</td><td>" +
                esc(utc(int_of(t, "created_at_ms").value_or(0))) + " by " +
                esc(text_of(t, "created_by")) + "</td><td>" + (used ? esc(utc(*used)) : "never") +
                "</td><td>" +
                (revoked ? std::string("<span class=\"bad\">revoked</span>")
                         : "<form class=\"inline\" method=\"post\" action=\"/tokens/" + esc(id) +
                               "/revoke\">" + csrf_field(caller) +
                               "<button class=\"danger\" type=\"submit\">Revoke</button></form>") +
                "</td></tr>";
      }
    body += "</tbody></table><h2>Create a token</h2><form method=\"post\" action=\"/tokens\">" +
            csrf_field(caller) +
            "<label for=\"name\">What it is for</label><input type=\"text\" id=\"name\" "
            "name=\"name\" required "
            "maxlength=\"200\"><label for=\"role\">Role</label>" +
            role_select("role", "viewer") +
            "<p><button class=\"primary\" type=\"submit\">Create token</button></p></form>";
    return html(200, layout(&caller, "API tokens", body, "tokens"));
  }

  if (r.path == "/sources" || r.path == "/sources/new") {
    std::string notice;
    if (r.path == "/sources/new") {
      if (caller.role < Role::editor) return redirect("/sources");
      std::vector<std::pair<std::string, std::string>> fields = {
          {"name", field("name")},
          {"bootstrap_servers", field("bootstrap_servers")},
          {"security_protocol", field("security_protocol")},
          {"sasl_mechanism", field("sasl_mechanism")},
          {"username", field("username")},
          {"password", field("password")},
          {"ca_file", field("ca_file")}};
      if (r.method == "POST") {
        std::string body = json_body(fields);
        if (!field("registry_url").empty()) {
          body.pop_back();
          body += ",\"registry\":" +
                  json_body({{"url", field("registry_url")},
                             {"username", field("registry_username")},
                             {"password", field("registry_password")}}) +
                  "}";
        }
        const auto a = call("POST", "/api/v1/sources", body);
        if (a.status < 300) return redirect("/sources?saved=" + field("name"));
        notice = error_notice(a);
      }
      auto input = [&](const char* name, const char* label, const char* type,
                       const char* extra = "") {
        // Secrets are never sent back into a page: their fields start empty every time.
        const bool secret = std::string(type) == "password";
        return std::string("<label for=\"") + name + "\">" + label + "</label><input type=\"" +
               type + "\" id=\"" + name + "\" name=\"" + name + "\" " + extra +
               (secret ? " autocomplete=\"off\"" : " value=\"" + esc(field(name)) + "\"") + ">";
      };
      auto select = [&](const char* name, const char* label,
                        std::initializer_list<const char*> options) {
        std::string out = std::string("<label for=\"") + name + "\">" + label +
                          "</label><select id=\"" + name + "\" name=\"" + name + "\">";
        for (const char* o : options)
          out += std::string("<option") + (field(name) == o ? " selected" : "") + ">" + o +
                 "</option>";
        return out + "</select>";
      };
      const std::string form =
          notice +
          "<p>The keys are checked against the cluster (and the registry) before anything is "
          "saved; the "
          "secrets are stored encrypted and never shown again.</p><form method=\"post\" "
          "action=\"/sources/new\">" +
          csrf_field(caller) + input("name", "Name", "text", "required") +
          input("bootstrap_servers", "Bootstrap servers (host:port)", "text", "required") +
          select("security_protocol", "Security protocol",
                 {"SASL_SSL", "SASL_PLAINTEXT", "SSL", "PLAINTEXT"}) +
          select("sasl_mechanism", "SASL mechanism", {"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"}) +
          input("username", "API key", "text") + input("password", "API secret", "password") +
          input("ca_file", "CA bundle file on the service's machine (PEM; empty: the system's CAs)",
                "text") +
          "<h2>Schema registry (optional)</h2>" +
          input("registry_url", "Registry URL (https://...)", "text") +
          input("registry_username", "Registry API key", "text") +
          input("registry_password", "Registry API secret", "password") +
          "<p><button class=\"primary\" type=\"submit\">Check and save</button></p></form>";
      return html(notice.empty() ? 200 : 422, layout(&caller, "Connect a source", form, "sources"));
    }
    const auto a = call("GET", "/api/v1/sources");
    if (a.status != 200)
      return html(a.status, layout(&caller, "Sources", error_notice(a), "sources"));
    std::string body;
    if (const auto it = r.query.find("saved"); it != r.query.end())
      body += "<div class=\"flash\" role=\"status\">Source " + esc(it->second) +
              " checked and saved.</div>";
    if (caller.role >= Role::editor) body += "<p><a href=\"/sources/new\">Connect a source</a></p>";
    body += table_head({"Source", "Bootstrap servers", "Cluster", "Registry", "Saved"});
    simdjson::dom::parser parser;
    array sources;
    if (!parser.parse(a.body).get(sources))
      for (element s : sources)
        body += "<tr><td>" + esc(text_of(s, "name")) + "</td><td>" +
                esc(text_of(s, "bootstrap_servers")) + "</td><td>" + esc(text_of(s, "cluster_id")) +
                "</td><td>" + esc(text_of(s, "registry_url")) + "</td><td>" +
                esc(utc(int_of(s, "saved_at_ms").value_or(0))) + "</td></tr>";
    return html(200, layout(&caller, "Sources", body + "</tbody></table>", "sources"));
  }

  if (r.path == "/audit") {
    const auto a = call("GET", "/api/v1/audit?limit=500");
    if (a.status != 200)
      return html(a.status, layout(&caller, "Audit log", error_notice(a), "audit"));
    std::string body = table_head({"When", "Who", "What", "Target", "Outcome", "From"},
                                  "The latest 500 entries, newest first");
    simdjson::dom::parser parser;
    array entries;
    if (!parser.parse(a.body).get(entries))
      for (element e : entries) {
        const auto outcome = text_of(e, "outcome");
        body += "<tr><td>" + esc(utc(int_of(e, "at_ms").value_or(0))) + "</td><td>" +
                esc(text_of(e, "actor")) + "</td><td>" + esc(text_of(e, "action")) + "</td><td>" +
                esc(text_of(e, "target")) + "</td><td><span class=\"" +
                (outcome == "ok" ? "ok" : "bad") + "\">" + esc(outcome) + "</span></td><td>" +
                esc(text_of(e, "address")) + "</td></tr>";
      }
    return html(200, layout(&caller, "Audit log", body + "</tbody></table>", "audit"));
  }

  if (r.path == "/syncs/new") {
    if (caller.role < Role::editor) return redirect("/syncs");
    std::map<std::string, std::string> v = {{"warehouse_type", "duckdb"},
                                            {"topics_kind", "names"},
                                            {"schedule", "every 15m"},
                                            {"duckdb_path", "warehouse.duckdb"},
                                            {"schema", "confluent"}};
    for (const auto& [k, value] : r.form)
      if (k != "csrf") v[k] = value;
    // The manifest the fields make (or the one written out in full).
    auto manifest = [&] {
      if (!v["yaml"].empty()) return v["yaml"];
      std::string y = "name: " + yaml_quoted(v["name"]) +
                      "\nsource:\n  saved: " + yaml_quoted(v["source"]) + "\ntopics:\n  " +
                      (v["topics_kind"] == "prefixes" ? "prefixes"
                       : v["topics_kind"] == "globs"  ? "globs"
                                                      : "names") +
                      ":\n";
      for (const auto& t : items_of(v["topics"])) y += "    - " + yaml_quoted(t) + "\n";
      y += "warehouse:\n  type: " +
           std::string(v["warehouse_type"] == "postgres"   ? "postgres"
                       : v["warehouse_type"] == "bigquery" ? "bigquery"
                                                           : "duckdb") +
           "\n";
      if (v["warehouse_type"] == "postgres")
        y += "  host: " + yaml_quoted(v["pg_host"]) +
             "\n  database: " + yaml_quoted(v["pg_database"]) +
             "\n  user: " + yaml_quoted(v["pg_user"]) + "\n";
      else if (v["warehouse_type"] == "bigquery")
        y += "  project: " + yaml_quoted(v["bq_project"]) + "\n";
      else
        y += "  path: " + yaml_quoted(v["duckdb_path"]) + "\n";
      if (!v["schema"].empty()) y += "  schema: " + yaml_quoted(v["schema"]) + "\n";
      return y;
    };
    std::string notice, plan;
    if (r.method == "POST" && v["yaml"].empty() &&
        (v["source"].empty() || items_of(v["topics"]).empty())) {
      notice =
          "<div class=\"error\" role=\"alert\"><p>Choose a source and name at least one topic (or "
          "write the "
          "whole manifest).</p><p class=\"muted\">No source yet? Connect one under Sources "
          "first.</p></div>";
    } else if (r.method == "POST") {
      const auto yaml = manifest();
      if (v["step"] == "create") {
        const auto a = call("POST", "/api/v1/syncs",
                            json_body({{"manifest", yaml}, {"schedule", v["schedule"]}}));
        if (a.status == 201) {
          simdjson::dom::parser parser;
          element made;
          if (!parser.parse(a.body).get(made)) return redirect("/syncs/" + text_of(made, "id"));
        }
        notice = error_notice(a);
      } else {
        const auto a = call("POST", "/api/v1/plans", json_body({{"manifest", yaml}}));
        simdjson::dom::parser parser;
        element answered;
        if (a.status == 200 && !parser.parse(a.body).get(answered))
          plan =
              "<h2>The plan</h2><p>What the first run would do, as <code>krow plan</code> says "
              "it:</p><pre>" +
              esc(text_of(answered, "plan")) +
              "</pre><form method=\"post\" action=\"/syncs/new\">" + csrf_field(caller);
        else
          notice = error_notice(a);
        if (!plan.empty()) {
          for (const auto& [k, value] : v)
            if (k != "step")
              plan +=
                  "<input type=\"hidden\" name=\"" + esc(k) + "\" value=\"" + esc(value) + "\">";
          plan +=
              "<input type=\"hidden\" name=\"step\" value=\"create\"><p><button class=\"primary\" "
              "type=\"submit\">Create the sync</button></p></form>";
        }
      }
    }
    std::string sources = "<option value=\"\">(choose)</option>";
    {
      const auto a = call("GET", "/api/v1/sources");
      simdjson::dom::parser parser;
      array list;
      if (a.status == 200 && !parser.parse(a.body).get(list))
        for (element s : list) {
          const auto name = text_of(s, "name");
          sources += "<option" + std::string(v["source"] == name ? " selected" : "") + ">" +
                     esc(name) + "</option>";
        }
    }
    auto text_input = [&](const char* name, const char* label, const char* extra = "") {
      return std::string("<label for=\"") + name + "\">" + label +
             "</label><input type=\"text\" id=\"" + name + "\" name=\"" + name + "\" value=\"" +
             esc(v[name]) + "\" " + extra + ">";
    };
    auto choice = [&](const char* name, const char* label,
                      std::initializer_list<std::pair<const char*, const char*>> options) {
      std::string out = std::string("<label for=\"") + name + "\">" + label +
                        "</label><select id=\"" + name + "\" name=\"" + name + "\">";
      for (const auto& [value, text] : options)
        out += std::string("<option value=\"") + value + "\"" +
               (v[name] == value ? " selected" : "") + ">" + text + "</option>";
      return out + "</select>";
    };
    const std::string form =
        notice + plan + "<h2>" + (plan.empty() ? "The sync" : "Change it") +
        "</h2><form method=\"post\" action=\"/syncs/new\">" + csrf_field(caller) +
        text_input("name", "Sync ID (letters, digits, . _ -)", "required") +
        "<label for=\"source\">Source (connected under Sources)</label><select id=\"source\" "
        "name=\"source\">" +
        sources + "</select>" +
        choice("topics_kind", "Topics by",
               {{"names", "names"}, {"prefixes", "prefixes"}, {"globs", "patterns (*, ?)"}}) +
        "<label for=\"topics\">Topics (comma or line separated)</label><textarea id=\"topics\" "
        "name=\"topics\" rows=\"3\">" +
        esc(v["topics"]) + "</textarea>" +
        choice("warehouse_type", "Warehouse",
               {{"duckdb", "DuckDB file"}, {"postgres", "PostgreSQL"}, {"bigquery", "BigQuery"}}) +
        text_input("duckdb_path", "DuckDB file (relative to the service's API manifests folder)") +
        text_input("pg_host", "PostgreSQL host") +
        text_input("pg_database", "PostgreSQL database") +
        text_input("pg_user", "PostgreSQL user") + text_input("bq_project", "BigQuery project") +
        text_input("schema", "Schema (BigQuery: dataset)") +
        text_input("schedule", "Schedule (manual, continuous, every 15m, cron 0 */6 * * *)",
                   "required") +
        "<details><summary>Or write the whole manifest (YAML)</summary><label "
        "for=\"yaml\">Manifest</label>"
        "<textarea id=\"yaml\" name=\"yaml\" rows=\"12\" cols=\"80\">" +
        esc(v["yaml"]) +
        "</textarea></details>"
        "<input type=\"hidden\" name=\"step\" value=\"plan\"><p><button class=\"primary\" "
        "type=\"submit\">Show the plan"
        "</button></p></form>";
    return html(notice.empty() ? 200 : 422, layout(&caller, "New sync", form, "syncs"));
  }

  // /syncs/ID[/run|/resync|/pause|/resume|/runs/RUN]
  std::vector<std::string> parts;
  std::stringstream split(r.path.substr(7));
  for (std::string p; std::getline(split, p, '/');) parts.push_back(p);
  if (parts.empty() || !plain_name(parts[0]))
    return html(404, layout(&caller, "No such page", "<p>No such sync.</p>"));
  const auto& id = parts[0];
  const std::string base = "/syncs/" + id;

  if (parts.size() == 2 &&
      (parts[1] == "run" || parts[1] == "resync" || parts[1] == "pause" || parts[1] == "resume")) {
    const auto& action = parts[1];
    if (r.method != "POST") {
      if (action != "resync") return redirect(base);
      // A full resync says what it does before it is done.
      return html(
          200,
          layout(
              &caller, "Full resync of " + id,
              "<p>A full resync reads every partition of this sync again from the start of its log "
              "(as far back as Kafka still retains), decodes every message again and replaces the "
              "rows of the same id. It never removes rows. Use it after adding schema registry "
              "credentials, so that messages stored as decode errors are decoded.</p><p>It runs "
              "now, as one run; the schedule goes on as before.</p><form method=\"post\" "
              "action=\"" +
                  esc(base) + "/resync\">" + csrf_field(caller) +
                  "<button class=\"primary\" type=\"submit\">Start the full resync</button> <a "
                  "href=\"" +
                  esc(base) + "\">Cancel</a></form>"));
    }
    const auto a = call("POST", "/api/v1/syncs/" + id + "/" + action);
    if (a.status >= 300)
      return html(a.status, layout(&caller, "Sync " + id,
                                   error_notice(a) + "<p><a href=\"" + esc(base) +
                                       "\">Back to the sync</a></p>"));
    return redirect(base + "?done=" + action);
  }

  if (parts.size() == 2 && parts[1] == "edit") {
    const auto saved = call("GET", "/api/v1/syncs/" + id + "/manifest");
    if (saved.status != 200)
      return html(saved.status, layout(&caller, "Change sync " + id, error_notice(saved), "syncs"));
    simdjson::dom::parser parser;
    element doc;
    if (parser.parse(saved.body).get(doc))
      return html(500, layout(&caller, "Change sync " + id, "<p>Unreadable manifest.</p>"));
    if (!bool_of(doc, "editable"))
      return html(409, layout(&caller, "Change sync " + id,
                              "<div class=\"error\" role=\"alert\"><p>This sync is defined in "
                              "the service's config file: change its manifest there and restart "
                              "the service.</p></div><p><a href=\"" +
                                  esc(base) + "\">Back to the sync</a></p>",
                              "syncs"));
    // Passwords come masked and go back masked: the service keeps the saved ones.
    const auto yaml = r.method == "POST" ? field("yaml") : text_of(doc, "manifest");
    const auto schedule = r.method == "POST" ? field("schedule") : text_of(doc, "schedule");
    std::string notice, plan;
    if (r.method == "POST" && field("step") == "save") {
      const auto a = call("PUT", "/api/v1/syncs/" + id,
                          json_body({{"manifest", yaml}, {"schedule", schedule}}));
      if (a.status == 200) return redirect(base + "?done=edit");
      notice = error_notice(a);
    } else if (r.method == "POST") {
      const auto a = call("POST", "/api/v1/plans", json_body({{"manifest", yaml}, {"sync", id}}));
      element answered;
      if (a.status == 200 && !parser.parse(a.body).get(answered))
        plan =
            "<h2>The plan</h2><p>What the next run would do, as <code>krow plan</code> says "
            "it:</p><pre>" +
            esc(text_of(answered, "plan")) + "</pre><form method=\"post\" action=\"" + esc(base) +
            "/edit\">" + csrf_field(caller) + "<input type=\"hidden\" name=\"yaml\" value=\"" +
            esc(yaml) + "\"><input type=\"hidden\" name=\"schedule\" value=\"" + esc(schedule) +
            "\"><input type=\"hidden\" name=\"step\" value=\"save\"><p><button "
            "class=\"primary\" type=\"submit\">Save the changes</button> <a href=\"" +
            esc(base) + "\">Cancel</a></p></form>";
      else
        notice = error_notice(a);
    }
    const std::string form =
        notice + plan + "<h2>" + (plan.empty() ? "The sync" : "Change it again") +
        "</h2><form method=\"post\" action=\"" + esc(base) + "/edit\">" + csrf_field(caller) +
        "<label for=\"schedule\">Schedule (manual, continuous, every 15m, cron 0 */6 * * *)</label>"
        "<input type=\"text\" id=\"schedule\" name=\"schedule\" required value=\"" +
        esc(schedule) +
        "\"><label for=\"yaml\">Manifest (its name is the sync ID and stays; a password shows "
        "as a mask: leave it to keep the saved one)</label><textarea id=\"yaml\" name=\"yaml\" "
        "rows=\"16\" cols=\"80\">" +
        esc(yaml) +
        "</textarea><input type=\"hidden\" name=\"step\" value=\"plan\"><p><button "
        "class=\"primary\" type=\"submit\">Show the plan</button> <a href=\"" +
        esc(base) + "\">Cancel</a></p></form>";
    return html(notice.empty() ? 200 : 422, layout(&caller, "Change sync " + id, form, "syncs"));
  }

  if (parts.size() == 3 && parts[1] == "runs") {
    if (!plain_name(parts[2]))
      return html(404, layout(&caller, "No such run", "<p>No such run.</p>"));
    const auto a = call("GET", "/api/v1/syncs/" + id + "/runs/" + parts[2] + "/summary");
    if (a.status != 200) return html(a.status, layout(&caller, "Run " + parts[2], error_notice(a)));
    return html(200, layout(&caller, "Run " + parts[2] + " of " + id,
                            "<p><a href=\"" + esc(base) +
                                "\">Back to the sync</a> · <a href=\"/api/v1/syncs/" + esc(id) +
                                "/runs/" + esc(parts[2]) +
                                "\">the full record (JSON)</a></p><pre>" + esc(a.body) + "</pre>"));
  }
  if (parts.size() != 1) return html(404, layout(&caller, "No such page", "<p>No such page.</p>"));

  const auto a = call("GET", "/api/v1/syncs/" + id + "/status");
  if (a.status != 200)
    return html(a.status, layout(&caller, "Sync " + id, error_notice(a), "syncs"));
  simdjson::dom::parser parser;
  element doc;
  if (parser.parse(a.body).get(doc))
    return html(500, layout(&caller, "Sync " + id, "<p>Unreadable status.</p>"));
  const element service = doc["service"].value_unsafe();
  std::string body;
  if (const auto it = r.query.find("done"); it != r.query.end()) {
    const std::map<std::string, std::string> said = {
        {"run", "A run has started."},
        {"resync", "The full resync has started."},
        {"pause", "The sync is paused: no run starts until it is resumed."},
        {"resume", "The sync is resumed."},
        {"edit", "The changes are saved: the next run follows them."}};
    if (const auto s = said.find(it->second); s != said.end())
      body += "<div class=\"flash\" role=\"status\">" + esc(s->second) + "</div>";
  }
  if (caller.role == Role::admin) {
    const bool paused = bool_of(service, "paused");
    body += "<details class=\"actions\"><summary>Actions</summary><div class=\"menu\">";
    body += "<form class=\"inline\" method=\"post\" action=\"" + esc(base) + "/run\">" +
            csrf_field(caller) + "<button type=\"submit\">Run now</button></form>";
    body += "<a href=\"" + esc(base) + "/resync\">Full resync…</a>";
    body += "<form class=\"inline\" method=\"post\" action=\"" + esc(base) +
            (paused ? "/resume" : "/pause") + "\">" + csrf_field(caller) +
            "<button type=\"submit\">" + (paused ? "Resume" : "Pause") + "</button></form>";
    body += "</div></details>";
  }
  if (caller.role >= Role::editor && text_of(service, "origin") == "api")
    body += " <a href=\"" + esc(base) + "/edit\">Change the sync</a>";
  const auto status = doc["status"];
  body += "<dl class=\"facts\"><dt>Schedule</dt><dd>" + esc(text_of(service, "schedule")) +
          "</dd><dt>State</dt><dd>" + state_of(service) + "</dd><dt>Next run</dt><dd>" +
          next_cell(service) + "</dd><dt>Last run</dt><dd>" +
          run_cell(service["last_run"].value_unsafe()) + "</dd><dt>Consumer group</dt><dd><code>" +
          esc(text_of(doc, "consumer_group")) +
          "</code> <span class=\"muted\">(its offsets are this sync's positions: look it up in "
          "Confluent Cloud's "
          "Clients page)</span></dd>";
  if (!status.is_null() && !status.error())
    body += "<dt>Warehouse</dt><dd>" + esc(text_of(status.value_unsafe(), "warehouse")) + "</dd>";
  body += "<dt>Manifest</dt><dd><code>" + esc(text_of(service, "manifest")) + "</code></dd></dl>";
  if (const auto e = text_of(doc, "status_error"); !e.empty())
    body += "<div class=\"error\" role=\"alert\">Positions and lag are not available: " + esc(e) +
            "</div>";
  if (!status.is_null() && !status.error()) {
    const element st = status.value_unsafe();
    if (!bool_of(st, "cluster_reachable"))
      body += "<div class=\"error\" role=\"alert\">The cluster did not answer: " +
              esc(text_of(st, "cluster_unreachable_reason")) +
              " (positions are shown without lag).</div>";
    array stopped;
    if (!st["stopped_tables"].get(stopped) && stopped.size() > 0) {
      body += "<h2>Stopped tables</h2>" + table_head({"Topic", "Table", "Why, and the fix"});
      for (element s : stopped)
        body += "<tr><td>" + esc(text_of(s, "topic")) + "</td><td>" + esc(text_of(s, "table")) +
                "</td><td>" + esc(text_of(s, "error")) + "</td></tr>";
      body += "</tbody></table>";
    }
    array positions;
    int64_t total_lag = 0;
    std::string rows;
    size_t count = 0;
    struct TableFigures {
      int64_t partitions = 0;
      std::optional<int64_t> lag;
    };
    std::map<std::pair<std::string, std::string>, TableFigures> tables;  // by (table, topic)
    if (!st["positions"].get(positions))
      for (element p : positions) {
        ++count;
        const auto lag = int_of(p, "lag");
        total_lag += lag.value_or(0);
        const auto lso = int_of(p, "last_stable_offset");
        rows += "<tr><td>" + esc(text_of(p, "topic")) + "</td><td>" + esc(text_of(p, "table")) +
                "</td><td class=\"num\">" + std::to_string(int_of(p, "partition").value_or(0)) +
                "</td><td class=\"num\">" + thousands(int_of(p, "position").value_or(0)) +
                "</td><td class=\"num\">" + figure(lso) + "</td><td class=\"num\">" + figure(lag) +
                "</td></tr>";
        auto& t = tables[{text_of(p, "table"), text_of(p, "topic")}];
        ++t.partitions;
        if (lag) t.lag = t.lag.value_or(0) + *lag;
      }
    if (!tables.empty()) {
      body += "<h2>Tables</h2>" + table_head({"Table", "Topic", "#Partitions", "#Lag"});
      for (const auto& [names, t] : tables)
        body += "<tr><td>" + esc(names.first) + "</td><td>" + esc(names.second) +
                "</td><td class=\"num\">" + thousands(t.partitions) + "</td><td class=\"num\">" +
                figure(t.lag) + "</td></tr>";
      body += "</tbody></table>";
    }
    body += "<h2>Partitions</h2><p>" + thousands(static_cast<int64_t>(count)) + " partition" +
            (count == 1 ? "" : "s") + ", total lag <strong>" + thousands(total_lag) +
            "</strong> message" + (total_lag == 1 ? "" : "s") + ".</p>";
    if (count > 0)
      body +=
          table_head({"Topic", "Table", "#Partition", "#Position", "#Last stable offset", "#Lag"}) +
          rows + "</tbody></table>";
    else
      body += "<p class=\"muted\">No committed position yet: the first run will make them.</p>";
    array workers;
    if (!st["workers"].get(workers) && workers.size() > 0) {
      body += "<h2>Workers</h2>" + table_head({"Worker", "Host", "#Partitions", "Last heartbeat"});
      for (element w : workers)
        body += "<tr><td>" + esc(text_of(w, "worker_id")) + "</td><td>" + esc(text_of(w, "host")) +
                "</td><td class=\"num\">" + std::to_string(int_of(w, "partitions").value_or(0)) +
                "</td><td>" + esc(text_of(w, "heartbeat_at")) + "</td></tr>";
      body += "</tbody></table>";
    }
    array runs;
    const bool have_runs = !st["runs"].get(runs);
    if (have_runs && runs.size() == 0) {
      body += "<h2>Recent runs</h2><p class=\"muted\">No run yet.</p>";
    } else if (have_runs) {
      body += "<h2>Recent runs</h2>" +
              table_head({"Run", "Outcome", "Started", "#Messages", "#Rows", "#Decode errors"});
      for (element run : runs) {
        const auto run_id = text_of(run, "run_id");
        const auto outcome = text_of(run, "status");
        body += "<tr><td><a href=\"" + esc(base) + "/runs/" + esc(run_id) + "\">" + esc(run_id) +
                "</a></td><td><span class=\"" + outcome_class(outcome) + "\">" + esc(outcome) +
                "</span></td><td>" + esc(utc(int_of(run, "started_at_ms").value_or(0))) +
                "</td><td class=\"num\">" + thousands(int_of(run, "messages").value_or(0)) +
                "</td><td class=\"num\">" + thousands(int_of(run, "rows_published").value_or(0)) +
                "</td><td class=\"num\">" + thousands(int_of(run, "decode_errors").value_or(0)) +
                "</td></tr>";
      }
      body += "</tbody></table>";
    }
  }
  return html(200, layout(&caller, "Sync " + id, body, "syncs", 5));
}

}  // namespace krow::serve
