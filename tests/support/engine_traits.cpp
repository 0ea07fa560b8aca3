#include "engine_traits.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <iostream>
#include <stdexcept>

#include "bq_session.hpp"
#include "pg_session.hpp"
#include "warehouse_probe.hpp"

namespace krow::testkit {

namespace {

std::string logical_name(Logical type) {
  switch (type) {
    case Logical::boolean:
      return "boolean";
    case Logical::int32:
      return "int32";
    case Logical::int64:
      return "int64";
    case Logical::uint64:
      return "uint64";
    case Logical::float32:
      return "float32";
    case Logical::float64:
      return "float64";
    case Logical::decimal:
      return "decimal";
    case Logical::text:
      return "text";
    case Logical::bytes:
      return "bytes";
    case Logical::date:
      return "date";
    case Logical::time:
      return "time";
    case Logical::timestamp:
      return "timestamp";
    case Logical::json:
      return "json";
  }
  return "?";
}

std::string spell(const EngineTraits& e, const std::map<Logical, std::string>& names,
                  std::string_view which, Logical type, int precision, int scale) {
  const auto it = names.find(type);
  if (it == names.end())
    throw std::invalid_argument("tests/support/engine_traits.cpp gives " + e.name + " no " +
                                std::string(which) + " type for " + logical_name(type));
  if (type != Logical::decimal) return it->second;
  if (e.decimal_type) return e.decimal_type(precision, scale);
  return it->second + "(" + std::to_string(precision) + "," + std::to_string(scale) + ")";
}

// A lock file held with flock, as a running krow holds its DuckDB file's.
class HeldFile : public Held {
 public:
  explicit HeldFile(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT, 0644);
    if (fd_ < 0 || ::flock(fd_, LOCK_EX | LOCK_NB) != 0 || ::write(fd_, "4242\n", 5) != 5) {
      if (fd_ >= 0) ::close(fd_);
      throw std::runtime_error("cannot hold " + path);
    }
  }
  ~HeldFile() override { ::close(fd_); }

 private:
  int fd_ = -1;
};

// A session holding krow's advisory lock of a sync.
class HeldSession : public Held {
 public:
  explicit HeldSession(std::unique_ptr<PgSession> session) : session_(std::move(session)) {}

 private:
  std::unique_ptr<PgSession> session_;
};

// A live lease in krow's table of leases, deleted (the holder stopped) when destroyed.
class HeldLease : public Held {
 public:
  HeldLease(const std::string& project, const std::string& sync_id)
      : bq_(BqSession::default_endpoint(), project), leases_("`" + project + "._krow_us.leases`") {
    bq_.create_dataset("_krow_us");
    bq_.query(
        "CREATE TABLE " + leases_ +
        " (sync_id STRING NOT NULL, warehouse_schema STRING "
        "NOT NULL, holder STRING NOT NULL, host STRING, pid INT64, expires_at TIMESTAMP NOT NULL)");
    bq_.query("INSERT INTO " + leases_ + " VALUES ('" + sync_id +
              "', 'confluent', 'ci-runner-7/4242/1', "
              "'ci-runner-7', 4242, TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL 10 MINUTE))");
  }
  ~HeldLease() override {
    bq_.query("DELETE FROM " + leases_ + " WHERE holder = 'ci-runner-7/4242/1'");
  }

