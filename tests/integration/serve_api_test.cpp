// `krow serve`'s REST API (docs/serve.md, docs/openapi.yaml) against a real broker and
// warehouse: every route for every role (allowed, 401, 403), a sync created, run, paused,
// changed and deleted through the API, hostile requests (revoked tokens, guessed passwords,
// path traversal, oversized and malformed bodies, hostile names, missing CSRF tokens), the
// audit log of all of it, TLS, and no password, token or source secret in any answer, log line
// or metric.

#include <signal.h>
#include <simdjson.h>
#include <sys/wait.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "serve/api.hpp"
#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

using std::chrono::seconds;

const std::string kAdminPassword = "admin-pass-7f3k9q-long";

class ServeApi : public SyncTest {
 protected:
  void SetUp() override {
    SyncTest::SetUp();
    set_env("KROW_HOME", (dir() / "home").string());
  }

  void TearDown() override {
    if (serve_ > 0) {
      kill(serve_, SIGTERM);
      int status = 0;
      finishes(serve_, seconds(60), status);
    }
    SyncTest::TearDown();
  }

  // Starts `krow serve` hosting `manifest` (manual schedule) with the first admin created from
  // the command line; returns the base URL.
  std::string start(const std::string& manifest, const std::string& more_config = "") {
    std::ofstream(dir() / "server.yaml")
        << "listen: 127.0.0.1:0\nstate: serve.db\nlogs: serve-logs\n"
        << more_config << "syncs:\n  - manifest: " << manifest << "\n    schedule: manual\n";
    config_ = (dir() / "server.yaml").string();
    const auto r =
        krow_with_input({"serve", "add-user", "root-admin", "--role", "admin", "--config", config_},
                        kAdminPassword + "\n");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    serve_ =
        start_krow_to({"serve", "--config", config_}, dir() / "serve.out", dir() / "serve.err");
    static const std::regex line(R"(krow serve: listening on (https?)://127\.0\.0\.1:([0-9]+))");
    std::smatch m;
    std::string said;
    EXPECT_TRUE(eventually(
        [&] {
          said = slurp(dir() / "serve.err");
          return std::regex_search(said, m, line);
        },
        seconds(30)))
        << said;
    base_ = m[1].str() + "://127.0.0.1:" + m[2].str();
    EXPECT_TRUE(eventually([&] { return http(base_ + "/readyz").status == 200; }, seconds(10)));
    return base_;
  }

  // A token of `role` made by `krow serve create-token`.
  std::string token(const std::string& role) {
    const auto r =
        krow({"serve", "create-token", "test-" + role, "--role", role, "--config", config_});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    auto t = r.out;
    while (!t.empty() && t.back() == '\n') t.pop_back();
    secrets_.push_back(t);
    return t;
  }

  // A request with a bearer token (none when empty); every answer is kept for the secret check.
  HttpAnswer call(const std::string& method, const std::string& path, const std::string& tok,
                  const std::string& body = {}, std::vector<std::string> headers = {}) {
    if (!tok.empty()) headers.push_back("Authorization: Bearer " + tok);
    if (!body.empty()) headers.push_back("Content-Type: application/json");
    auto a = http(base_ + path, method, body, headers);
    answers_ += a.headers + a.body + "\n";
    return a;
  }

  static std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  static std::string json_string(const std::string& json, const char* key) {
    simdjson::dom::parser parser;
    std::string_view v;
    if (parser.parse(json)[key].get(v)) return {};
    return std::string(v);
  }

  static bool is_json(const std::string& text) {
    simdjson::dom::parser parser;
    simdjson::dom::element e;
    return !parser.parse(text).get(e);
  }

  // The manifest text of a sync `id` of `topic` for this test's warehouse.
  // Its warehouse path is absolute: a relative one would be the API manifests' folder's.
  std::string manifest_text(const std::string& id, const std::string& topic) {
    auto text = slurp(write_manifest({topic}, "", "api-source.yaml"));
    text.replace(text.find("name: " + sync_id_), 6 + sync_id_.size(), "name: " + id);
    if (const auto at = text.find("path: warehouse.duckdb"); at != std::string::npos)
      text.replace(at, 22, "path: " + (dir() / "warehouse.duckdb").string());
    return text;
  }

  static std::string quoted(const std::string& text) {
    std::string out = "\"";
    for (char c : text) {
      if (c == '"' || c == '\\')
        out += std::string("\\") + c;
      else if (c == '\n')
        out += "\\n";
      else
        out += c;
    }
    return out + "\"";
  }

