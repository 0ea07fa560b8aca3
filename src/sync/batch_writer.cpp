#include "sync/batch_writer.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "util/error.hpp"

namespace krow {

BatchWriter::BatchWriter(Warehouse& warehouse, std::string sync_id, Warehouse::WriteMode mode,
                         std::unique_ptr<RowBatch> spare, AfterCommit after_commit)
    : warehouse_(warehouse),
      sync_id_(std::move(sync_id)),
      mode_(mode),
      after_commit_(std::move(after_commit)),
      free_(std::move(spare)) {
  thread_ = std::thread([this] { loop(); });
}

BatchWriter::~BatchWriter() { stop(); }

void BatchWriter::stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void BatchWriter::submit(std::unique_ptr<RowBatch>& batch, std::vector<PositionUpdate> positions) {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return (!pending_ && !busy_) || error_; });
  if (error_) std::rethrow_exception(error_);
  pending_ = std::move(batch);
  positions_ = std::move(positions);
  batch = std::move(free_);
  lock.unlock();
  cv_.notify_all();
}

void BatchWriter::drain() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return (!pending_ && !busy_) || error_; });
  if (error_) std::rethrow_exception(error_);
}

void BatchWriter::loop() {
  for (;;) {
    std::unique_ptr<RowBatch> batch;
    std::vector<PositionUpdate> positions;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return pending_ || stop_; });
      if (!pending_) return;
      batch = std::move(pending_);
      positions = std::move(positions_);
      busy_ = true;
    }
    std::exception_ptr error;
    const auto t0 = std::chrono::steady_clock::now();
    try {
      write(*batch, positions);
      if (after_commit_) after_commit_(positions);
      if (std::getenv("KROW_TRACE_BATCHES"))
        std::fprintf(stderr, "krow: batch of %zu rows committed in %.1f ms\n", batch->row_count(),
                     std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    } catch (...) {
      error = std::current_exception();
    }
    rows_ += error ? 0 : static_cast<int64_t>(batch->row_count());
    batches_ += error ? 0 : 1;
    batch->clear();
    {
      std::lock_guard lock(mu_);
      free_ = std::move(batch);
      busy_ = false;
      if (error && !error_) error_ = error;
    }
    cv_.notify_all();
  }
}

void BatchWriter::write(const RowBatch& batch, const std::vector<PositionUpdate>& positions) {
  // A failed write rolls back whole; the batch is still here, so try again a few times.
  for (int attempt = 1;; ++attempt) {
    try {
      warehouse_.commit(sync_id_, batch, positions, mode_);
      return;
    } catch (const Error& e) {
      if (e.error_class() != ErrorClass::transient || attempt == 3) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(500 * attempt));
    }
  }
}

}  // namespace krow