 private:
  BqSession bq_;
  std::string leases_;
};

PgServer pg_server() {
  return PgServer::from_env();
}

// DuckDB and PostgreSQL write and change columns alike.
std::string sql_add_column_ddl(const std::string& table, const std::string& column) {
  return "\"" + table + "\" ADD COLUMN \"" + column + "\" ";
}
std::vector<std::string> sql_retype_column(const std::string& target, const std::string& column,
                                           const std::string& type) {
  return {"ALTER TABLE " + target + " ALTER COLUMN " + column + " TYPE " + type +
          " USING CAST(NULL AS " + type + ")"};
}

EngineTraits duckdb() {
  EngineTraits e;
  e.name = "duckdb";
  e.display_name = "DuckDB";
  e.typed_tables = true;
  e.concurrent_writers = false;
  e.krow_types = {{Logical::boolean, "BOOLEAN"}, {Logical::int32, "INTEGER"},
                  {Logical::int64, "BIGINT"},    {Logical::uint64, "UBIGINT"},
                  {Logical::float32, "FLOAT"},   {Logical::float64, "DOUBLE"},
                  {Logical::decimal, "DECIMAL"}, {Logical::text, "VARCHAR"},
                  {Logical::bytes, "VARCHAR"},   {Logical::date, "DATE"},
                  {Logical::time, "TIME"},       {Logical::timestamp, "TIMESTAMPTZ"},
                  {Logical::json, "JSON"}};
  e.catalog_types = e.krow_types;
  e.catalog_types[Logical::timestamp] = "TIMESTAMP WITH TIME ZONE";
  e.alter_type_clause = "SET DATA TYPE ";
  e.add_column_ddl = sql_add_column_ddl;
  e.retype_column = sql_retype_column;
  e.epoch_ms_sql = "epoch_ms({})";
  e.epoch_us_sql = "epoch_us({})";
  e.value_field_sql = "value->>'$.{}'";
  e.text_refuses_nul = false;  // VARCHAR holds it
  e.whole_float_text_has_fraction = true;
  e.max_table_name_length = 0;
  e.json_compared_by_engine = false;  // DuckDB's JSON keeps the text as written
  e.json = {JsonFit::kept, JsonFit::kept, JsonFit::kept, ""};
  e.design = {"sort_by: [status, day]", "krow sort_by: \"status\", \"day\""};
  e.changed_design = {"sort_by: [day]", "krow sort_by: \"day\""};
  e.foreign_design_yaml = "cluster_by: [key]";
  e.provision = [](TestWarehouse&) {};
  e.release = [](const TestWarehouse&) {};  // the file goes with the test's folder
  e.warehouse_yaml = [](const TestWarehouse&) -> std::string {
    return "  path: warehouse.duckdb\n";
  };
  e.probe = [](const TestWarehouse& w, const std::string& schema) {
    return duckdb_probe(w.duckdb_file().string(), schema);
  };
  e.hold_sync_lock = [](const TestWarehouse& w,
                        const std::string& sync_id) -> std::unique_ptr<Held> {
    return std::make_unique<HeldFile>(w.duckdb_file().string() + "." + sync_id + ".lock");
  };
  e.sync_lock_holder = "(pid 4242)";
  return e;
}

EngineTraits postgres() {
  EngineTraits e;
  e.name = "postgres";
  e.display_name = "PostgreSQL";
  e.typed_tables = true;
  e.concurrent_writers = true;
  e.krow_types = {{Logical::boolean, "boolean"}, {Logical::int32, "integer"},
                  {Logical::int64, "bigint"},    {Logical::uint64, "numeric(20,0)"},
                  {Logical::float32, "real"},    {Logical::float64, "double precision"},
                  {Logical::decimal, "numeric"}, {Logical::text, "text"},
                  {Logical::bytes, "text"},      {Logical::date, "date"},
                  {Logical::time, "time"},       {Logical::timestamp, "timestamptz"},
                  {Logical::json, "jsonb"}};
  e.catalog_types = e.krow_types;  // as format_type names them
  e.catalog_types[Logical::time] = "time without time zone";
  e.catalog_types[Logical::timestamp] = "timestamp with time zone";
  e.alter_type_clause = "TYPE ";
  e.add_column_ddl = sql_add_column_ddl;
  e.retype_column = sql_retype_column;
  e.epoch_ms_sql = "(extract(epoch FROM {}) * 1000)::bigint";
  e.epoch_us_sql = "(extract(epoch FROM {}) * 1000000)::bigint";
  e.value_field_sql = "value->>'{}'";
  e.text_refuses_nul = true;
  e.whole_float_text_has_fraction = false;
  e.max_table_name_length = 63;
  e.json_compared_by_engine = true;  // jsonb: keys reordered, every number an exact decimal
  e.json = {JsonFit::refused, JsonFit::refused, JsonFit::refused, "jsonb cannot hold it"};
  e.design = {
      "indexes: [status, {columns: [day, kafka_partition]}, {columns: [value], using: gin}]",
      "btree (day, kafka_partition); btree (status); gin (value)"};
  e.changed_design = {"indexes: [{columns: [status], using: hash}]", "hash (status)"};
  e.foreign_design_yaml = "sort_by: [key]";
  e.provision = [](TestWarehouse& w) {
    static int counter = 0;
    w.database = "krow_it_" + std::to_string(::getpid()) + "_" + std::to_string(++counter);
    PgSession server(pg_server().conninfo("postgres"));
    server.exec("DROP DATABASE IF EXISTS " + w.database + " WITH (FORCE)");
    server.exec("CREATE DATABASE " + w.database + " OWNER krow");
    w.env.emplace_back("KROW_TEST_PG_PASSWORD", pg_server().krow_password);
  };
  e.release = [](const TestWarehouse& w) {
    try {
      PgSession(pg_server().conninfo("postgres"))
          .exec("DROP DATABASE IF EXISTS " + w.database + " WITH (FORCE)");
    } catch (const std::exception& ex) {
      std::cerr << "could not drop " << w.database << ": " << ex.what() << "\n";
    }
  };
  e.warehouse_yaml = [](const TestWarehouse& w) {
    const auto s = pg_server();
    return "  type: postgres\n  host: " + s.host + "\n  port: " + s.port +
           "\n  database: " + w.database + "\n  user: krow\n  password: ${KROW_TEST_PG_PASSWORD}\n";
  };
  e.probe = [](const TestWarehouse& w, const std::string& schema) {
    return postgres_probe(pg_server().conninfo(w.database), schema);
  };
  e.hold_sync_lock = [](const TestWarehouse& w,
                        const std::string& sync_id) -> std::unique_ptr<Held> {
    auto session = std::make_unique<PgSession>(pg_server().conninfo(w.database, "krow"),
                                               "krow-test lock holder");
    session->exec("SELECT pg_advisory_lock(hashtextextended('krow sync " + sync_id + "', 0))");
    return std::make_unique<HeldSession>(std::move(session));
  };
  e.sync_lock_holder = "krow-test lock holder, connected from 127.0.0.1";
  e.break_sync_lock = [](const TestWarehouse& w, const std::string&, int pid) {
    // As krow names its sessions: "krow pid N on HOST". Ended, then gone from the server.
    PgSession admin(pg_server().conninfo(w.database));
    const std::string mine = "application_name LIKE 'krow pid " + std::to_string(pid) + " on %'";
    admin.exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE " + mine);
    for (int i = 0; i < 200; ++i) {
      if (admin.query("SELECT 1 FROM pg_stat_activity WHERE " + mine).rows.empty()) return;
      ::usleep(50 * 1000);
    }
    throw std::runtime_error("the session of krow pid " + std::to_string(pid) + " did not end");
  };
  return e;
}

EngineTraits bigquery() {
  EngineTraits e;
  e.name = "bigquery";
  e.display_name = "BigQuery";
  e.typed_tables = true;
  e.concurrent_writers = true;
  e.krow_types = {{Logical::boolean, "BOOL"},    {Logical::int32, "INT64"},
                  {Logical::int64, "INT64"},     {Logical::uint64, "NUMERIC"},
                  {Logical::float32, "FLOAT64"}, {Logical::float64, "FLOAT64"},
                  {Logical::decimal, "NUMERIC"}, {Logical::text, "STRING"},
                  {Logical::bytes, "BYTES"},     {Logical::date, "DATE"},
                  {Logical::time, "TIME"},       {Logical::timestamp, "TIMESTAMP"},
                  {Logical::json, "JSON"}};
  e.catalog_types = e.krow_types;
  // NUMERIC holds 29 integer and 9 fractional digits; BIGNUMERIC 38 and 38.
  e.decimal_type = [](int precision, int scale) -> std::string {
    return precision - scale <= 29 && scale <= 9 ? "NUMERIC" : "BIGNUMERIC";
  };
  e.alter_type_clause = "SET DATA TYPE ";
  e.one_type_per_kind = true;
  e.wide_decimal_gap =
      "the BigQuery emulator has no BIGNUMERIC (tables.insert answers HTTP 500: DuckDB's DECIMAL "
      "stops "
      "at 38 digits)";
  e.add_column_ddl = [](const std::string& table, const std::string& column) {
    return table + "` ADD COLUMN IF NOT EXISTS `" + column + "` ";
  };
  // No type change takes a STRING column to INT64: a new column in its place, as a user would.
  e.retype_column = [](const std::string& target, const std::string& column,
                       const std::string& type) -> std::vector<std::string> {
    return {"ALTER TABLE " + target + " DROP COLUMN " + column,
            "ALTER TABLE " + target + " ADD COLUMN " + column + " " + type};
  };
  // NUMERIC's text has no declared scale (BigQuery: "-1234.5"): formatted with the column's.
  e.decimal_text_sql = "FORMAT('%.{scale}f', {})";
  e.epoch_ms_sql = "UNIX_MILLIS({})";
  e.epoch_us_sql = "UNIX_MICROS({})";
  e.value_field_sql = "JSON_VALUE(value, '$.{}')";
  e.text_refuses_nul = false;
  e.whole_float_text_has_fraction = true;  // as the emulator writes FLOAT64: "3.0"
  e.max_table_name_length = 0;
  e.json_compared_by_engine = false;  // compared after canonical_json, structurally
  // SAFE.PARSE_JSON refuses an unpaired surrogate. Real BigQuery also refuses a number beyond
  // its range; the emulator (DuckDB's JSON type) keeps that one, and U+0000, as they are.
  e.json = {JsonFit::either, JsonFit::refused, JsonFit::either, "BigQuery's JSON type cannot hold"};
  e.design = {
      "partition_by: {column: day, granularity: month}, cluster_by: [status, kafka_partition]",
      "partition MONTH day; cluster status, kafka_partition"};
  // Clustering only: the emulator keeps no partitioning made by DDL (design_gap).
  e.changed_design = {
      "partition_by: {column: day, granularity: month}, cluster_by: [kafka_partition]",
      "partition MONTH day; cluster kafka_partition"};
  e.foreign_design_yaml = "indexes: [key]";
  e.design_gap =
      "the BigQuery emulator records no PARTITION BY or CLUSTER BY of a CREATE TABLE statement "
      "(only "
      "those of tables.insert) and refuses a column list beside AS SELECT, so a change of "
      "partitioning, "
      "which krow makes with CREATE OR REPLACE TABLE ... AS SELECT, is shown by plan here but not "
      "applied";
  e.provision = [](TestWarehouse& w) {
    // A project of its own: krow's state datasets then hold this test's syncs alone.
    static int counter = 0;
    w.project = "krow-it-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
  };
  e.release = [](const TestWarehouse&) {};
  e.warehouse_yaml = [](const TestWarehouse& w) {
    return "  type: bigquery\n  project: " + w.project +
           "\n  endpoint: " + BqSession::default_endpoint() + "\n";
  };
  e.probe = [](const TestWarehouse& w, const std::string& schema) {
    return bigquery_probe(BqSession::default_endpoint(), w.project, schema);
  };
  e.hold_sync_lock = [](const TestWarehouse& w,
                        const std::string& sync_id) -> std::unique_ptr<Held> {
    return std::make_unique<HeldLease>(w.project, sync_id);
  };
  e.sync_lock_holder = "(pid 4242 on ci-runner-7";
  e.break_sync_lock = [](const TestWarehouse& w, const std::string& sync_id, int pid) {
    BqSession(BqSession::default_endpoint(), w.project)
        .query("UPDATE `" + w.project +
               "._krow_us.leases` SET expires_at = TIMESTAMP_SUB(CURRENT_TIMESTAMP(), "
               "INTERVAL 1 SECOND) WHERE sync_id = '" +
               sync_id + "' AND pid = " + std::to_string(pid));
  };
  return e;
}

// Every engine the tests know, in the order the suites run them.
const std::vector<EngineTraits>& all() {
  static const std::vector<EngineTraits> engines = {duckdb(), postgres(), bigquery()};
  return engines;
}

}  // namespace

