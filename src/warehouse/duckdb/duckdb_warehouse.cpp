#include "warehouse/duckdb/duckdb_warehouse.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "contract/row_contract.hpp"
#include "rows/row_batch.hpp"
#include "util/error.hpp"
#include "util/process.hpp"
#include "util/text.hpp"
#include "warehouse/column_types.hpp"
#include "warehouse/duckdb/duckdb_errors.hpp"
#include "warehouse/duckdb/duckdb_handles.hpp"
#include "warehouse/fencing.hpp"
#include "warehouse/sql_text.hpp"

namespace krow {

namespace {

constexpr const char* kStateSchema = "_krow";

// Rows per row group of the files krow writes: the default batch's message count, so that
// each batch's checkpoint compresses whole row groups once (a batch ending inside a row
// group has the rows already there compressed again with the next batch's). Measured on
// 1,000,000 350-byte JSON messages: 7.2-7.3 s against 8.2 s with DuckDB's 122,880.
constexpr int64_t kRowGroupRows = 40960;
static_assert(kRowGroupRows == BatchConfig{}.max_messages, "a default batch fills one row group");

// Writes one column of a data chunk. Text is referred to, not copied: DuckDB's string_t
// (duckdb.h) does not own its characters, and the appender copies them when the chunk is
// appended. So the text must stay where it is until then (the batch's arena does: it is
// not written to between encode() and commit(), or the chunks are built again), and must
// be valid UTF-8 (the row builder makes sure of it).
struct Column {
  duckdb_vector vec;
  uint64_t* validity = nullptr;

