#include "warehouse/postgres/postgres_settings.hpp"

#include <libpq-fe.h>

#include <memory>

#include "util/c_handle.hpp"

namespace krow {

namespace {

using ConninfoOptions = CHandle<PQconninfoOption, PQconninfoFree>;
using LibpqText = CHandle<char, PQfreemem>;  // text libpq allocated for the caller

// The options of connection string `dsn` (null when it is not one). libpq's message about a
// bad one may quote the string, secrets and all: it is freed unread.
ConninfoOptions parse_conninfo(const std::string& dsn) {
  char* err = nullptr;
  ConninfoOptions opts(PQconninfoParse(dsn.c_str(), &err));
  const LibpqText unread(err);
  return opts;
}

}  // namespace

std::string PostgresSettings::describe() const {
  std::string h = host, p = port, d = database;
  if (!dsn.empty()) {
    const auto opts = parse_conninfo(dsn);
    for (auto* o = opts.get(); o && o->keyword; ++o) {
      if (!o->val) continue;
      const std::string k = o->keyword;
      if (k == "host")
        h = o->val;
      else if (k == "port")
        p = o->val;
      else if (k == "dbname")
        d = o->val;
    }
  }
  return "PostgreSQL database " + (d.empty() ? std::string("(default)") : d) + " at " +
         (h.empty() ? std::string("localhost") : h) + ":" + (p.empty() ? std::string("5432") : p);
}

std::shared_ptr<const AdapterSettings> parse_postgres_settings(
    const Section& section, const std::vector<std::string>& common) {
  auto keys = common;
  for (const char* k : {"dsn", "host", "port", "database", "user", "password", "sslmode",
                        "sslrootcert", "connect_timeout"})
    keys.push_back(k);
  section.check_keys(keys);
  auto s = std::make_shared<PostgresSettings>();
  if (section.has("dsn")) {
    for (const char* k : {"host", "port", "database", "user", "sslmode", "sslrootcert"})
      if (section.has(k))
        section.fail(k, std::string("warehouse.") + k +
                            " cannot be combined with warehouse.dsn: put it in the dsn");
    s->dsn = section.required_text(
        "dsn", "a libpq connection string, e.g. \"host=db port=5432 dbname=analytics user=krow\"");
    const auto opts = parse_conninfo(s->dsn);
    if (!opts) section.fail("dsn", "warehouse.dsn is not a valid libpq connection string or URI");
    for (auto* o = opts.get(); o->keyword; ++o)
      if (std::string(o->keyword) == "password" && o->val && *o->val)
        section.fail("dsn",
                     "warehouse.dsn must not carry a password; put it in warehouse.password as "
                     "${ENV_VAR}, so it never shows in messages");
  } else {
    s->host = section.required_text("host", "the server's host name, e.g. host: localhost");
    if (section.has("port")) s->port = std::to_string(section.size("port", 1, 65535));
    s->database =
        section.required_text("database", "the database to write, e.g. database: analytics");
    s->user = section.required_text("user", "the role krow logs in as, e.g. user: krow");
    if (section.has("sslmode"))
      s->sslmode = section.one_of(
          "sslmode", {"disable", "allow", "prefer", "require", "verify-ca", "verify-full"});
    if (section.has("sslrootcert")) s->sslrootcert = section.path("sslrootcert").string();
  }
  if (section.has("password")) s->password = section.secret("password");
  if (section.has("connect_timeout"))
    s->connect_timeout_s = static_cast<int>(section.size("connect_timeout", 1, 3600));
  return s;
}

}  // namespace krow
