#include "warehouse_probe.hpp"

#include <filesystem>
#include <stdexcept>

#include "bq_session.hpp"
#include "pg_session.hpp"

namespace krow::testkit {

namespace {

std::optional<int64_t> number(const Cell& c) {
  if (!c) return std::nullopt;
  return std::stoll(*c);
}

std::string quote(const std::string& ident) {
  std::string out = "\"";
  for (char c : ident) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  return out + "\"";
}

std::string literal(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out.push_back('\'');
    out.push_back(c);
  }
  return out + "'";
}

StoredRow to_row(const std::vector<Cell>& c) {
  StoredRow r;
  r.id = c[0].value_or("");
  r.topic_id = c[1].value_or("");
  r.partition = static_cast<int32_t>(std::stol(c[2].value_or("0")));
  r.offset = std::stoll(c[3].value_or("0"));
  r.timestamp_ms = number(c[4]);
  r.timestamp_type = c[5];
  r.key = c[6];
  r.key_format = c[7];
  r.key_schema_id = number(c[8]);
  r.value = c[9];
  r.value_format = c[10];
  r.value_schema_id = number(c[11]);
  r.value_base64 = c[12];
  r.value_size_bytes = number(c[13]);
  r.headers = c[14];
  r.is_tombstone = c[15] == Cell("true");
  r.decode_error = c[16];
  return r;
}

std::vector<StoredPosition> to_positions(const QueryResult& q) {
  std::vector<StoredPosition> out;
  for (const auto& c : q.rows)
    if (c[3])  // a partition taken, never committed, has no position
      out.push_back({c[0].value_or(""), c[1].value_or(""), static_cast<int32_t>(std::stol(*c[2])),
                     std::stoll(*c[3])});
  return out;
}

std::vector<StoredTable> to_tables(const QueryResult& q) {
  std::vector<StoredTable> out;
  for (const auto& c : q.rows) out.push_back({c[0].value_or(""), c[1].value_or(""), c[2].value_or("")});
  return out;
}

std::optional<int64_t> epoch_of(const QueryResult& q) {
  if (q.rows.empty() || !q.rows[0][0]) return std::nullopt;
  return std::stoll(*q.rows[0][0]);
}

std::vector<std::string> first_column(const QueryResult& q) {
  std::vector<std::string> out;
  for (const auto& row : q.rows) out.push_back(row.at(0).value_or(""));
  return out;
}

std::map<std::string, std::string> to_types(const QueryResult& q) {
  std::map<std::string, std::string> out;
  for (const auto& c : q.rows) out[c[0].value_or("")] = c[1].value_or("");
  return out;
}

class DuckDBProbe : public Probe {
 public:
  DuckDBProbe(std::string path, std::string schema) : path_(std::move(path)), schema_(std::move(schema)) {}
  std::string engine() const override { return "duckdb"; }

