#include "serve/api.hpp"

#include <httplib.h>
#include <simdjson.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <regex>
#include <thread>

#include "connect/connect.hpp"
#include "engines/engines.hpp"
#include "kafka/client.hpp"
#include "manifest/manifest.hpp"
#include "manifest/saved_source.hpp"
#include "metrics/metrics_endpoint.hpp"
#include "report/run_artifacts.hpp"
#include "report/run_summary.hpp"
#include "report/status.hpp"
#include "secrets/credentials.hpp"
#include "secrets/secret_store.hpp"
#include "serve/access.hpp"
#include "serve/child.hpp"
#include "serve/console.hpp"
#include "serve/manifest_secrets.hpp"
#include "util/error.hpp"
#include "util/json_writer.hpp"

namespace krow::serve {

namespace {

constexpr size_t kMaxBody = 1 << 20;  // 1 MiB: a manifest is a few KiB
constexpr size_t kMinPassword = 12;

// What a handler answers.
struct Reply {
  int status = 200;
  std::string body;
  std::string type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
};

Reply json_reply(int status, std::string body) {
  return Reply{status, std::move(body), "application/json", {}};
}

// {"error": {"code", "message", "fix"}}: `message` is the whole sentence, `fix` its fix alone.
Reply error_reply(int status, const std::string& code, const std::string& message,
                  const std::string& fix = "") {
  JsonWriter w;
  w.begin_object().key("error").begin_object().field("code", code).field("message", message);
  w.field("fix", fix).end_object().end_object();
  return json_reply(status, w.str());
}

Reply error_reply(int status, const std::string& code, const Error& e) {
  return error_reply(status, code, e.what(), e.fix());
}

// The request's JSON object body, its keys checked against `allowed`.
class Body {
 public:
  Body(const std::string& text, std::initializer_list<const char*> allowed) {
    if (text.empty())
      throw error_reply(400, "bad_request", "the request has no body: send a JSON object");
    if (parser_.parse(text).get(object_))
      throw error_reply(
          400, "bad_request",
          "the request body is not a JSON object: send one, as docs/openapi.yaml shows");
    for (auto field : object_) {
      const std::string key(field.key);
      if (std::find_if(allowed.begin(), allowed.end(), [&](const char* a) { return key == a; }) ==
          allowed.end()) {
        std::string list;
        for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        throw error_reply(422, "unknown_field",
                          "unknown field '" + key + "'; this request takes " + list);
      }
    }
  }
  std::optional<std::string> text(const char* key) const {
    simdjson::dom::element e;
    if (object_.at_key(key).get(e)) return std::nullopt;
    std::string_view v;
    if (e.get(v)) throw error_reply(422, "bad_field", std::string("'") + key + "' is a string");
    return std::string(v);
  }
  std::string required(const char* key) const {
    auto v = text(key);
    if (!v || v->empty())
      throw error_reply(422, "missing_field", std::string("'") + key + "' is required");
    return *v;
  }
  std::optional<bool> flag(const char* key) const {
    simdjson::dom::element e;
    if (object_.at_key(key).get(e)) return std::nullopt;
    bool v = false;
    if (e.get(v))
      throw error_reply(422, "bad_field", std::string("'") + key + "' is true or false");
    return v;
  }
  std::optional<int64_t> number(const char* key) const {
    simdjson::dom::element e;
    if (object_.at_key(key).get(e)) return std::nullopt;
    int64_t v = 0;
    if (e.get(v)) throw error_reply(422, "bad_field", std::string("'") + key + "' is an integer");
    return v;
  }
  std::optional<simdjson::dom::object> object(const char* key) const {
    simdjson::dom::element e;
    simdjson::dom::object o;
    if (object_.at_key(key).get(e)) return std::nullopt;
    if (e.get(o)) throw error_reply(422, "bad_field", std::string("'") + key + "' is an object");
    return o;
  }

 private:
  simdjson::dom::parser parser_;
  simdjson::dom::object object_;
};

std::string member_text(simdjson::dom::object o, const char* key) {
  std::string_view v;
  if (o.at_key(key).get(v)) return {};
  return std::string(v);
}

void write_number(JsonWriter& w, const char* key, std::optional<int64_t> n) {
  w.key(key);
  if (n)
    w.value(*n);
  else
    w.null();
}

void write_time(JsonWriter& w, const char* key, std::optional<int64_t> ms) {
  write_number(w, key, ms);
}

void write_run(JsonWriter& w, const ServedRun& r) {
  w.begin_object().field("trigger", r.trigger).field("started_at_ms", r.started_ms);
  write_time(w, "ended_at_ms", r.ended_ms);
  w.field("outcome", r.outcome.empty() ? std::string("running") : r.outcome);
  w.key("exit_code");
  if (r.exit_code)
    w.value(*r.exit_code);
  else
    w.null();
  w.field("message", r.message).end_object();
}

// `more` writes more members into the sync's object.
void write_sync(JsonWriter& w, const SyncStatusView& s, const std::function<void()>& more = {}) {
  w.begin_object().field("id", s.id).field("schedule", s.schedule).field("manifest", s.manifest);
  w.field("origin", s.from_api ? "api" : "config")
      .field("paused", s.paused)
      .field("running", s.running);
  w.field("stuck", s.stuck).field("failures_in_a_row", s.failures);
  write_time(w, "next_run_at_ms",
             s.next_due
                 ? std::optional<int64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                              s.next_due->time_since_epoch())
                                              .count())
                 : std::nullopt);
  w.key("current_run");
  if (s.current)
    write_run(w, *s.current);
  else
    w.null();
  w.key("last_run");
  if (s.last)
    write_run(w, *s.last);
  else
    w.null();
  if (more) more();
  w.end_object();
}

void write_user(JsonWriter& w, const User& u) {
  w.begin_object()
      .field("name", u.name)
      .field("role", role_name(u.role))
      .field("created_at_ms", u.created_ms);
  w.end_object();
}

void write_token(JsonWriter& w, const ApiToken& t) {
  w.begin_object().field("id", t.id).field("name", t.name).field("role", role_name(t.role));
  w.field("created_by", t.created_by).field("created_at_ms", t.created_ms);
  write_time(w, "last_used_at_ms", t.last_used_ms);
  write_time(w, "revoked_at_ms", t.revoked_ms);
  w.end_object();
}

