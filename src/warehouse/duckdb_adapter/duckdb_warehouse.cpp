#include "warehouse/duckdb_adapter/duckdb_warehouse.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "util/error.hpp"
#include "util/text.hpp"
#include "warehouse/duckdb_adapter/duckdb_handles.hpp"

namespace krow {

namespace {

std::string quote(const std::string& ident) {
  std::string out = "\"";
  for (char c : ident) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  return out + "\"";
}

constexpr const char* kStateSchema = "_krow";

// Column order of every row table; append_rows fills vectors in this order.
constexpr const char* kRowColumns =
    "id VARCHAR NOT NULL, "
    "kafka_topic_id VARCHAR NOT NULL, "
    "kafka_partition INTEGER NOT NULL, "
    "kafka_offset BIGINT NOT NULL, "
    "kafka_timestamp TIMESTAMPTZ, "
    "kafka_timestamp_type VARCHAR, "
    "key VARCHAR, "
    "key_format VARCHAR, "
    "key_schema_id INTEGER, "
    "value JSON, "
    "value_format VARCHAR, "
    "value_schema_id INTEGER, "
    "value_base64 VARCHAR, "
    "value_size_bytes INTEGER, "
    "headers JSON, "
    "is_tombstone BOOLEAN NOT NULL, "
    "decode_error VARCHAR";

enum Col : idx_t {
  kId, kTopicId, kPartition, kOffset, kTimestamp, kTimestampType, kKey, kKeyFormat, kKeySchemaId,
  kValue, kValueFormat, kValueSchemaId, kValueBase64, kValueSize, kHeaders, kTombstone, kDecodeError,
  kColumnCount
};

// Writes one column of a data chunk.
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
    duckdb_vector_assign_string_element_len(vec, row, s.data(), s.size());
  }
  void set_slice(idx_t row, const Slice& s, const std::string& arena) {
    if (!s.present) return set_null(row);
    set_text(row, s.view(arena));
  }
  template <class T>
  void set(idx_t row, T v) {
    static_cast<T*>(duckdb_vector_get_data(vec))[row] = v;
  }
};

std::string_view timestamp_type_name(TimestampType t) {
  switch (t) {
    case TimestampType::create_time: return "create_time";
    case TimestampType::log_append_time: return "log_append_time";
    case TimestampType::none: break;
  }
  return {};
}

}  // namespace