std::string EngineTraits::column_type(Logical type, int precision, int scale) const {
  return spell(*this, catalog_types, "catalog", type, precision, scale);
}

std::string EngineTraits::krow_type(Logical type, int precision, int scale) const {
  return spell(*this, krow_types, "krow", type, precision, scale);
}

std::string EngineTraits::decimal_text(const std::string& column, int scale) const {
  auto pattern = decimal_text_sql;
  const auto at = pattern.find("{scale}");
  if (at != std::string::npos) pattern.replace(at, 7, std::to_string(scale));
  return fill("decimal_text_sql", pattern, column);
}

std::string EngineTraits::fill(std::string_view what, const std::string& pattern,
                               const std::string& argument) const {
  const auto at = pattern.find("{}");
  if (at == std::string::npos)
    throw std::invalid_argument("tests/support/engine_traits.cpp gives " + name + " no " +
                                std::string(what));
  return pattern.substr(0, at) + argument + pattern.substr(at + 2);
}

const EngineTraits& engine_traits(std::string_view name) {
  for (const auto& e : all())
    if (e.name == name) return e;
  throw std::invalid_argument("no EngineTraits for engine '" + std::string(name) +
                              "': add one to tests/support/engine_traits.cpp");
}

std::vector<std::string> engine_names() {
  std::vector<std::string> out;
  for (const auto& e : all()) out.push_back(e.name);
  return out;
}

std::vector<std::string> engine_names_with(bool EngineTraits::*feature) {
  std::vector<std::string> out;
  for (const auto& e : all())
    if (e.*feature) out.push_back(e.name);
  return out;
}

}  // namespace krow::testkit
