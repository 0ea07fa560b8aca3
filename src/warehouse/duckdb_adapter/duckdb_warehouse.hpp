#pragma once
// The embedded default warehouse: a DuckDB file. Rows go in through column-wise data-chunk
// appends inside one transaction per batch, together with the positions they advance.
//
// Ids are unique by construction, so the row tables carry no index: a batch always starts
// at the committed position of its partitions and so cannot overlap rows already stored.

#include <duckdb.h>

#include <memory>
#include <optional>
#include <string>

#include "warehouse/file_lock.hpp"
#include "warehouse/warehouse.hpp"

namespace krow {

class DuckDBWarehouse : public Warehouse {
 public:
  DuckDBWarehouse(const WarehouseConfig& config, const std::string& sync_id, OpenMode mode);
  ~DuckDBWarehouse() override;

  std::string describe() const override;
  std::vector<StoredPosition> positions(const std::string& sync_id) override;
  std::vector<TableMapping> tables() override;
  void create_table(const std::string& sync_id, const std::string& topic, const std::string& table) override;
  void commit(const std::string& sync_id, const RowBatch& batch,
              const std::vector<PositionUpdate>& positions, WriteMode mode) override;
  void record_run(const RunRecord& run) override;
  std::vector<RunRecord> runs(const std::string& sync_id, int limit) override;

 private:
  void exec(const std::string& sql, const char* what);
  // Appends rows to `catalog`.`schema`.`table` (the row table, or the merge stage).
  void append_rows(const TableRows& table, const std::string& arena, const char* catalog, const std::string& schema,
                   const std::string& table_name);
  // Full resync: replaces the rows whose ids the batch holds, keeps every other row.
  void merge_rows(const TableRows& table, const std::string& arena);

  WarehouseConfig config_;
  std::optional<FileLock> lock_;
  duckdb_database db_ = nullptr;
  duckdb_connection conn_ = nullptr;
  bool has_state_ = false;  // whether krow's state schema exists (read-only opens may lack it)
};

}  // namespace krow