DuckDBWarehouse::DuckDBWarehouse(const WarehouseConfig& config, const std::string& sync_id, OpenMode mode)
    : config_(config) {
  const auto& path = config_.path;
  if (mode == OpenMode::read_only && !std::filesystem::exists(path)) return;  // nothing synced yet
  if (mode == OpenMode::write) {
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
    lock_.emplace(path.string() + "." + sync_id + ".lock", "another sync of '" + sync_id + "'");
  }
  duckdb_config cfg = nullptr;
  duckdb_create_config(&cfg);
  if (mode == OpenMode::read_only) duckdb_set_config(cfg, "access_mode", "READ_ONLY");
  // krow keeps both cores busy already (a reading and a writing thread); extra DuckDB
  // workers measured slower here, spinning while they wait for each other.
  duckdb_set_config(cfg, "threads", "1");
  // Memory stays bounded by the batch size, not the topic size: DuckDB would otherwise keep
  // every block it wrote cached, up to most of the machine's memory. With a checkpoint per
  // batch (below) it holds one batch's rows at a time: 64MB measured as fast as 128MB and
  // 60-80 MiB less peak memory; 32MB spilled to disk and was 25% slower.
  duckdb_set_config(cfg, "memory_limit", "64MB");
  char* err = nullptr;
  const auto state = duckdb_open_ext(path.c_str(), &db_, cfg, &err);
  duckdb_destroy_config(&cfg);
  if (state == DuckDBError) {
    std::string msg = err ? err : "unknown error";
    duckdb_free(err);
    throw Error(ErrorClass::fatal_run, "cannot open " + describe() + ": " + msg +
                                           (msg.find("lock") != std::string::npos
                                                ? " (another process has it open for writing; wait "
                                                  "for it to finish)"
                                                : ""));
  }
  if (duckdb_connect(db_, &conn_) == DuckDBError)
    throw Error(ErrorClass::fatal_run, "cannot connect to " + describe());

  if (mode == OpenMode::write) {
    exec("CREATE SCHEMA IF NOT EXISTS " + quote(config_.schema), "creating the warehouse schema");
    exec(std::string("CREATE SCHEMA IF NOT EXISTS ") + kStateSchema, "creating krow's state schema");
    exec(std::string("CREATE TABLE IF NOT EXISTS ") + kStateSchema +
             ".positions (sync_id VARCHAR NOT NULL, topic VARCHAR NOT NULL, topic_id VARCHAR NOT NULL, "
             "kafka_partition INTEGER NOT NULL, next_offset BIGINT NOT NULL, updated_at TIMESTAMPTZ NOT NULL)",
         "creating the positions table");
    exec(std::string("CREATE TABLE IF NOT EXISTS ") + kStateSchema +
             ".tables (sync_id VARCHAR NOT NULL, topic VARCHAR NOT NULL, warehouse_schema VARCHAR NOT NULL, "
             "table_name VARCHAR NOT NULL, created_at TIMESTAMPTZ NOT NULL, "
             "PRIMARY KEY (warehouse_schema, table_name))",
         "creating the tables table");
    exec(std::string("CREATE TABLE IF NOT EXISTS ") + kStateSchema +
             ".runs (run_id VARCHAR PRIMARY KEY, sync_id VARCHAR NOT NULL, started_at TIMESTAMPTZ, "
             "finished_at TIMESTAMPTZ, status VARCHAR, record JSON)",
         "creating the runs table");
    // Every batch is checkpointed as it commits, and row groups are never merged. DuckDB's
    // defaults (checkpoint when the WAL passes 16 MB, merge under-filled row groups at each
    // checkpoint) re-compress the same rows again and again. Measured here on 350-byte JSON
    // messages: 3,000,000 took 64 s with merging, its checkpoints growing from 0.6 s to
    // 3.4 s with the table, and 40 s without, checkpoints flat at ~0.9 s; and with the 16 MB
    // trigger, batches of 38,000 rows took twice as long as batches of 50,000. The cost: a
    // row group per batch (up to 50,000 rows rather than DuckDB's 122,880), and the space a
    // full resync frees is reclaimed by DuckDB's next merging checkpoint, not by krow's.
    exec("SET checkpoint_threshold = '0B'", "configuring checkpoints");
    exec("SET max_vacuum_tasks = 0", "configuring checkpoints");
    has_state_ = true;
  } else {
    duck::Result r;
    duckdb_query(conn_, "SELECT 1 FROM information_schema.tables WHERE table_schema = '_krow' AND table_name = 'positions'", r.get());
    has_state_ = r.rows() > 0;
  }
}

DuckDBWarehouse::~DuckDBWarehouse() {
  if (conn_) duckdb_disconnect(&conn_);
  if (db_) duckdb_close(&db_);
}

std::string DuckDBWarehouse::describe() const { return "DuckDB file " + config_.path.string(); }

void DuckDBWarehouse::exec(const std::string& sql, const char* what) {
  duck::Result r;
  if (duckdb_query(conn_, sql.c_str(), r.get()) == DuckDBError)
    throw Error(ErrorClass::transient, std::string(what) + " failed in " + describe() + ": " + r.error());
}

std::vector<StoredPosition> DuckDBWarehouse::positions(const std::string& sync_id) {
  std::vector<StoredPosition> out;
  if (!has_state_) return out;
  duck::Prepared p(conn_, "SELECT topic, topic_id, kafka_partition, next_offset FROM _krow.positions WHERE sync_id = ?");
  duckdb_bind_varchar(p.get(), 1, sync_id.c_str());
  duck::Result r;
  p.run(r, "reading positions");
  for (idx_t i = 0; i < r.rows(); ++i)
    out.push_back({r.text(0, i), r.text(1, i), static_cast<int32_t>(r.int64(2, i)), r.int64(3, i)});
  return out;
}

std::vector<TableMapping> DuckDBWarehouse::tables() {
  std::vector<TableMapping> out;
  if (!has_state_) return out;
  duck::Prepared p(conn_, "SELECT sync_id, topic, table_name FROM _krow.tables WHERE warehouse_schema = ?");
  duckdb_bind_varchar(p.get(), 1, config_.schema.c_str());
  duck::Result r;
  p.run(r, "reading table names");
  for (idx_t i = 0; i < r.rows(); ++i) out.push_back({r.text(0, i), r.text(1, i), r.text(2, i)});
  return out;
}

