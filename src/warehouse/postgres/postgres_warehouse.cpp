#include "warehouse/postgres/postgres_warehouse.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <regex>
#include <thread>

#include "contract/row_contract.hpp"
#include "rows/json_limits.hpp"
#include "util/error.hpp"
#include "util/process.hpp"
#include "util/text.hpp"
#include "warehouse/column_types.hpp"
#include "warehouse/fencing.hpp"
#include "warehouse/postgres/postgres_copy.hpp"
#include "warehouse/sql_text.hpp"

namespace krow {

namespace {

constexpr const char* kStateSchema = "_krow";
// A refused value costs a retry of its batch; past this many, the batch fails instead.
constexpr int kMaxRefusalsPerBatch = 1000;

// A text[]-style array literal: every element quoted.
std::string array_literal(const std::vector<std::string>& items) {
  std::string out = "{";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out.push_back(',');
    out.push_back('"');
    for (char c : items[i]) {
      if (c == '"' || c == '\\') out.push_back('\\');
      out.push_back(c);
    }
    out.push_back('"');
  }
  return out + "}";
}

// What jsonb holds of JSON: no U+0000, surrogates only in pairs, and numeric's range.
constexpr rows::JsonLimits kJsonbLimits{false, false, 131072, 16383};

// A bigint[] literal whose elements may be NULL.
std::string nullable_array_literal(const std::vector<std::optional<int64_t>>& items) {
  std::string out = "{";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out.push_back(',');
    out += items[i] ? std::to_string(*items[i]) : std::string("NULL");
  }
  return out + "}";
}

std::string text(const pg::ResultPtr& r, int row, int col) {
  return PQgetisnull(r.get(), row, col) ? std::string() : std::string(PQgetvalue(r.get(), row, col));
}

// The index name of a table's BRIN index: short, whatever the table's name.
std::string brin_name(const std::string& table) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "krow_brin_%08x", fnv1a(table));
  return buf;
}

// The SQL expressions that identify a row of `alias` for latest_by_key: the Kafka key, or
// the value's unique_key fields (jsonb, so that equal JSON compares equal).
std::vector<std::string> key_sql(const TableSettings& settings, const std::string& alias) {
  std::vector<std::string> out;
  const std::string of = alias.empty() ? "" : alias + ".";
  if (settings.unique_key.empty()) out.push_back(of + "\"key\"");
  for (const auto& f : settings.unique_key) out.push_back("(" + of + "value -> " + quote_literal(f) + ")");
  return out;
}

// One typed cell (rows/typed_values.hpp) in the binary form of its column's type.
void put_typed(pg::CopyWriter& w, const columns::ColumnSpec& spec, const rows::TypedCell& cell,
               const std::string& arena) {
  if (!cell.present) return w.null();
  switch (spec.type) {
    case ColumnType::boolean: return w.boolean(cell.a != 0);
    case ColumnType::int32: return w.int32(static_cast<int32_t>(cell.a));
    case ColumnType::int64: return w.int64(cell.a);
    case ColumnType::uint64: return w.numeric(static_cast<rows::UInt128>(cell.unsigned_value()), false, 0);
    case ColumnType::float32: return w.float32(static_cast<float>(cell.real()));
    case ColumnType::float64: return w.float64(cell.real());
    case ColumnType::decimal: {
      const rows::Int128 v = cell.decimal();
      const auto magnitude = v < 0 ? -static_cast<rows::UInt128>(v) : static_cast<rows::UInt128>(v);
      return w.numeric(magnitude, v < 0, spec.scale);
    }
    case ColumnType::text:
    case ColumnType::bytes: return w.text(cell.text(arena));
    case ColumnType::date: return w.date(cell.a);
    case ColumnType::time: return w.time(cell.a);
    case ColumnType::timestamp: return w.timestamp_us(cell.a);
    case ColumnType::json: return w.jsonb(cell.text(arena));
  }
}

std::string application_name() {
  return "krow pid " + std::to_string(getpid()) + " on " + this_host();
}

}  // namespace

std::string PostgresWarehouse::column_sql_type(const columns::ColumnSpec& column) const {
  switch (column.type) {
    case ColumnType::boolean: return "boolean";
    case ColumnType::int32: return "integer";
    case ColumnType::int64: return "bigint";
    case ColumnType::uint64: return "numeric(20,0)";  // no unsigned types: 20 digits hold 2^64 - 1
    case ColumnType::float32: return "real";
    case ColumnType::float64: return "double precision";
    case ColumnType::decimal:
      return "numeric(" + std::to_string(column.precision) + "," + std::to_string(column.scale) + ")";
    case ColumnType::text:
    case ColumnType::bytes: return "text";  // bytes: base64 text, as in the value column
    case ColumnType::date: return "date";
    case ColumnType::time: return "time";
    case ColumnType::timestamp: return "timestamptz";
    case ColumnType::json: return "jsonb";
  }
  return "jsonb";
}

std::optional<std::vector<columns::TableColumn>> PostgresWarehouse::typed_columns(const std::string& table) {
  ensure_connected();
  const auto target = quote(config_.schema) + "." + quote(table);
  if (!exists(target)) return std::nullopt;
  const auto cols = conn_->exec(
      "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = to_regclass($1) AND "
      "attnum > 0 AND NOT attisdropped ORDER BY attnum",
      {target}, "reading a table's columns");
  const int n = PQntuples(cols.get());
  bool same = n >= static_cast<int>(contract::kColumnCount);
  for (int i = 0; same && i < static_cast<int>(contract::kColumnCount); ++i)
    same = text(cols, i, 0) == contract::kColumns[i].name;
  if (!same)
    throw Error(ErrorClass::fatal_table, "table " + config_.schema + "." + table + " in " + describe() +
                                             " exists but does not have krow's columns; rename or drop it, or "
                                             "choose another warehouse.schema");
  std::vector<columns::TableColumn> out;
  for (int i = static_cast<int>(contract::kColumnCount); i < n; ++i) {
    // format_type's names, spelt as column_sql_type spells them.
    auto type = text(cols, i, 1);
    if (type == "timestamp with time zone") type = "timestamptz";
    else if (type == "time without time zone") type = "time";
    out.push_back({text(cols, i, 0), type, spec_of_sql_type(*this, type)});
  }
  return out;
}