  pid_t serve_ = -1;
  std::string config_, base_;
  std::vector<std::string> secrets_;  // what must never be answered, logged or exposed
  std::string answers_;
};

TEST_F(ServeApi, EveryRouteAnswersEachRoleAsTheOpenApiDocumentSays) {
  const auto topic = make_topic("api-roles", 1);
  start(write_manifest({topic}));
  const std::map<serve::Role, std::string> tokens = {{serve::Role::viewer, token("viewer")},
                                                     {serve::Role::editor, token("editor")},
                                                     {serve::Role::admin, token("admin")}};
  // Nothing saved yet: no sources, not an error.
  const auto none = call("GET", "/api/v1/sources", tokens.at(serve::Role::viewer));
  EXPECT_EQ(none.status, 200) << none.body;
  EXPECT_EQ(none.body, "[]");
  size_t checked = 0;
  for (const auto& route : serve::api_routes()) {
    std::string path = route.path;
    for (const auto& [name, value] :
         std::vector<std::pair<std::string, std::string>>{{"{sync}", sync_id_},
                                                          {"{run}", "no-such-run"},
                                                          {"{user}", "nobody"},
                                                          {"{token}", "0000000000"}})
      if (const auto at = path.find(name); at != std::string::npos)
        path.replace(at, name.size(), value);
    // Bodies that change nothing: each is refused for what it lacks once the caller is let in.
    const std::string body = route.method == "POST" || route.method == "PUT" ? "{}" : "";
    const auto anonymous = call(route.method, path, "", body);
    if (route.open)
      EXPECT_NE(anonymous.status, 401) << route.method << " " << path << ": " << anonymous.body;
    else
      EXPECT_EQ(anonymous.status, 401) << route.method << " " << path << ": " << anonymous.body;
    for (const auto& [role, tok] : tokens) {
      const auto a = call(route.method, path, tok, body);
      const auto who = std::string(serve::role_name(role)) + " " + route.method + " " + path +
                       ": " + std::to_string(a.status) + " " + a.body;
      EXPECT_LT(a.status, 500) << who;
      if (route.open || role >= route.role) {
        EXPECT_NE(a.status, 401) << who;
        EXPECT_NE(a.status, 403) << who;
      } else {
        EXPECT_EQ(a.status, 403) << who;
        EXPECT_EQ(json_string(a.body, "error").size(), 0u);  // an object, not a string
        EXPECT_NE(a.body.find("\"code\":\"forbidden\""), std::string::npos) << who;
      }
      if (route.path.rfind("/api/", 0) == 0 && a.status != 204) {
        EXPECT_TRUE(is_json(a.body)) << who;
      }
      EXPECT_NE(a.headers.find("X-Content-Type-Options: nosniff"), std::string::npos) << who;
      ++checked;
    }
  }
  EXPECT_GE(checked, 25u * 3);

  // A token an admin made through the API works until it is revoked, then is refused.
  const auto made = call("POST", "/api/v1/tokens", tokens.at(serve::Role::admin),
                         R"({"name": "ci", "role": "viewer"})");
  ASSERT_EQ(made.status, 201) << made.body;
  const auto ci = json_string(made.body, "token");
  secrets_.push_back(ci);
  EXPECT_EQ(call("GET", "/api/v1/syncs", ci).status, 200);
  const auto id = ci.substr(5, 10);
  EXPECT_EQ(call("DELETE", "/api/v1/tokens/" + id, tokens.at(serve::Role::admin)).status, 204);
  const auto revoked = call("GET", "/api/v1/syncs", ci);
  EXPECT_EQ(revoked.status, 401);
  EXPECT_NE(revoked.body.find("token_revoked"), std::string::npos) << revoked.body;
  // A token whose secret part is wrong is refused like no token.
  auto forged = ci;
  forged.back() = forged.back() == 'A' ? 'B' : 'A';
  EXPECT_EQ(call("GET", "/api/v1/syncs", forged).status, 401);

  // The refusals are in the audit log, with who tried.
  const auto audit = call("GET", "/api/v1/audit?limit=10000", tokens.at(serve::Role::admin));
  ASSERT_EQ(audit.status, 200);
  EXPECT_NE(audit.body.find("\"actor\":\"anonymous\",\"action\":\"user.create\",\"target\":\"\","
                            "\"outcome\":\"refused: 401\""),
            std::string::npos)
      << audit.body.substr(0, 2000);
  EXPECT_NE(audit.body.find("\"action\":\"sync.run\",\"target\":\"" + sync_id_ +
                            "\",\"outcome\":\"refused: 403\""),
            std::string::npos);
  EXPECT_NE(
      audit.body.find(
          "\"actor\":\"token:" + id +
          "\",\"action\":\"read /api/v1/syncs\",\"target\":\"\",\"outcome\":\"refused: 401\""),
      std::string::npos);

  for (const auto& s : secrets_) {
    const auto secret = s.substr(16);
    EXPECT_EQ(slurp(dir() / "serve.err").find(secret), std::string::npos);
    EXPECT_EQ(audit.body.find(secret), std::string::npos);
    EXPECT_EQ(http(base_ + "/metrics").body.find(secret), std::string::npos);
  }
  EXPECT_EQ(answers_.find(kAdminPassword), std::string::npos);
}

