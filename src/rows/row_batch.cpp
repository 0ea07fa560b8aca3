#include "rows/row_batch.hpp"

namespace krow {

size_t RowBatch::table_slot(const std::string& table, const std::string& topic,
                            const std::string& topic_id) {
  for (size_t i = 0; i < tables_.size(); ++i)
    if (tables_[i].topic_id == topic_id) return i;
  tables_.push_back(TableRows{table, topic, topic_id, {}});
  return tables_.size() - 1;
}

void RowBatch::clear() {
  arena_.clear();
  // Slots stay, with their row capacity, for the next batch; the sink skips empty ones.
  for (auto& t : tables_) t.rows.clear();
  rows_ = 0;
}

}  // namespace krow