void DuckDBWarehouse::create_table(const std::string& sync_id, const std::string& topic, const std::string& table) {
  exec("BEGIN TRANSACTION", "starting a transaction");
  try {
    exec("CREATE TABLE IF NOT EXISTS " + quote(config_.schema) + "." + quote(table) + " (" + kRowColumns + ")",
         "creating a table");
    duck::Prepared p(conn_,
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
    exec("COMMIT", "committing a new table");
  } catch (...) {
    duck::Result r;
    duckdb_query(conn_, "ROLLBACK", r.get());
    throw;
  }
}

void DuckDBWarehouse::append_rows(const TableRows& table, const std::string& arena, const char* catalog,
                                  const std::string& schema, const std::string& table_name) {
  duck::Appender app(conn_, catalog, schema, table_name);
  if (duckdb_appender_column_count(app.get()) != kColumnCount)
    throw Error(ErrorClass::fatal_table, "table " + schema + "." + table_name +
                                             " does not have krow's columns; rename or drop it");
  duck::DataChunk chunk(app.get());
  const idx_t capacity = duckdb_vector_size();
  std::string id;
  size_t done = 0;
  while (done < table.rows.size()) {
    duckdb_data_chunk_reset(chunk.get());
    Column cols[kColumnCount];
    for (idx_t c = 0; c < kColumnCount; ++c) cols[c].vec = duckdb_data_chunk_get_vector(chunk.get(), c);
    const idx_t n = std::min<size_t>(capacity, table.rows.size() - done);
    for (idx_t i = 0; i < n; ++i) {
      const Row& row = table.rows[done + i];
      id.assign(table.topic_id).push_back(':');
      append_int(id, row.partition);
      id.push_back(':');
      append_int(id, row.offset);
      cols[kId].set_text(i, id);
      cols[kTopicId].set_text(i, table.topic_id);
      cols[kPartition].set<int32_t>(i, row.partition);
      cols[kOffset].set<int64_t>(i, row.offset);
      if (row.timestamp_type == TimestampType::none) {
        cols[kTimestamp].set_null(i);
        cols[kTimestampType].set_null(i);
      } else {
        cols[kTimestamp].set<int64_t>(i, row.timestamp_ms * 1000);
        cols[kTimestampType].set_text(i, timestamp_type_name(row.timestamp_type));
      }
      cols[kKey].set_slice(i, row.key.text, arena);
      if (row.key.format == Format::none) cols[kKeyFormat].set_null(i);
      else cols[kKeyFormat].set_text(i, format_name(row.key.format));
      if (row.key.schema_id) cols[kKeySchemaId].set<int32_t>(i, row.key.schema_id);
      else cols[kKeySchemaId].set_null(i);
      cols[kValue].set_slice(i, row.value.text, arena);
      if (row.value.format == Format::none) cols[kValueFormat].set_null(i);
      else cols[kValueFormat].set_text(i, format_name(row.value.format));
      if (row.value.schema_id) cols[kValueSchemaId].set<int32_t>(i, row.value.schema_id);
      else cols[kValueSchemaId].set_null(i);
      cols[kValueBase64].set_slice(i, row.value.base64, arena);
      cols[kValueSize].set<int32_t>(i, row.value_size_bytes);
      cols[kHeaders].set_slice(i, row.headers, arena);
      cols[kTombstone].set<bool>(i, row.is_tombstone);
      cols[kDecodeError].set_slice(i, row.decode_error, arena);
    }
    duckdb_data_chunk_set_size(chunk.get(), n);
    if (duckdb_append_data_chunk(app.get(), chunk.get()) == DuckDBError) app.fail("appending rows");
    done += n;
  }
  if (duckdb_appender_close(app.get()) == DuckDBError) app.fail("writing rows");
}

void DuckDBWarehouse::merge_rows(const TableRows& table, const std::string& arena) {
  // Stage the batch, then replace exactly the ids it holds. The offset range lets DuckDB's
  // zone maps skip the row groups the batch cannot touch.
  exec("CREATE TEMP TABLE IF NOT EXISTS krow_merge_stage AS SELECT * FROM " + quote(config_.schema) + "." +
           quote(table.table) + " LIMIT 0",
       "creating the merge stage");
  exec("DELETE FROM temp.main.krow_merge_stage", "clearing the merge stage");
  append_rows(table, arena, "temp", "main", "krow_merge_stage");
  const auto target = quote(config_.schema) + "." + quote(table.table);
  exec("DELETE FROM " + target + " AS t USING (SELECT DISTINCT kafka_partition, kafka_offset FROM temp.main.krow_merge_stage) AS s " +
           "WHERE t.kafka_topic_id = '" + table.topic_id + "' AND t.kafka_partition = s.kafka_partition " +
           "AND t.kafka_offset = s.kafka_offset " +
           "AND t.kafka_offset BETWEEN (SELECT min(kafka_offset) FROM temp.main.krow_merge_stage) " +
           "AND (SELECT max(kafka_offset) FROM temp.main.krow_merge_stage)",
       "replacing re-read rows");
  exec("INSERT INTO " + target + " SELECT * FROM temp.main.krow_merge_stage", "inserting re-read rows");
}

void DuckDBWarehouse::commit(const std::string& sync_id, const RowBatch& batch,
                             const std::vector<PositionUpdate>& positions, WriteMode mode) {
  exec("BEGIN TRANSACTION", "starting a batch transaction");
  try {
    for (const auto& t : batch.tables()) {
      if (t.rows.empty()) continue;
      if (mode == WriteMode::merge) merge_rows(t, batch.arena());
      else append_rows(t, batch.arena(), nullptr, config_.schema, t.table);
    }
    if (!positions.empty()) {
      duck::Prepared del(conn_, "DELETE FROM _krow.positions WHERE sync_id = ? AND topic_id = ? AND kafka_partition = ?");
      duck::Prepared ins(conn_, "INSERT INTO _krow.positions VALUES (?, ?, ?, ?, ?, now())");
      for (const auto& p : positions) {
        duckdb_bind_varchar(del.get(), 1, sync_id.c_str());
        duckdb_bind_varchar(del.get(), 2, p.topic_id.c_str());
        duckdb_bind_int32(del.get(), 3, p.partition);
        duck::Result r1;
        del.run(r1, "moving a position");
        duckdb_bind_varchar(ins.get(), 1, sync_id.c_str());
        duckdb_bind_varchar(ins.get(), 2, p.topic.c_str());
        duckdb_bind_varchar(ins.get(), 3, p.topic_id.c_str());
        duckdb_bind_int32(ins.get(), 4, p.partition);
        duckdb_bind_int64(ins.get(), 5, p.next_offset);
        duck::Result r2;
        ins.run(r2, "moving a position");
      }
    }
    exec("COMMIT", "committing a batch");
  } catch (...) {
    duck::Result r;
    duckdb_query(conn_, "ROLLBACK", r.get());
    throw;
  }
}

void DuckDBWarehouse::record_run(const RunRecord& run) {
  duck::Prepared p(conn_,
                   "INSERT OR REPLACE INTO _krow.runs VALUES (?, ?, make_timestamptz(? * 1000), "
                   "make_timestamptz(? * 1000), ?, ?)");
  duckdb_bind_varchar(p.get(), 1, run.run_id.c_str());
  duckdb_bind_varchar(p.get(), 2, run.sync_id.c_str());
  duckdb_bind_int64(p.get(), 3, run.started_at_ms);
  duckdb_bind_int64(p.get(), 4, run.finished_at_ms);
  duckdb_bind_varchar(p.get(), 5, run.status.c_str());
  duckdb_bind_varchar(p.get(), 6, run.json.c_str());
  duck::Result r;
  p.run(r, "recording the run");
}

std::vector<RunRecord> DuckDBWarehouse::runs(const std::string& sync_id, int limit) {
  std::vector<RunRecord> out;
  if (!has_state_) return out;
  duck::Prepared p(conn_,
                   "SELECT run_id, sync_id, epoch_ms(started_at), epoch_ms(finished_at), status, record "
                   "FROM _krow.runs WHERE sync_id = ? ORDER BY started_at DESC LIMIT ?");
  duckdb_bind_varchar(p.get(), 1, sync_id.c_str());
  duckdb_bind_int32(p.get(), 2, limit);
  duck::Result r;
  p.run(r, "reading run records");
  for (idx_t i = 0; i < r.rows(); ++i)
    out.push_back({r.text(0, i), r.text(1, i), r.int64(2, i), r.int64(3, i), r.text(4, i), r.text(5, i)});
  return out;
}

}  // namespace krow