// A path of the API against a route's template: the values of its {names}, or none.
std::optional<std::map<std::string, std::string>> match(const std::string& templ,
                                                        const std::string& path) {
  std::map<std::string, std::string> values;
  size_t t = 0, p = 0;
  while (t < templ.size() && p <= path.size()) {
    if (templ[t] == '{') {
      const auto close = templ.find('}', t);
      const auto end = path.find('/', p);
      const auto value = path.substr(p, end == std::string::npos ? std::string::npos : end - p);
      if (value.empty()) return std::nullopt;
      values[templ.substr(t + 1, close - t - 1)] = value;
      t = close + 1;
      p = end == std::string::npos ? path.size() : end;
      continue;
    }
    if (p >= path.size() || templ[t] != path[p]) return std::nullopt;
    ++t;
    ++p;
  }
  if (t != templ.size() || p != path.size()) return std::nullopt;
  return values;
}

}  // namespace

const std::vector<ApiRoute>& api_routes() {
  static const std::vector<ApiRoute> routes = {
      {"GET", "/livez", true, Role::viewer, ""},
      {"GET", "/readyz", true, Role::viewer, ""},
      {"GET", "/metrics", true, Role::viewer, ""},
      {"POST", "/api/v1/sessions", true, Role::viewer, "session.create"},
      {"DELETE", "/api/v1/sessions/current", false, Role::viewer, "session.delete"},
      {"GET", "/api/v1/me", false, Role::viewer, ""},
      {"GET", "/api/v1/syncs", false, Role::viewer, ""},
      {"POST", "/api/v1/syncs", false, Role::editor, "sync.create"},
      {"GET", "/api/v1/syncs/{sync}", false, Role::viewer, ""},
      {"PUT", "/api/v1/syncs/{sync}", false, Role::editor, "sync.update"},
      {"DELETE", "/api/v1/syncs/{sync}", false, Role::editor, "sync.delete"},
      {"GET", "/api/v1/syncs/{sync}/manifest", false, Role::editor, ""},
      {"GET", "/api/v1/syncs/{sync}/status", false, Role::viewer, ""},
      {"POST", "/api/v1/syncs/{sync}/run", false, Role::admin, "sync.run"},
      {"POST", "/api/v1/syncs/{sync}/resync", false, Role::admin, "sync.resync"},
      {"POST", "/api/v1/syncs/{sync}/pause", false, Role::admin, "sync.pause"},
      {"POST", "/api/v1/syncs/{sync}/resume", false, Role::admin, "sync.resume"},
      {"GET", "/api/v1/syncs/{sync}/runs", false, Role::viewer, ""},
      {"GET", "/api/v1/syncs/{sync}/runs/{run}", false, Role::viewer, ""},
      {"GET", "/api/v1/syncs/{sync}/runs/{run}/summary", false, Role::viewer, ""},
      {"POST", "/api/v1/plans", false, Role::editor, "sync.plan"},
      {"GET", "/api/v1/sources", false, Role::viewer, ""},
      {"POST", "/api/v1/sources", false, Role::editor, "source.connect"},
      {"GET", "/api/v1/users", false, Role::admin, ""},
      {"POST", "/api/v1/users", false, Role::admin, "user.create"},
      {"PUT", "/api/v1/users/{user}", false, Role::admin, "user.update"},
      {"DELETE", "/api/v1/users/{user}", false, Role::admin, "user.delete"},
      {"GET", "/api/v1/tokens", false, Role::admin, ""},
      {"POST", "/api/v1/tokens", false, Role::admin, "token.create"},
      {"DELETE", "/api/v1/tokens/{token}", false, Role::admin, "token.revoke"},
      {"GET", "/api/v1/audit", false, Role::admin, ""},
  };
  return routes;
}

std::pair<std::string, ApiToken> new_token(const std::string& name, Role role,
                                           const std::string& created_by) {
  ApiToken t;
  t.id = secret_digest(random_secret(16)).substr(0, 10);
  const auto secret = random_secret(32);
  t.name = name;
  t.role = role;
  t.digest = secret_digest(secret);
  t.created_by = created_by;
  t.created_ms = now_ms();
  return {"krow_" + t.id + "_" + secret, t};
}

bool valid_user_name(const std::string& name) {
  return plain_name(name, 64);
}

struct ApiServer::Handler {
  const ServeConfig& config;
  ServeStore& store;
  Scheduler& scheduler;
  std::function<std::string()> metrics;
  const std::atomic<bool>& ready;
  Access access;
  Console console{
      access, [this](const std::string& method, const std::string& path, const std::string& body,
                     const Caller& caller, const std::string& address) {
        return call(method, path, body, caller, address);
      }};
  // A connected Kafka client per source (syncs of one cluster and key share it) whose syncs'
  // status was asked for, kept while asked again within kClientIdle: a new client's first
  // round trips are most of a status's time.
  struct CachedClient {
    std::unique_ptr<kafka::Client> client;
    std::mutex mu;  // one status at a time per client
    Clock::time_point used;
  };
  static constexpr std::chrono::minutes kClientIdle{5};
  std::mutex clients_mu;
  std::map<std::string, std::shared_ptr<CachedClient>> clients;

  std::shared_ptr<CachedClient> client_for(const Manifest& m) {
    const auto& s = m.source;
    const auto settings = s.bootstrap_servers + "|" + s.security_protocol + "|" + s.sasl_mechanism + "|" +
                          s.username + "|" + secret_digest(s.password.reveal()) + "|" + s.ca_file + "|" +
                          (s.verify_certificates ? "1" : "0");
    std::lock_guard lock(clients_mu);
    const auto now = Clock::now();
    for (auto it = clients.begin(); it != clients.end();)
      it = now - it->second->used > kClientIdle && it->first != settings ? clients.erase(it) : std::next(it);
    auto& entry = clients[settings];  // the secret as its digest
    if (!entry) entry = std::make_shared<CachedClient>();
    entry->used = now;
    return entry;
  }

  // What the cluster says of a sync's partitions, through its cached client.
  ClusterView cluster_view(const Manifest& manifest, StateStore& warehouse) {
    const auto cached = client_for(manifest);
    ClusterView cluster;
    std::lock_guard lock(cached->mu);
    if (!cached->client) {
      try {
        auto client = std::make_unique<kafka::Client>(manifest.source, kafka::ClientOptions{});
        client->check_connection(
            std::chrono::seconds(std::min(manifest.source.connect_timeout_s, 10)));
        cached->client = std::move(client);
      } catch (const Error& e) {
        cluster.why_not = e.what();
        return cluster;
      }
    }
    cluster = view_cluster(manifest, warehouse, *cached->client);
    if (!cluster.reachable) cached->client.reset();  // a new one next time
    return cluster;
  }