std::vector<columns::ColumnBinding> PostgresWarehouse::column_bindings(const std::string& table) {
  std::vector<columns::ColumnBinding> out;
  ensure_connected();
  if (!exists("_krow.columns"))
    return out;  // read-only, before a krow that records them wrote here
  const auto r = conn_->exec(
      "SELECT field_path, column_name FROM _krow.columns WHERE warehouse_schema = $1 AND "
      "table_name = $2 "
      "ORDER BY created_at, field_path",
      {config_.schema, table}, "reading a table's column bindings");
  for (int i = 0; i < PQntuples(r.get()); ++i)
    if (auto path = columns::path_of_key(text(r, i, 0)))
      out.push_back({std::move(*path), text(r, i, 1)});
  return out;
}

void PostgresWarehouse::record_bindings(const std::string& table,
                                        const std::vector<columns::ColumnSpec>& typed,
                                        bool created) {
  if (created)  // what a dropped table of this name left is not this table's
    conn_->exec("DELETE FROM _krow.columns WHERE warehouse_schema = $1 AND table_name = $2",
                {config_.schema, table}, "forgetting a dropped table's column bindings");
  std::vector<std::string> paths, names;
  for (const auto& b : columns::bindings_of(typed)) {
    paths.push_back(columns::path_key(b.path));
    names.push_back(b.column);
  }
  if (paths.empty()) return;
  conn_->exec(
      "INSERT INTO _krow.columns (warehouse_schema, table_name, field_path, column_name) SELECT "
      "$1, $2, b.* FROM "
      "unnest($3::text[], $4::text[]) AS b(field_path, column_name) ON CONFLICT DO NOTHING",
      {config_.schema, table, array_literal(paths), array_literal(names)},
      "recording a table's column bindings");
}

std::vector<std::string> PostgresWarehouse::evolution_sql(const std::string& table,
                                                          const std::vector<columns::ColumnChange>& changes) const {
  return evolution_statements(*this, quote(config_.schema) + "." + quote(table), changes, "TYPE");
}

PostgresWarehouse::PostgresWarehouse(const WarehouseConfig& config, const std::string& sync_id, OpenMode mode)
    : config_(config), settings_(config.settings_as<PostgresSettings>()), sync_id_(sync_id), mode_(mode) {
  conn_ = std::make_unique<pg::Connection>(settings_, application_name());
  const auto enc = conn_->exec("SHOW server_encoding", "reading the server's encoding");
  const std::string encoding = text(enc, 0, 0);
  if (encoding != "UTF8" && encoding != "SQL_ASCII")
    throw Error(ErrorClass::fatal_run, describe() + " is encoded in " + encoding +
                                           ", which cannot hold every message: krow needs a UTF8 database "
                                           "(CREATE DATABASE ... ENCODING 'UTF8' TEMPLATE template0)");
  start_session();
  if (mode_ == OpenMode::worker) {
    // Workers start together: one at a time makes (or upgrades) the state tables.
    lock_sync(std::chrono::seconds(config_.retry_timeout_s));
    try {
      create_state();
    } catch (...) {
      unlock_sync();
      throw;
    }
    unlock_sync();
    has_state_ = true;
  } else if (mode_ == OpenMode::write) {
    create_state();
    has_state_ = true;
  } else {
    has_state_ = exists("_krow.positions");
  }
}

void PostgresWarehouse::start_session() {
  conn_->exec("SET client_min_messages = warning", "configuring the session");
  stages_.clear();
  summarized_.clear();
  if (mode_ == OpenMode::write) take_lock();
  if (mode_ == OpenMode::worker) {
    join_workers();
    // A connection lost while preparing: the lock went with it.
    if (preparing_) {
      preparing_ = false;
      lock_sync(std::chrono::seconds(config_.retry_timeout_s));
    }
  }
}

namespace {
// The keys of a sync's locks in this database: the sync's (held exclusively by a sync opened
// for writing, shared by every worker), and its workers' preparation lock.
std::string sync_lock_key(const std::string& sync_id) {
  return "krow sync " + sync_id;
}
std::string preparation_lock_key(const std::string& sync_id) {
  return "krow sync " + sync_id + " preparation";
}
}  // namespace

void PostgresWarehouse::join_workers() {
  const auto key = sync_lock_key(sync_id_);
  const auto r = conn_->exec("SELECT pg_try_advisory_lock_shared(hashtextextended($1, 0))", {key},
                             "joining the workers of the sync");
  if (text(r, 0, 0) == "t") return;
  const auto holder = lock_holder(key);
  throw Error(ErrorClass::transient,
              "a sync of '" + sync_id_ + "' without --worker-id is running (" +
                  (holder ? holder->who : "its holder is not visible to this role") + ", in " +
                  describe() +
                  "): workers start once it has ended (exit code 75: try again later). Run "
                  "every process of a sync with --worker-id, or none");
}