  void set_null(idx_t row) {
    if (!validity) {
      duckdb_vector_ensure_validity_writable(vec);
      validity = duckdb_vector_get_validity(vec);
    }
    duckdb_validity_set_row_invalid(validity, row);
  }
  void set_text(idx_t row, std::string_view s) {
    duckdb_string_t& out = static_cast<duckdb_string_t*>(duckdb_vector_get_data(vec))[row];
    out.value.inlined.length = static_cast<uint32_t>(s.size());
    if (s.size() <= sizeof out.value.inlined.inlined) {
      std::memset(out.value.inlined.inlined, 0, sizeof out.value.inlined.inlined);
      std::memcpy(out.value.inlined.inlined, s.data(), s.size());
    } else {
      std::memcpy(out.value.pointer.prefix, s.data(), sizeof out.value.pointer.prefix);
      out.value.pointer.ptr = const_cast<char*>(s.data());
    }
  }
  void set_slice(idx_t row, const Slice& s, const std::string& arena) {
    if (!s.present) return set_null(row);
    set_text(row, s.view(arena));
  }
  template <class T>
  void set(idx_t row, T v) {
    static_cast<T*>(duckdb_vector_get_data(vec))[row] = v;
  }
  void set_schema_id(idx_t row, const std::optional<SchemaId>& id) {
    if (id)
      set<int32_t>(row, id->value());
    else
      set_null(row);
  }
  void set_format(idx_t row, Format f) {
    if (f == Format::none)
      set_null(row);
    else
      set_text(row, format_name(f));
  }
};

::duckdb_type typed_duck_type(ColumnType t) {
  switch (t) {
    case ColumnType::boolean:
      return DUCKDB_TYPE_BOOLEAN;
    case ColumnType::int32:
      return DUCKDB_TYPE_INTEGER;
    case ColumnType::int64:
      return DUCKDB_TYPE_BIGINT;
    case ColumnType::uint64:
      return DUCKDB_TYPE_UBIGINT;
    case ColumnType::float32:
      return DUCKDB_TYPE_FLOAT;
    case ColumnType::float64:
      return DUCKDB_TYPE_DOUBLE;
    case ColumnType::date:
      return DUCKDB_TYPE_DATE;
    case ColumnType::time:
      return DUCKDB_TYPE_TIME;
    case ColumnType::timestamp:
      return DUCKDB_TYPE_TIMESTAMP_TZ;
    case ColumnType::decimal:  // DECIMAL has its own logical type (LogicalTypes::add_decimal)
    case ColumnType::text:
    case ColumnType::bytes:
    case ColumnType::json:
      return DUCKDB_TYPE_VARCHAR;
  }
  return DUCKDB_TYPE_VARCHAR;
}

// A column's type in a data chunk: DECIMAL and JSON (an alias over VARCHAR) are logical types
// of their own.
void add_chunk_type(duck::LogicalTypes& types, ColumnType t, int32_t precision = 0,
                    int32_t scale = 0) {
  if (t == ColumnType::decimal)
    types.add_decimal(static_cast<uint8_t>(precision), static_cast<uint8_t>(scale));
  else if (t == ColumnType::json)
    types.add(DUCKDB_TYPE_VARCHAR, "JSON");
  else
    types.add(typed_duck_type(t));
}

// Writes one typed cell (rows/typed_values.hpp) into a vector of its column's type. A
// DECIMAL is stored by its width as DuckDB does: int16 up to 4 digits, int32 up to 9, int64
// up to 18, hugeint up to 38.
void set_typed(Column& col, idx_t row, const columns::ColumnSpec& spec, const rows::TypedCell& cell,
               const std::string& arena) {
  if (!cell.present) return col.set_null(row);
  switch (spec.type) {
    case ColumnType::boolean:
      return col.set<bool>(row, cell.a != 0);
    case ColumnType::int32:
      return col.set<int32_t>(row, static_cast<int32_t>(cell.a));
    case ColumnType::int64:
    case ColumnType::time:
    case ColumnType::timestamp:
      return col.set<int64_t>(row, cell.a);
    case ColumnType::uint64:
      return col.set<uint64_t>(row, cell.unsigned_value());
    case ColumnType::float32:
      return col.set<float>(row, static_cast<float>(cell.real()));
    case ColumnType::float64:
      return col.set<double>(row, cell.real());
    case ColumnType::date:
      return col.set<int32_t>(row, static_cast<int32_t>(cell.a));
    case ColumnType::decimal:
      if (spec.precision <= 4) return col.set<int16_t>(row, static_cast<int16_t>(cell.a));
      if (spec.precision <= 9) return col.set<int32_t>(row, static_cast<int32_t>(cell.a));
      if (spec.precision <= 18) return col.set<int64_t>(row, cell.a);
      return col.set<duckdb_hugeint>(row, duckdb_hugeint{static_cast<uint64_t>(cell.a), cell.b});
    case ColumnType::text:
    case ColumnType::bytes:
    case ColumnType::json:
      return col.set_text(row, cell.text(arena));
  }
}

}  // namespace

DuckDBWarehouse::DuckDBWarehouse(const WarehouseConfig& config, const std::string& sync_id,
                                 OpenMode mode)
    : config_(config), settings_(config.settings_as<DuckDBSettings>()) {
  const auto& path = settings_.path;
  if (mode == OpenMode::read_only && !std::filesystem::exists(path)) return;  // nothing synced yet
  if (mode == OpenMode::write) {
    std::error_code ec;
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
    if (ec)
      throw Error(ErrorClass::fatal_run,
                  "warehouse.path " + path.string() + ": cannot create its folder " +
                      path.parent_path().string() + " (" + ec.message() +
                      "); create it with write access for the user running krow, or "
                      "choose another warehouse.path");
    lock_.emplace(path.string() + "." + sync_id + ".lock", "another sync of '" + sync_id + "'");
  }
  open_file(mode, std::chrono::seconds(mode == OpenMode::write ? config.retry_timeout_s : 0));

  if (mode == OpenMode::write) {
    create_state();
    configure_writes();
    has_state_ = has_bindings_ = true;
  } else {
    duck::Result r;
    duckdb_query(conn(),
                 "SELECT 1 FROM information_schema.columns WHERE table_schema = '_krow' AND "
                 "table_name = 'positions' "
                 "AND column_name = 'warehouse_schema'",
                 r.get());
    // A file of an earlier krow that no sync has opened since reads as empty until then.
    has_state_ = r.rows() > 0;
    duck::Result b;
    duckdb_query(conn(),
                 "SELECT 1 FROM information_schema.tables WHERE table_schema = '_krow' AND "
                 "table_name = 'columns'",
                 b.get());
    has_bindings_ = b.rows() > 0;
  }
}

void DuckDBWarehouse::configure_writes() {
  // Every batch is checkpointed as it commits, and row groups are never merged. DuckDB's
  // defaults (checkpoint when the WAL passes 16 MB, merge under-filled row groups at each
  // checkpoint) re-compress the same rows again and again. Measured here on 350-byte JSON
  // messages: 3,000,000 took 64 s with merging, its checkpoints growing from 0.6 s to
  // 3.4 s with the table, and 40 s without, checkpoints flat at ~0.9 s; and with the 16 MB
  // trigger, batches of 38,000 rows took twice as long as batches of 50,000. A batch that
  // ends inside a row group has that row group compressed again by the next checkpoint,
  // so the default batch (BatchConfig) fills exactly one row group (kRowGroupRows).
  // The cost: row groups of 40,960 rows rather than DuckDB's 122,880, and the space a full
  // resync frees is reclaimed by DuckDB's next merging checkpoint, not by krow's.
  exec("SET checkpoint_threshold = '0B'", "configuring checkpoints");
  exec("SET max_vacuum_tasks = 0", "configuring checkpoints");
}

void DuckDBWarehouse::open_file(OpenMode mode, std::chrono::seconds patience) {
  const auto& path = settings_.path;
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + patience;
  bool said = false;
  for (int attempt = 1;; ++attempt) {
    const auto failure = open_once(mode);
    if (failure.empty()) return;
    // DuckDB keeps a file to one process while it writes, and out of a writer's reach while any
    // other process has it open, even to read; the OS tells which process holds it. That one
    // may close it soon (a query in a notebook, a `krow status`): a sync waits for it, up to
    // warehouse.retry_timeout, then gives up as an outage would (exit code 75).
    const auto holder = posix_lock_holder(path, mode == OpenMode::write);
    const bool held = holder || duck::is_lock_conflict(failure);
    if (!held) throw Error(ErrorClass::fatal_run, "cannot open " + describe() + ": " + failure);
    const std::string who = holder ? (*holder > 0 ? describe_process(*holder)
                                                  : std::string("a process the OS does not name"))
                                   : std::string("DuckDB says: ") + failure;
    if (std::chrono::steady_clock::now() >= deadline) {
      const std::string said =
          "cannot open " + describe() + ": another process has it open (" + who + ")";
      const ErrorSource source{"DuckDB", "file held"};
      if (mode == OpenMode::write)
        throw Error(ErrorClass::transient,
                    said +
                        ", and DuckDB lets a process write a file only while no other process "
                        "has it open, not even to read it. Waited " +
                        std::to_string(patience.count()) + " s (warehouse.retry_timeout)",
                    Fix{"Close the file in that process (a DuckDB shell, a notebook, a BI tool, a "
                        "`krow plan` or `status`), then run the sync again (exit code 75: try "
                        "again later)"},
                    source);
      throw Error(ErrorClass::transient, said + ", writing to it",
                  Fix{"Run this again once it has closed the file (exit code 75: try again "
                      "later)"},
                  source);
    }
    // Said once the wait has lasted a second: a reader that a continuous sync meets between
    // its batches is usually gone by then.
    if (!said && std::chrono::steady_clock::now() - start >= std::chrono::seconds(1)) {
      said = true;
      std::fprintf(stderr,
                   "krow: note: %s is open in another process (%s); waiting up to %lld s "
                   "(warehouse.retry_timeout) for it to close the file\n",
                   describe().c_str(), who.c_str(), static_cast<long long>(patience.count()));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(100 * attempt, 1000)));
  }
}

std::string DuckDBWarehouse::open_once(OpenMode mode) {
  const auto& path = settings_.path;
  duckdb_config raw_config = nullptr;
  if (duckdb_create_config(&raw_config) == DuckDBError) return "cannot allocate its settings";
  const duck::Config cfg(raw_config);
  if (mode == OpenMode::read_only) duckdb_set_config(cfg.get(), "access_mode", "READ_ONLY");
  // krow keeps both cores busy already (a reading and a writing thread); extra DuckDB
  // workers measured slower here, spinning while they wait for each other.
  duckdb_set_config(cfg.get(), "threads", "1");
  // Memory stays bounded by the batch size, not the topic size: DuckDB would otherwise keep
  // every block it wrote cached, up to most of the machine's memory. With a checkpoint per
  // batch (below) it holds one batch's rows at a time. Measured on 1,000,000 350-byte JSON
  // messages: 48MB as fast as 64MB or 128MB and 20 MiB less peak memory than 64MB; 32MB
  // spilled to disk and was 25% slower.
  duckdb_set_config(cfg.get(), "memory_limit", "48MB");
  // A sync writes through an in-memory database that attaches the file with krow's row group
  // size (an attach option; the file itself takes row groups of any size).
  duckdb_database raw_db = nullptr;
  char* raw_error = nullptr;
  const auto state = duckdb_open_ext(mode == OpenMode::write ? ":memory:" : path.c_str(), &raw_db,
                                     cfg.get(), &raw_error);
  duck::Database db(raw_db);
  const duck::Text error(raw_error);
  if (state == DuckDBError) return error ? error.get() : "unknown error";
  duckdb_connection raw_conn = nullptr;
  const auto connected = duckdb_connect(db.get(), &raw_conn);
  duck::Connection conn(raw_conn);
  if (connected == DuckDBError) return "cannot connect";
  if (mode == OpenMode::write) {
    duck::Result r;
    if (duckdb_query(conn.get(),
                     ("ATTACH " + quote_literal(path.string()) + " AS warehouse (ROW_GROUP_SIZE " +
                      std::to_string(kRowGroupRows) + "); USE warehouse")
                         .c_str(),
                     r.get()) == DuckDBError)
      return r.error();
  }
  // On a failure both were closed on the way out, before anyone asks the OS who holds the file:
  // this process holds nothing then.
  db_ = std::move(db);
  conn_ = std::move(conn);
  return {};
}

