#include "warehouse/bigquery/bigquery_warehouse.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>

#include "codec/avro/avro_format.hpp"
#include "contract/row_contract.hpp"
#include "contract/state_tables.hpp"
#include "util/error.hpp"
#include "util/fault_injection.hpp"
#include "util/process.hpp"
#include "util/text.hpp"
#include "warehouse/bigquery/bigquery_design.hpp"
#include "warehouse/bigquery/bigquery_types.hpp"
#include "warehouse/column_types.hpp"
#include "warehouse/fencing.hpp"
#include "warehouse/sql_text.hpp"

namespace krow {

using bigquery::Field;
using bigquery::Param;

namespace {

// How long a sync's lease lasts without a batch renewing it. A sync whose holder died on
// this host is taken over at once; one on another host, after this.
constexpr int kLeaseSeconds = 600;
// Load and staging tables that krow could not drop expire after this.
constexpr int64_t kLoadTableLifeMs = 24 * 3600 * 1000;
constexpr int64_t kStagingLifeMs = 7 * kLoadTableLifeMs;

// `name` as a GoogleSQL quoted identifier.
std::string ident(const std::string& name) {
  std::string out = "`";
  for (char c : name) {
    if (c == '`' || c == '\\') out += '\\';
    out += c;
  }
  return out + "`";
}

// The typed columns that rows fill: every one but the retired (always NULL: left out of
// INSERTs, so they take NULL).
std::vector<const columns::ColumnSpec*> filled_columns(
    const std::vector<columns::ColumnSpec>& typed) {
  std::vector<const columns::ColumnSpec*> out;
  for (const auto& c : typed)
    if (!c.retired) out.push_back(&c);
  return out;
}

bool has_field(const std::vector<Field>& fields, const std::string& name) {
  return std::any_of(fields.begin(), fields.end(), [&](const Field& f) { return f.name == name; });
}

// The columns an INSERT of a table's rows lists: krow's, then the filled typed ones, each
// after `alias` and a dot when given.
std::string column_list(const std::vector<columns::ColumnSpec>& typed = {},
                        const std::string& alias = "") {
  std::string out;
  const std::string prefix = alias.empty() ? "" : alias + ".";
  for (const auto& c : contract::kColumns)
    out += (out.empty() ? "" : ", ") + prefix + ident(std::string(c.name));
  for (const auto* c : filled_columns(typed)) out += ", " + prefix + ident(c->name);
  return out;
}

// The row contract's columns in BigQuery types.
std::vector<Field> row_fields() {
  std::vector<Field> out;
  for (const auto& c : contract::kColumns)
    out.push_back({std::string(c.name), bigquery::column_type(c.type), !c.nullable});
  return out;
}

// The load table's field of typed column `k` (its index among the table's typed columns).
std::string load_field(size_t k) {
  return "__krow_t" + std::to_string(k);
}

// How a typed column travels in a load table: the load job's type, and the expression (of
// load table alias l) that gives the column's value. Decimals travel as their exact text into
// their own type, times as text; instants and dates as numbers (no format to agree on); bytes
// as base64 and JSON as text, converted inside the transaction, where what BigQuery refuses
// becomes a note in decode_error rather than a failed load job.
std::pair<std::string, std::string> load_conversion(const columns::ColumnSpec& c,
                                                    const std::string& sql_type,
                                                    const std::string& field) {
  const std::string l = "l." + field;
  switch (c.type) {
    case ColumnType::boolean:
      return {"BOOL", l};
    case ColumnType::int32:
    case ColumnType::int64:
      return {"INT64", l};
    case ColumnType::float32:
    case ColumnType::float64:
      return {"FLOAT64", l};
    case ColumnType::uint64:
    case ColumnType::decimal:
      // The load job reads the exact decimal text into the column's own type: every planned
      // decimal fits it (NUMERIC holds 29 integer and 9 fractional digits, BIGNUMERIC 38 and
      // 38), and no CAST rounds it on the way.
      return {sql_type, l};
    case ColumnType::text:
      return {"STRING", l};
    case ColumnType::bytes:
      return {"STRING", "SAFE.FROM_BASE64(" + l + ")"};
    case ColumnType::date:
      return {"INT64", "DATE_FROM_UNIX_DATE(" + l + ")"};
    case ColumnType::time:
      return {"STRING", "SAFE_CAST(" + l + " AS TIME)"};
    case ColumnType::timestamp:
      return {"INT64", "TIMESTAMP_MICROS(" + l + ")"};
    case ColumnType::json:
      return {"STRING", "SAFE.PARSE_JSON(" + l + ")"};
  }
  return {"STRING", l};
}

// A load table's columns: the row contract's, with JSON as text (it becomes JSON inside the
// transaction, where a value BigQuery refuses can still become a decode_error) and the
// timestamp as milliseconds (no text format to agree on); then the typed columns rows fill,
// as load_conversion carries them.
std::vector<Field> load_fields(
    const std::vector<columns::ColumnSpec>& typed,
    const std::function<std::string(const columns::ColumnSpec&)>& sql_type) {
  std::vector<Field> out;
  for (const auto& c : contract::kColumns) {
    const std::string type = c.type == ColumnType::json        ? "STRING"
                             : c.type == ColumnType::timestamp ? "INT64"
                                                               : bigquery::column_type(c.type);
    out.push_back({std::string(c.name), type, !c.nullable});
  }
  for (size_t k = 0; k < typed.size(); ++k)
    if (!typed[k].retired)
      out.push_back({load_field(k),
                     load_conversion(typed[k], sql_type(typed[k]), load_field(k)).first, false});
  return out;
}

// `text` as a GoogleSQL string literal; krow passes only its own names and IDs this way
// (Kafka topic names and IDs, table names), everything else as query parameters.
std::string literal(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

// A SELECT of a load table's rows in the row tables' types, each column named as the table's
// (column_list(typed)). Text that BigQuery's JSON type refuses (SAFE.PARSE_JSON gives NULL)
// is kept as a JSON string, as PostgreSQL's adapter keeps what jsonb refuses; a typed value
// BigQuery cannot hold leaves its column NULL, with a note in decode_error.
std::string converted_rows(
    const std::string& load_table, const std::vector<columns::ColumnSpec>& typed = {},
    const std::function<std::string(const columns::ColumnSpec&)>& sql_type = {}) {
  const std::string note_value =
      "BigQuery's JSON type cannot hold the value exactly (a number beyond its range, an unpaired surrogate): stored "
      "as its JSON text in a JSON string";
  const std::string note_headers =
      "BigQuery's JSON type cannot hold the headers exactly: stored as their JSON text in a JSON string";
  auto note = [](const std::string& refused, const std::string& text) {
    return "IF(" + refused + ", " + literal(text) + ", NULL)";
  };
  const std::string value_refused = "(l.value IS NOT NULL AND l.parsed_value IS NULL)";
  const std::string headers_refused = "(l.headers IS NOT NULL AND l.parsed_headers IS NULL)";
  std::string typed_values, typed_notes, conversions;
  for (size_t k = 0; k < typed.size(); ++k) {
    if (typed[k].retired) continue;
    const auto type = sql_type(typed[k]);
    const auto v = "__krow_v" + std::to_string(k);
    conversions += ", " + load_conversion(typed[k], type, load_field(k)).second + " AS " + v;
    typed_values += ", l." + v + " AS " + ident(typed[k].name);
    typed_notes += ", " + note("(l." + load_field(k) + " IS NOT NULL AND l." + v + " IS NULL)",
                               "column " + typed[k].name + " not stored: BigQuery's " + type +
                                   " cannot hold it");
  }
  std::string sql =
      "SELECT l.id AS id, l.kafka_topic_id AS kafka_topic_id, l.kafka_partition AS "
      "kafka_partition, "
      "l.kafka_offset AS kafka_offset, TIMESTAMP_MILLIS(l.kafka_timestamp) AS kafka_timestamp, "
      "l.kafka_timestamp_type AS kafka_timestamp_type, l.key AS key, l.key_format AS key_format, "
      "l.key_schema_id AS key_schema_id, COALESCE(l.parsed_value, TO_JSON(l.value)) AS value, IF(" +
      value_refused +
      ", 'string', l.value_format) AS value_format, l.value_schema_id AS value_schema_id, "
      "l.value_base64 AS value_base64, l.value_size_bytes AS value_size_bytes, "
      "COALESCE(l.parsed_headers, TO_JSON(l.headers)) AS headers, l.is_tombstone AS is_tombstone, "
      "NULLIF(ARRAY_TO_STRING([l.decode_error, " +
      note(value_refused, note_value) + ", " + note(headers_refused, note_headers) + typed_notes +
      "], '; '), '') AS decode_error" + typed_values +
      " FROM (SELECT *, SAFE.PARSE_JSON(value) AS parsed_value, SAFE.PARSE_JSON(headers) AS "
      "parsed_headers" +
      conversions + " FROM " + load_table + " AS l) AS l";
  return sql;
}

// `ranges` as an UNNEST of structs r (topic_id, kafka_partition, lo, hi) and the condition
// that matches the rows of table alias t in them.
std::pair<std::string, std::string> unnest_ranges(const std::vector<OffsetRange>& ranges) {
  std::string values = "UNNEST([STRUCT<topic_id STRING, kafka_partition INT64, lo INT64, hi INT64>";
  for (size_t i = 0; i < ranges.size(); ++i) {
    const auto& r = ranges[i];
    values += (i ? ", (" : "(") + literal(r.topic_id.str()) + ", " + std::to_string(r.partition.value()) + ", " +
              std::to_string(r.from.value()) + ", " + std::to_string(r.to.value()) + ")";
  }
  return {values + "]) AS r",
          "t.kafka_topic_id = r.topic_id AND t.kafka_partition = r.kafka_partition AND t.kafka_offset >= r.lo AND "
          "t.kafka_offset < r.hi"};
}

// The SQL expressions that identify a row of `alias` for latest_by_key: the Kafka key, or the
// value's unique_key fields as JSON text (BigQuery's JSON type has no equality; the manifest
// keeps quotes, dots and backslashes out of those names).
std::vector<std::string> key_sql(const TableSettings& settings, const std::string& alias) {
  if (settings.unique_key.empty()) return {alias + ".key"};
  std::vector<std::string> out;
  for (const auto& f : settings.unique_key)
    out.push_back("TO_JSON_STRING(JSON_QUERY(" + alias + ".value, " + literal("$.\"" + f + "\"") +
                  "))");
  return out;
}

std::string joined(const std::vector<std::string>& parts, const char* separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? separator : "") + parts[i];
  return out;
}

// The statements that bring the rows of `source` (a table or a parenthesised SELECT whose
// columns are named as `target`'s) into `target` by key (strategy latest_by_key): the same
// rules as the SQL engines' (warehouse/sql_text.hpp latest_by_key_sql), in a DELETE and an INSERT.
// The newest row of a key: within a partition the highest offset; across partitions (a key that
// moved) the later kafka_timestamp, then the higher partition. A row replaces the stored one
// of its key when it is at least as new; a tombstone deletes it unless kept. A row with a NULL
// key has none and is appended. `rebuild`: the table is emptied first and the rows are its
// whole content (a full resync). Costs three DML statements (two when rebuilding).
std::string latest_by_key_script(const std::string& target, const std::string& source,
                                 const TableSettings& settings, bool rebuild) {
  const auto s = key_sql(settings, "s"), p = key_sql(settings, "p"), t = key_sql(settings, "t"),
             n = key_sql(settings, "n");
  std::vector<std::string> present, missing, same;
  for (size_t i = 0; i < s.size(); ++i) {
    present.push_back(s[i] + " IS NOT NULL");
    missing.push_back(s[i] + " IS NULL");
    same.push_back(t[i] + " = " + n[i]);
  }
  auto ts = [](const char* alias) {
    return "COALESCE(" + std::string(alias) +
           ".kafka_timestamp, TIMESTAMP '1970-01-01 00:00:00+00')";
  };
  const std::string latest =
      "(SELECT * FROM (SELECT * FROM " + source + " AS s WHERE " + joined(present, " AND ") +
      " QUALIFY ROW_NUMBER() OVER (PARTITION BY " + joined(s, ", ") +
      ", s.kafka_partition ORDER BY s.kafka_offset DESC) = 1) AS p WHERE TRUE QUALIFY "
      "ROW_NUMBER() OVER (PARTITION BY " +
      joined(p, ", ") + " ORDER BY " + ts("p") + " DESC, p.kafka_partition DESC) = 1)";
  const auto& typed = settings.typed_columns;
  const std::string kept = settings.keep_tombstones ? "TRUE" : "NOT n.is_tombstone";
  std::string sql;
  if (rebuild) {
    sql += "DELETE FROM " + target + " WHERE TRUE;\n";
    sql += "INSERT INTO " + target + " (" + column_list(typed) + ") SELECT " +
           column_list(typed, "n") + " FROM " + latest + " AS n WHERE " + kept + ";\n";
  } else {
    const std::string newer =
        "((t.kafka_partition = n.kafka_partition AND n.kafka_offset >= t.kafka_offset) OR "
        "(t.kafka_partition <> n.kafka_partition AND (" +
        ts("n") + " > " + ts("t") + " OR (" + ts("n") + " = " + ts("t") +
        " AND n.kafka_partition > t.kafka_partition))))";
    // A DELETE of the rows the newest ones replace, then an INSERT of those whose key has no
    // row left, as on the SQL engines: unlike a MERGE's UPDATE, it leaves one row per key even
    // where the table held two (another client copied rows; krow reconcile mends them so).
    sql += "DELETE FROM " + target + " AS t WHERE EXISTS (SELECT 1 FROM " + latest +
           " AS n WHERE " + joined(same, " AND ") + " AND " + newer + ");\n";
    sql += "INSERT INTO " + target + " (" + column_list(typed) + ") SELECT " +
           column_list(typed, "n") + " FROM " + latest + " AS n WHERE " + kept +
           " AND NOT EXISTS (SELECT 1 FROM " + target + " AS t WHERE " + joined(same, " AND ") +
           ");\n";
  }
  sql += "INSERT INTO " + target + " (" + column_list(typed) + ") SELECT " +
         column_list(typed, "s") + " FROM " + source + " AS s WHERE " + joined(missing, " OR ") +
         ";\n";
  return sql;
}

// Why BigQuery cannot hold a typed value (its DATE and TIMESTAMP span the years 1 to 9999),
// or null when it can.
const char* unstorable(const columns::ColumnSpec& c, const rows::TypedCell& cell) {
  if (!cell.present) return nullptr;
  // 0001-01-01 and 10000-01-01, in days since 1970-01-01.
  constexpr int64_t kFirstDay = -719162, kPastLastDay = 2932897;
  constexpr int64_t kMicrosPerDay = 86400ll * 1000 * 1000;
  if (c.type == ColumnType::date && (cell.a < kFirstDay || cell.a >= kPastLastDay))
    return "BigQuery's DATE holds the years 1 to 9999 only";
  if (c.type == ColumnType::timestamp &&
      (cell.a < kFirstDay * kMicrosPerDay || cell.a >= kPastLastDay * kMicrosPerDay))
    return "BigQuery's TIMESTAMP holds the years 1 to 9999 only";
  return nullptr;
}

// Appends typed cell `cell` of column `c` to a load table's NDJSON row as field `name`, in the
// form load_conversion gives its load type; nothing for NULL.
void append_typed(std::string& out, const std::string& name, const columns::ColumnSpec& c,
                  const rows::TypedCell& cell, const std::string& arena) {
  if (!cell.present) return;
  out += ",\"";
  out += name;
  out += "\":";
  switch (c.type) {
    case ColumnType::boolean:
      out += cell.a ? "true" : "false";
      return;
    case ColumnType::int32:
    case ColumnType::int64:
    case ColumnType::date:
    case ColumnType::timestamp:
      append_int(out, cell.a);
      return;
    case ColumnType::float32:  // the float's shortest text: 0.1, not 0.10000000149011612
      avro::append_float(out, static_cast<float>(cell.real()));
      return;
    case ColumnType::float64:  // NaN and the infinities as the strings BigQuery reads
      avro::append_double(out, cell.real());
      return;
    case ColumnType::uint64:
      out += '"' + std::to_string(cell.unsigned_value()) + '"';
      return;
    case ColumnType::decimal: {
      // The unscaled value as 16 big-endian two's-complement bytes.
      uint8_t bytes[16];
      const auto v = static_cast<rows::UInt128>(cell.decimal());
      for (int i = 0; i < 16; ++i) bytes[15 - i] = static_cast<uint8_t>(v >> (8 * i));
      out += '"';
      avro::append_decimal(out, bytes, sizeof bytes, c.scale);
      out += '"';
      return;
    }
    case ColumnType::time:
      out += '"';
      avro::append_time_of_day(out, cell.a, 6);
      out += '"';
      return;
    case ColumnType::text:
    case ColumnType::bytes:
    case ColumnType::json:
      append_json_string(out, cell.text(arena));
      return;
  }
}

std::string location_suffix(const std::string& location) {
  std::string out;
  for (char c : lower_ascii(location)) out += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return out;
}

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::string BigQueryWarehouse::column_sql_type(const columns::ColumnSpec& column) const {
  return bigquery::column_type(column.type, column.precision, column.scale);
}

columns::ColumnSpec BigQueryWarehouse::column_holds(const columns::ColumnSpec& column) const {
  return bigquery::column_holds(column);
}

std::optional<std::vector<columns::TableColumn>> BigQueryWarehouse::typed_columns(const std::string& table) {
  // Whether it exists, from its metadata; its columns as a query sees them, from a dry run
  // (free): what rows are written through.
  if (!client_->table_fields(config_.schema, table)) return std::nullopt;
  const auto fields = client_->result_fields("SELECT * FROM " + row_table(table), location_,
                                             "reading a table's columns");
  if (!fields) return std::nullopt;
  bool same = fields->size() >= contract::kColumnCount;
  for (size_t i = 0; same && i < contract::kColumnCount; ++i)
    same = (*fields)[i].name == contract::kColumns[i].name;
  if (!same)
    throw Error(ErrorClass::fatal_table,
                "table " + config_.schema + "." + table + " in " + describe() +
                    " exists but does not have krow's columns; rename or drop it, or choose "
                    "another warehouse.dataset");
  std::vector<columns::TableColumn> out;
  for (size_t i = contract::kColumnCount; i < fields->size(); ++i) {
    const auto& f = (*fields)[i];
    columns::TableColumn c{f.name, f.type, std::nullopt};
    if (f.repeated) {
      c.sql_type = "ARRAY<" + f.type + ">";  // never planned
    } else if (f.precision > 0) {
      // A parameterised NUMERIC(12,2), made by hand: krow plans the plain types.
      c.sql_type += "(" + std::to_string(f.precision) + "," + std::to_string(f.scale) + ")";
      columns::ColumnSpec spec;
      spec.type = ColumnType::decimal;
      spec.precision = f.precision;
      spec.scale = f.scale;
      c.spec = spec;
    } else {
      c.spec = bigquery::held_by(f.type);
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<std::string> BigQueryWarehouse::evolution_sql(
    const std::string& table, const std::vector<columns::ColumnChange>& changes) const {
  // DDL takes no transaction: each statement can be run again after a run stopped between two.
  std::vector<std::string> out;
  for (const auto& ch : changes) {
    if (!ch.ddl) continue;
    if (ch.kind == columns::ChangeKind::widen)
      out.push_back("ALTER TABLE " + row_table(table) + " ALTER COLUMN " + ident(ch.column.name) +
                    " SET DATA TYPE " + column_sql_type(ch.column));
    else
      out.push_back("ALTER TABLE " + row_table(table) + " ADD COLUMN IF NOT EXISTS " +
                    ident(ch.column.name) + " " + column_sql_type(ch.column));
  }
  return out;
}

std::vector<columns::ColumnBinding> BigQueryWarehouse::column_bindings(const std::string& table) {
  std::vector<columns::ColumnBinding> out;
  if (!has_state_) return out;
  // State datasets of krows before typed columns on BigQuery have no bindings table.
  if (!has_bindings_) has_bindings_ = client_->table_fields(state_dataset_, "columns").has_value();
  if (!*has_bindings_) return out;
  auto p = params();
  p.push_back({"table_name", "STRING", table});
  const auto r =
      client_->query("SELECT field_path, column_name FROM " + state_table("columns") +
                         " WHERE warehouse_schema = @schema AND table_name = @table_name ORDER BY "
                         "created_at, field_path",
                     p, location_, "reading a table's column bindings");
  for (const auto& row : r.rows)
    if (auto path = columns::path_of_key(row[0].value_or("")))
      out.push_back({std::move(*path), row[1].value_or("")});
  return out;
}

void BigQueryWarehouse::record_bindings(const std::string& table,
                                        const std::vector<columns::ColumnSpec>& typed,
                                        bool created) {
  const auto bindings = columns::bindings_of(typed);
  if (bindings.empty() && !created) return;
  auto p = params();
  p.push_back({"table_name", "STRING", table});
  const auto columns_table = state_table("columns");
  // Two statements, each taking names from elsewhere as parameters: a run stopped between them
  // has deleted what it then inserts next time (the table exists then, and its bindings are
  // added).
  // What a dropped table of this name left is not this table's.
  if (created)
    client_->query("DELETE FROM " + columns_table +
                       " WHERE warehouse_schema = @schema AND table_name = @table_name",
                   p, location_, "forgetting a dropped table's column bindings");
  if (!bindings.empty()) {
    std::string rows;
    for (size_t i = 0; i < bindings.size(); ++i) {
      const auto n = std::to_string(i);
      p.push_back({"path" + n, "STRING", columns::path_key(bindings[i].path)});
      p.push_back({"column" + n, "STRING", bindings[i].column});
      rows += std::string(i ? " UNION ALL " : "") + "SELECT @path" + n + " AS field_path, @column" +
              n + " AS column_name";
    }
    // A recorded binding never changes.
    client_->query(
        "INSERT INTO " + columns_table +
            " (warehouse_schema, table_name, field_path, column_name, created_at) SELECT @schema, "
            "@table_name, b.field_path, b.column_name, CURRENT_TIMESTAMP() FROM (" +
            rows + ") AS b WHERE NOT EXISTS (SELECT 1 FROM " + columns_table +
            " AS c WHERE c.warehouse_schema = @schema AND c.table_name = @table_name AND "
            "c.field_path = "
            "b.field_path)",
        p, location_, "recording a table's column bindings");
  }
  has_bindings_ = true;
}

BigQueryWarehouse::BigQueryWarehouse(const WarehouseConfig& config, const std::string& sync_id,
                                     OpenMode mode, const std::string& worker_id)
    : config_(config),
      settings_(config.settings_as<BigQuerySettings>()),
      sync_id_(sync_id),
      mode_(mode) {
  client_ = std::make_unique<bigquery::Client>(settings_, config_.schema);
  const auto found = client_->dataset_location(config_.schema);
  location_ = found ? *found : settings_.location;
  state_dataset_ = "_krow_" + location_suffix(location_);
  load_dataset_ = "_krow_loads_" + location_suffix(location_);
  holder_ = this_host() + "/" + std::to_string(getpid()) + "/" + std::to_string(std::random_device{}());
  dataset_exists_ = found.has_value();  // otherwise made with the first table (create_new_table)
  if (mode_ == OpenMode::worker) {
    char name[32];
    std::snprintf(name, sizeof name, "worker_%08x%08x", fnv1a(config_.schema + '\n' + sync_id_),
                  fnv1a(worker_id));
    worker_table_ = name;
    // Workers start together: making a dataset or table that another made is fine, so no
    // lease is needed here (the lease lives in one of those tables).
    create_state();
    has_state_ = true;
  } else if (mode_ == OpenMode::write) {
    create_state();
    has_state_ = true;
    take_lease();
  } else {
    const auto fields = client_->table_fields(state_dataset_, "positions");
    has_state_ = fields.has_value();
    holder_column_ = fields && has_field(*fields, "holder_table");
  }
}

BigQueryWarehouse::~BigQueryWarehouse() {
  try {
    release_lease();
  } catch (const std::exception&) {
    // An unreleased lease is taken over by the next run on this host, or expires.
  }
}

std::string BigQueryWarehouse::row_table(const std::string& table) const {
  return bigquery::table_ref(settings_.project, config_.schema, table);
}
std::string BigQueryWarehouse::state_table(const std::string& table) const {
  return bigquery::table_ref(settings_.project, state_dataset_, table);
}
std::string BigQueryWarehouse::load_table(const std::string& table) const {
  return bigquery::table_ref(settings_.project, load_dataset_, table);
}
std::string BigQueryWarehouse::staging(const std::string& sync_id, const std::string& table) const {
  return staging_table_name(sync_id, config_.schema, table);
}

std::vector<Param> BigQueryWarehouse::params() const {
  return {{"sync_id", "STRING", sync_id_}, {"schema", "STRING", config_.schema}, {"holder", "STRING", holder_}};
}

void BigQueryWarehouse::create_state() {
  client_->create_dataset(state_dataset_, location_);
  client_->create_dataset(load_dataset_, location_, kLoadTableLifeMs);
  // BigQuery enforces no key; records stay STRING (they are written and read as text), as in
  // the datasets earlier krows made.
  for (const auto* t : {&contract::kPositions, &contract::kTables, &contract::kRuns,
                        &contract::kLeases, &contract::kWorkers, &contract::kColumnBindings}) {
    if (client_->table_fields(state_dataset_, std::string(t->name))) continue;
    std::vector<Field> fields;
    for (const auto& c : t->columns)
      fields.push_back({std::string(c.name),
                        c.type == ColumnType::json ? "STRING" : bigquery::column_type(c.type),
                        !c.nullable});
    client_->create_table(state_dataset_, std::string(t->name), {std::move(fields)});
  }
  upgrade_positions();
  holder_column_ = true;
  has_bindings_ = true;
  if (!worker_table_.empty() && !client_->table_fields(state_dataset_, worker_table_))
    client_->create_table(state_dataset_, worker_table_,
                          {{{"topic", "STRING", true},
                            {"topic_id", "STRING", true},
                            {"kafka_partition", "INT64", true},
                            {"epoch", "INT64", true},
                            {"next_offset", "INT64", false},
                            {"updated_at", "TIMESTAMP", true}}});
}

void BigQueryWarehouse::upgrade_positions() {
  const auto fields = client_->table_fields(state_dataset_, "positions");
  if (!fields) return;
  // The table of the worker holding a partition (workers, above), for krows that know workers.
  if (!has_field(*fields, "holder_table"))
    client_->query(
        "ALTER TABLE " + state_table("positions") + " ADD COLUMN IF NOT EXISTS holder_table STRING",
        {}, location_, "upgrading krow's positions table");
  if (has_field(*fields, "epoch")) return;
  // DDL takes no transaction; both statements are idempotent, so a run stopped between them
  // finishes the upgrade next time.
  const auto positions = state_table("positions");
  client_->query("ALTER TABLE " + positions + " ADD COLUMN IF NOT EXISTS epoch INT64", {},
                 location_, "upgrading krow's positions table");
  client_->query("ALTER TABLE " + positions + " ALTER COLUMN next_offset DROP NOT NULL", {},
                 location_, "upgrading krow's positions table");
}

void BigQueryWarehouse::take_lease() {
  const auto leases = state_table("leases");
  const auto held = client_->query(
      "SELECT holder, host, pid, UNIX_MILLIS(expires_at), FORMAT_TIMESTAMP('%F %T', expires_at) FROM " + leases +
          " WHERE sync_id = @sync_id AND warehouse_schema = @schema",
      params(), location_, "reading the sync's lease");
  const std::string mine = "sync_id = " + literal(sync_id_) + " AND warehouse_schema = " + literal(config_.schema);
  // Taken only if the leases are still the ones just read: of two syncs starting together,
  // the later transaction fails this check (or meets the other's concurrent update, and is
  // retried and refused).
  std::string unchanged = "(SELECT COUNT(*) FROM " + leases + " WHERE " + mine + ") = " + std::to_string(held.rows.size());
  for (const auto& row : held.rows) {
    const std::string holder = row[0].value_or(""), host = row[1].value_or("");
    const int64_t pid = bigquery::integer_cell(row[2], "a lease's pid");
    const int64_t expires = bigquery::integer_cell(row[3], "a lease's expiry");
    const bool dead_here = host == this_host() && !process_alive(pid);
    if (expires > now_ms() && !dead_here)
      throw Error(ErrorClass::transient,
                  "another sync of '" + sync_id_ + "' is already running (pid " + std::to_string(pid) + " on " + host +
                      "; its lease in " + describe() + " lasts until " + row[4].value_or("?") +
                      " UTC unless it goes on writing): run this sync again once that one has finished (exit "
                      "code 75: try again later), or stop it");
    unchanged += " AND (SELECT COUNT(*) FROM " + leases + " WHERE " + mine + " AND holder = " + literal(holder) + ") = 1";
  }
  try {
    transaction("SELECT IF(NOT (" + unchanged + "), ERROR('" +
                    std::string(bigquery::kFenceMarker) + " another sync took the lease'), 0);\n"
                    "DELETE FROM " + leases + " WHERE " + mine + ";\n"
                    "INSERT INTO " + leases + " (sync_id, warehouse_schema, holder, host, pid, expires_at) VALUES (" +
                    literal(sync_id_) + ", " + literal(config_.schema) + ", " + literal(holder_) + ", " +
                    literal(this_host()) + ", " + std::to_string(getpid()) + ", TIMESTAMP_ADD(CURRENT_TIMESTAMP(), "
                    "INTERVAL " + std::to_string(kLeaseSeconds) + " SECOND));\n",
                "taking the sync's lease");
  } catch (const Error& e) {
    // Another sync started at the same moment and took it first (the check above failed).
    if (e.error_class() != ErrorClass::conflict) throw;
    throw Error(ErrorClass::transient,
                "another sync of '" + sync_id_ + "' took its lease in " + describe() +
                    " just now: run this sync again once that one has finished (exit code "
                    "75: try again later)");
  }
  leased_ = true;
}

void BigQueryWarehouse::lock_sync(std::chrono::milliseconds wait) {
  if (leased_) return;
  const auto started = std::chrono::steady_clock::now();
  bool said = false;
  for (;;) {
    try {
      take_lease();
      return;
    } catch (const Error& e) {
      if (e.error_class() != ErrorClass::transient) throw;
      const auto waited = std::chrono::steady_clock::now() - started;
      if (waited >= wait)
        throw Error(
            ErrorClass::transient,
            std::string(e.what()) + " (waited " +
                std::to_string(std::chrono::duration_cast<std::chrono::seconds>(waited).count()) +
                " s, warehouse.retry_timeout, for it to prepare the tables)");
      if (!said && waited > std::chrono::seconds(1)) {
        said = true;
        std::fprintf(
            stderr,
            "krow: note: another worker of sync '%s' is preparing the tables; waiting for it\n",
            sync_id_.c_str());
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

void BigQueryWarehouse::unlock_sync() noexcept {
  try {
    release_lease();
  } catch (const std::exception&) {
    // It expires, or the next worker on this host takes it over.
  }
}

void BigQueryWarehouse::release_lease() {
  if (!leased_) return;
  leased_ = false;
  client_->query("DELETE FROM " + state_table("leases") +
                     " WHERE sync_id = @sync_id AND warehouse_schema = @schema AND holder = @holder",
                 params(), location_, "releasing the sync's lease");
}

void BigQueryWarehouse::transaction(const std::string& statements, const char* doing) {
  client_->query("BEGIN TRANSACTION;\n" + statements + "COMMIT TRANSACTION;", {}, location_, doing);
}

std::vector<Position> BigQueryWarehouse::positions(const std::string& sync_id) {
  std::vector<Position> out;
  if (!has_state_) return out;
  for (const auto& s : stored_partitions(sync_id))
    if (s.next) out.push_back({s.topic, s.topic_id, s.partition, *s.next});
  return out;
}

namespace {
// A holder table's name as krow makes them (worker_ and 16 hex digits): anything else read
// from `positions` is refused before it is spliced into SQL.
bool worker_table_name(const std::string& name) {
  if (name.size() != 23 || name.rfind("worker_", 0) != 0) return false;
  return std::all_of(name.begin() + 7, name.end(),
                     [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}
}  // namespace

std::vector<BigQueryWarehouse::StoredPartition> BigQueryWarehouse::stored_partitions(
    const std::string& sync_id) {
  std::vector<StoredPartition> out;
  if (!has_state_) return out;
  auto p = params();
  p[0].value = sync_id;
  const auto r = client_->query(
      "SELECT topic, topic_id, kafka_partition, COALESCE(epoch, 0), next_offset, " +
          std::string(holder_column_ ? "holder_table" : "CAST(NULL AS STRING)") + " FROM " +
          state_table("positions") + " WHERE sync_id = @sync_id AND warehouse_schema = @schema",
      p, location_, "reading positions");
  std::vector<std::string> holders;
  for (const auto& row : r.rows) {
    StoredPartition s;
    s.topic = row[0].value_or("");
    s.topic_id = TopicId(row[1].value_or(""));
    s.partition = Partition(static_cast<int32_t>(bigquery::integer_cell(row[2], "a partition")));
    s.epoch = Epoch(bigquery::integer_cell(row[3], "an epoch"));
    // `positions`' own next_offset, until a holder's row says otherwise (below).
    if (row[4]) s.next = Offset(bigquery::integer_cell(row[4], "a position"));
    s.holder_table = row[5].value_or("");
    if (!s.holder_table.empty()) {
      if (!worker_table_name(s.holder_table))
        throw Error(ErrorClass::fatal_run,
                    "krow's positions table in " + describe() + " names '" + s.holder_table +
                        "' as the table holding partition " + std::to_string(s.partition.value()) +
                        " of " + s.topic +
                        ", which is no table krow makes: was it edited by hand?");
      if (std::find(holders.begin(), holders.end(), s.holder_table) == holders.end())
        holders.push_back(s.holder_table);
    }
    out.push_back(std::move(s));
  }
  if (holders.empty()) return out;
  // Every holder's rows in one query.
  std::string sql;
  for (const auto& h : holders)
    sql += std::string(sql.empty() ? "" : " UNION ALL ") + "SELECT " + literal(h) +
           " AS holder, topic_id, kafka_partition, epoch, next_offset FROM " + state_table(h);
  const auto held = client_->query(sql, {}, location_, "reading the workers' positions");
  for (const auto& row : held.rows) {
    const std::string holder = row[0].value_or(""), topic_id = row[1].value_or("");
    const auto partition = bigquery::integer_cell(row[2], "a partition");
    for (auto& s : out)
      if (s.holder_table == holder && s.topic_id.str() == topic_id &&
          s.partition.value() == partition) {
        s.held_row = true;
        s.held_epoch = Epoch(bigquery::integer_cell(row[3], "an epoch"));
        if (row[4]) s.held_next = Offset(bigquery::integer_cell(row[4], "a position"));
        // The holder's row is the live position while it holds the partition's epoch.
        if (s.held_epoch == s.epoch) s.next = s.held_next;
      }
  }
  return out;
}

std::vector<PartitionClaim> BigQueryWarehouse::take(const std::string& sync_id,
                                                    const std::vector<PartitionKey>& partitions) {
  std::vector<PartitionClaim> out;
  if (partitions.empty()) return out;
  const auto positions = state_table("positions");
  const std::string mine =
      "p.sync_id = " + literal(sync_id) + " AND p.warehouse_schema = " + literal(config_.schema);
  auto same = [](const std::string& topic_id, Partition partition) {
    return "(p.topic_id = " + literal(topic_id) +
           " AND p.kafka_partition = " + std::to_string(partition.value()) + ")";
  };
  auto value = [](const std::optional<Offset>& o) {
    return o ? std::to_string(o->value()) : std::string("NULL");
  };
  // A compare-and-set: the epochs (and the holders' rows) are read, then bumped in a
  // transaction that first checks they are still the ones read. Of two takes at once, the
  // later one's check fails (or BigQuery aborts it for the other's concurrent update): it
  // reads again and bumps again.
  for (int attempt = 1;; ++attempt) {
    const auto stored = stored_partitions(sync_id);
    out.clear();
    std::string known, fresh;
    size_t known_count = 0;
    // The holders' tables the partitions leave: the rows read there, to check and delete.
    std::map<std::string, std::pair<std::string, std::string>> left;  // table → (rows, matches)
    std::map<std::string, size_t> left_rows;
    for (const auto& k : partitions) {
      PartitionClaim c{k, Epoch(1), std::nullopt};
      const StoredPartition* found = nullptr;
      for (const auto& s : stored)
        if (s.topic_id == k.topic_id && s.partition == k.partition) found = &s;
      if (found) {
        c.epoch = Epoch(found->epoch.value() + 1);
        c.position = found->next;
        if (!found->holder_table.empty()) {
          auto& [rows, matches] = left[found->holder_table];
          rows += (rows.empty() ? "" : " OR ") + same(k.topic_id.str(), k.partition);
          if (found->held_row) {
            ++left_rows[found->holder_table];
            matches += (matches.empty() ? "" : " OR ") + std::string("(") +
                       same(k.topic_id.str(), k.partition) +
                       " AND p.epoch = " + std::to_string(found->held_epoch.value()) +
                       " AND p.next_offset IS NOT DISTINCT FROM " + value(found->held_next) + ")";
          } else {
            left_rows[found->holder_table] += 0;
          }
        }
      }
      std::string& list = found ? known : fresh;
      list += list.empty() ? "(" : ", (";
      list += literal(k.topic_id.str()) + ", " + std::to_string(k.partition.value()) + ", " +
              std::to_string(c.epoch.value()) + ", " + literal(k.topic) + ", " + value(c.position) +
              ")";
      known_count += found != nullptr;
      out.push_back(std::move(c));
    }
    auto unnest = [](const std::string& list) {
      return "UNNEST([STRUCT<topic_id STRING, kafka_partition INT64, epoch INT64, topic STRING, "
             "next_offset INT64>" +
             list + "]) AS m";
    };
    std::string check = "FALSE";
    if (!known.empty())
      check += " OR (SELECT COUNT(*) FROM " + positions + " AS p JOIN " + unnest(known) +
               " ON p.topic_id = m.topic_id AND p.kafka_partition = m.kafka_partition AND "
               "COALESCE(p.epoch, 0) = "
               "m.epoch - 1 WHERE " +
               mine + ") <> " + std::to_string(known_count);
    if (!fresh.empty())
      check += " OR (SELECT COUNT(*) FROM " + positions + " AS p JOIN " + unnest(fresh) +
               " ON p.topic_id = m.topic_id AND p.kafka_partition = m.kafka_partition WHERE " +
               mine + ") <> 0";
    for (const auto& [table, rows] : left) {
      const auto n = std::to_string(left_rows[table]);
      check += " OR (SELECT COUNT(*) FROM " + state_table(table) + " AS p WHERE " + rows.first +
               ") <> " + n;
      if (!rows.second.empty())
        check += " OR (SELECT COUNT(*) FROM " + state_table(table) + " AS p WHERE " + rows.second +
                 ") <> " + n;
    }
    std::string sql = "SELECT IF(" + check + ", ERROR('" + std::string(bigquery::kFenceMarker) +
                      " another krow took partitions of this sync at the same time'), 0);\n";
    // The previous holders lose their rows: their commits in flight meet this transaction
    // (BigQuery lets only one of two mutating the same table commit), later ones find no row.
    for (const auto& [table, rows] : left)
      sql += "DELETE FROM " + state_table(table) + " AS p WHERE " + rows.first + ";\n";
    const std::string holder =
        worker_table_.empty() ? "CAST(NULL AS STRING)" : literal(worker_table_);
    if (!known.empty())
      sql += "UPDATE " + positions + " AS p SET epoch = m.epoch, next_offset = m.next_offset, " +
             std::string(holder_column_ ? "holder_table = " + holder + ", " : "") +
             "updated_at = CURRENT_TIMESTAMP() FROM " + unnest(known) + " WHERE " + mine +
             " AND p.topic_id = m.topic_id AND p.kafka_partition = m.kafka_partition;\n";
    if (!fresh.empty())
      sql += "INSERT INTO " + positions +
             " (sync_id, warehouse_schema, topic, topic_id, kafka_partition, "
             "next_offset, updated_at, epoch" +
             std::string(holder_column_ ? ", holder_table" : "") + ") SELECT " + literal(sync_id) +
             ", " + literal(config_.schema) +
             ", m.topic, m.topic_id, m.kafka_partition, NULL, CURRENT_TIMESTAMP(), m.epoch" +
             (holder_column_ ? ", " + holder : std::string()) + " FROM " + unnest(fresh) + ";\n";
    if (!worker_table_.empty()) {
      // This worker's own rows: from now on its commits move these.
      std::string rows;
      for (const auto& k : partitions)
        rows += (rows.empty() ? "" : " OR ") + same(k.topic_id.str(), k.partition);
      if (!left.count(worker_table_))
        sql += "DELETE FROM " + state_table(worker_table_) + " AS p WHERE " + rows + ";\n";
      sql += "INSERT INTO " + state_table(worker_table_) +
             " (topic, topic_id, kafka_partition, epoch, next_offset, updated_at) SELECT m.topic, "
             "m.topic_id, "
             "m.kafka_partition, m.epoch, m.next_offset, CURRENT_TIMESTAMP() FROM " +
             unnest(known + (known.empty() || fresh.empty() ? "" : ", ") + fresh) + ";\n";
    }
    try {
      transaction(sql, "taking partitions");
      return out;
    } catch (const Error& e) {
      if (e.error_class() != ErrorClass::conflict || attempt >= 5) throw;
    }
  }
}

void BigQueryWarehouse::fenced_transaction(const std::string& statements,
                                           const std::vector<PositionMove>& moves,
                                           const char* doing) {
  try {
    transaction(statements, doing);
  } catch (const Error& e) {
    if (e.error_class() != ErrorClass::conflict || moves.empty()) throw;
    // Which fence failed: an epoch says another worker took a partition.
    std::vector<StoredFence> stored;
    for (const auto& s : stored_partitions(sync_id_))
      stored.push_back({s.topic_id, s.partition, s.epoch, s.next});
    if (auto conflict = epoch_conflict(sync_id_, describe(), moves, stored)) throw *conflict;
    throw;
  }
}

std::vector<TableMapping> BigQueryWarehouse::tables() {
  std::vector<TableMapping> out;
  if (!has_state_) return out;
  const auto r = client_->query("SELECT sync_id, topic, table_name FROM " + state_table("tables") +
                                    " WHERE warehouse_schema = @schema",
                                params(), location_, "reading table names");
  for (const auto& row : r.rows) out.push_back({row[0].value_or(""), row[1].value_or(""), row[2].value_or("")});
  return out;
}

void BigQueryWarehouse::create_table(const std::string& sync_id, const std::string& topic,
                                     const std::string& table, const TableSettings& settings,
                                     Creation creation) {
  strategies_.set(table, settings);
  // typed_columns() throws when a table of that name lacks krow's columns.
  const bool missing = !typed_columns(table);
  if (missing && creation == Creation::at_publish) {
    unpublished_[table] = topic;
    return;
  }
  unpublished_.erase(table);
  if (missing) {
    create_new_table(table, settings);
  } else {
    for (const auto& sql : evolution_sql(table, settings.changes))
      client_->query(sql, {}, location_, "changing a typed column");
    const auto problem = typed_columns_mismatch(
        *this, config_.schema + "." + table,
        typed_columns(table).value_or(std::vector<columns::TableColumn>{}), settings.typed_columns);
    if (!problem.empty()) throw Error(ErrorClass::fatal_table, problem);
    if (settings.apply_design) apply_design(table, settings);
  }
  record_bindings(table, settings.typed_columns, /*created=*/missing);
  auto p = params();
  p[0].value = sync_id;
  p.push_back({"topic", "STRING", topic});
  p.push_back({"table_name", "STRING", table});
  client_->query("INSERT INTO " + state_table("tables") +
                     " (sync_id, topic, warehouse_schema, table_name, created_at) " +
                     record_name_select("@sync_id", "@topic", "@table_name"),
                 p, location_, "recording a table name");
}

std::vector<Field> BigQueryWarehouse::table_fields(const TableSettings& settings) const {
  auto fields = row_fields();
  for (const auto& c : settings.typed_columns)
    fields.push_back({c.name, column_sql_type(c), false});
  return fields;
}

void BigQueryWarehouse::create_new_table(const std::string& table, const TableSettings& settings) {
  if (!dataset_exists_) {
    client_->create_dataset(config_.schema, location_);  // an existing one is fine
    dataset_exists_ = true;
  }
  bigquery::TableLayout layout{table_fields(settings)};
  bigquery::design_layout(settings, settings_, layout);
  client_->create_table(config_.schema, table, layout);  // one made by an earlier attempt is fine
}

std::string BigQueryWarehouse::record_name_select(const std::string& sync_id,
                                                  const std::string& topic,
                                                  const std::string& table) const {
  return "SELECT " + sync_id + ", " + topic + ", " + literal(config_.schema) + ", " + table +
         ", CURRENT_TIMESTAMP() FROM UNNEST([1]) WHERE NOT EXISTS (SELECT 1 FROM " +
         state_table("tables") + " WHERE warehouse_schema = " + literal(config_.schema) +
         " AND table_name = " + table + ")";
}

std::vector<BigQueryWarehouse::Loaded> BigQueryWarehouse::load_batch(RowBatch& batch) {
  std::vector<Loaded> out;
  std::string ndjson, id;
  for (size_t slot = 0; slot < batch.tables().size(); ++slot) {
    const auto& t = batch.tables()[slot];
    if (t.rows.empty()) continue;
    const auto& typed = t.typed ? t.typed->columns : std::vector<columns::ColumnSpec>{};
    const auto fields =
        load_fields(typed, [&](const columns::ColumnSpec& c) { return column_sql_type(c); });
    ndjson.clear();
    const std::string& arena = batch.arena();
    for (size_t r = 0; r < t.rows.size(); ++r) {
      const auto& row = t.rows[r];
      // What BigQuery's types cannot hold is left out, with a note, before the row is written.
      for (size_t k = 0; k < typed.size(); ++k)
        if (const auto why = unstorable(typed[k], t.cells_of(r)[k]))
          batch.replace_unstorable_typed(slot, r, k, why);
      auto text = [&](const char* name, const Slice& s) {
        if (!s.present) return;
        ndjson += ",\"";
        ndjson += name;
        ndjson += "\":";
        append_json_string(ndjson, s.view(arena));
      };
      auto number = [&](const char* name, int64_t v) {
        ndjson += ",\"";
        ndjson += name;
        ndjson += "\":";
        append_int(ndjson, v);
      };
      auto format = [&](const char* name, Format f) {
        if (f == Format::none) return;
        ndjson += ",\"";
        ndjson += name;
        ndjson += "\":\"";
        ndjson += format_name(f);
        ndjson += '"';
      };
      id.clear();
      contract::append_id(id, t.topic_id, row.partition, row.offset);
      ndjson += "{\"id\":";
      append_json_string(ndjson, id);
      ndjson += ",\"kafka_topic_id\":";
      append_json_string(ndjson, t.topic_id.str());
      number("kafka_partition", row.partition.value());
      number("kafka_offset", row.offset.value());
      if (row.timestamp_type != contract::TimestampType::none) {
        number("kafka_timestamp", row.timestamp_ms);
        ndjson += ",\"kafka_timestamp_type\":\"" +
                  std::string(contract::timestamp_type_name(row.timestamp_type)) + "\"";
      }
      text("key", row.key.text);
      format("key_format", row.key.format);
      if (row.key.schema_id) number("key_schema_id", row.key.schema_id->value());
      text("value", row.value.text);
      format("value_format", row.value.format);
      if (row.value.schema_id) number("value_schema_id", row.value.schema_id->value());
      text("value_base64", row.value.base64);
      number("value_size_bytes", row.value_size_bytes);
      text("headers", row.headers);
      ndjson += row.is_tombstone ? ",\"is_tombstone\":true" : ",\"is_tombstone\":false";
      text("decode_error", row.decode_error);
      for (size_t k = 0; k < typed.size(); ++k)
        if (!typed[k].retired)
          append_typed(ndjson, load_field(k), typed[k], t.cells_of(r)[k], arena);
      ndjson += "}\n";
    }
    // A name of its own per batch: BigQuery allows 1,500 load jobs per table and day, and a
    // busy sync loads far more batches than that.
    char name[64];
    std::snprintf(name, sizeof name, "load_%08x_%08x_%llu", fnv1a(sync_id_ + '\n' + config_.schema + '\n' + t.table),
                  fnv1a(holder_), static_cast<unsigned long long>(++loads_));
    client_->load(load_dataset_, name, fields, ndjson, location_, "loading a batch");
    out.push_back({slot, name});
  }
  return out;
}

void BigQueryWarehouse::drop_loaded(const std::vector<Loaded>& loaded) {
  for (const auto& l : loaded) {
    try {
      client_->delete_table(load_dataset_, l.table);
    } catch (const Error&) {
      // It expires within a day.
    }
  }
}

std::string BigQueryWarehouse::fence_and_move(const std::vector<PositionMove>& moves) const {
  const auto positions = state_table("positions");
  const auto leases = state_table("leases");
  // `moved`: rows compared and set on position and epoch (a row taken but never committed has
  // no position); `fresh`: partitions never taken nor committed, whose rows must not exist.
  std::string moved, fresh;
  size_t moved_count = 0;
  for (const auto& m : moves) {
    const bool update = m.from || m.epoch != Epoch(0);
    std::string& list = update ? moved : fresh;
    list += list.empty() ? "(" : ", (";
    list += literal(m.to.topic_id.str()) + ", " + std::to_string(m.to.partition.value()) + ", " +
            (m.from ? std::to_string(m.from->value()) : std::string("NULL")) + ", " +
            std::to_string(m.to.next.value()) + ", " + literal(m.to.topic) + ", " +
            std::to_string(m.epoch.value()) + ")";
    if (update) ++moved_count;
  }
  auto unnest = [](const std::string& list) {
    return "UNNEST([STRUCT<topic_id STRING, kafka_partition INT64, from_offset INT64, next_offset "
           "INT64, topic "
           "STRING, epoch INT64>" +
           list + "]) AS m";
  };
  const std::string mine = "p.sync_id = " + literal(sync_id_) + " AND p.warehouse_schema = " + literal(config_.schema);
  const std::string holder = literal(holder_);
  const std::string same = "p.topic_id = m.topic_id AND p.kafka_partition = m.kafka_partition";
  if (!worker_table_.empty()) {
    // A worker moves its own rows only (every partition it commits was taken: none is fresh),
    // and holds no lease while it writes.
    const auto own = state_table(worker_table_);
    const std::string all = moved + (moved.empty() || fresh.empty() ? "" : ", ") + fresh;
    if (all.empty()) return {};
    const auto count = std::to_string(moves.size());
    return "SELECT IF((SELECT COUNT(*) FROM " + own + " AS p JOIN " + unnest(all) + " ON " + same +
           " AND p.next_offset IS NOT DISTINCT FROM m.from_offset AND p.epoch = m.epoch) <> " +
           count + ", ERROR('" + std::string(bigquery::kFenceMarker) +
           " the stored positions of this worker are not the ones this write started from'), 0);\n"
           "UPDATE " +
           own +
           " AS p SET next_offset = m.next_offset, topic = m.topic, updated_at = "
           "CURRENT_TIMESTAMP() FROM " +
           unnest(all) + " WHERE " + same + ";\n";
  }
  std::string check = "(SELECT COUNT(*) FROM " + leases + " AS p WHERE " + mine + " AND p.holder = " + holder + ") <> 1";
  if (!moved.empty())
    check += " OR (SELECT COUNT(*) FROM " + positions + " AS p JOIN " + unnest(moved) + " ON " +
             same +
             " AND p.next_offset IS NOT DISTINCT FROM m.from_offset AND COALESCE(p.epoch, 0) = "
             "m.epoch WHERE " +
             mine + ") <> " + std::to_string(moved_count);
  if (!fresh.empty())
    check += " OR (SELECT COUNT(*) FROM " + positions + " AS p JOIN " + unnest(fresh) + " ON " +
             same + " WHERE " + mine + ") <> 0";
  std::string sql = "SELECT IF(" + check + ", ERROR('" + std::string(bigquery::kFenceMarker) +
                    " the stored positions of this sync are not the ones this write started from, or its lease was "
                    "taken'), 0);\n";
  sql += "UPDATE " + leases + " AS p SET expires_at = TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL " +
         std::to_string(kLeaseSeconds) + " SECOND) WHERE " + mine + " AND p.holder = " + holder + ";\n";
  if (!moved.empty())
    sql += "UPDATE " + positions +
           " AS p SET next_offset = m.next_offset, topic = m.topic, updated_at = "
           "CURRENT_TIMESTAMP() FROM " +
           unnest(moved) + " WHERE " + mine + " AND " + same + ";\n";
  if (!fresh.empty())
    sql += "INSERT INTO " + positions + " (sync_id, warehouse_schema, topic, topic_id, kafka_partition, next_offset, "
           "updated_at) SELECT " + literal(sync_id_) + ", " + literal(config_.schema) + ", m.topic, m.topic_id, m.kafka_partition, m.next_offset, "
           "CURRENT_TIMESTAMP() FROM " + unnest(fresh) + ";\n";
  return sql;
}

std::string BigQueryWarehouse::converted(const std::string& load,
                                         const std::vector<columns::ColumnSpec>& typed) const {
  return "(" +
         converted_rows(load, typed,
                        [&](const columns::ColumnSpec& c) { return column_sql_type(c); }) +
         ")";
}

void BigQueryWarehouse::commit(const std::string& sync_id, RowBatch& batch, const std::vector<PositionMove>& moves,
                               WriteMode mode) {
  (void)sync_id;  // this object's sync: the lease and the positions are its own
  const auto loaded = load_batch(batch);
  // Between loading a batch and the transaction that publishes it: a test can kill -9 the
  // process exactly here.
  fault::stop_here_if_asked(fault::StopPoint::after_load);
  std::string sql = fence_and_move(moves);
  for (const auto& l : loaded) {
    const auto& t = batch.tables()[l.slot];
    const auto& settings = strategies_.of(t.table);
    if (settings.replaces(mode == WriteMode::merge))
      throw std::logic_error("table " + t.table + " replaces its rows: its batches are staged, not committed");
    const auto target = row_table(t.table);
    const auto& typed = t.typed ? t.typed->columns : std::vector<columns::ColumnSpec>{};
    const auto rows = converted(load_table(l.table), typed);
    if (settings.strategy == Strategy::latest_by_key) {
      sql += latest_by_key_script(target, rows, settings, false);
      continue;
    }
    if (mode == WriteMode::merge) {
      // Only the partitions and blocks the batch can touch are read: its offset ranges
      // (clustering) and its time span (partitioning; NULL timestamps have a partition of
      // their own).
      int64_t lo = INT64_MAX, hi = INT64_MIN;
      for (const auto& row : t.rows)
        if (row.timestamp_type != contract::TimestampType::none) {
          lo = std::min(lo, row.timestamp_ms);
          hi = std::max(hi, row.timestamp_ms);
        }
      const std::string span = lo > hi ? "t.kafka_timestamp IS NULL"
                                       : "(t.kafka_timestamp IS NULL OR t.kafka_timestamp BETWEEN TIMESTAMP_MILLIS(" +
                                             std::to_string(lo) + ") AND TIMESTAMP_MILLIS(" + std::to_string(hi) + "))";
      const auto [values, matches] = unnest_ranges(t.offset_ranges());
      sql += "DELETE FROM " + target + " AS t WHERE " + span + " AND EXISTS (SELECT 1 FROM " + values + " WHERE " +
             matches + ") AND t.id IN (SELECT id FROM " + load_table(l.table) + ");\n";
    }
    sql += "INSERT INTO " + target + " (" + column_list(typed) + ") SELECT " +
           column_list(typed, "s") + " FROM " + rows + " AS s;\n";
  }
  fenced_transaction(sql, moves, "writing a batch");
  drop_loaded(loaded);
}

void BigQueryWarehouse::begin_staging(const std::string& sync_id, const std::vector<std::string>& tables) {
  for (const auto& t : tables) {
    const auto name = staging(sync_id, t);
    client_->delete_table(load_dataset_, name);
    // The table's own columns, typed ones included (as planned for a table publish() makes).
    client_->create_table(load_dataset_, name,
                          {table_fields(strategies_.of(t)), "", "", {}, now_ms() + kStagingLifeMs});
  }
}

void BigQueryWarehouse::stage(const std::string& sync_id, RowBatch& batch, bool again) {
  const auto loaded = load_batch(batch);
  // No position moves, but the lease is checked and renewed: a long staged run keeps it.
  std::string sql = fence_and_move({});
  for (const auto& l : loaded) {
    const auto& t = batch.tables()[l.slot];
    const auto staged = load_table(staging(sync_id, t.table));
    const auto& typed = t.typed ? t.typed->columns : std::vector<columns::ColumnSpec>{};
    if (again) {
      const auto [values, matches] = unnest_ranges(t.offset_ranges());
      sql += "DELETE FROM " + staged + " AS t WHERE EXISTS (SELECT 1 FROM " + values + " WHERE " + matches + ");\n";
    }
    sql += "INSERT INTO " + staged + " (" + column_list(typed) + ") SELECT " +
           column_list(typed, "s") + " FROM " + converted(load_table(l.table), typed) + " AS s;\n";
  }
  transaction(sql, "staging a batch");
  drop_loaded(loaded);
}

void BigQueryWarehouse::publish(const std::string& sync_id, const std::vector<std::string>& tables,
                                const std::vector<PositionMove>& moves, WriteMode mode) {
  std::string sql = fence_and_move(moves);
  for (const auto& t : tables) {
    const auto& settings = strategies_.of(t);
    // A table this run is the first to fill is made just before the transaction, which cannot
    // hold DDL: a run killed in between leaves it empty (the next run fills it).
    if (const auto it = unpublished_.find(t); it != unpublished_.end()) {
      create_new_table(t, settings);
      record_bindings(t, settings.typed_columns, /*created=*/true);
      sql += "INSERT INTO " + state_table("tables") +
             " (sync_id, topic, warehouse_schema, table_name, created_at) " +
             record_name_select(literal(sync_id_), literal(it->second), literal(t)) + ";\n";
    }
    const auto target = row_table(t);
    const auto staged = load_table(staging(sync_id, t));
    const bool replace = settings.replaces(mode == WriteMode::merge);
    if (settings.strategy == Strategy::latest_by_key) {
      sql += latest_by_key_script(target, staged, settings, replace);
      continue;
    }
    if (replace)
      sql += "DELETE FROM " + target + " WHERE TRUE;\n";
    else if (mode == WriteMode::merge)
      sql += "DELETE FROM " + target + " AS t WHERE t.id IN (SELECT id FROM " + staged + ");\n";
    sql += "INSERT INTO " + target + " (" + column_list(settings.typed_columns) + ") SELECT " +
           column_list(settings.typed_columns) + " FROM " + staged + ";\n";
  }
  fenced_transaction(sql, moves, "publishing the staged rows");
  for (const auto& t : tables) unpublished_.erase(t);
  // DDL cannot be part of a transaction: the staging tables go after it (or expire).
  discard_staged(sync_id, tables);
}

void BigQueryWarehouse::discard_staged(const std::string& sync_id, const std::vector<std::string>& tables) {
  for (const auto& t : tables) client_->delete_table(load_dataset_, staging(sync_id, t));
}

RowCount BigQueryWarehouse::count_rows(const std::string& sync_id, const std::string& table, bool staged,
                                       const std::vector<OffsetRange>& ranges) {
  if (!staged && unpublished_.count(table)) return {};  // publish() creates it
  std::string sql = "SELECT COUNT(*), UNIX_MILLIS(MAX(t.kafka_timestamp)) FROM " +
                    (staged ? load_table(staging(sync_id, table)) : row_table(table)) + " AS t";
  if (!ranges.empty()) {
    const auto [values, matches] = unnest_ranges(ranges);
    sql += " WHERE EXISTS (SELECT 1 FROM " + values + " WHERE " + matches + ")";
  }
  const auto r = client_->query(sql, {}, location_, "counting rows");
  RowCount out;
  if (!r.rows.empty() && !r.rows[0].empty()) {
    out.rows = bigquery::integer_cell(r.rows[0][0], "a row count");
    if (r.rows[0].size() > 1 && r.rows[0][1])
      out.newest_ms = bigquery::integer_cell(r.rows[0][1], "the newest timestamp");
  }
  return out;
}

std::string BigQueryWarehouse::audited_table(const std::string& table) const {
  return row_table(table);
}

const AuditSql& BigQueryWarehouse::audit_sql() const {
  static const AuditSql sql{
      "STRING",
      [](const std::string& expr, int64_t by) {
        return "DIV(" + expr + ", " + std::to_string(by) + ")";
      },
      [](const std::string& column) { return "TO_JSON_STRING(" + column + ")"; },
      [](const std::string& column) { return "UNIX_MILLIS(" + column + ")"; },
      [](const std::vector<OffsetRange>& ranges) { return unnest_ranges(ranges).first; },
      [](const std::string& text) { return literal(text); },
  };
  return sql;
}

std::vector<std::vector<std::optional<std::string>>> BigQueryWarehouse::select_text(
    const std::string& sql, const std::string& what) {
  return client_->query(sql, {}, location_, what.c_str()).rows;
}

void BigQueryWarehouse::record_worker(const WorkerRecord& w) {
  auto p = params();
  p[0].value = w.sync_id;
  p.push_back({"worker_id", "STRING", w.worker_id});
  p.push_back({"host", "STRING", w.host});
  p.push_back({"pid", "INT64", std::to_string(w.pid)});
  p.push_back({"partitions", "STRING", w.partitions});
  // A statement of its own, not a transaction: BigQuery queues one that meets another
  // worker's instead of aborting it.
  client_->query("MERGE " + state_table("workers") +
                     " AS t USING (SELECT @sync_id AS sync_id, @schema AS "
                     "warehouse_schema, @worker_id AS worker_id) AS s ON t.sync_id = s.sync_id AND "
                     "t.warehouse_schema = s.warehouse_schema AND t.worker_id = s.worker_id "
                     "WHEN MATCHED THEN UPDATE SET host = @host, pid = @pid, partitions = "
                     "@partitions, heartbeat_at = "
                     "CURRENT_TIMESTAMP() WHEN NOT MATCHED THEN INSERT (sync_id, warehouse_schema, "
                     "worker_id, host, pid, "
                     "partitions, heartbeat_at) VALUES (@sync_id, @schema, @worker_id, @host, "
                     "@pid, @partitions, "
                     "CURRENT_TIMESTAMP())",
                 p, location_, "recording a worker");
}

std::vector<WorkerRecord> BigQueryWarehouse::workers(const std::string& sync_id) {
  std::vector<WorkerRecord> out;
  if (!has_state_) return out;
  auto p = params();
  p[0].value = sync_id;
  const auto r = client_->query(
      "SELECT worker_id, host, pid, partitions, UNIX_MILLIS(heartbeat_at) FROM " +
          state_table("workers") +
          " WHERE sync_id = @sync_id AND warehouse_schema = @schema ORDER BY worker_id",
      p, location_, "reading the workers");
  for (const auto& row : r.rows) {
    WorkerRecord w;
    w.sync_id = sync_id;
    w.worker_id = row[0].value_or("");
    w.host = row[1].value_or("");
    w.pid = row[2] ? bigquery::integer_cell(row[2], "a pid") : 0;
    w.partitions = row[3].value_or("");
    w.heartbeat_at_ms = row[4] ? bigquery::integer_cell(row[4], "a heartbeat") : 0;
    out.push_back(std::move(w));
  }
  return out;
}

void BigQueryWarehouse::record_run(const RunRecord& run) {
  auto p = params();
  p[0].value = run.sync_id;
  p.push_back({"run_id", "STRING", run.run_id});
  p.push_back({"started", "INT64", std::to_string(run.started_at_ms)});
  p.push_back({"finished", "INT64", std::to_string(run.finished_at_ms)});
  p.push_back({"status", "STRING", run.status});
  p.push_back({"record", "STRING", run.json});
  client_->query("MERGE " + state_table("runs") + " AS t USING (SELECT @run_id AS run_id, @sync_id AS sync_id, "
                 "@schema AS warehouse_schema, TIMESTAMP_MILLIS(@started) AS started_at, TIMESTAMP_MILLIS(@finished) "
                 "AS finished_at, @status AS status, @record AS record) AS s ON t.run_id = s.run_id "
                 "WHEN MATCHED THEN UPDATE SET finished_at = s.finished_at, status = s.status, record = s.record "
                 "WHEN NOT MATCHED THEN INSERT (run_id, sync_id, warehouse_schema, started_at, finished_at, status, "
                 "record) VALUES (s.run_id, s.sync_id, s.warehouse_schema, s.started_at, s.finished_at, s.status, "
                 "s.record)",
                 p, location_, "recording the run");
}

std::vector<RunRecord> BigQueryWarehouse::runs(const std::string& sync_id, int limit) {
  std::vector<RunRecord> out;
  if (!has_state_) return out;
  auto p = params();
  p[0].value = sync_id;
  p.push_back({"limit", "INT64", std::to_string(limit)});
  const auto r = client_->query("SELECT run_id, sync_id, UNIX_MILLIS(started_at), UNIX_MILLIS(finished_at), status, "
                                    "record FROM " + state_table("runs") +
                                    " WHERE sync_id = @sync_id AND warehouse_schema = @schema ORDER BY started_at DESC "
                                    "LIMIT @limit",
                                p, location_, "reading run records");
  for (const auto& row : r.rows)
    out.push_back(
        {row[0].value_or(""), row[1].value_or(""), bigquery::integer_cell(row[2], "a run's start"),
         bigquery::integer_cell(row[3], "a run's end"), row[4].value_or(""), row[5].value_or("")});
  return out;
}

}  // namespace krow