void PostgresWarehouse::lock_sync(std::chrono::milliseconds wait) {
  ensure_connected();
  if (preparing_) return;
  const auto key = preparation_lock_key(sync_id_);
  const auto started = std::chrono::steady_clock::now();
  bool said = false;
  for (;;) {
    const auto r = conn_->exec("SELECT pg_try_advisory_lock(hashtextextended($1, 0))", {key},
                               "taking the sync lock");
    if (text(r, 0, 0) == "t") {
      preparing_ = true;
      return;
    }
    const auto waited = std::chrono::steady_clock::now() - started;
    if (waited >= wait)
      throw Error(
          ErrorClass::transient,
          "another worker of sync '" + sync_id_ + "' kept preparing the tables in " + describe() +
              " for " +
              std::to_string(std::chrono::duration_cast<std::chrono::seconds>(wait).count()) +
              " s (warehouse.retry_timeout); trying again later");
    if (!said && waited > std::chrono::seconds(1)) {
      said = true;
      std::fprintf(stderr,
                   "krow: note: another worker of sync '%s' is preparing the tables; waiting "
                   "for it\n",
                   sync_id_.c_str());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

void PostgresWarehouse::unlock_sync() noexcept {
  if (!preparing_) return;
  preparing_ = false;
  try {
    if (conn_->ok())
      conn_->exec("SELECT pg_advisory_unlock(hashtextextended($1, 0))",
                  {preparation_lock_key(sync_id_)}, "releasing the sync lock");
  } catch (const std::exception&) {
    // The connection broke: the server released the lock with it.
  }
}

void PostgresWarehouse::record_worker(const WorkerRecord& w) {
  ensure_connected();
  conn_->exec(
      "INSERT INTO _krow.workers (sync_id, warehouse_schema, worker_id, host, pid, partitions, "
      "heartbeat_at) VALUES ($1, $2, $3, $4, $5::bigint, $6, now()) "
      "ON CONFLICT (sync_id, warehouse_schema, worker_id) DO UPDATE SET host = EXCLUDED.host, "
      "pid = EXCLUDED.pid, partitions = EXCLUDED.partitions, heartbeat_at = now()",
      {w.sync_id, config_.schema, w.worker_id, w.host, std::to_string(w.pid), w.partitions},
      "recording a worker");
}

std::vector<WorkerRecord> PostgresWarehouse::workers(const std::string& sync_id) {
  std::vector<WorkerRecord> out;
  if (!has_state_ || !exists("_krow.workers")) return out;
  const auto r = conn_->exec(
      "SELECT worker_id, coalesce(host, ''), coalesce(pid, 0), coalesce(partitions, ''), "
      "(extract(epoch FROM heartbeat_at) * 1000)::bigint FROM _krow.workers "
      "WHERE sync_id = $1 AND warehouse_schema = $2 ORDER BY worker_id",
      {sync_id, config_.schema}, "reading the workers");
  for (int i = 0; i < PQntuples(r.get()); ++i) {
    WorkerRecord w;
    w.sync_id = sync_id;
    w.worker_id = text(r, i, 0);
    w.host = text(r, i, 1);
    w.pid = std::stoll(text(r, i, 2));
    w.partitions = text(r, i, 3);
    w.heartbeat_at_ms = std::stoll(text(r, i, 4));
    out.push_back(std::move(w));
  }
  return out;
}

void PostgresWarehouse::ensure_connected() {
  if (conn_->ok()) return;
  conn_->reconnect();  // throws transient while the server is away
  start_session();
}

void PostgresWarehouse::take_lock() {
  // Session-level, so it lasts as long as this connection; keyed by the sync ID in this
  // database, like every other sync of that ID writing here.
  const std::string key = sync_lock_key(sync_id_);
  const auto started = std::chrono::steady_clock::now();
  const auto deadline = started + std::chrono::seconds(config_.retry_timeout_s);
  bool said = false;
  std::string ended;     // the server process whose session this last asked to end
  std::string not_ours;  // why this role could not end the session of a krow that is gone
  std::string gone;      // the last holder found gone, for the note once the lock is taken
  for (int attempt = 1;; ++attempt) {
    const auto r = conn_->exec("SELECT pg_try_advisory_lock(hashtextextended($1, 0))", {key},
                               "taking the sync lock");
    if (text(r, 0, 0) == "t") {
      // An earlier sync ended without releasing it (kill -9, a crash): worth a line.
      if (!gone.empty())
        std::fprintf(stderr,
                     "krow: note: took over the lock of sync '%s' from a krow that is gone (%s) "
                     "after %.3f s\n",
                     sync_id_.c_str(), gone.c_str(),
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - started)
                         .count());
      return;
    }
    const auto holder = lock_holder(key);
    if (!holder && attempt < 3) continue;  // released between the two queries: try again
    if (holder && holder->workers > 0 && !holder->gone)
      throw Error(ErrorClass::transient,
                  "workers of sync '" + sync_id_ + "' are running (" +
                      std::to_string(holder->workers) +
                      (holder->workers == 1 ? " session" : " sessions") + " in " + describe() +
                      ", such as " + holder->who +
                      "); a sync without --worker-id runs once they have stopped (exit code 75: "
                      "try again later). Run every process of a sync with --worker-id, or none");
    if (!holder || !holder->gone)
      throw Error(ErrorClass::transient,
                  "another sync of '" + sync_id_ + "' is already running (" +
                      (holder ? holder->who : "its holder is not visible to this role") +
                      "; the lock is held in " + describe() +
                      "): run this sync again once that one has finished (exit code 75: try "
                      "again later). A krow whose machine died or was cut off keeps the lock "
                      "until the server notices, within about a minute" +
                      (holder ? "; SELECT pg_terminate_backend(" + holder->backend_pid +
                                    ") ends its session at once"
                              : ""));
    gone = holder->who;
    // Its krow is gone (kill -9, a crash, or this process's own connection that broke): the
    // server keeps the session until it notices, which may take a statement's time, or the
    // time to read the rest of a COPY that was under way. End it where this role may (its
    // own sessions, or as a member of pg_signal_backend), and wait.
    if (holder->backend_start.empty()) {
      not_ours = "; this role may not see that session, nor end it";
    } else if (ended != holder->backend_pid) {
      ended = holder->backend_pid;
      try {
        conn_->exec(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE pid = $1 AND backend_start = $2",
            {holder->backend_pid, holder->backend_start},
            "ending the session of a krow that is gone");
      } catch (const pg::ServerError& e) {
        if (e.sqlstate() != "42501") throw;  // not allowed: then only waiting is left
        not_ours = "; " + e.primary();
      }
    }
    if (std::chrono::steady_clock::now() >= deadline)
      throw Error(ErrorClass::transient,
                  "the lock of sync '" + sync_id_ + "' in " + describe() +
                      " is still held by the session of a krow that is gone (" + holder->who +
                      not_ours + "), after waiting " + std::to_string(config_.retry_timeout_s) +
                      " s (warehouse.retry_timeout) for the server to close it. End it as a "
                      "superuser or a member of pg_signal_backend: SELECT pg_terminate_backend(" +
                      holder->backend_pid +
                      "), then run the sync again (exit code 75: try again later)");
    if (!said && std::chrono::steady_clock::now() - started > std::chrono::seconds(1)) {
      said = true;
      std::fprintf(stderr,
                   "krow: note: the lock of sync '%s' is held by the session of a krow that is "
                   "gone (%s); waiting up to %d s (warehouse.retry_timeout) for the server to "
                   "close it\n",
                   sync_id_.c_str(), holder->who.c_str(), config_.retry_timeout_s);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(20 * attempt, 500)));
  }
}

std::optional<PostgresWarehouse::LockHolder> PostgresWarehouse::lock_holder(
    const std::string& key) {
  const auto who = conn_->exec(
      "WITH k AS (SELECT hashtextextended($1, 0) AS key) "
      "SELECT a.pid, a.backend_start, a.application_name, "
      // Another role's address and start are hidden from this one (NULL), its name is not.
      "CASE WHEN a.client_addr IS NOT NULL THEN 'connected from ' || host(a.client_addr) "
      "WHEN a.backend_start IS NULL THEN 'from where, this role may not see' "
      "ELSE 'connected from a local socket' END, "
      "to_char(a.backend_start AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), "
      "CASE WHEN l.mode = 'ShareLock' THEN count(*) OVER () ELSE 0 END "
      "FROM k, pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
      "WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 "
      "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
      "AND l.classid::bigint = ((k.key >> 32) & 4294967295) "
      "AND l.objid::bigint = (k.key & 4294967295) LIMIT 1",
      {key}, "finding the holder of the sync lock");
  if (PQntuples(who.get()) == 0) return std::nullopt;
  LockHolder h;
  h.backend_pid = text(who, 0, 0);
  h.backend_start = text(who, 0, 1);
  h.workers = static_cast<int>(parse_int64(text(who, 0, 5)).value_or(0));
  const auto app = text(who, 0, 2);
  const auto since = text(who, 0, 4);
  h.who = (app.empty() ? std::string("a session") : app) + ", " + text(who, 0, 3) +
          (since.empty() ? std::string() : " since " + since + " UTC") + ", server process " +
          h.backend_pid;
  // krow names its sessions "krow pid N on HOST" (application_name()). Whether that process
  // still runs can be told only on its own host.
  static const std::regex krow_session(R"(krow pid ([0-9]{1,10}) on (.+))");
  std::smatch m;
  if (std::regex_match(app, m, krow_session) && m[2].str() == this_host()) {
    const int64_t pid = parse_int64(m[1].str()).value_or(0);  // at most 10 digits: fits
    h.gone = pid == getpid() || !process_alive(pid);
  }
  return h;
}

bool PostgresWarehouse::exists(const std::string& qualified_name) {
  const auto r = conn_->exec("SELECT to_regclass($1) IS NOT NULL", {qualified_name}, "looking up a table");
  return text(r, 0, 0) == "t";
}

void PostgresWarehouse::ensure_schema(const std::string& schema) {
  // CREATE SCHEMA IF NOT EXISTS needs CREATE on the database even when the schema exists.
  const auto r = conn_->exec("SELECT 1 FROM pg_namespace WHERE nspname = $1", {schema}, "looking up a schema");
  if (PQntuples(r.get()) == 0) conn_->exec("CREATE SCHEMA IF NOT EXISTS " + quote(schema), "creating a schema");
}

void PostgresWarehouse::create_state() {
  // The warehouse schema comes with its first table (create_new_table).
  ensure_schema(kStateSchema);
  // CREATE TABLE IF NOT EXISTS needs CREATE on the schema even when the table exists.
  for (const auto* table : contract::kStateTables)
    if (!exists(std::string(kStateSchema) + "." + std::string(table->name)))
      conn_->exec(state_table_sql(*this, kStateSchema, *table, "now()"),
                  "creating krow's state tables");
  upgrade_positions();
}

void PostgresWarehouse::upgrade_positions() {
  // Asked first: ALTER TABLE needs the table's owner even when there is nothing to do.
  const auto have = conn_->exec(
      "SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = "
      "'positions' AND column_name = 'epoch'",
      {kStateSchema}, "reading krow's state tables");
  if (PQntuples(have.get()) > 0) return;
  transaction("upgrading krow's positions table", [&] {
    conn_->exec("ALTER TABLE _krow.positions ADD COLUMN IF NOT EXISTS epoch bigint",
                "upgrading krow's positions table");
    conn_->exec("ALTER TABLE _krow.positions ALTER COLUMN next_offset DROP NOT NULL",
                "upgrading krow's positions table");
  });
}

std::vector<Position> PostgresWarehouse::positions(const std::string& sync_id) {
  std::vector<Position> out;
  if (!has_state_) return out;
  ensure_connected();
  const auto r = conn_->exec(
      "SELECT topic, topic_id, kafka_partition, next_offset FROM _krow.positions WHERE sync_id = "
      "$1 AND "
      "warehouse_schema = $2 AND next_offset IS NOT NULL",
      {sync_id, config_.schema}, "reading positions");
  for (int i = 0; i < PQntuples(r.get()); ++i)
    out.push_back({text(r, i, 0), TopicId(text(r, i, 1)),
                   Partition(static_cast<int32_t>(pg::Connection::integer(r, i, 2, "a partition"))),
                   Offset(pg::Connection::integer(r, i, 3, "a position"))});
  return out;
}

std::vector<PartitionClaim> PostgresWarehouse::take(const std::string& sync_id,
                                                    const std::vector<PartitionKey>& partitions) {
  std::vector<PartitionClaim> out;
  if (partitions.empty()) return out;
  std::vector<std::string> ids, parts, topics;
  for (const auto& k : partitions) {
    ids.push_back(k.topic_id.str());
    parts.push_back(std::to_string(k.partition.value()));
    topics.push_back(k.topic);
  }
  ensure_connected();
  // One statement, so one transaction: each row is locked as it is inserted or bumped, and a
  // concurrent take of the same row waits, then bumps what this one stored. Rows are taken
  // in key order, so that two takes of overlapping sets cannot deadlock.
  const auto r = conn_->exec(
      "INSERT INTO _krow.positions AS p (sync_id, warehouse_schema, topic_id, kafka_partition, "
      "topic, "
      "next_offset, epoch) "
      "SELECT $1, $2, m.topic_id, m.kafka_partition, m.topic, NULL, 1 FROM "
      "unnest($3::text[], $4::integer[], $5::text[]) AS m(topic_id, kafka_partition, topic) "
      "ORDER BY m.topic_id, m.kafka_partition "
      "ON CONFLICT (sync_id, warehouse_schema, topic_id, kafka_partition) DO UPDATE SET "
      "epoch = coalesce(p.epoch, 0) + 1 "
      "RETURNING topic_id, kafka_partition, epoch, next_offset",
      {sync_id, config_.schema, array_literal(ids), array_literal(parts), array_literal(topics)},
      "taking partitions");
  for (const auto& k : partitions) {
    PartitionClaim c{k, Epoch(0), std::nullopt};
    for (int i = 0; i < PQntuples(r.get()); ++i) {
      if (text(r, i, 0) != k.topic_id.str() ||
          pg::Connection::integer(r, i, 1, "a partition") != k.partition.value())
        continue;
      c.epoch = Epoch(pg::Connection::integer(r, i, 2, "an epoch"));
      if (!PQgetisnull(r.get(), i, 3))
        c.position = Offset(pg::Connection::integer(r, i, 3, "a position"));
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<TableMapping> PostgresWarehouse::tables() {
  std::vector<TableMapping> out;
  if (!has_state_) return out;
  ensure_connected();
  const auto r = conn_->exec("SELECT sync_id, topic, table_name FROM _krow.tables WHERE warehouse_schema = $1",
                             {config_.schema}, "reading table names");
  for (int i = 0; i < PQntuples(r.get()); ++i) out.push_back({text(r, i, 0), text(r, i, 1), text(r, i, 2)});
  return out;
}

std::string PostgresWarehouse::planned_definitions(const TableSettings& settings) const {
  std::string definitions = row_column_definitions(*this);
  for (const auto& c : settings.typed_columns)
    definitions += ", " + quote(c.name) + " " + column_sql_type(c);
  return definitions;
}

std::string PostgresWarehouse::brin_index_sql(const std::string& table) const {
  return "CREATE INDEX " + quote(brin_name(table)) + " ON " + quote(config_.schema) + "." +
         quote(table) + " USING brin (kafka_partition, kafka_offset) WITH (autosummarize = on)";
}

std::string PostgresWarehouse::key_index_sql(const std::string& table,
                                             const TableSettings& settings) const {
  if (settings.strategy != Strategy::latest_by_key) return {};
  // Each batch looks up the stored row of every key it brings.
  std::string keys;
  for (const auto& k : key_sql(settings, "")) keys += (keys.empty() ? "" : ", ") + k;
  char name[48];
  std::snprintf(name, sizeof name, "krow_key_%08x", fnv1a(table + '\n' + keys));
  return "CREATE INDEX IF NOT EXISTS " + quote(name) + " ON " + quote(config_.schema) + "." +
         quote(table) + " (" + keys + ")";
}

void PostgresWarehouse::create_key_index(const std::string& table, const TableSettings& settings) {
  if (const auto sql = key_index_sql(table, settings); !sql.empty())
    conn_->exec(sql, "creating the index of the table's keys");
}

void PostgresWarehouse::create_new_table(const std::string& sync_id, const std::string& topic,
                                         const std::string& table, const TableSettings& settings) {
  ensure_schema(config_.schema);
  const auto target = quote(config_.schema) + "." + quote(table);
  conn_->exec("CREATE TABLE " + target + " (" + planned_definitions(settings) + ")",
              "creating a table");
  conn_->exec(brin_index_sql(table), "creating a table's index");
  create_key_index(table, settings);
  for (const auto& sql : design_index_sql(table, settings.design))
    conn_->exec(sql, "creating an index of the manifest's tables:");
  record_bindings(table, settings.typed_columns, /*created=*/true);
  record_table_name(sync_id, topic, table);
}

void PostgresWarehouse::record_table_name(const std::string& sync_id, const std::string& topic,
                                          const std::string& table) {
  conn_->exec(
      "INSERT INTO _krow.tables (sync_id, topic, warehouse_schema, table_name) "
      "VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
      {sync_id, topic, config_.schema, table}, "recording a table name");
}

void PostgresWarehouse::create_table(const std::string& sync_id, const std::string& topic,
                                     const std::string& table, const TableSettings& settings,
                                     Creation creation) {
  strategies_.set(table, settings);
  ensure_connected();
  conn_->exec("BEGIN", "starting a transaction");
  try {
    const bool missing = !typed_columns(table);
    if (missing && creation == Creation::at_publish) {
      unpublished_[table] = topic;
      conn_->exec("COMMIT", "ending a transaction");
      return;
    }
    unpublished_.erase(table);
    if (missing) {
      create_new_table(sync_id, topic, table, settings);
    } else {
      // ALTER ... TYPE rewrites the table under an exclusive lock: readers wait for it once.
      for (const auto& sql : evolution_sql(table, settings.changes)) conn_->exec(sql, "changing a typed column");
      create_key_index(table, settings);
      if (settings.apply_design)
        for (const auto& c : plan_design(table, settings).changes)
          conn_->exec(c.ddl, "changing the table's indexes");
    }
    const auto problem = typed_columns_mismatch(*this, config_.schema + "." + table,
                                                typed_columns(table).value_or(std::vector<columns::TableColumn>{}),
                                                settings.typed_columns);
    if (!problem.empty()) throw Error(ErrorClass::fatal_table, problem);
    // An existing table's name is recorded too: one made by hand, or before names were.
    if (!missing) {
      record_bindings(table, settings.typed_columns, /*created=*/false);
      record_table_name(sync_id, topic, table);
    }
    conn_->exec("COMMIT", "committing a table");
  } catch (...) {
    rollback();
    throw;
  }
}

void PostgresWarehouse::rollback() {
  if (!conn_->ok()) return;  // the server rolled back a broken connection's transaction itself
  try {
    conn_->exec("ROLLBACK", "rolling back");
  } catch (const Error&) {
  }
}

void PostgresWarehouse::move_positions(const std::string& sync_id, const std::vector<PositionMove>& moves) {
  // All moves of a batch in two statements: compare-and-set the stored rows (on position and
  // epoch; a row taken but never committed has no position), insert the rows of partitions
  // never taken nor committed. In READ COMMITTED, a row a concurrent take bumped is checked
  // again after it commits: its new epoch fails the comparison.
  std::vector<std::string> ids, parts, to, topics, epochs, new_ids, new_parts, new_to, new_topics;
  std::vector<std::optional<int64_t>> from;
  for (const auto& m : moves) {
    if (m.from || m.epoch != Epoch(0)) {
      ids.push_back(m.to.topic_id.str());
      parts.push_back(std::to_string(m.to.partition.value()));
      from.push_back(m.from ? std::optional<int64_t>(m.from->value()) : std::nullopt);
      to.push_back(std::to_string(m.to.next.value()));
      topics.push_back(m.to.topic);
      epochs.push_back(std::to_string(m.epoch.value()));
    } else {
      new_ids.push_back(m.to.topic_id.str());
      new_parts.push_back(std::to_string(m.to.partition.value()));
      new_to.push_back(std::to_string(m.to.next.value()));
      new_topics.push_back(m.to.topic);
    }
  }
  int64_t moved = 0;
  if (!ids.empty()) {
    const auto r = conn_->exec(
        "UPDATE _krow.positions AS p SET next_offset = m.next_offset, topic = m.topic, updated_at "
        "= now() "
        "FROM unnest($3::text[], $4::integer[], $5::bigint[], $6::bigint[], $7::text[], "
        "$8::bigint[]) "
        "AS m(topic_id, kafka_partition, from_offset, next_offset, topic, epoch) "
        "WHERE p.sync_id = $1 AND p.warehouse_schema = $2 AND p.topic_id = m.topic_id "
        "AND p.kafka_partition = m.kafka_partition AND p.next_offset IS NOT DISTINCT FROM "
        "m.from_offset "
        "AND coalesce(p.epoch, 0) = m.epoch",
        {sync_id, config_.schema, array_literal(ids), array_literal(parts),
         nullable_array_literal(from), array_literal(to), array_literal(topics),
         array_literal(epochs)},
        "moving positions");
    moved += pg::Connection::affected(r);
  }
  if (!new_ids.empty()) {
    const auto r = conn_->exec(
        "INSERT INTO _krow.positions (sync_id, warehouse_schema, topic_id, kafka_partition, next_offset, topic) "
        "SELECT $1, $2, m.* FROM unnest($3::text[], $4::integer[], $5::bigint[], $6::text[]) "
        "AS m(topic_id, kafka_partition, next_offset, topic) ON CONFLICT DO NOTHING",
        {sync_id, config_.schema, array_literal(new_ids), array_literal(new_parts), array_literal(new_to),
         array_literal(new_topics)},
        "recording positions");
    moved += pg::Connection::affected(r);
  }
  if (moved == static_cast<int64_t>(moves.size())) return;
  // Which fence failed: an epoch says another worker took a partition.
  const auto r = conn_->exec(
      "SELECT topic_id, kafka_partition, coalesce(epoch, 0), next_offset FROM _krow.positions "
      "WHERE sync_id = $1 AND warehouse_schema = $2",
      {sync_id, config_.schema}, "reading the stored epochs");
  std::vector<StoredFence> stored;
  for (int i = 0; i < PQntuples(r.get()); ++i)
    stored.push_back(
        {TopicId(text(r, i, 0)),
         Partition(static_cast<int32_t>(pg::Connection::integer(r, i, 1, "a partition"))),
         Epoch(pg::Connection::integer(r, i, 2, "an epoch")),
         PQgetisnull(r.get(), i, 3)
             ? std::nullopt
             : std::optional<Offset>(Offset(pg::Connection::integer(r, i, 3, "a position")))});
  if (auto e = epoch_conflict(sync_id, describe(), moves, stored)) throw *e;
  throw Error(ErrorClass::conflict, "the stored positions of sync '" + sync_id + "' in " +
                                        describe() + " are not the ones this batch started from");
}

void PostgresWarehouse::replace_what_jsonb_refuses(RowBatch& batch, size_t table, size_t index) {
  const Row& row = batch.tables()[table].rows[index];
  // String values are JSON strings krow escaped itself: nothing jsonb refuses.
  if (row.value.text.present && row.value.format != Format::string) {
    const auto why = rows::json_refusal(row.value.text.view(batch.arena()), kJsonbLimits);
    if (!why.empty())
      batch.replace_unstorable(table, index, contract::kValue, RowBatch::Fallback::as_text,
                               "PostgreSQL's jsonb cannot hold it (" + why + ")");
  }
  const Row& again = batch.tables()[table].rows[index];  // the arena may have moved
  if (again.headers.present) {
    const auto why = rows::json_refusal(again.headers.view(batch.arena()), kJsonbLimits);
    if (!why.empty())
      batch.replace_unstorable(table, index, contract::kHeaders, RowBatch::Fallback::as_text,
                               "PostgreSQL's jsonb cannot hold them (" + why + ")");
  }
}

void PostgresWarehouse::copy_rows(RowBatch& batch, size_t table_index, const std::string& target) {
  // Encoded and sent a piece at a time, so that the server stores one piece while the next
  // is made.
  constexpr size_t kPiece = 1 << 20;
  conn_->start_copy("COPY " + target + " FROM STDIN (FORMAT binary)", "writing rows");
  copy_buffer_.clear();
  pg::CopyWriter w(copy_buffer_);
  w.begin();
  std::string id;
  const auto& table = batch.tables()[table_index];
  for (size_t i = 0; i < table.rows.size(); ++i) {
    replace_what_jsonb_refuses(batch, table_index, i);
    const std::string& arena = batch.arena();
    auto slice = [&](const Slice& s) {
      if (s.present) w.text(s.view(arena));
      else w.null();
    };
    auto json = [&](const Slice& s) {
      if (s.present) w.jsonb(s.view(arena));
      else w.null();
    };
    auto format = [&](Format f) {
      if (f == Format::none) w.null();
      else w.text(format_name(f));
    };
    auto schema_id = [&](const std::optional<SchemaId>& s) {
      if (s) w.int32(s->value());
      else w.null();
    };
    const Row& row = table.rows[i];
    w.row(static_cast<int16_t>(contract::kColumnCount + table.typed_count()));
    id.clear();
    contract::append_id(id, table.topic_id, row.partition, row.offset);
    w.text(id);
    w.text(table.topic_id.str());
    w.int32(row.partition.value());
    w.int64(row.offset.value());
    if (row.timestamp_type == contract::TimestampType::none) {
      w.null();
      w.null();
    } else {
      w.timestamp_ms(row.timestamp_ms);
      w.text(contract::timestamp_type_name(row.timestamp_type));
    }
    slice(row.key.text);
    format(row.key.format);
    schema_id(row.key.schema_id);
    json(row.value.text);
    format(row.value.format);
    schema_id(row.value.schema_id);
    slice(row.value.base64);
    w.int32(row.value_size_bytes);
    json(row.headers);
    w.boolean(row.is_tombstone);
    slice(row.decode_error);
    for (size_t k = 0; k < table.typed_count(); ++k)
      put_typed(w, table.typed->columns[k], table.cells_of(i)[k], arena);
    if (copy_buffer_.size() >= kPiece) {
      conn_->send_copy(copy_buffer_, "writing rows");
      copy_buffer_.clear();
    }
  }
  w.end();
  conn_->send_copy(copy_buffer_, "writing rows");
  conn_->finish_copy("writing rows");
}

std::string PostgresWarehouse::stage_rows(RowBatch& batch, size_t table_index) {
  const auto& table = batch.tables()[table_index];
  // A table with typed columns has columns of its own: it gets a stage of its own.
  const std::string stage = table.typed ? "krow_stage_" + brin_name(table.table).substr(10) : "krow_stage";
  if (!stages_.count(stage)) {
    conn_->exec("CREATE TEMP TABLE IF NOT EXISTS " + stage + " (" +
                    (table.typed ? "LIKE " + quote(config_.schema) + "." + quote(table.table)
                                 : row_column_definitions(*this)) +
                    ") ON COMMIT DELETE ROWS",
                "creating the merge stage");
    stages_.insert(stage);
  }
  conn_->exec("TRUNCATE pg_temp." + stage, "clearing the merge stage");
  copy_rows(batch, table_index, "pg_temp." + stage);
  return "pg_temp." + stage;
}

void PostgresWarehouse::write_latest(const std::string& target, const std::string& source,
                                     const TableSettings& settings, bool rebuild) {
  auto key = [&](const char* alias) { return key_sql(settings, alias); };
  for (const auto& sql :
       latest_by_key_sql(target, source, "pg_temp.krow_latest", key, settings.keep_tombstones, rebuild))
    conn_->exec(sql, "writing the newest row of each key");
}

void PostgresWarehouse::merge_rows(RowBatch& batch, size_t table_index) {
  const auto& table = batch.tables()[table_index];
  const auto target = quote(config_.schema) + "." + quote(table.table);
  const auto stage = stage_rows(batch, table_index);
  // Replace exactly the ids the batch holds; the offset range of each partition lets the
  // BRIN index skip what the batch cannot touch.
  for (const auto& range : table.offset_ranges())
    conn_->exec("DELETE FROM " + target +
                    " AS t WHERE t.kafka_topic_id = $1 AND t.kafka_partition = $2 AND t.kafka_offset >= $3 AND "
                    "t.kafka_offset < $4 AND t.id IN (SELECT id FROM " + stage + ")",
                {table.topic_id.str(), std::to_string(range.partition.value()), std::to_string(range.from.value()),
                 std::to_string(range.to.value())},
                "replacing re-read rows");
  conn_->exec("INSERT INTO " + target + " SELECT * FROM " + stage, "inserting re-read rows");
}

void PostgresWarehouse::summarize(const RowBatch& batch) {
  for (const auto& t : batch.tables()) {
    if (t.rows.empty() || summarized_.count(t.table)) continue;
    // Ranges filled since the last autovacuum are not summarized yet, and an unsummarized
    // range is read by every lookup: bring the index up to date once per resync. Outside
    // the batch's transaction: when it cannot be done (another role owns the index), the
    // merge is only slower.
    try {
      conn_->exec("SELECT brin_summarize_new_values(to_regclass($1))",
                  {quote(config_.schema) + "." + quote(brin_name(t.table))}, "summarizing a table's index");
    } catch (const pg::ServerError& e) {
      if (e.error_class() == ErrorClass::transient) throw;
    }
    summarized_.insert(t.table);
  }
}

template <class WriteTable>
void PostgresWarehouse::write_batch(const std::string& sync_id, RowBatch& batch, const std::vector<PositionMove>& moves,
                                    WriteTable&& write_table) {
  std::set<std::tuple<size_t, size_t, size_t>> refused;
  for (int refusals = 0;;) {
    try {
      conn_->exec("BEGIN", "starting a batch transaction");
      // Positions first: a batch that is not the next one writes no row at all.
      move_positions(sync_id, moves);
      const auto& tables = batch.tables();
      for (copying_ = 0; copying_ < tables.size(); ++copying_)
        if (!tables[copying_].rows.empty()) write_table(copying_);
      conn_->exec("COMMIT", "committing a batch");
      return;
    } catch (const pg::ServerError& e) {
      rollback();
      if (!e.refused_value() || ++refusals > kMaxRefusalsPerBatch) throw;
      // "COPY <table>, line <row>, column <name>: ...": the row and column refused.
      static const std::regex where(R"(COPY [^,]+, line (\d+), column ([^:]+))");
      std::smatch m;
      if (!std::regex_search(e.context(), m, where) || copying_ >= batch.tables().size()) throw;
      const auto line = parse_int64(m[1].str());
      if (!line || *line < 1 || static_cast<uint64_t>(*line) > batch.tables()[copying_].rows.size())
        throw;
      const size_t row = static_cast<size_t>(*line - 1);
      const auto column =
          std::find_if(contract::kColumns.begin(), contract::kColumns.end(),
                       [&](const contract::Column& c) { return c.name == m[2].str(); });
      if (column == contract::kColumns.end()) {
        // A typed column: its cell becomes NULL, the reason the row's decode_error.
        const auto& t = batch.tables()[copying_];
        size_t k = 0;
        while (k < t.typed_count() && t.typed->columns[k].name != m[2].str()) ++k;
        if (k == t.typed_count()) throw;
        batch.replace_unstorable_typed(copying_, row, k, "PostgreSQL refused it (" + e.primary() + ")");
        continue;
      }
      const auto index = static_cast<contract::ColumnIndex>(column - contract::kColumns.begin());
      const bool first = refused.insert({copying_, row, index}).second;
      batch.replace_unstorable(copying_, row, index, first ? RowBatch::Fallback::as_text : RowBatch::Fallback::as_null,
                               "PostgreSQL refused it (" + e.primary() + ")");
    } catch (...) {
      rollback();
      throw;
    }
  }
}

void PostgresWarehouse::commit(const std::string& sync_id, RowBatch& batch, const std::vector<PositionMove>& moves,
                               WriteMode mode) {
  ensure_connected();
  if (mode == WriteMode::merge) summarize(batch);
  write_batch(sync_id, batch, moves, [&](size_t i) {
    const auto& table = batch.tables()[i].table;
    const auto& settings = strategies_.of(table);
    if (settings.replaces(mode == WriteMode::merge))
      throw std::logic_error("table " + table + " replaces its rows: its batches are staged, not committed");
    if (settings.strategy == Strategy::latest_by_key)
      write_latest(quote(config_.schema) + "." + quote(table), stage_rows(batch, i), settings, false);
    else if (mode == WriteMode::merge) merge_rows(batch, i);
    else copy_rows(batch, i, quote(config_.schema) + "." + quote(table));
  });
}

std::string PostgresWarehouse::staging(const std::string& sync_id, const std::string& table) const {
  return std::string(kStateSchema) + "." + quote(staging_table_name(sync_id, config_.schema, table));
}

template <class Body>
void PostgresWarehouse::transaction(const char* what, Body&& body) {
  ensure_connected();
  try {
    conn_->exec("BEGIN", what);
    body();
    conn_->exec("COMMIT", what);
  } catch (...) {
    rollback();
    throw;
  }
}

void PostgresWarehouse::begin_staging(const std::string& sync_id, const std::vector<std::string>& tables) {
  transaction("creating staging tables", [&] {
    for (const auto& t : tables) {
      conn_->exec("DROP TABLE IF EXISTS " + staging(sync_id, t), "dropping an earlier run's staging table");
      // Unlogged: written once, read once; a server crash empties it, and the run starts over.
      // The table's own columns, typed ones included; the planned ones for a table that
      // publish() creates.
      conn_->exec("CREATE UNLOGGED TABLE " + staging(sync_id, t) + " (" +
                      (unpublished_.count(t) ? planned_definitions(strategies_.of(t))
                                             : "LIKE " + quote(config_.schema) + "." + quote(t)) +
                      ")",
                  "creating a staging table");
    }
  });
}

void PostgresWarehouse::stage(const std::string& sync_id, RowBatch& batch, bool again) {
  ensure_connected();
  write_batch(sync_id, batch, {}, [&](size_t i) {
    const auto& t = batch.tables()[i];
    if (again) conn_->exec(delete_ranges_sql(staging(sync_id, t.table), t.offset_ranges()),
                           "replacing a batch staged before");
    copy_rows(batch, i, staging(sync_id, t.table));
  });
}

void PostgresWarehouse::publish(const std::string& sync_id, const std::vector<std::string>& tables,
                                const std::vector<PositionMove>& moves, WriteMode mode) {
  transaction("publishing the staged rows", [&] {
    // Positions first: a run whose positions moved under it publishes nothing.
    move_positions(sync_id, moves);
    for (const auto& t : tables) {
      // A table this run is the first to fill comes into being with its first rows.
      if (const auto it = unpublished_.find(t); it != unpublished_.end())
        create_new_table(sync_id, it->second, t, strategies_.of(t));
      const auto target = quote(config_.schema) + "." + quote(t);
      const auto staged = staging(sync_id, t);
      const auto& settings = strategies_.of(t);
      const bool replace = settings.replaces(mode == WriteMode::merge);
      if (settings.strategy == Strategy::latest_by_key) {
        write_latest(target, staged, settings, replace);
      } else {
        // DELETE, not TRUNCATE: readers keep seeing the old rows until the commit, never wait.
        if (replace) conn_->exec("DELETE FROM " + target, "replacing the table's rows");
        else if (mode == WriteMode::merge)
          conn_->exec("DELETE FROM " + target + " AS t USING " + staged +
                          " AS s WHERE t.kafka_topic_id = s.kafka_topic_id AND t.kafka_partition = s.kafka_partition "
                          "AND t.kafka_offset = s.kafka_offset",
                      "replacing re-read rows");
        conn_->exec("INSERT INTO " + target + " SELECT * FROM " + staged, "publishing staged rows");
      }
      conn_->exec("DROP TABLE " + staged, "dropping a staging table");
    }
  });
  for (const auto& t : tables) unpublished_.erase(t);
}

void PostgresWarehouse::discard_staged(const std::string& sync_id, const std::vector<std::string>& tables) {
  transaction("dropping staging tables", [&] {
    for (const auto& t : tables) conn_->exec("DROP TABLE IF EXISTS " + staging(sync_id, t), "dropping a staging table");
  });
}

RowCount PostgresWarehouse::count_rows(const std::string& sync_id, const std::string& table, bool staged,
                                       const std::vector<OffsetRange>& ranges) {
  if (!staged && unpublished_.count(table)) return {};  // publish() creates it
  ensure_connected();
  const auto from = staged ? staging(sync_id, table) : quote(config_.schema) + "." + quote(table);
  const auto r = conn_->exec(count_rows_sql(from, ranges), "counting rows");
  RowCount out;
  out.rows = pg::Connection::integer(r, 0, 0, "a row count");
  if (!PQgetisnull(r.get(), 0, 1))
    out.newest_ms = pg::Connection::integer(r, 0, 1, "the newest timestamp");
  return out;
}

std::string PostgresWarehouse::audited_table(const std::string& table) const {
  return quote(config_.schema) + "." + quote(table);
}

const AuditSql& PostgresWarehouse::audit_sql() const {
  static const AuditSql sql{
      "TEXT",
      [](const std::string& expr, int64_t by) {
        return "(" + expr + " / " + std::to_string(by) + ")";
      },
      [](const std::string& column) { return "CAST(" + column + " AS TEXT)"; },
      [](const std::string& column) {
        return "CAST(floor(extract(epoch FROM " + column + ") * 1000) AS BIGINT)";
      },
      [](const std::vector<OffsetRange>& ranges) { return ranges_sql(ranges).first; },
      [](const std::string& text) { return quote_literal(text); },
  };
  return sql;
}

std::vector<std::vector<std::optional<std::string>>> PostgresWarehouse::select_text(
    const std::string& sql, const std::string& what) {
  ensure_connected();
  const auto r = conn_->exec(sql, what.c_str());
  const int rows = PQntuples(r.get()), columns = PQnfields(r.get());
  std::vector<std::vector<std::optional<std::string>>> out(static_cast<size_t>(rows));
  for (int row = 0; row < rows; ++row) {
    out[row].resize(static_cast<size_t>(columns));
    for (int c = 0; c < columns; ++c)
      if (!PQgetisnull(r.get(), row, c))
        out[row][c] = std::string(PQgetvalue(r.get(), row, c),
                                  static_cast<size_t>(PQgetlength(r.get(), row, c)));
  }
  return out;
}

void PostgresWarehouse::record_run(const RunRecord& run) {
  ensure_connected();
  conn_->exec(
      "INSERT INTO _krow.runs (run_id, sync_id, warehouse_schema, started_at, finished_at, status, record) "
      "VALUES ($1, $2, $3, to_timestamp($4::bigint / 1000.0), to_timestamp($5::bigint / 1000.0), $6, $7::jsonb) "
      "ON CONFLICT (run_id) DO UPDATE SET finished_at = excluded.finished_at, status = excluded.status, "
      "record = excluded.record",
      {run.run_id, run.sync_id, config_.schema, std::to_string(run.started_at_ms), std::to_string(run.finished_at_ms),
       run.status, run.json},
      "recording the run");
}

std::vector<RunRecord> PostgresWarehouse::runs(const std::string& sync_id, int limit) {
  std::vector<RunRecord> out;
  if (!has_state_) return out;
  ensure_connected();
  const auto r = conn_->exec(
      "SELECT run_id, sync_id, (extract(epoch FROM started_at) * 1000)::bigint, "
      "(extract(epoch FROM finished_at) * 1000)::bigint, status, record::text FROM _krow.runs "
      "WHERE sync_id = $1 AND warehouse_schema = $2 ORDER BY started_at DESC LIMIT $3",
      {sync_id, config_.schema, std::to_string(limit)}, "reading run records");
  for (int i = 0; i < PQntuples(r.get()); ++i)
    out.push_back({text(r, i, 0), text(r, i, 1), pg::Connection::integer(r, i, 2, "a run's start"),
                   pg::Connection::integer(r, i, 3, "a run's end"), text(r, i, 4), text(r, i, 5)});
  return out;
}

}  // namespace krow