DuckDBWarehouse::~DuckDBWarehouse() = default;

std::string DuckDBWarehouse::describe() const {
  return "DuckDB file " + settings_.path.string();
}

std::string DuckDBWarehouse::column_sql_type(const columns::ColumnSpec& column) const {
  switch (column.type) {
    case ColumnType::boolean:
      return "BOOLEAN";
    case ColumnType::int32:
      return "INTEGER";
    case ColumnType::int64:
      return "BIGINT";
    case ColumnType::uint64:
      return "UBIGINT";
    case ColumnType::float32:
      return "FLOAT";
    case ColumnType::float64:
      return "DOUBLE";
    case ColumnType::decimal:
      return "DECIMAL(" + std::to_string(column.precision) + "," + std::to_string(column.scale) +
             ")";
    case ColumnType::text:
    case ColumnType::bytes:
      return "VARCHAR";  // bytes: base64 text, as in the value column
    case ColumnType::date:
      return "DATE";
    case ColumnType::time:
      return "TIME";
    case ColumnType::timestamp:
      return "TIMESTAMPTZ";
    case ColumnType::json:
      return "JSON";
  }
  return "JSON";
}

duckdb_connection DuckDBWarehouse::conn() {
  if (released_) {
    // Opened again as at the start (waiting, up to warehouse.retry_timeout, while a reader has
    // the file), with the same settings; krow's state is there already.
    open_file(OpenMode::write, std::chrono::seconds(config_.retry_timeout_s));
    released_ = false;
    configure_writes();
  }
  return conn_.get();
}

void DuckDBWarehouse::idle() {
  if (!lock_ || !conn_) return;  // read-only opens hold nothing for long
  conn_ = duck::Connection();
  db_ = duck::Database();
  released_ = true;
}

void DuckDBWarehouse::exec(const std::string& sql, const char* what) {
  duck::Result r;
  if (duckdb_query(conn(), sql.c_str(), r.get()) == DuckDBError)
    throw duck::make_error(duckdb_result_error_type(r.get()), r.error(),
                           std::string(what) + " in " + describe());
}

template <class Body>
void DuckDBWarehouse::transaction(const char* what, Body&& body) {
  exec("BEGIN TRANSACTION", what);
  try {
    body();
    exec("COMMIT", what);
  } catch (...) {
    duck::Result r;
    duckdb_query(conn(), "ROLLBACK", r.get());
    throw;
  }
}

void DuckDBWarehouse::create_state() {
  // The warehouse schema comes with its first table (create_new_table).
  exec(std::string("CREATE SCHEMA IF NOT EXISTS ") + kStateSchema, "creating krow's state schema");
  for (const auto* table : contract::kStateTables)
    exec(state_table_sql(*this, kStateSchema, *table, "now()"), "creating krow's state tables");
  upgrade_state();
  upgrade_positions();
}

void DuckDBWarehouse::upgrade_positions() {
  duck::Result have;
  if (duckdb_query(conn(),
                   "SELECT 1 FROM duckdb_columns() WHERE schema_name = '_krow' AND table_name = "
                   "'positions' AND column_name = 'epoch'",
                   have.get()) == DuckDBError)
    throw duck::make_error(duckdb_result_error_type(have.get()), have.error(),
                           "reading krow's state tables in " + describe());
  if (have.rows() > 0) return;
  transaction("upgrading krow's positions table", [&] {
    exec("ALTER TABLE _krow.positions ADD COLUMN epoch BIGINT", "upgrading krow's positions table");
    exec("ALTER TABLE _krow.positions ALTER COLUMN next_offset DROP NOT NULL",
         "upgrading krow's positions table");
  });
}

void DuckDBWarehouse::upgrade_state() {
  // Once, in one transaction: a file is upgraded completely or not at all.
  duck::Result have;
  if (duckdb_query(
          conn(),
          "SELECT table_name FROM duckdb_columns() WHERE schema_name = '_krow' AND table_name IN "
          "('positions', 'runs') AND column_name = 'warehouse_schema'",
          have.get()) == DuckDBError)
    throw duck::make_error(duckdb_result_error_type(have.get()), have.error(),
                           "reading krow's state tables in " + describe());
  if (have.rows() == 2) return;
  exec("BEGIN TRANSACTION", "upgrading krow's state");
  for (const char* table : {"positions", "runs"}) {
    bool present = false;
    for (idx_t i = 0; i < have.rows(); ++i) present |= have.text(0, i) == table;
    if (!present)
      exec(std::string("ALTER TABLE _krow.") + table + " ADD COLUMN warehouse_schema VARCHAR",
           "upgrading krow's state");
  }
  // Positions and runs of earlier files belong to the schema their sync's tables are in.
  exec(
      "UPDATE _krow.positions AS p SET warehouse_schema = coalesce((SELECT min(t.warehouse_schema) "
      "FROM _krow.tables t "
      "WHERE t.sync_id = p.sync_id AND t.topic = p.topic), 'confluent') WHERE warehouse_schema IS "
      "NULL",
      "upgrading krow's state");
  exec(
      "UPDATE _krow.runs AS r SET warehouse_schema = coalesce((SELECT min(t.warehouse_schema) FROM "
      "_krow.tables t "
      "WHERE t.sync_id = r.sync_id), 'confluent') WHERE warehouse_schema IS NULL",
      "upgrading krow's state");
  exec("COMMIT", "upgrading krow's state");
}

