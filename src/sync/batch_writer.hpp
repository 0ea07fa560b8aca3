#pragma once
// Writes committed batches on a thread of its own, so that reading and decoding the next
// batch overlaps writing the previous one. At most two batches exist: the one being
// filled and the one being written, which bounds memory by the batch size.
//
// Thread: construct, submit(), drain() and destroy from the reading thread. The warehouse
// is used only by the writer thread between construction and drain().

#include <atomic>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "rows/row_batch.hpp"
#include "warehouse/warehouse.hpp"

namespace krow {

class BatchWriter {
 public:
  // `spare` becomes the second buffer; it must have the same table slots as the batch
  // being filled.
  // `after_commit` runs on the writer thread after each committed batch, with the positions
  // that batch advanced (used to publish them to the lag group); it must not throw.
  using AfterCommit = std::function<void(const std::vector<PositionUpdate>&)>;
  BatchWriter(Warehouse& warehouse, std::string sync_id, Warehouse::WriteMode mode, std::unique_ptr<RowBatch> spare,
              AfterCommit after_commit = {});
  ~BatchWriter();
  BatchWriter(const BatchWriter&) = delete;
  BatchWriter& operator=(const BatchWriter&) = delete;

  // Hands `batch` and the positions it advances to the writer and puts an empty batch in
  // its place. Blocks while the previous batch is still being written. Rethrows the error
  // of an earlier batch that could not be written.
  void submit(std::unique_ptr<RowBatch>& batch, std::vector<PositionUpdate> positions);

  // Waits until everything submitted is committed; rethrows a write error.
  void drain();

  // Finishes the batch being written (if any), drops what was not started, and ends the
  // thread. Idempotent; the destructor calls it.
  void stop();

  int64_t committed_rows() const { return rows_.load(); }
  int64_t committed_batches() const { return batches_.load(); }

 private:
  void loop();
  void write(const RowBatch& batch, const std::vector<PositionUpdate>& positions);

  Warehouse& warehouse_;
  std::string sync_id_;
  Warehouse::WriteMode mode_;
  AfterCommit after_commit_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::unique_ptr<RowBatch> pending_;    // submitted, not yet written
  std::vector<PositionUpdate> positions_;
  std::unique_ptr<RowBatch> free_;       // written and cleared, ready to fill
  std::exception_ptr error_;
  bool busy_ = false;
  bool stop_ = false;
  std::atomic<int64_t> rows_{0};
  std::atomic<int64_t> batches_{0};
  std::thread thread_;
};

}  // namespace krow