  // Each sync's lag and last run's rows as last looked up, for the list of syncs, which looks
  // again when they are older than kFiguresAge.
  struct Figures {
    std::optional<int64_t> lag, rows_last_run;
    int64_t at_ms = 0;
    // When the sync's last run (as the service saw it) ended, then: a new run, a new look.
    std::optional<int64_t> last_run_ended_ms;
  };
  static constexpr int64_t kFiguresAge_ms = 15000;
  std::mutex figures_mu;
  std::map<std::string, Figures> figures;

  void know(const SyncStatusView& s, const Manifest& manifest, StateStore& warehouse,
            const ClusterView& cluster) {
    Figures f;
    if (s.last) f.last_run_ended_ms = s.last->ended_ms;
    f.lag = total_lag(manifest, warehouse, cluster);
    for (const auto& run : warehouse.runs(manifest.name, 1)) {
      simdjson::dom::parser parser;
      int64_t rows = 0;
      if (!parser.parse(run.json)["rows_published"].get(rows)) f.rows_last_run = rows;
    }
    f.at_ms = now_ms();
    std::lock_guard lock(figures_mu);
    figures[s.id] = f;
  }

  // The figures known of each of `syncs` (none yet for some); those older than kFiguresAge,
  // or from before the sync's last run, are looked up again in the background: a cluster
  // that does not answer keeps no list waiting.
  std::vector<Figures> figures_of(const std::vector<SyncStatusView>& syncs) {
    std::vector<Figures> out;
    std::vector<SyncStatusView> stale;
    {
      std::lock_guard lock(figures_mu);
      for (const auto& s : syncs) {
        const auto it = figures.find(s.id);
        out.push_back(it == figures.end() ? Figures{} : it->second);
        if (it == figures.end() || now_ms() - it->second.at_ms >= kFiguresAge_ms ||
            it->second.last_run_ended_ms != (s.last ? s.last->ended_ms : std::nullopt))
          stale.push_back(s);
      }
    }
    if (!stale.empty()) look_again(std::move(stale));
    return out;
  }

  std::mutex look_mu;
  std::thread looker;  // one look at a time
  bool looking = false;
  std::atomic<bool> stopping{false};

  void look_again(std::vector<SyncStatusView> syncs) {
    std::lock_guard lock(look_mu);
    if (looking) return;
    if (looker.joinable()) looker.join();  // done already
    looking = true;
    looker = std::thread([this, syncs = std::move(syncs)] {
      for (const auto& s : syncs) {
        if (stopping) break;
        try {
          auto manifest = load_manifest(s.manifest);
          resolve_saved_source(manifest);
          auto warehouse = open_warehouse(manifest.warehouse, manifest.name, OpenMode::read_only);
          know(s, manifest, *warehouse, cluster_view(manifest, *warehouse));
        } catch (const std::exception&) {
          // A warehouse busy, away or not made yet: the figures known before, and another
          // look once they are old again.
          std::lock_guard lock(figures_mu);
          auto& f = figures[s.id];
          f.at_ms = now_ms();
          f.last_run_ended_ms = s.last ? s.last->ended_ms : std::nullopt;
        }
      }
      std::lock_guard done(look_mu);
      looking = false;
    });
  }

  ~Handler() {
    stopping = true;
    std::thread last;
    {
      std::lock_guard lock(look_mu);
      last = std::move(looker);
    }
    if (last.joinable()) last.join();
  }

  using Values = std::map<std::string, std::string>;