std::vector<Position> DuckDBWarehouse::positions(const std::string& sync_id) {
  std::vector<Position> out;
  if (!has_state_) return out;
  duck::Prepared p(conn(),
                   "SELECT topic, topic_id, kafka_partition, next_offset FROM _krow.positions "
                   "WHERE sync_id = ? AND warehouse_schema = ? AND next_offset IS NOT NULL");
  duckdb_bind_varchar(p.get(), 1, sync_id.c_str());
  duckdb_bind_varchar(p.get(), 2, config_.schema.c_str());
  duck::Result r;
  p.run(r, "reading positions");
  for (idx_t i = 0; i < r.rows(); ++i)
    out.push_back({r.text(0, i), TopicId(r.text(1, i)),
                   Partition(static_cast<int32_t>(r.int64(2, i))), Offset(r.int64(3, i))});
  return out;
}

std::vector<PartitionClaim> DuckDBWarehouse::take(const std::string& sync_id,
                                                  const std::vector<PartitionKey>& partitions) {
  std::vector<PartitionClaim> out;
  transaction("taking partitions", [&] {
    for (const auto& k : partitions) {
      PartitionClaim c{k, Epoch(1), std::nullopt};
      duck::Prepared up(
          conn(),
          "UPDATE _krow.positions SET epoch = coalesce(epoch, 0) + 1 WHERE sync_id = ? "
          "AND warehouse_schema = ? AND topic_id = ? AND kafka_partition = ? "
          "RETURNING epoch, next_offset");
      duckdb_bind_varchar(up.get(), 1, sync_id.c_str());
      duckdb_bind_varchar(up.get(), 2, config_.schema.c_str());
      duckdb_bind_varchar(up.get(), 3, k.topic_id.str().c_str());
      duckdb_bind_int32(up.get(), 4, k.partition.value());
      duck::Result r;
      up.run(r, "taking a partition");
      if (r.rows() > 0) {
        c.epoch = Epoch(r.int64(0, 0));
        if (!r.is_null(1, 0)) c.position = Offset(r.int64(1, 0));
      } else {
        duck::Prepared ins(
            conn(),
            "INSERT INTO _krow.positions (sync_id, warehouse_schema, topic, topic_id, "
            "kafka_partition, next_offset, epoch, updated_at) VALUES (?, ?, ?, ?, ?, "
            "NULL, 1, now())");
        duckdb_bind_varchar(ins.get(), 1, sync_id.c_str());
        duckdb_bind_varchar(ins.get(), 2, config_.schema.c_str());
        duckdb_bind_varchar(ins.get(), 3, k.topic.c_str());
        duckdb_bind_varchar(ins.get(), 4, k.topic_id.str().c_str());
        duckdb_bind_int32(ins.get(), 5, k.partition.value());
        duck::Result done;
        ins.run(done, "taking a partition");
      }
      out.push_back(std::move(c));
    }
  });
  return out;
}

std::vector<TableMapping> DuckDBWarehouse::tables() {
  std::vector<TableMapping> out;
  if (!has_state_) return out;
  duck::Prepared p(
      conn(), "SELECT sync_id, topic, table_name FROM _krow.tables WHERE warehouse_schema = ?");
  duckdb_bind_varchar(p.get(), 1, config_.schema.c_str());
  duck::Result r;
  p.run(r, "reading table names");
  for (idx_t i = 0; i < r.rows(); ++i) out.push_back({r.text(0, i), r.text(1, i), r.text(2, i)});
  return out;
}

namespace {

// A type as information_schema.columns names it, spelt as column_sql_type spells it.
std::string krow_type_name(const std::string& information_schema) {
  return information_schema == "TIMESTAMP WITH TIME ZONE" ? "TIMESTAMPTZ" : information_schema;
}

}  // namespace

std::optional<std::vector<columns::TableColumn>> DuckDBWarehouse::typed_columns(
    const std::string& table) {
  if (!conn_ && !released_) return std::nullopt;  // read-only, and nothing synced yet
  duck::Prepared cols(
      conn(),
      "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = ? AND "
      "table_name = ? ORDER BY ordinal_position");
  duckdb_bind_varchar(cols.get(), 1, config_.schema.c_str());
  duckdb_bind_varchar(cols.get(), 2, table.c_str());
  duck::Result r;
  cols.run(r, "reading a table's columns");
  if (r.rows() == 0) return std::nullopt;
  bool same = r.rows() >= contract::kColumnCount;
  for (idx_t i = 0; same && i < contract::kColumnCount; ++i)
    same = r.text(0, i) == contract::kColumns[i].name;
  if (!same)
    throw Error(ErrorClass::fatal_table,
                "table " + config_.schema + "." + table +
                    " exists but does not have krow's columns; rename or drop it, or "
                    "choose another warehouse.schema");
  std::vector<columns::TableColumn> out;
  for (idx_t i = contract::kColumnCount; i < r.rows(); ++i) {
    const auto type = krow_type_name(r.text(1, i));
    out.push_back({r.text(0, i), type, spec_of_sql_type(*this, type)});
  }
  return out;
}

std::vector<columns::ColumnBinding> DuckDBWarehouse::column_bindings(const std::string& table) {
  std::vector<columns::ColumnBinding> out;
  if ((!conn_ && !released_) || !has_bindings_) return out;
  duck::Prepared p(conn(),
                   "SELECT field_path, column_name FROM _krow.columns WHERE warehouse_schema = ? "
                   "AND table_name = ? "
                   "ORDER BY created_at, field_path");
  duckdb_bind_varchar(p.get(), 1, config_.schema.c_str());
  duckdb_bind_varchar(p.get(), 2, table.c_str());
  duck::Result r;
  p.run(r, "reading a table's column bindings");
  for (idx_t i = 0; i < r.rows(); ++i)
    if (auto path = columns::path_of_key(r.text(0, i)))
      out.push_back({std::move(*path), r.text(1, i)});
  return out;
}

void DuckDBWarehouse::record_bindings(const std::string& table,
                                      const std::vector<columns::ColumnSpec>& typed, bool created) {
  if (created) {  // what a dropped table of this name left is not this table's
    duck::Prepared del(conn(),
                       "DELETE FROM _krow.columns WHERE warehouse_schema = ? AND table_name = ?");
    duckdb_bind_varchar(del.get(), 1, config_.schema.c_str());
    duckdb_bind_varchar(del.get(), 2, table.c_str());
    duck::Result r;
    del.run(r, "forgetting a dropped table's column bindings");
  }
  for (const auto& b : columns::bindings_of(typed)) {
    const auto key = columns::path_key(b.path);
    duck::Prepared p(
        conn(),
        "INSERT INTO _krow.columns SELECT ?, ?, ?, ?, now() WHERE NOT EXISTS (SELECT 1 FROM "
        "_krow.columns WHERE warehouse_schema = ? AND table_name = ? AND field_path = ?)");
    for (idx_t k : {1, 5}) duckdb_bind_varchar(p.get(), k, config_.schema.c_str());
    for (idx_t k : {2, 6}) duckdb_bind_varchar(p.get(), k, table.c_str());
    for (idx_t k : {3, 7}) duckdb_bind_varchar(p.get(), k, key.c_str());
    duckdb_bind_varchar(p.get(), 4, b.column.c_str());
    duck::Result r;
    p.run(r, "recording a table's column bindings");
  }
}