  bool has_schema() override {
    return std::filesystem::exists(path_) &&
           scalar(path_, "SELECT count(*) FROM information_schema.schemata WHERE schema_name = " +
                             literal(schema_)) != "0";
  }
  bool has_table(const std::string& table) override { return exists(schema_, table); }
  std::vector<StoredRow> rows(const std::string& table) override {
    std::vector<StoredRow> out;
    if (!has_table(table)) return out;
    for (const auto& c : run("SELECT id, kafka_topic_id, kafka_partition, kafka_offset, epoch_ms(kafka_timestamp), "
                             "kafka_timestamp_type, key, key_format, key_schema_id, value, value_format, value_schema_id, "
                             "value_base64, value_size_bytes, headers, is_tombstone, decode_error FROM " +
                             target(table) + " ORDER BY kafka_partition, kafka_offset")
                             .rows)
      out.push_back(to_row(c));
    return out;
  }
  int64_t count(const std::string& table) override {
    return has_table(table) ? std::stoll(scalar(path_, "SELECT count(*) FROM " + target(table))) : 0;
  }
  int64_t distinct_ids(const std::string& table) override {
    return has_table(table) ? std::stoll(scalar(path_, "SELECT count(DISTINCT id) FROM " + target(table))) : 0;
  }
  int64_t repeated_ids(const std::string& table) override {
    return has_table(table)
               ? std::stoll(
                     scalar(path_, "SELECT count(*) - count(DISTINCT id) FROM " + target(table)))
               : 0;
  }
  std::map<std::string, std::string> column_types(const std::string& table) override {
    return to_types(run("SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = " +
                        literal(schema_) + " AND table_name = " + literal(table)));
  }
  std::vector<std::string> column_names(const std::string& table) override {
    return first_column(run(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = " +
        literal(schema_) + " AND table_name = " + literal(table) + " ORDER BY ordinal_position"));
  }
  std::string design(const std::string& table) override {
    return scalar(path_, "SELECT comment FROM duckdb_tables() WHERE schema_name = " +
                             literal(schema_) + " AND table_name = " + literal(table));
  }
  std::vector<StoredPosition> positions(const std::string& schema) override {
    if (!exists("_krow", "positions")) return {};
    return to_positions(run("SELECT topic, topic_id, kafka_partition, next_offset FROM _krow.positions" +
                            (schema.empty() ? std::string() : " WHERE warehouse_schema = " + literal(schema)) +
                            " ORDER BY topic, kafka_partition"));
  }
  std::vector<StoredTable> tables() override {
    if (!exists("_krow", "tables")) return {};
    return to_tables(run("SELECT sync_id, topic, table_name FROM _krow.tables WHERE warehouse_schema = " +
                         literal(schema_) + " ORDER BY table_name"));
  }
  std::vector<std::string> run_records() override {
    std::vector<std::string> out;
    if (!exists("_krow", "runs")) return out;
    for (const auto& c : run("SELECT record FROM _krow.runs ORDER BY started_at DESC").rows) out.push_back(c[0].value_or(""));
    return out;
  }
  void set_position(const std::string& topic, int32_t partition, int64_t next_offset) override {
    krow::testkit::execute(path_, "UPDATE _krow.positions SET next_offset = " + std::to_string(next_offset) +
                       " WHERE topic = " + literal(topic) + " AND kafka_partition = " + std::to_string(partition));
  }
  std::optional<int64_t> epoch(const std::string& topic, int32_t partition) override {
    return epoch_of(run("SELECT epoch FROM _krow.positions WHERE topic = " + literal(topic) +
                        " AND kafka_partition = " + std::to_string(partition)));
  }
  void take_partition(const std::string& topic, int32_t partition) override {
    krow::testkit::execute(
        path_, "UPDATE _krow.positions SET epoch = epoch + 1 WHERE topic = " + literal(topic) +
                   " AND kafka_partition = " + std::to_string(partition));
  }
  void make_positions_table_old() override {
    krow::testkit::execute(
        path_,
        "CREATE TABLE _krow.positions_old AS SELECT sync_id, warehouse_schema, topic, topic_id, "
        "kafka_partition, "
        "next_offset, updated_at FROM _krow.positions WHERE next_offset IS NOT NULL; "
        "DROP TABLE _krow.positions; "
        "CREATE TABLE _krow.positions (sync_id VARCHAR NOT NULL, warehouse_schema VARCHAR NOT "
        "NULL, topic VARCHAR "
        "NOT NULL, topic_id VARCHAR NOT NULL, kafka_partition INTEGER NOT NULL, next_offset BIGINT "
        "NOT NULL, "
        "updated_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (sync_id, warehouse_schema, "
        "topic_id, "
        "kafka_partition)); "
        "INSERT INTO _krow.positions SELECT * FROM _krow.positions_old; DROP TABLE "
        "_krow.positions_old");
  }
  QueryResult query(const std::string& sql) override { return run(sql); }
  void execute(const std::string& sql) override { krow::testkit::execute(path_, sql); }
  std::string canonical_json(const std::string& json) override { return json; }
  std::vector<Cell> canonical_json(const std::vector<Cell>& json) override { return json; }

 private:
  QueryResult run(const std::string& sql) { return krow::testkit::query(path_, sql); }
  bool exists(const std::string& schema, const std::string& table) {
    if (!std::filesystem::exists(path_)) return false;
    return scalar(path_, "SELECT count(*) FROM information_schema.tables WHERE table_schema = " + literal(schema) +
                             " AND table_name = " + literal(table)) != "0";
  }
  std::string target(const std::string& table) const { return quote(schema_) + "." + quote(table); }

  std::string path_, schema_;
};

class PostgresProbe : public Probe {
 public:
  PostgresProbe(const std::string& conninfo, std::string schema) : db_(conninfo), schema_(std::move(schema)) {}
  std::string engine() const override { return "postgres"; }