TEST_F(ServeApi, ASyncCreatedThroughTheApiRunsWhenAnAdminSaysAndItsRunsAreReadable) {
  const auto topic = make_topic("api-sync", 2);
  const auto hosted = make_topic("api-config", 1);
  Producer p(bootstrap_);
  for (int i = 0; i < 300; ++i)
    p.send(topic, Record{"k" + std::to_string(i), "{\"n\": " + std::to_string(i) + "}"});
  p.flush();
  start(write_manifest({hosted}));
  const auto editor = token("editor"), admin = token("admin"), viewer = token("viewer");
  const std::string id = sync_id_ + "-api";

  const auto body =
      "{\"manifest\": " + quoted(manifest_text(id, topic)) + ", \"schedule\": \"manual\"}";
  EXPECT_EQ(call("POST", "/api/v1/syncs", viewer, body).status, 403);
  const auto created = call("POST", "/api/v1/syncs", editor, body);
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_NE(created.headers.find("Location: /api/v1/syncs/" + id), std::string::npos)
      << created.headers;
  EXPECT_EQ(call("POST", "/api/v1/syncs", editor, body).status, 409);  // the ID is taken
  // An editor creates and edits syncs but does not start them.
  EXPECT_EQ(call("POST", "/api/v1/syncs/" + id + "/run", editor).status, 403);
  const auto started = call("POST", "/api/v1/syncs/" + id + "/run", admin);
  EXPECT_EQ(started.status, 202) << started.body;
  ASSERT_TRUE(eventually([&] { return rows_in(topic) == 300; }, seconds(60)))
      << slurp(dir() / "serve.err");
  std::string runs;
  ASSERT_TRUE(eventually(
      [&] {
        runs = call("GET", "/api/v1/syncs/" + id + "/runs", viewer).body;
        return runs.find("\"status\":\"success\"") != std::string::npos;
      },
      seconds(30)))
      << runs;
  const auto sync = call("GET", "/api/v1/syncs/" + id, viewer);
  EXPECT_NE(sync.body.find("\"last_run\":{\"trigger\":\"manual\""), std::string::npos) << sync.body;
  EXPECT_NE(sync.body.find("\"outcome\":\"success\""), std::string::npos) << sync.body;

  // The run's record and summary, by the run ID the list gives.
  simdjson::dom::parser parser;
  std::string_view run_id;
  ASSERT_FALSE(parser.parse(runs).at(0)["run_id"].get(run_id)) << runs;
  const auto record = call("GET", "/api/v1/syncs/" + id + "/runs/" + std::string(run_id), viewer);
  EXPECT_EQ(record.status, 200);
  EXPECT_EQ(json_string(record.body, "run_id"), run_id) << record.body.substr(0, 500);
  const auto summary =
      call("GET", "/api/v1/syncs/" + id + "/runs/" + std::string(run_id) + "/summary", viewer);
  EXPECT_EQ(summary.status, 200);
  EXPECT_NE(summary.headers.find("text/markdown"), std::string::npos);
  EXPECT_NE(summary.body.find(std::string(run_id)), std::string::npos) << summary.body;

  // Its status: the service's view and the warehouse's positions against the cluster's offsets.
  const auto status = call("GET", "/api/v1/syncs/" + id + "/status", viewer);
  EXPECT_EQ(status.status, 200);
  EXPECT_NE(status.body.find("\"consumer_group\":\"krow-" + id + "\""), std::string::npos)
      << status.body;
  EXPECT_EQ(status.body.find("\"status\":null"), std::string::npos) << status.body;
  EXPECT_NE(status.body.find(topic), std::string::npos) << status.body;

  // Pause, resume, and a new schedule; a sync of the config file is changed there only.
  EXPECT_EQ(call("POST", "/api/v1/syncs/" + id + "/pause", admin).status, 200);
  EXPECT_EQ(call("POST", "/api/v1/syncs/" + id + "/pause", admin).status, 409);
  EXPECT_NE(call("GET", "/api/v1/syncs/" + id, viewer).body.find("\"paused\":true"),
            std::string::npos);
  EXPECT_EQ(call("POST", "/api/v1/syncs/" + id + "/resume", admin).status, 200);
  const auto changed = call(
      "PUT", "/api/v1/syncs/" + id, editor,
      "{\"manifest\": " + quoted(manifest_text(id, topic)) + ", \"schedule\": \"cron 0 3 * * *\"}");
  EXPECT_EQ(changed.status, 200) << changed.body;
  EXPECT_NE(changed.body.find("\"schedule\":\"cron 0 3 * * *\""), std::string::npos)
      << changed.body;
  const auto renamed = call("PUT", "/api/v1/syncs/" + id, editor,
                            "{\"manifest\": " + quoted(manifest_text(id + "-x", topic)) + "}");
  EXPECT_EQ(renamed.status, 422) << renamed.body;
  const auto config_sync =
      call("PUT", "/api/v1/syncs/" + sync_id_, editor, "{\"manifest\": \"name: x\"}");
  EXPECT_EQ(config_sync.status, 409) << config_sync.body;
  EXPECT_NE(config_sync.body.find("defined_in_config"), std::string::npos);

  // A restarted service hosts the syncs created through the API again.
  kill(serve_, SIGTERM);
  int st = 0;
  ASSERT_TRUE(finishes(serve_, seconds(60), st));
  serve_ = -1;
  const auto err_before = slurp(dir() / "serve.err");
  serve_ = start_krow_to({"serve", "--config", config_}, dir() / "serve.out", dir() / "serve2.err");
  static const std::regex line(R"(krow serve: listening on http://127\.0\.0\.1:([0-9]+))");
  std::smatch m;
  std::string said;
  ASSERT_TRUE(eventually(
      [&] {
        said = slurp(dir() / "serve2.err");
        return std::regex_search(said, m, line);
      },
      seconds(30)));
  base_ = "http://127.0.0.1:" + m[1].str();
  const auto again = call("GET", "/api/v1/syncs/" + id, viewer);
  EXPECT_EQ(again.status, 200) << said;
  EXPECT_NE(again.body.find("\"schedule\":\"cron 0 3 * * *\""), std::string::npos) << again.body;

  EXPECT_EQ(call("DELETE", "/api/v1/syncs/" + id, viewer).status, 403);
  EXPECT_EQ(call("DELETE", "/api/v1/syncs/" + id, editor).status, 204);
  EXPECT_EQ(call("GET", "/api/v1/syncs/" + id, viewer).status, 404);
  EXPECT_EQ(rows_in(topic), 300);  // deleting a sync removes no data
}