std::vector<std::string> DuckDBWarehouse::evolution_sql(
    const std::string& table, const std::vector<columns::ColumnChange>& changes) const {
  return evolution_statements(*this, quote(config_.schema) + "." + quote(table), changes,
                              "SET DATA TYPE");
}

DuckDBWarehouse::TypedTable DuckDBWarehouse::reconcile_typed(const std::string& table,
                                                             const TableSettings& settings,
                                                             bool created) {
  if (!created)
    for (const auto& sql : evolution_sql(table, settings.changes))
      exec(sql, "changing a typed column");
  const auto& want = settings.typed_columns;
  const auto problem = typed_columns_mismatch(
      *this, config_.schema + "." + table,
      typed_columns(table).value_or(std::vector<columns::TableColumn>{}), want);
  if (!problem.empty()) throw Error(ErrorClass::fatal_table, problem);
  return planned_typed(settings);
}

DuckDBWarehouse::TypedTable DuckDBWarehouse::planned_typed(const TableSettings& settings) const {
  TypedTable out;
  out.count = settings.typed_columns.size();
  out.definitions = row_column_definitions(*this);
  for (const auto& c : settings.typed_columns)
    out.definitions += ", " + quote(c.name) + " " + column_sql_type(c);
  return out;
}

const DuckDBWarehouse::TypedTable* DuckDBWarehouse::typed_of(const std::string& table) const {
  const auto it = typed_.find(table);
  return it == typed_.end() || it->second.count == 0 ? nullptr : &it->second;
}

std::string DuckDBWarehouse::definitions_of(const std::string& table) const {
  const auto* typed = typed_of(table);
  return typed ? typed->definitions : row_column_definitions(*this);
}

void DuckDBWarehouse::create_new_table(const std::string& sync_id, const std::string& topic,
                                       const std::string& table, const TableSettings& settings) {
  exec("CREATE SCHEMA IF NOT EXISTS " + quote(config_.schema), "creating the warehouse schema");
  exec("CREATE TABLE " + quote(config_.schema) + "." + quote(table) + " (" +
           planned_typed(settings).definitions + ")",
       "creating a table");
  if (!settings.design.sort_by.empty())
    exec(sort_comment_sql(table, settings.design.sort_by), "recording a table's sort order");
  record_bindings(table, settings.typed_columns, /*created=*/true);
  record_table_name(sync_id, topic, table);
}

void DuckDBWarehouse::record_table_name(const std::string& sync_id, const std::string& topic,
                                        const std::string& table) {
  duck::Prepared p(conn(),
                   "INSERT INTO _krow.tables SELECT ?, ?, ?, ?, now() WHERE NOT EXISTS "
                   "(SELECT 1 FROM _krow.tables WHERE warehouse_schema = ? AND table_name = ?)");
  duckdb_bind_varchar(p.get(), 1, sync_id.c_str());
  duckdb_bind_varchar(p.get(), 2, topic.c_str());
  duckdb_bind_varchar(p.get(), 3, config_.schema.c_str());
  duckdb_bind_varchar(p.get(), 4, table.c_str());
  duckdb_bind_varchar(p.get(), 5, config_.schema.c_str());
  duckdb_bind_varchar(p.get(), 6, table.c_str());
  duck::Result r;
  p.run(r, "recording a table name");
}

void DuckDBWarehouse::create_table(const std::string& sync_id, const std::string& topic,
                                   const std::string& table, const TableSettings& settings,
                                   Creation creation) {
  strategies_.set(table, settings);
  transaction("creating a table", [&] {
    const bool missing = !typed_columns(table);
    sort_by_[table] = settings.design.sort_by;
    if (missing && creation == Creation::at_publish) {
      // Nothing to reconcile yet: the table will have exactly the planned columns.
      typed_[table] = planned_typed(settings);
      unpublished_[table] = topic;
      return;
    }
    unpublished_.erase(table);
    // An existing table's name is recorded too: one made by hand, or before names were.
    if (missing)
      create_new_table(sync_id, topic, table, settings);
    else
      record_table_name(sync_id, topic, table);
    typed_[table] = reconcile_typed(table, settings, missing);
    if (!missing) record_bindings(table, settings.typed_columns, /*created=*/false);
    // An existing table keeps the order it records unless its design is applied.
    if (!missing && settings.apply_design)
      apply_sort(table, settings);
    else if (!missing)
      sort_by_[table] = recorded_sort(table).value_or(std::vector<std::string>{});
  });
}

void DuckDBWarehouse::append_rows(TableRows& table, const std::string& arena, const char* catalog,
                                  const std::string& schema, const std::string& table_name) {
  auto* chunks = dynamic_cast<TableChunks*>(table.encoded.get());
  if (!chunks || !chunks->current) chunks = &encode_table(table, arena);
  duck::Appender app(conn(), catalog, schema, table_name);
  if (duckdb_appender_column_count(app.get()) != contract::kColumnCount + table.typed_count())
    throw Error(ErrorClass::fatal_table, "table " + schema + "." + table_name +
                                             " does not have krow's columns; rename or drop it");
  for (auto& chunk : chunks->chunks)
    if (duckdb_append_data_chunk(app.get(), chunk.get()) == DuckDBError) app.fail("appending rows");
  if (duckdb_appender_close(app.get()) == DuckDBError) app.fail("writing rows");
}

std::string DuckDBWarehouse::stage_rows(TableRows& table, const std::string& arena) {
  // Tables with typed columns have columns of their own: each gets its own stage.
  const std::string stage =
      table.typed
          ? "krow_merge_stage_" + staging_table_name("", config_.schema, table.table).substr(7)
          : "krow_merge_stage";
  exec("CREATE TEMP TABLE IF NOT EXISTS " + quote(stage) + " AS SELECT * FROM " +
           quote(config_.schema) + "." + quote(table.table) + " LIMIT 0",
       "creating the merge stage");
  exec("DELETE FROM temp.main." + quote(stage), "clearing the merge stage");
  append_rows(table, arena, "temp", "main", stage);
  return "temp.main." + quote(stage);
}