  bool has_schema() override {
    return db_.scalar("SELECT count(*) FROM pg_namespace WHERE nspname = $1", {schema_}) != "0";
  }
  bool has_table(const std::string& table) override { return exists(target(table)); }
  std::vector<StoredRow> rows(const std::string& table) override {
    std::vector<StoredRow> out;
    if (!has_table(table)) return out;
    for (const auto& c : db_.query("SELECT id, kafka_topic_id, kafka_partition, kafka_offset, "
                                   "(extract(epoch FROM kafka_timestamp) * 1000)::bigint, kafka_timestamp_type, key, "
                                   "key_format, key_schema_id, value::text, value_format, value_schema_id, value_base64, "
                                   "value_size_bytes, headers::text, is_tombstone::text, decode_error FROM " +
                                   target(table) + " ORDER BY kafka_partition, kafka_offset")
                             .rows)
      out.push_back(to_row(c));
    return out;
  }
  int64_t count(const std::string& table) override {
    return has_table(table) ? std::stoll(db_.scalar("SELECT count(*) FROM " + target(table))) : 0;
  }
  int64_t distinct_ids(const std::string& table) override {
    return has_table(table) ? std::stoll(db_.scalar("SELECT count(DISTINCT id) FROM " + target(table))) : 0;
  }
  int64_t repeated_ids(const std::string& table) override {
    return has_table(table) ? std::stoll(db_.scalar("SELECT count(*) - count(DISTINCT id) FROM " +
                                                    target(table)))
                            : 0;
  }
  std::map<std::string, std::string> column_types(const std::string& table) override {
    return to_types(db_.query(
        "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = to_regclass($1) "
        "AND attnum > 0 AND NOT attisdropped",
        {target(table)}));
  }
  std::vector<std::string> column_names(const std::string& table) override {
    return first_column(db_.query(
        "SELECT attname FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 "
        "AND NOT attisdropped ORDER BY attnum",
        {target(table)}));
  }
  std::string design(const std::string& table) override {
    return db_.scalar(
        "SELECT coalesce(string_agg(substr(indexdef, strpos(indexdef, ' USING ') + 7), '; ' ORDER "
        "BY "
        "substr(indexdef, strpos(indexdef, ' USING ') + 7)), '') FROM pg_indexes WHERE schemaname "
        "= $1 AND "
        "tablename = $2 AND indexname LIKE 'krow\\_ix\\_%'",
        {schema_, table});
  }
  std::vector<StoredPosition> positions(const std::string& schema) override {
    if (!exists("_krow.positions")) return {};
    return to_positions(db_.query("SELECT topic, topic_id, kafka_partition, next_offset FROM _krow.positions" +
                                  (schema.empty() ? std::string() : " WHERE warehouse_schema = " + literal(schema)) +
                                  " ORDER BY topic, kafka_partition"));
  }
  std::vector<StoredTable> tables() override {
    if (!exists("_krow.tables")) return {};
    return to_tables(db_.query(
        "SELECT sync_id, topic, table_name FROM _krow.tables WHERE warehouse_schema = $1 ORDER BY table_name", {schema_}));
  }
  std::vector<std::string> run_records() override {
    std::vector<std::string> out;
    if (!exists("_krow.runs")) return out;
    for (const auto& c : db_.query("SELECT record::text FROM _krow.runs ORDER BY started_at DESC").rows)
      out.push_back(c[0].value_or(""));
    return out;
  }
  void set_position(const std::string& topic, int32_t partition, int64_t next_offset) override {
    db_.query("UPDATE _krow.positions SET next_offset = $1::bigint WHERE topic = $2 AND kafka_partition = $3::int",
              {std::to_string(next_offset), topic, std::to_string(partition)});
  }
  std::optional<int64_t> epoch(const std::string& topic, int32_t partition) override {
    return epoch_of(db_.query(
        "SELECT epoch FROM _krow.positions WHERE topic = $1 AND kafka_partition = $2::int",
        {topic, std::to_string(partition)}));
  }
  void take_partition(const std::string& topic, int32_t partition) override {
    db_.query(
        "UPDATE _krow.positions SET epoch = epoch + 1 WHERE topic = $1 AND kafka_partition = "
        "$2::int",
        {topic, std::to_string(partition)});
  }
  void make_positions_table_old() override {
    db_.exec(
        "BEGIN; "
        "CREATE TABLE _krow.positions_old AS SELECT sync_id, warehouse_schema, topic, topic_id, "
        "kafka_partition, "
        "next_offset, updated_at FROM _krow.positions WHERE next_offset IS NOT NULL; "
        "DROP TABLE _krow.positions; "
        "CREATE TABLE _krow.positions (sync_id text NOT NULL, warehouse_schema text NOT NULL, "
        "topic text NOT NULL, "
        "topic_id text NOT NULL, kafka_partition integer NOT NULL, next_offset bigint NOT NULL, "
        "updated_at "
        "timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (sync_id, warehouse_schema, topic_id, "
        "kafka_partition)); "
        "INSERT INTO _krow.positions SELECT * FROM _krow.positions_old; DROP TABLE "
        "_krow.positions_old; "
        "ALTER TABLE _krow.positions OWNER TO krow; COMMIT");
  }
  QueryResult query(const std::string& sql) override { return db_.query(sql); }
  void execute(const std::string& sql) override { db_.exec(sql); }
  std::string canonical_json(const std::string& json) override { return db_.scalar("SELECT $1::jsonb::text", {json}); }
  bool same_json(const std::string& a, const std::string& b) override {
    return db_.scalar("SELECT $1::jsonb = $2::jsonb", {a, b}) == "t";
  }
  std::vector<Cell> canonical_json(const std::vector<Cell>& json) override {
    std::string array = "{";
    for (size_t i = 0; i < json.size(); ++i) {
      if (i) array.push_back(',');
      if (!json[i]) {
        array += "NULL";
        continue;
      }
      array.push_back('"');
      for (char c : *json[i]) {
        if (c == '"' || c == '\\') array.push_back('\\');
        array.push_back(c);
      }
      array.push_back('"');
    }
    array.push_back('}');
    std::vector<Cell> out;
    for (const auto& r : db_.query("SELECT v::jsonb::text FROM unnest($1::text[]) WITH ORDINALITY AS t(v, n) ORDER BY n",
                                   {array})
                             .rows)
      out.push_back(r[0]);
    return out;
  }