  void serve(const httplib::Request& req, httplib::Response& res) {
    const auto began = std::chrono::steady_clock::now();
    Reply reply;
    try {
      if (auto page = console_page(req)) {
        reply = std::move(*page);
        // Pages load the console's stylesheet and script, fetch themselves and post their forms
        // here; nothing else.
        res.headers.erase("Content-Security-Policy");
        res.set_header(
            "Content-Security-Policy",
            "default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; "
            "img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
      } else {
        reply = dispatch(req);
      }
    } catch (const Reply& r) {
      reply = r;
    } catch (const Error& e) {
      reply = error_reply(500, "internal", e);
    } catch (const std::exception& e) {
      reply = error_reply(500, "internal",
                          std::string("the service failed on this request: ") + e.what(),
                          "see the service's log; the request changed nothing it did not answer");
    }
    res.status = reply.status;
    for (const auto& [k, v] : reply.headers) res.set_header(k, v);
    res.set_content(reply.body, reply.type + "; charset=utf-8");
    // The time the service spent on the request (W3C Server-Timing), for clients and the
    // benchmark (bench/serve.py).
    char timing[48];
    std::snprintf(timing, sizeof timing, "app;dur=%.3f",
                  std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count());
    res.set_header("Server-Timing", timing);
  }

  static void secure_headers(httplib::Response& res) {
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_header("Cache-Control", "no-store");
    res.set_header("X-Frame-Options", "DENY");
    res.set_header("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'");
    res.set_header("Referrer-Policy", "no-referrer");
  }

  void audit(const Caller& c, const std::string& action, const std::string& target,
             const std::string& outcome, const std::string& address) {
    access.audit(c, action, target, outcome, address);
  }

  std::optional<Reply> console_page(const httplib::Request& req) {
    PageRequest page{req.method, req.path, {}, {}, req.get_header_value("Cookie"), req.remote_addr};
    for (const auto& [k, v] : req.params) page.query.emplace(k, v);
    if (req.method == "POST" &&
        req.get_header_value("Content-Type").rfind("application/x-www-form-urlencoded", 0) == 0) {
      httplib::Params form;
      httplib::detail::parse_query_text(req.body, form);
      for (const auto& [k, v] : form) page.form.emplace(k, v);
    }
    auto answer = console.serve(page);
    if (!answer) return std::nullopt;
    Reply r{answer->status, std::move(answer->body), answer->type, std::move(answer->headers)};
    return r;
  }

  Reply dispatch(const httplib::Request& req) {
    const ApiRoute* route = nullptr;
    Values values;
    bool path_known = false;
    for (const auto& r : api_routes()) {
      auto m = match(r.path, req.path);
      if (!m) continue;
      path_known = true;
      if (r.method == req.method) {
        route = &r;
        values = std::move(*m);
        break;
      }
    }
    if (!route) {
      if (path_known)
        return error_reply(405, "method_not_allowed",
                           req.method + " is not a method of " + req.path,
                           "see docs/openapi.yaml for the methods of each route");
      return error_reply(
          404, "not_found", "no such route: " + req.path,
          "the API is under /api/v1 (docs/openapi.yaml); health at /livez and /readyz");
    }
    for (const auto& [name, value] : values)
      if (!plain_name(value))
        return error_reply(
            404, "not_found", "no " + name + " of that name",
            "names are letters, digits, '.', '_', '-' and '@', starting with a letter or digit");
    Caller caller;
    if (!route->open) {
      if (auto refused = authenticate(req, caller)) {
        audit(caller, route->action.empty() ? "read " + route->path : route->action,
              target_of(values), "refused: " + std::to_string(refused->status), req.remote_addr);
        return *refused;
      }
      if (caller.session && req.method != "GET" &&
          !same_digest(req.get_header_value("X-CSRF-Token"), caller.csrf)) {
        audit(caller, route->action, target_of(values), "refused: CSRF token missing or wrong",
              req.remote_addr);
        return error_reply(
            403, "csrf", "this change needs the session's CSRF token in the X-CSRF-Token header",
            "send the csrf_token the sign-in answered (GET /api/v1/me answers it too)");
      }
    }
    return invoke(*route, values, req, caller);
  }

  static std::string target_of(const Values& values) {
    for (const char* name : {"sync", "user", "token"})
      if (const auto it = values.find(name); it != values.end()) return it->second;
    return "";
  }

  // A route for a caller whose credential is checked: the role, then the route, audited.
  Reply invoke(const ApiRoute& route, Values& values, const httplib::Request& req,
               const Caller& caller) {
    const auto target = target_of(values);
    if (!route.open && caller.role < route.role) {
      audit(caller, route.action.empty() ? "read " + route.path : route.action, target,
            "refused: 403", req.remote_addr);
      return error_reply(403, "forbidden",
                         caller.actor + " (" + role_name(caller.role) +
                             ") may not do this: it takes the " + role_name(route.role) + " role",
                         "ask an admin for that role, or for a token with it");
    }
    Reply reply;
    try {
      reply = run(route, values, req, caller);
    } catch (const Reply& r) {
      reply = r;
    }
    if (!route.action.empty() && route.action != "session.create")
      audit(caller, route.action, target,
            reply.status < 300
                ? "ok"
                : (reply.status < 500 ? "refused: " : "failed: ") + std::to_string(reply.status),
            req.remote_addr);
    return reply;
  }

  // The API as the console calls it: `path` (with its query) as `caller`, who signed in.
  ApiAnswer call(const std::string& method, const std::string& path, const std::string& body,
                 const Caller& caller, const std::string& address) {
    httplib::Request req;
    req.method = method;
    const auto q = path.find('?');
    req.path = path.substr(0, q);
    if (q != std::string::npos) httplib::detail::parse_query_text(path.substr(q + 1), req.params);
    req.body = body;
    req.remote_addr = address;
    for (const auto& r : api_routes()) {
      if (r.method != method) continue;
      auto values = match(r.path, req.path);
      if (!values) continue;
      for (const auto& [name, value] : *values)
        if (!plain_name(value))
          return ApiAnswer{404, error_reply(404, "not_found", "no such " + name).body};
      const auto reply = invoke(r, *values, req, caller);
      return ApiAnswer{reply.status, reply.body};
    }
    return ApiAnswer{404, error_reply(404, "not_found", "no such route: " + req.path).body};
  }

  // The caller's credential: a bearer token, or a session cookie. An answer when refused.
  std::optional<Reply> authenticate(const httplib::Request& req, Caller& caller) {
    const auto refused = access.authenticate(req.get_header_value("Authorization"),
                                             req.get_header_value("Cookie"), caller);
    if (!refused) return std::nullopt;
    return error_reply(refused->status, refused->code, refused->message, refused->fix);
  }

  Reply run(const ApiRoute& route, Values& v, const httplib::Request& req, const Caller& caller) {
    const auto& p = route.path;
    const auto& m = route.method;
    if (p == "/livez") return Reply{200, "ok\n", "text/plain", {}};
    if (p == "/readyz")
      return ready.load()
                 ? Reply{200, "ready\n", "text/plain", {}}
                 : Reply{
                       503, "not ready: the scheduler is starting or stopping\n", "text/plain", {}};
    if (p == "/metrics") return Reply{200, metrics(), "text/plain; version=0.0.4", {}};
    if (p == "/api/v1/sessions") return sign_in(req);
    if (p == "/api/v1/sessions/current") return sign_out(req, caller);
    if (p == "/api/v1/me") {
      JsonWriter w;
      w.begin_object().field("name", caller.actor).field("role", role_name(caller.role));
      if (caller.session) w.field("csrf_token", caller.csrf);
      return json_reply(200, w.end_object().str());
    }
    if (p == "/api/v1/syncs") return m == "GET" ? list_syncs() : create_sync(req, caller);
    if (p == "/api/v1/syncs/{sync}") {
      if (m == "GET") return get_sync(v["sync"]);
      if (m == "PUT") return update_sync(v["sync"], req);
      return delete_sync(v["sync"]);
    }
    if (p == "/api/v1/syncs/{sync}/status") return sync_status(v["sync"]);
    if (p == "/api/v1/syncs/{sync}/manifest") return sync_manifest(v["sync"]);
    if (p == "/api/v1/syncs/{sync}/run") return act(v["sync"], Scheduler::Action::run);
    if (p == "/api/v1/syncs/{sync}/resync") return act(v["sync"], Scheduler::Action::resync);
    if (p == "/api/v1/syncs/{sync}/pause") return act(v["sync"], Scheduler::Action::pause);
    if (p == "/api/v1/syncs/{sync}/resume") return act(v["sync"], Scheduler::Action::resume);
    if (p == "/api/v1/syncs/{sync}/runs") return list_runs_of(v["sync"]);
    if (p == "/api/v1/syncs/{sync}/runs/{run}") return run_record(v["sync"], v["run"], false);
    if (p == "/api/v1/syncs/{sync}/runs/{run}/summary")
      return run_record(v["sync"], v["run"], true);
    if (p == "/api/v1/plans") return plan(req);
    if (p == "/api/v1/sources") return m == "GET" ? list_sources() : connect(req);
    if (p == "/api/v1/users") return m == "GET" ? list_users() : create_user(req);
    if (p == "/api/v1/users/{user}")
      return m == "PUT" ? update_user(v["user"], req, caller) : delete_user(v["user"], caller);
    if (p == "/api/v1/tokens") return m == "GET" ? list_tokens() : create_token(req, caller);
    if (p == "/api/v1/tokens/{token}") return revoke_token(v["token"]);
    if (p == "/api/v1/audit") return audit_log(req);
    return error_reply(404, "not_found", "no such route: " + req.path);
  }

  // --- sessions -----------------------------------------------------------------------------

  Reply sign_in(const httplib::Request& req) {
    const Body body(req.body, {"name", "password"});
    Access::SignedIn in;
    if (const auto refused =
            access.sign_in(body.required("name"), body.required("password"), req.remote_addr, in)) {
      auto r = error_reply(refused->status, refused->code, refused->message, refused->fix);
      if (refused->retry_after_s > 0)
        r.headers.emplace_back("Retry-After", std::to_string(refused->retry_after_s));
      return r;
    }
    JsonWriter w;
    w.begin_object().field("name", in.caller.actor).field("role", role_name(in.caller.role));
    w.field("csrf_token", in.caller.csrf).field("expires_at_ms", in.expires_ms).end_object();
    auto r = json_reply(201, w.str());
    r.headers.emplace_back("Set-Cookie", in.set_cookie);
    return r;
  }

  Reply sign_out(const httplib::Request& req, const Caller& caller) {
    if (!caller.session)
      throw error_reply(400, "no_session", "this request was made with an API token, not a session",
                        "revoke a token with DELETE /api/v1/tokens/ID");
    auto r = Reply{204, "", "application/json", {}};
    r.headers.emplace_back("Set-Cookie", access.sign_out(req.get_header_value("Cookie")));
    return r;
  }

  // --- syncs --------------------------------------------------------------------------------

  SyncStatusView hosted(const std::string& id) {
    auto s = scheduler.status(id);
    if (!s)
      throw error_reply(404, "no_such_sync", "no sync '" + id + "' is hosted here",
                        "list the hosted syncs with GET /api/v1/syncs");
    return *s;
  }

  Reply list_syncs() {
    JsonWriter w;
    w.begin_array();
    const auto syncs = scheduler.status();
    const auto known = figures_of(syncs);
    for (size_t i = 0; i < syncs.size(); ++i) {
      const auto& s = syncs[i];
      const auto& f = known[i];
      write_sync(w, s, [&] {
        write_number(w, "lag", f.lag);
        write_number(w, "rows_last_run", f.rows_last_run);
        write_time(w, "figures_at_ms", f.at_ms ? std::optional<int64_t>(f.at_ms) : std::nullopt);
      });
    }
    return json_reply(200, w.end_array().str());
  }

  Reply get_sync(const std::string& id) {
    JsonWriter w;
    write_sync(w, hosted(id));
    return json_reply(200, w.str());
  }

  // A manifest sent to the API, checked as `krow plan` checks one, and its schedule.
  // `must_be_new`: its ID is checked to be free before anything is written.
  // `yaml`: the manifest sent (for a change, with the saved passwords put back where it
  // holds their mask).
  HostedSync checked_sync(const std::string& yaml, const Body& body, const std::string& must_be_id,
                          bool must_be_new = false) {
    const auto schedule_text = body.text("schedule").value_or("manual");
    Schedule schedule = Schedule::parse("manual", "schedule");
    try {
      schedule = Schedule::parse(schedule_text, "schedule");
    } catch (const Error& e) {
      throw error_reply(422, "invalid_schedule", e);
    }
    const auto manifest = checked_manifest(yaml, must_be_id);
    if (must_be_new && scheduler.status(manifest.name))
      throw error_reply(409, "sync_exists", "a sync '" + manifest.name + "' is hosted already",
                        "change it with PUT /api/v1/syncs/" + manifest.name + ", or give the manifest another name");
    HostedSync h{manifest.name, config.api_manifests / (manifest.name + ".yaml"), schedule, true};
    write_manifest_file(h.manifest, yaml);
    return h;
  }

  // Writes `yaml` to `file` whole or not at all (a temporary file renamed).
  void write_manifest_file(const std::filesystem::path& file, const std::string& yaml) {
    std::error_code ec;
    std::filesystem::create_directories(config.api_manifests, ec);
    const auto temp = file.string() + ".new";
    {
      std::ofstream out(temp, std::ios::binary | std::ios::trunc);
      out << yaml;
      if (!out.flush())
        throw error_reply(500, "cannot_save", "cannot write " + temp,
                          "check that api_manifests in the service's config is a writable folder");
    }
    std::filesystem::rename(temp, file, ec);
    if (ec)
      throw error_reply(500, "cannot_save", "cannot write " + file.string() + ": " + ec.message());
  }

  // A manifest sent to the API, checked as `krow plan` checks one before it reads anything.
  Manifest checked_manifest(const std::string& yaml, const std::string& must_be_id) {
    // The service's environment is not the sender's: a manifest sent here names a saved
    // source (POST /api/v1/sources) instead of ${VARIABLES}.
    if (yaml.find("${") != std::string::npos)
      throw error_reply(
          422, "invalid_manifest",
          "a manifest sent to the API may not read environment variables (${...})",
          "connect the source first (POST /api/v1/sources) and name it in the manifest as source: "
          "{saved: NAME}");
    Manifest manifest;
    try {
      manifest = parse_manifest(yaml, config.api_manifests / "new.yaml",
                                [](const char*) -> const char* { return nullptr; });
    } catch (const Error& e) {
      throw error_reply(422, "invalid_manifest", e);
    }
    if (!plain_name(manifest.name))
      throw error_reply(422, "invalid_manifest",
                        "the manifest's name '" + manifest.name + "' is not a sync ID",
                        "use letters, digits, '.', '_' and '-'");
    if (!must_be_id.empty() && manifest.name != must_be_id)
      throw error_reply(422, "invalid_manifest",
                        "the manifest's name is '" + manifest.name + "', not '" + must_be_id + "'",
                        "a sync's ID cannot change: create a new sync instead");
    if (!manifest.saved_source.empty()) {
      try {
        resolve_saved_source(manifest);
      } catch (const Error& e) {
        throw error_reply(422, "invalid_manifest", e);
      }
    }
    return manifest;
  }

  // What `krow plan` says of a manifest sent to the API: run as the command line runs it, on
  // a temporary copy beside the API's manifests (relative paths mean the same there).
  Reply plan(const httplib::Request& req) {
    const Body body(req.body, {"manifest", "sync"});
    // Planning a change of a sync: its saved passwords where the manifest holds their mask.
    const auto sync = body.text("sync");
    const auto yaml =
        sync ? with_saved_secrets(body.required("manifest"), *sync) : body.required("manifest");
    checked_manifest(yaml, "");
    const auto file = config.api_manifests / (".plan-" + random_secret(9) + ".yaml");
    write_manifest_file(file, yaml);
    const auto program = std::filesystem::read_symlink("/proc/self/exe").string();
    const auto out =
        run_child({program, "plan", "--format", "md", file.string()}, std::chrono::seconds(120));
    std::error_code ec;
    std::filesystem::remove(file, ec);
    if (out.timed_out)
      throw error_reply(504, "plan_timeout", "the plan took longer than 2 minutes",
                        "check that the cluster and the warehouse answer (krow doctor)");
    if (out.exit_code != 0) {
      std::string said = out.output;
      if (const auto at = said.rfind("krow: error: "); at != std::string::npos)
        said = said.substr(at + 13);
      while (!said.empty() && said.back() == '\n') said.pop_back();
      throw error_reply(422, "plan_failed", said);
    }
    JsonWriter w;
    w.begin_object().field("plan", out.output).end_object();
    return json_reply(200, w.str());
  }

  Reply create_sync(const httplib::Request& req, const Caller& caller) {
    const Body body(req.body, {"manifest", "schedule"});
    const auto h = checked_sync(body.required("manifest"), body, "", /*must_be_new=*/true);
    if (!scheduler.add(h))
      throw error_reply(409, "sync_exists", "a sync '" + h.id + "' is hosted already",
                        "change it with PUT /api/v1/syncs/" + h.id);
    store.save_api_sync(
        ApiSync{h.id, h.manifest.string(), h.schedule.text(), caller.actor, now_ms()});
    JsonWriter w;
    write_sync(w, hosted(h.id));
    auto r = json_reply(201, w.str());
    r.headers.emplace_back("Location", "/api/v1/syncs/" + h.id);
    return r;
  }

  void only_api_syncs(const SyncStatusView& s) {
    if (!s.from_api)
      throw error_reply(
          409, "defined_in_config",
          "sync '" + s.id + "' is defined in the service's config file " + config.file.string(),
          "change it there and restart the service");
  }

  // `yaml` with the passwords of sync `id`'s saved manifest where it holds their mask.
  std::string with_saved_secrets(const std::string& yaml, const std::string& id) {
    if (yaml.find(kSecretMask) == std::string::npos) return yaml;
    const auto s = hosted(id);
    try {
      return restore_secrets(yaml, read_text_file(s.manifest));
    } catch (const Error& e) {
      throw error_reply(422, "invalid_manifest", e);
    }
  }

  // A sync's manifest as saved, its passwords masked; editable when made through the API.
  Reply sync_manifest(const std::string& id) {
    const auto s = hosted(id);
    std::string text;
    try {
      text = read_text_file(s.manifest);
    } catch (const Error& e) {
      throw error_reply(500, "cannot_read", e);
    }
    JsonWriter w;
    w.begin_object().field("id", id).field("schedule", s.schedule).field("editable", s.from_api);
    w.field("manifest", mask_secrets(text)).end_object();
    return json_reply(200, w.str());
  }

  Reply update_sync(const std::string& id, const httplib::Request& req) {
    only_api_syncs(hosted(id));
    const Body body(req.body, {"manifest", "schedule"});
    if (hosted(id).running)
      throw error_reply(409, "running", "sync '" + id + "' has a run under way",
                        "wait for it to end, or pause it");
    const auto h = checked_sync(with_saved_secrets(body.required("manifest"), id), body, id);
    if (scheduler.replace(h) == Scheduler::Answer::running)
      throw error_reply(409, "running", "sync '" + id + "' has a run under way",
                        "wait for it to end, or pause it");
    store.save_api_sync(ApiSync{h.id, h.manifest.string(), h.schedule.text(), "", now_ms()});
    return get_sync(id);
  }

  Reply delete_sync(const std::string& id) {
    const auto s = hosted(id);
    only_api_syncs(s);
    if (scheduler.remove(id) == Scheduler::Answer::running)
      throw error_reply(409, "running", "sync '" + id + "' has a run under way",
                        "pause it (POST /api/v1/syncs/" + id +
                            "/pause), wait for the run to end, then delete it");
    store.delete_api_sync(id);
    // Its tables and run records stay: deleting a sync stops hosting it, it removes no data.
    std::error_code ec;
    std::filesystem::rename(s.manifest, s.manifest + ".deleted", ec);
    return Reply{204, "", "application/json", {}};
  }

  Reply act(const std::string& id, Scheduler::Action action) {
    switch (scheduler.act(id, action, Clock::now())) {
      case Scheduler::Answer::no_such_sync:
        hosted(id);
        break;
      case Scheduler::Answer::running:
        throw error_reply(409, "running", "sync '" + id + "' has a run under way",
                          "wait for it to end (GET /api/v1/syncs/" + id + "), then ask again");
      case Scheduler::Answer::paused_already:
        throw error_reply(409, "paused", "sync '" + id + "' is paused already",
                          "resume it with POST /api/v1/syncs/" + id + "/resume");
      case Scheduler::Answer::not_paused:
        throw error_reply(409, "not_paused", "sync '" + id + "' is not paused", "");
      case Scheduler::Answer::done:
        break;
    }
    JsonWriter w;
    write_sync(w, hosted(id));
    return json_reply(
        action == Scheduler::Action::run || action == Scheduler::Action::resync ? 202 : 200,
        w.str());
  }

  Reply sync_status(const std::string& id) {
    const auto s = hosted(id);
    JsonWriter w;
    w.begin_object().key("service");
    write_sync(w, s);
    w.key("recent_runs").begin_array();
    for (const auto& r : store.runs(id, 10)) write_run(w, r);
    w.end_array();
    // What the warehouse and the cluster say, as `krow status --format json` prints it.
    try {
      auto manifest = load_manifest(s.manifest);
      resolve_saved_source(manifest);
      // The group whose committed offsets are the sync's positions: the one to look up in
      // Confluent Cloud (krow never joins it). The workers' own group is status.workers_group.
      w.field("consumer_group", "krow-" + manifest.name);
      auto warehouse = open_warehouse(manifest.warehouse, manifest.name, OpenMode::read_only);
      const auto cluster = cluster_view(manifest, *warehouse);
      w.key("status").raw(format_status(manifest, *warehouse, cluster, true));
    } catch (const Error& e) {
      w.key("status").null().field("status_error", std::string(e.what()));
    }
    return json_reply(200, w.end_object().str());
  }

  Reply list_runs_of(const std::string& id) {
    const auto s = hosted(id);
    const auto runs = list_runs(runs_root(s.manifest), id);
    return json_reply(200, format_run_listings(
                               std::vector<RunListing>(
                                   runs.begin(), runs.begin() + std::min<size_t>(runs.size(), 100)),
                               true));
  }

  Reply run_record(const std::string& id, const std::string& run_id, bool summary) {
    const auto s = hosted(id);
    // Only a file of this sync's run folder, named by the run ID (checked by plain_name).
    const auto file = find_run(runs_root(s.manifest), id, run_id);
    if (!file)
      throw error_reply(404, "no_such_run", "sync '" + id + "' has no run '" + run_id + "'",
                        "list its runs with GET /api/v1/syncs/" + id + "/runs");
    if (!summary) return json_reply(200, read_text_file(*file));
    const auto md = file->parent_path() / (run_id + ".md");
    std::error_code ec;
    return Reply{200,
                 std::filesystem::is_regular_file(md, ec)
                     ? read_text_file(md)
                     : render_run_summary(read_text_file(*file)),
                 "text/markdown",
                 {}};
  }

  // --- sources ------------------------------------------------------------------------------

  Reply list_sources() {
    std::optional<SecretStore> opened;
    try {
      opened.emplace(SecretStore::open_default(false));
    } catch (const Error& e) {
      // No key yet: nothing was ever saved, unless source files are there without it.
      std::error_code ec;
      bool any = false;
      for (std::filesystem::directory_iterator it(SecretStore::default_dir(), ec), end;
           !ec && it != end; it.increment(ec))
        any = any || it->path().extension() == ".source";
      if (!any) return json_reply(200, "[]");
      throw error_reply(500, "secret_store", e);
    }
    const auto& secrets = *opened;
    JsonWriter w;
    w.begin_array();
    for (const auto& name : secrets.names()) {
      w.begin_object().field("name", name);
      try {
        const auto s = secrets.load(name);
        w.field("bootstrap_servers", s.source.bootstrap_servers).field("cluster_id", s.cluster_id);
        w.field("registry_url", s.registry.url).field("saved_at_ms", s.saved_at_ms);
      } catch (const Error& e) {
        w.field("error", std::string(e.what()));
      }
      w.end_object();
    }
    return json_reply(200, w.end_array().str());
  }

  Reply connect(const httplib::Request& req) {
    const Body body(req.body,
                    {"name", "bootstrap_servers", "security_protocol", "sasl_mechanism", "username",
                     "password", "ca_file", "verify_certificates", "timeout_s", "registry"});
    SavedSource s;
    s.name = body.required("name");
    try {
      check_source_name(s.name);
    } catch (const Error& e) {
      throw error_reply(422, "bad_field", e);
    }
    s.source.bootstrap_servers = body.required("bootstrap_servers");
    s.source.security_protocol = body.text("security_protocol").value_or("SASL_SSL");
    s.source.sasl_mechanism = body.text("sasl_mechanism").value_or("PLAIN");
    s.source.username = body.text("username").value_or("");
    s.source.password = Secret(body.text("password").value_or(""));
    s.source.ca_file = body.text("ca_file").value_or("");
    s.source.verify_certificates = body.flag("verify_certificates").value_or(true);
    s.source.connect_timeout_s =
        static_cast<int>(std::clamp<int64_t>(body.number("timeout_s").value_or(15), 1, 60));
    if (const auto registry = body.object("registry")) {
      s.registry.url = member_text(*registry, "url");
      s.registry.username = member_text(*registry, "username");
      s.registry.password = Secret(member_text(*registry, "password"));
      s.registry.ca_file = member_text(*registry, "ca_file");
    }
    ConnectReport r;
    try {
      r = connect_source(s, SecretStore::open_default(true));
    } catch (const Error& e) {
      throw error_reply(e.error_class() == ErrorClass::config ? 422 : 502, "connect_failed", e);
    }
    JsonWriter w;
    w.begin_object().field("name", s.name).field("cluster_id", r.cluster_id);
    w.field("describable_topics", static_cast<int64_t>(r.describable_topics));
    w.field("registry_checked", r.registry_checked).field("replaced", r.replaced).end_object();
    return json_reply(r.replaced ? 200 : 201, w.str());
  }

  // --- users and tokens ---------------------------------------------------------------------

  static Role role_from(const std::optional<std::string>& text) {
    const auto role = parse_role(text.value_or(""));
    if (!role) throw error_reply(422, "bad_field", "'role' is admin, editor or viewer");
    return *role;
  }

  static void check_password(const std::string& password) {
    if (password.size() < kMinPassword || password.size() > 1024)
      throw error_reply(422, "weak_password",
                        "a password has " + std::to_string(kMinPassword) + " to 1024 characters",
                        "choose a longer one (a passphrase of a few words will do)");
  }

  Reply list_users() {
    JsonWriter w;
    w.begin_array();
    for (const auto& u : store.users()) write_user(w, u);
    return json_reply(200, w.end_array().str());
  }

  Reply create_user(const httplib::Request& req) {
    const Body body(req.body, {"name", "role", "password"});
    User u;
    u.name = body.required("name");
    if (!plain_name(u.name, 64))
      throw error_reply(422, "bad_field",
                        "a user name has 1 to 64 letters, digits, '.', '_', '-' or '@'");
    u.role = role_from(body.text("role"));
    const auto password = body.required("password");
    check_password(password);
    u.password_hash = hash_password(password);
    u.created_ms = now_ms();
    if (!store.add_user(u))
      throw error_reply(409, "user_exists", "a user '" + u.name + "' exists already",
                        "change it with PUT /api/v1/users/" + u.name);
    JsonWriter w;
    write_user(w, u);
    return json_reply(201, w.str());
  }

  // An admin who would leave no admin behind is refused.
  void keep_an_admin(const std::string& name, std::optional<Role> becomes) {
    const auto users = store.users();
    const auto admins = std::count_if(users.begin(), users.end(),
                                      [](const User& u) { return u.role == Role::admin; });
    const auto u = store.user(name);
    if (u && u->role == Role::admin && admins == 1 && becomes != Role::admin)
      throw error_reply(409, "last_admin", "'" + name + "' is the last admin",
                        "make another user admin first");
  }

  Reply update_user(const std::string& name, const httplib::Request& req, const Caller&) {
    const Body body(req.body, {"role", "password"});
    std::optional<Role> role;
    if (body.text("role")) role = role_from(body.text("role"));
    std::string hash;
    if (const auto password = body.text("password")) {
      check_password(*password);
      hash = hash_password(*password);
    }
    if (role) keep_an_admin(name, role);
    if (!store.update_user(name, role, hash))
      throw error_reply(404, "no_such_user", "no user '" + name + "'",
                        "list them with GET /api/v1/users");
    JsonWriter w;
    write_user(w, *store.user(name));
    return json_reply(200, w.str());
  }

  Reply delete_user(const std::string& name, const Caller&) {
    keep_an_admin(name, std::nullopt);
    if (!store.delete_user(name))
      throw error_reply(404, "no_such_user", "no user '" + name + "'",
                        "list them with GET /api/v1/users");
    return Reply{204, "", "application/json", {}};
  }

  Reply list_tokens() {
    JsonWriter w;
    w.begin_array();
    for (const auto& t : store.tokens()) write_token(w, t);
    return json_reply(200, w.end_array().str());
  }

  Reply create_token(const httplib::Request& req, const Caller& caller) {
    const Body body(req.body, {"name", "role"});
    const auto name = body.required("name");
    if (name.size() > 200) throw error_reply(422, "bad_field", "'name' has at most 200 characters");
    auto [token, t] = new_token(name, role_from(body.text("role")), caller.actor);
    store.add_token(t);
    JsonWriter w;
    w.begin_object().field("token", token).key("details");
    write_token(w, t);
    return json_reply(201, w.end_object().str());
  }

  Reply revoke_token(const std::string& id) {
    if (!store.token(id))
      throw error_reply(404, "no_such_token", "no token '" + id + "'",
                        "list them with GET /api/v1/tokens");
    store.revoke_token(id, now_ms());
    return Reply{204, "", "application/json", {}};
  }

  Reply audit_log(const httplib::Request& req) {
    int limit = 100;
    if (req.has_param("limit")) {
      const auto text = req.get_param_value("limit");
      if (text.empty() || text.size() > 5 ||
          text.find_first_not_of("0123456789") != std::string::npos)
        throw error_reply(400, "bad_request", "limit is a number from 1 to 10000");
      limit = std::clamp(std::stoi(text), 1, 10000);
    }
    JsonWriter w;
    w.begin_array();
    for (const auto& e : store.audit_log(limit)) {
      w.begin_object()
          .field("id", e.id)
          .field("at_ms", e.at_ms)
          .field("actor", e.actor)
          .field("action", e.action);
      w.field("target", e.target)
          .field("outcome", e.outcome)
          .field("address", e.address)
          .end_object();
    }
    return json_reply(200, w.end_array().str());
  }
};

ApiServer::ApiServer(const ServeConfig& config, ServeStore& store, Scheduler& scheduler,
                     std::function<std::string()> metrics, const std::atomic<bool>& ready)
    : handler_(new Handler{config, store, scheduler, std::move(metrics), ready,
                           Access(store, !config.tls_certificate.empty())}) {
  const auto address =
      metrics::parse_listen_address(config.listen, config.file.string() + ": listen");
  tls_ = !config.tls_certificate.empty();
  if (tls_) {
    auto ssl = std::make_unique<httplib::SSLServer>(config.tls_certificate.c_str(),
                                                    config.tls_key.c_str());
    if (!ssl->is_valid())
      throw Error(ErrorClass::config,
                  config.file.string() + ": tls: cannot use the certificate " +
                      config.tls_certificate.string() + " with the key " + config.tls_key.string() +
                      " (both PEM; the key unencrypted and the certificate's own)");
    server_ = std::move(ssl);
  } else {
    server_ = std::make_unique<httplib::Server>();
  }
  server_->new_task_queue = [] { return new httplib::ThreadPool(8); };
  server_->set_read_timeout(std::chrono::seconds(10));
  server_->set_write_timeout(std::chrono::seconds(10));
  server_->set_payload_max_length(kMaxBody);
  // Small answers go out at once (Nagle's algorithm would hold each for the client's delayed
  // ACK, ~40 ms a call on a keep-alive connection).
  server_->set_tcp_nodelay(true);
  const auto any = [this](const httplib::Request& req, httplib::Response& res) {
    handler_->serve(req, res);
  };
  // A request that may carry a body is read here, not by the library: one without
  // Content-Length (`curl -X POST` of an action) has none, where the library would wait for
  // the connection to close.
  const auto with_body = [this](const httplib::Request& req, httplib::Response& res,
                                const httplib::ContentReader& read) {
    httplib::Request full = req;
    const bool chunked =
        req.get_header_value("Transfer-Encoding").find("chunked") != std::string::npos;
    if (req.has_header("Content-Length") || chunked) {
      bool too_large = false;
      const bool ok = read([&](const char* data, size_t size) {
        if (full.body.size() + size > kMaxBody) return !(too_large = true);
        full.body.append(data, size);
        return true;
      });
      if (too_large || res.status == 413) {
        Handler::secure_headers(res);
        res.status = 413;
        res.set_content(
            error_reply(413, "too_large", "the request body is over 1 MiB", "send a smaller one")
                .body,
            "application/json; charset=utf-8");
        return;
      }
      if (!ok) {
        Handler::secure_headers(res);
        res.status = 400;
        res.set_content(
            error_reply(400, "bad_request", "the request body could not be read (cut short?)").body,
            "application/json; charset=utf-8");
        return;
      }
    }
    handler_->serve(full, res);
  };
  server_->Get(".*", any);
  server_->Options(".*", any);
  server_->Post(".*", with_body);
  server_->Put(".*", with_body);
  server_->Delete(".*", with_body);
  server_->Patch(".*", with_body);
  server_->set_pre_routing_handler([](const httplib::Request&, httplib::Response& res) {
    Handler::secure_headers(res);
    return httplib::Server::HandlerResponse::Unhandled;
  });
  server_->set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    Handler::secure_headers(res);
    const auto e =
        res.status == 413
            ? error_reply(413, "too_large", "the request body is over 1 MiB", "send a smaller one")
            : error_reply(res.status, "bad_request",
                          "the request was refused (HTTP " + std::to_string(res.status) + ") at " +
                              req.path);
    res.set_content(e.body, "application/json; charset=utf-8");
  });
  const bool bound = address.port == 0 ? (port_ = server_->bind_to_any_port(address.host)) > 0
                                       : server_->bind_to_port(address.host, address.port);
  if (!bound)
    throw Error(ErrorClass::config,
                config.file.string() + ": listen: cannot listen on " + address.host + ":" +
                    std::to_string(address.port) +
                    " (the port is taken, or the address is not this machine's); choose "
                    "another port or address");
  if (address.port != 0) port_ = address.port;
  thread_ = std::thread([this] { server_->listen_after_bind(); });
}

ApiServer::~ApiServer() {
  for (int i = 0; i < 200 && !server_->is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace krow::serve