void DuckDBWarehouse::write_latest(const std::string& target, const std::string& source,
                                   const TableSettings& settings, bool rebuild,
                                   const std::string& order) {
  auto key = [&](const char* alias) {
    std::vector<std::string> out;
    if (settings.unique_key.empty()) out.push_back(std::string(alias) + ".\"key\"");
    for (const auto& f : settings.unique_key)
      out.push_back("json_extract(" + std::string(alias) + ".value, " +
                    quote_literal("$.\"" + f + "\"") + ")");
    return out;
  };
  for (const auto& sql : latest_by_key_sql(target, source, "temp.main.krow_latest", key,
                                           settings.keep_tombstones, rebuild, order))
    exec(sql, "writing the newest row of each key");
}

void DuckDBWarehouse::merge_rows(TableRows& table, const std::string& arena) {
  // Stage the batch, then replace exactly the ids it holds. The offset range lets DuckDB's
  // zone maps skip the row groups the batch cannot touch.
  const auto stage = stage_rows(table, arena);
  const auto target = quote(config_.schema) + "." + quote(table.table);
  duck::Prepared del(
      conn(),
      ("DELETE FROM " + target +
       " AS t USING (SELECT DISTINCT kafka_partition, kafka_offset FROM " + stage +
       ") AS s WHERE t.kafka_topic_id = ? AND t.kafka_partition = s.kafka_partition "
       "AND t.kafka_offset = s.kafka_offset AND t.kafka_offset BETWEEN (SELECT min(kafka_offset) "
       "FROM " +
       stage + ") AND (SELECT max(kafka_offset) FROM " + stage + ")")
          .c_str());
  duckdb_bind_varchar(del.get(), 1, table.topic_id.str().c_str());
  duck::Result r;
  del.run(r, "replacing re-read rows");
  exec("INSERT INTO " + target + " SELECT * FROM " + stage + order_by(table.table),
       "inserting re-read rows");
}

void DuckDBWarehouse::move_position(const std::string& sync_id, const PositionMove& m) {
  // Compare-and-set on position and epoch (a row taken but never committed has no position);
  // a partition never taken nor committed gets its row.
  duck::Prepared up(conn(),
                    "UPDATE _krow.positions SET next_offset = ?, topic = ?, updated_at = now() "
                    "WHERE sync_id = ? AND warehouse_schema = ? AND topic_id = ? AND "
                    "kafka_partition = ? AND next_offset IS NOT DISTINCT FROM ? AND "
                    "coalesce(epoch, 0) = ?");
  duckdb_bind_int64(up.get(), 1, m.to.next.value());
  duckdb_bind_varchar(up.get(), 2, m.to.topic.c_str());
  duckdb_bind_varchar(up.get(), 3, sync_id.c_str());
  duckdb_bind_varchar(up.get(), 4, config_.schema.c_str());
  duckdb_bind_varchar(up.get(), 5, m.to.topic_id.str().c_str());
  duckdb_bind_int32(up.get(), 6, m.to.partition.value());
  if (m.from)
    duckdb_bind_int64(up.get(), 7, m.from->value());
  else
    duckdb_bind_null(up.get(), 7);
  duckdb_bind_int64(up.get(), 8, m.epoch.value());
  duck::Result r;
  up.run(r, "moving a position");
  if (r.rows_changed() == 1) return;
  if (!m.from && m.epoch == Epoch(0)) {
    duck::Prepared ins(
        conn(),
        "INSERT INTO _krow.positions (sync_id, topic, topic_id, kafka_partition, next_offset, "
        "updated_at, "
        "warehouse_schema) SELECT ?, ?, ?, ?, ?, now(), ? WHERE NOT EXISTS (SELECT 1 FROM "
        "_krow.positions "
        "WHERE sync_id = ? AND warehouse_schema = ? AND topic_id = ? AND kafka_partition = ?)");
    duckdb_bind_varchar(ins.get(), 1, sync_id.c_str());
    duckdb_bind_varchar(ins.get(), 2, m.to.topic.c_str());
    duckdb_bind_varchar(ins.get(), 3, m.to.topic_id.str().c_str());
    duckdb_bind_int32(ins.get(), 4, m.to.partition.value());
    duckdb_bind_int64(ins.get(), 5, m.to.next.value());
    duckdb_bind_varchar(ins.get(), 6, config_.schema.c_str());
    duckdb_bind_varchar(ins.get(), 7, sync_id.c_str());
    duckdb_bind_varchar(ins.get(), 8, config_.schema.c_str());
    duckdb_bind_varchar(ins.get(), 9, m.to.topic_id.str().c_str());
    duckdb_bind_int32(ins.get(), 10, m.to.partition.value());
    duck::Result done;
    ins.run(done, "recording a position");
    if (done.rows_changed() == 1) return;
  }
  // Which fence failed: an epoch says another worker took the partition.
  duck::Prepared get(
      conn(),
      "SELECT coalesce(epoch, 0), next_offset FROM _krow.positions WHERE sync_id = ? "
      "AND warehouse_schema = ? AND topic_id = ? AND kafka_partition = ?");
  duckdb_bind_varchar(get.get(), 1, sync_id.c_str());
  duckdb_bind_varchar(get.get(), 2, config_.schema.c_str());
  duckdb_bind_varchar(get.get(), 3, m.to.topic_id.str().c_str());
  duckdb_bind_int32(get.get(), 4, m.to.partition.value());
  duck::Result stored;
  get.run(stored, "reading a stored epoch");
  std::vector<StoredFence> fences;
  if (stored.rows() > 0)
    fences.push_back(
        {m.to.topic_id, m.to.partition, Epoch(stored.int64(0, 0)),
         stored.is_null(1, 0) ? std::nullopt : std::optional<Offset>(Offset(stored.int64(1, 0)))});
  if (auto e = epoch_conflict(sync_id, describe(), {m}, fences)) throw *e;
  throw Error(ErrorClass::conflict, "the stored position of " + m.to.topic + " partition " +
                                        std::to_string(m.to.partition.value()) +
                                        " is not the one this batch started from");
}

void DuckDBWarehouse::encode(RowBatch& batch) const {
  for (auto& t : batch.tables())
    if (!t.rows.empty()) encode_table(t, batch.arena());
}