 private:
  bool exists(const std::string& name) { return db_.scalar("SELECT to_regclass($1) IS NOT NULL", {name}) == "t"; }
  std::string target(const std::string& table) const { return quote(schema_) + "." + quote(table); }

  PgSession db_;
  std::string schema_;
};

// The suites' SQL, written in the dialect DuckDB and PostgreSQL share, as GoogleSQL: double
// quotes (identifiers there, strings in GoogleSQL) become backquotes, and the type names
// VARCHAR, BIGINT and INTEGER in a CAST become STRING and INT64. Text in single quotes is
// left alone.
std::string googlesql(const std::string& sql) {
  std::string out;
  char quote = 0;
  for (char c : sql) {
    if (quote) {
      if (c == quote) quote = 0;
      out += quote == 0 && c == '"' ? '`' : c;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    out += c == '"' ? '`' : c;
  }
  for (const auto& [from, to] : {std::pair<std::string, std::string>{" AS VARCHAR)", " AS STRING)"},
                                 {" AS BIGINT)", " AS INT64)"},
                                 {" AS INTEGER)", " AS INT64)"}}) {
    for (size_t at = out.find(from); at != std::string::npos; at = out.find(from, at + to.size()))
      out.replace(at, from.size(), to);
  }
  return out;
}

// BigQuery (the local emulator): one project per test, so that krow's state datasets
// (_krow_<location>) hold this test's syncs alone.
class BigQueryProbe : public Probe {
 public:
  BigQueryProbe(const std::string& endpoint, const std::string& project, std::string dataset)
      : bq_(endpoint, project), project_(project), dataset_(std::move(dataset)) {}
  std::string engine() const override { return "bigquery"; }

  bool has_schema() override { return bq_.has_dataset(dataset_); }
  bool has_table(const std::string& table) override { return bq_.has_table(dataset_, table); }
  std::vector<StoredRow> rows(const std::string& table) override {
    std::vector<StoredRow> out;
    if (!has_table(table)) return out;
    for (const auto& c : bq_.query("SELECT id, kafka_topic_id, kafka_partition, kafka_offset, UNIX_MILLIS(kafka_timestamp), "
                                   "kafka_timestamp_type, key, key_format, key_schema_id, TO_JSON_STRING(value), "
                                   "value_format, value_schema_id, value_base64, value_size_bytes, "
                                   "TO_JSON_STRING(headers), CAST(is_tombstone AS STRING), decode_error FROM " +
                                   target(table) + " ORDER BY kafka_partition, kafka_offset")
                             .rows)
      out.push_back(to_row(c));
    return out;
  }
  int64_t count(const std::string& table) override {
    return has_table(table) ? std::stoll(bq_.scalar("SELECT COUNT(*) FROM " + target(table))) : 0;
  }
  int64_t distinct_ids(const std::string& table) override {
    return has_table(table) ? std::stoll(bq_.scalar("SELECT COUNT(DISTINCT id) FROM " + target(table))) : 0;
  }
  int64_t repeated_ids(const std::string& table) override {
    return has_table(table) ? std::stoll(bq_.scalar("SELECT COUNT(*) - COUNT(DISTINCT id) FROM " +
                                                    target(table)))
                            : 0;
  }
  std::map<std::string, std::string> column_types(const std::string& table) override {
    std::map<std::string, std::string> out;
    for (const auto& [name, type] : bq_.columns(dataset_, table)) out[name] = type;
    return out;
  }
  std::vector<std::string> column_names(const std::string& table) override {
    std::vector<std::string> out;
    for (const auto& c : bq_.columns(dataset_, table)) out.push_back(c.first);
    return out;
  }
  std::string design(const std::string& table) override {
    simdjson::dom::parser parser;
    const auto json = bq_.table_json(dataset_, table);
    const auto doc = parser.parse(json);
    std::string_view type = "-", field;
    std::string out = "partition ";
    if (doc["timePartitioning"].error() == simdjson::SUCCESS) {
      if (doc["timePartitioning"]["type"].get(type) != simdjson::SUCCESS) type = "DAY";
      if (doc["timePartitioning"]["field"].get(field) != simdjson::SUCCESS) field = {};
    }
    out += std::string(type) + (field.empty() ? "" : " " + std::string(field)) + "; cluster ";
    simdjson::dom::array fields;
    std::string cluster;
    if (doc["clustering"]["fields"].get(fields) == simdjson::SUCCESS)
      for (auto f : fields)
        cluster += (cluster.empty() ? "" : ", ") + std::string(f.get_string().value_unsafe());
    return out + (cluster.empty() ? "-" : cluster);
  }
  QueryResult query(const std::string& sql) override { return bq_.query(googlesql(sql)); }
  void execute(const std::string& sql) override { bq_.query(googlesql(sql)); }
  std::vector<StoredPosition> positions(const std::string& schema) override {
    if (!bq_.has_table(kState, "positions")) return {};
    const std::string where =
        schema.empty() ? std::string() : " WHERE warehouse_schema = " + literal(schema);
    QueryResult listed;
    try {
      listed = bq_.query(
          "SELECT topic, topic_id, kafka_partition, next_offset, holder_table, epoch FROM " +
          state("positions") + where + " ORDER BY topic, kafka_partition");
    } catch (const std::exception&) {  // a positions table of krows before workers
      return to_positions(bq_.query("SELECT topic, topic_id, kafka_partition, next_offset FROM " +
                                    state("positions") + where +
                                    " ORDER BY topic, kafka_partition"));
    }
    // A partition a worker holds has its live position in that worker's table, while the
    // epoch there is the one in `positions` (docs/workers.md).
    for (auto& row : listed.rows) {
      if (!row[4]) continue;
      const auto held = bq_.query("SELECT next_offset FROM " + state(*row[4]) +
                                  " WHERE topic_id = " + literal(row[1].value_or("")) +
                                  " AND kafka_partition = " + row[2].value_or("-1") +
                                  " AND epoch = " + row[5].value_or("-1"));
      if (!held.rows.empty()) row[3] = held.rows[0][0];
    }
    return to_positions(listed);
  }
  std::vector<StoredTable> tables() override {
    if (!bq_.has_table(kState, "tables")) return {};
    return to_tables(bq_.query("SELECT sync_id, topic, table_name FROM " + state("tables") +
                               " WHERE warehouse_schema = " + literal(dataset_) + " ORDER BY table_name"));
  }
  std::vector<std::string> run_records() override {
    std::vector<std::string> out;
    if (!bq_.has_table(kState, "runs")) return out;
    for (const auto& c : bq_.query("SELECT record FROM " + state("runs") + " ORDER BY started_at DESC").rows)
      out.push_back(c[0].value_or(""));
    return out;
  }
  void set_position(const std::string& topic, int32_t partition, int64_t next_offset) override {
    bq_.query("UPDATE " + state("positions") + " SET next_offset = " + std::to_string(next_offset) +
              " WHERE topic = " + literal(topic) + " AND kafka_partition = " + std::to_string(partition));
  }
  std::optional<int64_t> epoch(const std::string& topic, int32_t partition) override {
    return epoch_of(bq_.query("SELECT epoch FROM " + state("positions") +
                              " WHERE topic = " + literal(topic) +
                              " AND kafka_partition = " + std::to_string(partition)));
  }
  void take_partition(const std::string& topic, int32_t partition) override {
    const auto where =
        " WHERE topic = " + literal(topic) + " AND kafka_partition = " + std::to_string(partition);
    // The live position moves back into `positions` with the partition, as krow's take does.
    const auto held = bq_.query("SELECT holder_table FROM " + state("positions") + where);
    for (const auto& row : held.rows)
      if (row[0]) {
        bq_.query("UPDATE " + state("positions") + " SET next_offset = (SELECT next_offset FROM " +
                  state(*row[0]) + where + ")" + where);
        bq_.query("DELETE FROM " + state(*row[0]) + where);
      }
    bq_.query("UPDATE " + state("positions") + " SET epoch = epoch + 1, holder_table = NULL" +
              where);
  }
  void make_positions_table_old() override {
    // DDL, so that the table's fields are the old ones as the tables API lists them too.
    bq_.query("CREATE TABLE " + state("positions_old") +
              " AS SELECT sync_id, warehouse_schema, topic, topic_id, "
              "kafka_partition, next_offset, updated_at FROM " +
              state("positions") + " WHERE next_offset IS NOT NULL");
    bq_.query("DROP TABLE " + state("positions"));
    bq_.query("CREATE TABLE " + state("positions") +
              " (sync_id STRING NOT NULL, warehouse_schema STRING NOT NULL, "
              "topic STRING NOT NULL, topic_id STRING NOT NULL, kafka_partition INT64 NOT NULL, "
              "next_offset INT64 NOT "
              "NULL, updated_at TIMESTAMP NOT NULL)");
    bq_.query("INSERT INTO " + state("positions") + " SELECT * FROM " + state("positions_old"));
    bq_.query("DROP TABLE " + state("positions_old"));
  }
  std::string canonical_json(const std::string& json) override { return *canonical_json(std::vector<Cell>{json})[0]; }
  std::vector<Cell> canonical_json(const std::vector<Cell>& json) override {
    // BigQuery's JSON type rewrites what it stores (spaces, numbers): expected values go
    // through the same type.
    std::vector<std::string> texts;
    for (const auto& j : json) texts.push_back(j.value_or("null"));
    std::vector<Cell> out;
    const auto r = bq_.query("SELECT TO_JSON_STRING(PARSE_JSON(v)) FROM UNNEST(@strings) AS v WITH OFFSET AS n ORDER BY n",
                             texts);
    for (size_t i = 0; i < json.size() && i < r.rows.size(); ++i) out.push_back(json[i] ? r.rows[i][0] : Cell());
    return out;
  }

 private:
  static constexpr const char* kState = "_krow_us";
  std::string target(const std::string& table) const { return "`" + project_ + "." + dataset_ + "." + table + "`"; }
  std::string state(const std::string& table) const { return "`" + project_ + "." + kState + "." + table + "`"; }

  BqSession bq_;
  std::string project_, dataset_;
};

}  // namespace

bool Probe::same_json(const std::string&, const std::string&) {
  throw std::logic_error("the " + engine() +
                         " probe compares no JSON: its JSON is compared structurally");
}

std::unique_ptr<Probe> duckdb_probe(const std::string& path, const std::string& schema) {
  return std::make_unique<DuckDBProbe>(path, schema);
}

std::unique_ptr<Probe> postgres_probe(const std::string& conninfo, const std::string& schema) {
  return std::make_unique<PostgresProbe>(conninfo, schema);
}

std::unique_ptr<Probe> bigquery_probe(const std::string& endpoint, const std::string& project,
                                      const std::string& dataset) {
  return std::make_unique<BigQueryProbe>(endpoint, project, dataset);
}

}  // namespace krow::testkit