TEST_F(ServeApi, HostileRequestsAreRefusedSafelyAndAudited) {
  const auto topic = make_topic("api-hostile", 1);
  start(write_manifest({topic}));
  const auto admin = token("admin"), editor = token("editor");

  // Guessed passwords: five refusals, then even the right password waits.
  for (int i = 0; i < 5; ++i) {
    const auto a =
        call("POST", "/api/v1/sessions", "",
             R"({"name": "root-admin", "password": "guess-)" + std::to_string(i) + R"("})");
    EXPECT_EQ(a.status, 401) << a.body;
  }
  const auto throttled = call("POST", "/api/v1/sessions", "",
                              R"({"name": "root-admin", "password": ")" + kAdminPassword + R"("})");
  EXPECT_EQ(throttled.status, 429) << throttled.body;
  EXPECT_NE(throttled.headers.find("Retry-After: "), std::string::npos) << throttled.headers;

  // Paths that climb out of a run folder, or name no sync, answer 404 and nothing of the file.
  for (const auto& path : std::vector<std::string>{
           "/api/v1/syncs/" + sync_id_ + "/runs/..%2F..%2F..%2F..%2Fetc%2Fpasswd",
           "/api/v1/syncs/" + sync_id_ + "/runs/../../../../etc/passwd",
           "/api/v1/syncs/..%2F..%2Fetc%2Fpasswd/runs", std::string("/api/v1/syncs/%2e%2e/runs"),
           "/api/v1/syncs/" + sync_id_ + "/runs/%2Fetc%2Fpasswd/summary",
           std::string("/../../../../etc/passwd")}) {
    const auto a = call("GET", path, admin);
    EXPECT_EQ(a.status, 404) << path << ": " << a.body;
    EXPECT_EQ(a.body.find("root:"), std::string::npos) << path;
  }

  // Oversized and malformed bodies.
  const auto big = call("POST", "/api/v1/syncs", editor,
                        "{\"manifest\": \"" + std::string(2 << 20, 'x') + "\"}");
  EXPECT_EQ(big.status, 413);
  EXPECT_TRUE(is_json(big.body)) << big.body;
  EXPECT_EQ(call("POST", "/api/v1/syncs", editor, "{\"manifest\": ").status, 400);
  EXPECT_EQ(call("POST", "/api/v1/syncs", editor, "[1, 2]").status, 400);
  EXPECT_EQ(call("POST", "/api/v1/syncs", editor, "\xff\xfe{}").status, 400);
  const auto unknown =
      call("POST", "/api/v1/syncs", editor, R"({"manifest": "x", "schedulle": "manual"})");
  EXPECT_EQ(unknown.status, 422);
  EXPECT_NE(unknown.body.find("schedulle"), std::string::npos) << unknown.body;
  const auto broken = call("POST", "/api/v1/syncs", editor,
                           R"({"manifest": "name: x\ntopics: [", "schedule": "manual"})");
  EXPECT_EQ(broken.status, 422) << broken.body;
  EXPECT_NE(broken.body.find("invalid_manifest"), std::string::npos) << broken.body;
  const auto env =
      call("POST", "/api/v1/syncs", editor,
           "{\"manifest\": " + quoted(manifest_text("env-reader", topic) + "x: ${HOME}\n") + "}");
  EXPECT_EQ(env.status, 422) << env.body;
  EXPECT_NE(env.body.find("POST /api/v1/sources"), std::string::npos) << env.body;

  // Hostile sync names: refused, answered as JSON data only, no file written outside its folder.
  for (const std::string& name :
       {std::string("<script>alert(1)</script>"), std::string("../../etc/passwd")}) {
    const auto a = call("POST", "/api/v1/syncs", editor,
                        "{\"manifest\": " + quoted(manifest_text("\"" + name + "\"", topic)) + "}");
    EXPECT_EQ(a.status, 422) << name << ": " << a.body;
    EXPECT_NE(a.headers.find("Content-Type: application/json"), std::string::npos) << a.headers;
    EXPECT_NE(a.headers.find("Content-Security-Policy: default-src 'none'"), std::string::npos);
  }
  EXPECT_FALSE(std::filesystem::exists(dir() / "etc"));
  const auto user = call(
      "POST", "/api/v1/users", admin,
      R"({"name": "<script>alert(1)</script>", "role": "viewer", "password": "long-enough-pass"})");
  EXPECT_EQ(user.status, 422) << user.body;
  EXPECT_EQ(call("POST", "/api/v1/users", admin,
                 R"({"name": "bob", "role": "viewer", "password": "short"})")
                .status,
            422);

  // A session: its cookie is HttpOnly and SameSite=Strict, and a change needs its CSRF token.
  const auto made = call("POST", "/api/v1/users", admin,
                         R"({"name": "erin", "role": "admin", "password": "erin-pass-9q8w7e6r"})");
  ASSERT_EQ(made.status, 201) << made.body;
  const auto signed_in =
      call("POST", "/api/v1/sessions", "", R"({"name": "erin", "password": "erin-pass-9q8w7e6r"})");
  ASSERT_EQ(signed_in.status, 201) << signed_in.body;
  std::smatch cookie;
  ASSERT_TRUE(std::regex_search(signed_in.headers, cookie,
                                std::regex("Set-Cookie: krow_session=([A-Za-z0-9_-]+);([^\r\n]*)")))
      << signed_in.headers;
  EXPECT_NE(cookie[2].str().find("HttpOnly"), std::string::npos);
  EXPECT_NE(cookie[2].str().find("SameSite=Strict"), std::string::npos);
  EXPECT_EQ(cookie[2].str().find("Secure"), std::string::npos);  // plain HTTP here
  const std::string session = "Cookie: krow_session=" + cookie[1].str();
  const auto csrf = json_string(signed_in.body, "csrf_token");
  EXPECT_EQ(call("GET", "/api/v1/users", "", "", {session}).status, 200);
  const auto no_csrf = call("POST", "/api/v1/syncs/" + sync_id_ + "/pause", "", "", {session});
  EXPECT_EQ(no_csrf.status, 403) << no_csrf.body;
  EXPECT_EQ(call("POST", "/api/v1/syncs/" + sync_id_ + "/pause", "", "",
                 {session, "X-CSRF-Token: " + csrf})
                .status,
            200);
  EXPECT_EQ(
      call("DELETE", "/api/v1/sessions/current", "", "", {session, "X-CSRF-Token: " + csrf}).status,
      204);
  EXPECT_EQ(call("GET", "/api/v1/users", "", "", {session}).status, 401);
  // The last admin cannot be removed.
  EXPECT_EQ(call("DELETE", "/api/v1/users/erin", admin).status, 204);
  EXPECT_EQ(call("DELETE", "/api/v1/users/root-admin", admin).status, 409);

  // A source connected through the API: checked against the cluster, saved, never answered.
  const std::string source_secret = "source-secret-a8d7f6";
  const auto connected = call("POST", "/api/v1/sources", editor,
                              "{\"name\": \"local\", \"bootstrap_servers\": \"" + bootstrap_ +
                                  "\", \"security_protocol\": \"PLAINTEXT\", \"password\": \"" +
                                  source_secret + "\"}");
  EXPECT_EQ(connected.status, 201) << connected.body;
  const auto sources = call("GET", "/api/v1/sources", editor);
  EXPECT_NE(sources.body.find("\"name\":\"local\""), std::string::npos) << sources.body;

  const auto audit = call("GET", "/api/v1/audit?limit=10000", admin);
  EXPECT_NE(audit.body.find(
                "\"action\":\"session.create\",\"target\":\"\",\"outcome\":\"refused: throttled\""),
            std::string::npos)
      << audit.body.substr(0, 3000);
  EXPECT_NE(audit.body.find("\"outcome\":\"refused: wrong name or password\""), std::string::npos);
  EXPECT_NE(audit.body.find("\"actor\":\"erin\",\"action\":\"sync.pause\",\"target\":\"" +
                            sync_id_ + "\",\"outcome\":\"refused: CSRF token missing or wrong\""),
            std::string::npos);
  EXPECT_NE(audit.body.find("\"action\":\"source.connect\",\"target\":\"\",\"outcome\":\"ok\""),
            std::string::npos);
  EXPECT_EQ(call("GET", "/api/v1/audit?limit=../../x", admin).status, 400);

  // No password, token or source secret anywhere: answers, the service's log, its metrics.
  const auto everything = answers_ + slurp(dir() / "serve.err") + http(base_ + "/metrics").body;
  for (const std::string& secret : {kAdminPassword, std::string("erin-pass-9q8w7e6r"),
                                    source_secret, admin.substr(16), editor.substr(16)})
    EXPECT_EQ(everything.find(secret), std::string::npos) << "a secret was answered or logged";
}

TEST_F(ServeApi, OverTlsTheServiceAnswersHttpsAndItsSessionCookieIsSecure) {
  const auto topic = make_topic("api-tls", 1);
  const auto cert = (dir() / "server.crt").string(), key = (dir() / "server.key").string();
  const auto cmd =
      "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 -keyout '" + key +
      "' -out '" + cert + "' >/dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  start(write_manifest({topic}), "tls:\n  certificate: " + cert + "\n  key: " + key + "\n");
  ASSERT_EQ(base_.rfind("https://", 0), 0u) << base_;
  EXPECT_EQ(http(base_ + "/livez").status, 200);
  const auto signed_in = call("POST", "/api/v1/sessions", "",
                              R"({"name": "root-admin", "password": ")" + kAdminPassword + R"("})");
  EXPECT_EQ(signed_in.status, 201) << signed_in.body;
  EXPECT_NE(signed_in.headers.find("; Secure"), std::string::npos) << signed_in.headers;
  // Plain HTTP to the TLS port gets no answer of the API.
  const auto plain = http("http" + base_.substr(5) + "/api/v1/syncs");
  EXPECT_NE(plain.status, 200);

  // A certificate that is not one stops the service before it listens, naming the setting.
  std::ofstream(cert) << "not a certificate";
  std::ofstream(dir() / "bad.yaml")
      << "listen: 127.0.0.1:0\nstate: serve2.db\ntls:\n  certificate: " << cert
      << "\n  key: " << key << "\n";
  const auto bad = krow({"serve", "--config", (dir() / "bad.yaml").string()});
  EXPECT_EQ(bad.exit_code, 3) << bad.err;
  EXPECT_NE(bad.err.find("tls: cannot use the certificate"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace krow::testkit