DuckDBWarehouse::TableChunks& DuckDBWarehouse::encode_table(TableRows& table,
                                                            const std::string& arena) const {
  auto fresh = std::make_unique<TableChunks>();
  TableChunks* chunks = fresh.get();
  const idx_t capacity = duckdb_vector_size();
  const size_t needed = (table.rows.size() + capacity - 1) / capacity;
  duck::LogicalTypes types;
  for (const auto& c : contract::kColumns) add_chunk_type(types, c.type);
  // Typed columns, in the table's order (as create_table() made them).
  const size_t typed_count = table.typed_count();
  const TypedTable* typed = typed_count ? typed_of(table.table) : nullptr;
  if (typed_count && (!typed || typed->count != typed_count))
    throw std::logic_error("DuckDB chunks: table " + table.table +
                           " has typed columns create_table() did not see");
  for (size_t k = 0; k < typed_count; ++k) {
    const auto& spec = table.typed->columns[k];
    add_chunk_type(types, spec.type, spec.precision, spec.scale);
  }
  chunks->chunks.reserve(needed);
  while (chunks->chunks.size() < needed) chunks->chunks.emplace_back(types);
  // The ids, which the chunks refer to, in a buffer that never moves while it is filled.
  const size_t id_bytes =
      table.topic_id.str().size() + 2 + 11 + 20;  // "<topic ID>:<int32>:<int64>"
  chunks->ids.reserve(table.rows.size() * id_bytes);
  const char* const ids_at = chunks->ids.data();
  for (size_t c = 0, done = 0; c < needed; ++c) {
    duckdb_data_chunk chunk = chunks->chunks[c].get();
    Column cols[contract::kColumnCount];
    for (idx_t i = 0; i < contract::kColumnCount; ++i)
      cols[i].vec = duckdb_data_chunk_get_vector(chunk, i);
    for (size_t k = 0; k < typed_count; ++k) {
      Column col{duckdb_data_chunk_get_vector(chunk, contract::kColumnCount + k)};
      const auto& spec = table.typed->columns[k];
      const idx_t rows_here = std::min<size_t>(capacity, table.rows.size() - done);
      for (idx_t i = 0; i < rows_here; ++i)
        set_typed(col, i, spec, table.cells_of(done + i)[k], arena);
    }
    const idx_t n = std::min<size_t>(capacity, table.rows.size() - done);
    for (idx_t i = 0; i < n; ++i) {
      const Row& row = table.rows[done + i];
      const size_t id_start = chunks->ids.size();
      contract::append_id(chunks->ids, table.topic_id, row.partition, row.offset);
      cols[contract::kId].set_text(i, std::string_view(chunks->ids).substr(id_start));
      cols[contract::kTopicId].set_text(i, table.topic_id.str());
      cols[contract::kPartition].set<int32_t>(i, row.partition.value());
      cols[contract::kOffset].set<int64_t>(i, row.offset.value());
      if (row.timestamp_type == contract::TimestampType::none) {
        cols[contract::kTimestamp].set_null(i);
        cols[contract::kTimestampType].set_null(i);
      } else {
        cols[contract::kTimestamp].set<int64_t>(i, row.timestamp_ms * 1000);
        cols[contract::kTimestampType].set_text(i,
                                                contract::timestamp_type_name(row.timestamp_type));
      }
      cols[contract::kKey].set_slice(i, row.key.text, arena);
      cols[contract::kKeyFormat].set_format(i, row.key.format);
      cols[contract::kKeySchemaId].set_schema_id(i, row.key.schema_id);
      cols[contract::kValue].set_slice(i, row.value.text, arena);
      cols[contract::kValueFormat].set_format(i, row.value.format);
      cols[contract::kValueSchemaId].set_schema_id(i, row.value.schema_id);
      cols[contract::kValueBase64].set_slice(i, row.value.base64, arena);
      cols[contract::kValueSize].set<int32_t>(i, row.value_size_bytes);
      cols[contract::kHeaders].set_slice(i, row.headers, arena);
      cols[contract::kTombstone].set<bool>(i, row.is_tombstone);
      cols[contract::kDecodeError].set_slice(i, row.decode_error, arena);
    }
    duckdb_data_chunk_set_size(chunk, n);
    done += n;
  }
  if (chunks->ids.data() != ids_at)
    throw std::logic_error("DuckDB chunks: the id buffer moved while it was filled");
  chunks->current = true;
  table.encoded = std::move(fresh);
  return *chunks;
}

void DuckDBWarehouse::commit(const std::string& sync_id, RowBatch& batch,
                             const std::vector<PositionMove>& moves, WriteMode mode) {
  transaction("committing a batch", [&] {  // on failure, the chunks stay for the retry
    // Positions first: a batch that is not the next one writes no row at all.
    for (const auto& m : moves) move_position(sync_id, m);
    for (auto& t : batch.tables()) {
      if (t.rows.empty()) continue;
      const auto& settings = strategies_.of(t.table);
      if (settings.replaces(mode == WriteMode::merge))
        throw std::logic_error("table " + t.table +
                               " replaces its rows: its batches are staged, not committed");
      const auto order = order_by(t.table);
      if (settings.strategy == Strategy::latest_by_key)
        write_latest(quote(config_.schema) + "." + quote(t.table), stage_rows(t, batch.arena()),
                     settings, false, order);
      else if (mode == WriteMode::merge)
        merge_rows(t, batch.arena());
      else if (!order.empty())
        // In the table's sort order: through the stage, as the appender takes rows as they come.
        exec("INSERT INTO " + quote(config_.schema) + "." + quote(t.table) + " SELECT * FROM " +
                 stage_rows(t, batch.arena()) + order,
             "appending rows in the table's sort order");
      else
        append_rows(t, batch.arena(), nullptr, config_.schema, t.table);
    }
  });
  // Committed: the chunks' memory goes back now rather than sit idle while the next batch
  // fills (two batches are in flight).
  for (auto& t : batch.tables()) t.encoded.reset();
}

std::string DuckDBWarehouse::staging(const std::string& sync_id, const std::string& table) const {
  return std::string(kStateSchema) + "." +
         quote(staging_table_name(sync_id, config_.schema, table));
}

void DuckDBWarehouse::begin_staging(const std::string& sync_id,
                                    const std::vector<std::string>& tables) {
  transaction("creating staging tables", [&] {
    for (const auto& t : tables) {
      exec("DROP TABLE IF EXISTS " + staging(sync_id, t),
           "dropping an earlier run's staging table");
      exec("CREATE TABLE " + staging(sync_id, t) + " (" + definitions_of(t) + ")",
           "creating a staging table");
    }
  });
}

void DuckDBWarehouse::stage(const std::string& sync_id, RowBatch& batch, bool again) {
  transaction("staging a batch", [&] {
    for (auto& t : batch.tables()) {
      if (t.rows.empty()) continue;
      const auto into = staging_table_name(sync_id, config_.schema, t.table);
      if (again)
        exec(delete_ranges_sql(std::string(kStateSchema) + "." + quote(into), t.offset_ranges()),
             "replacing a batch staged before");
      append_rows(t, batch.arena(), nullptr, kStateSchema, into);
    }
  });
  for (auto& t : batch.tables()) t.encoded.reset();
}

void DuckDBWarehouse::publish(const std::string& sync_id, const std::vector<std::string>& tables,
                              const std::vector<PositionMove>& moves, WriteMode mode) {
  transaction("publishing the staged rows", [&] {
    // Positions first: a run whose positions moved under it publishes nothing.
    for (const auto& m : moves) move_position(sync_id, m);
    for (const auto& t : tables) {
      // A table this run is the first to fill comes into being with its first rows.
      if (const auto it = unpublished_.find(t); it != unpublished_.end())
        create_new_table(sync_id, it->second, t, strategies_.of(t));
      const auto target = quote(config_.schema) + "." + quote(t);
      const auto staged = staging(sync_id, t);
      const auto& settings = strategies_.of(t);
      const bool replace = settings.replaces(mode == WriteMode::merge);
      if (settings.strategy == Strategy::latest_by_key) {
        write_latest(target, staged, settings, replace, order_by(t));
      } else {
        if (replace)
          exec("DELETE FROM " + target, "replacing the table's rows");
        else if (mode == WriteMode::merge)
          exec("DELETE FROM " + target + " AS t USING " + staged +
                   " AS s WHERE t.kafka_topic_id = s.kafka_topic_id AND t.kafka_partition = "
                   "s.kafka_partition AND "
                   "t.kafka_offset = s.kafka_offset",
               "replacing re-read rows");
        exec("INSERT INTO " + target + " SELECT * FROM " + staged + order_by(t),
             "publishing staged rows");
      }
      exec("DROP TABLE " + staged, "dropping a staging table");
    }
  });
  for (const auto& t : tables) unpublished_.erase(t);
}

void DuckDBWarehouse::discard_staged(const std::string& sync_id,
                                     const std::vector<std::string>& tables) {
  transaction("dropping staging tables", [&] {
    for (const auto& t : tables)
      exec("DROP TABLE IF EXISTS " + staging(sync_id, t), "dropping a staging table");
  });
}

RowCount DuckDBWarehouse::count_rows(const std::string& sync_id, const std::string& table,
                                     bool staged, const std::vector<OffsetRange>& ranges) {
  if (!staged && unpublished_.count(table)) return {};  // publish() creates it
  const auto from = staged ? staging(sync_id, table) : quote(config_.schema) + "." + quote(table);
  duck::Result r;
  if (duckdb_query(conn(), count_rows_sql(from, ranges).c_str(), r.get()) == DuckDBError)
    throw duck::make_error(duckdb_result_error_type(r.get()), r.error(),
                           "counting the rows of " + table + " in " + describe());
  RowCount out;
  out.rows = r.int64(0, 0);
  if (!duckdb_value_is_null(r.get(), 1, 0)) out.newest_ms = r.int64(1, 0);
  return out;
}

std::string DuckDBWarehouse::audited_table(const std::string& table) const {
  return quote(config_.schema) + "." + quote(table);
}

const AuditSql& DuckDBWarehouse::audit_sql() const {
  static const AuditSql sql{
      "VARCHAR",
      [](const std::string& expr, int64_t by) {
        return "(" + expr + " // " + std::to_string(by) + ")";
      },
      [](const std::string& column) { return "CAST(" + column + " AS VARCHAR)"; },
      [](const std::string& column) { return "epoch_ms(" + column + ")"; },
      [](const std::vector<OffsetRange>& ranges) { return ranges_sql(ranges).first; },
      [](const std::string& text) { return quote_literal(text); },
  };
  return sql;
}

std::vector<std::vector<std::optional<std::string>>> DuckDBWarehouse::select_text(
    const std::string& sql, const std::string& what) {
  // The audit's aggregates count distinct offsets over whole tables: memory that grows with
  // the table (about 40 bytes a row), far beyond the batch-sized limit a sync writes with.
  // They get DuckDB's own default: 80% of the machine's memory.
  if (!audit_memory_) {
    const auto bytes = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
    const auto mib = std::max<int64_t>(256, static_cast<int64_t>(bytes * 0.8 / (1 << 20)));
    exec("SET memory_limit = '" + std::to_string(mib) + "MB'", "lifting the memory limit for the audit");
    audit_memory_ = true;
  }
  duck::Result r;
  if (duckdb_query(conn(), sql.c_str(), r.get()) == DuckDBError)
    throw duck::make_error(duckdb_result_error_type(r.get()), r.error(),
                           what + " in " + describe());
  std::vector<std::vector<std::optional<std::string>>> out(r.rows());
  const idx_t columns = r.columns();
  for (idx_t row = 0; row < out.size(); ++row) {
    out[row].resize(columns);
    for (idx_t c = 0; c < columns; ++c)
      if (!r.is_null(c, row)) out[row][c] = r.text(c, row);
  }
  return out;
}

void DuckDBWarehouse::record_run(const RunRecord& run) {
  duck::Prepared p(conn(),
                   "INSERT OR REPLACE INTO _krow.runs (run_id, sync_id, started_at, finished_at, "
                   "status, record, "
                   "warehouse_schema) VALUES (?, ?, make_timestamptz(? * 1000), make_timestamptz(? "
                   "* 1000), ?, ?, ?)");
  duckdb_bind_varchar(p.get(), 1, run.run_id.c_str());
  duckdb_bind_varchar(p.get(), 2, run.sync_id.c_str());
  duckdb_bind_int64(p.get(), 3, run.started_at_ms);
  duckdb_bind_int64(p.get(), 4, run.finished_at_ms);
  duckdb_bind_varchar(p.get(), 5, run.status.c_str());
  duckdb_bind_varchar(p.get(), 6, run.json.c_str());
  duckdb_bind_varchar(p.get(), 7, config_.schema.c_str());
  duck::Result r;
  p.run(r, "recording the run");
}

std::vector<RunRecord> DuckDBWarehouse::runs(const std::string& sync_id, int limit) {
  std::vector<RunRecord> out;
  if (!has_state_) return out;
  duck::Prepared p(
      conn(),
      "SELECT run_id, sync_id, epoch_ms(started_at), epoch_ms(finished_at), status, record "
      "FROM _krow.runs WHERE sync_id = ? AND warehouse_schema = ? ORDER BY started_at DESC LIMIT "
      "?");
  duckdb_bind_varchar(p.get(), 1, sync_id.c_str());
  duckdb_bind_varchar(p.get(), 2, config_.schema.c_str());
  duckdb_bind_int32(p.get(), 3, limit);
  duck::Result r;
  p.run(r, "reading run records");
  for (idx_t i = 0; i < r.rows(); ++i)
    out.push_back(
        {r.text(0, i), r.text(1, i), r.int64(2, i), r.int64(3, i), r.text(4, i), r.text(5, i)});
  return out;
}

}  // namespace krow
