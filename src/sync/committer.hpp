#pragma once
// Commits batches on a thread of its own, so that reading and decoding the next batch
// overlaps writing the previous one. At most two batches exist: the one being filled and
// the one being written, which bounds memory by the batch size.
//
// Every batch is fenced: it moves each position from the one stored before it (tracked
// here, starting from the plan's) to the new one, and the warehouse writes it only if the
// stored position still is the one it started from and the partition's stored epoch still is
// the one this sync took it at (StateStore::take): a process that lost a partition to another
// one (a paused sync that resumes after another run took over) writes nothing for it. When a commit
// fails in a way that can be retried, the outcome may be unknown (the connection broke during
// COMMIT): the stored positions are read again before anything is retried, so a batch is never
// written twice.
//
// Staged (`quality.publish: staged`): batches go to the warehouse's staging tables instead,
// no position moves, and publish() moves every staged row and the positions of the whole run
// in one transaction at the end (or discard() drops them).
//
// Thread: construct, expect(), submit(), drain(), publish(), discard() and destroy from the
// reading thread. The warehouse is used only by the writer thread between construction and
// drain(), and by the reading thread after drain().

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "rows/row_batch.hpp"
#include "sync/sync_observer.hpp"
#include "util/error.hpp"
#include "util/ids.hpp"
#include "warehouse/batch_writer.hpp"
#include "warehouse/state_store.hpp"

namespace krow {

class Committer {
 public:
  // Runs on the writer thread after each committed batch, with the positions it stored
  // (used to publish them to the lag group); it must not throw.
  using AfterCommit = std::function<void(const std::vector<Position>&)>;

  // `spare` becomes the second buffer; it must have the same table slots as the batch being
  // filled. Failures that can be retried are retried for up to `retry_budget` from the
  // first one, with backoff. `writer` writes the batches; `state` tells, after a failure whose
  // outcome is unknown, whether a batch landed (both are usually one warehouse).
  Committer(BatchWriter& writer, StateStore& state, std::string sync_id,
            BatchWriter::WriteMode mode, bool staged, std::chrono::seconds retry_budget,
            std::unique_ptr<RowBatch> spare, AfterCommit after_commit = {});
  ~Committer();
  Committer(const Committer&) = delete;
  Committer& operator=(const Committer&) = delete;

  // Declares a partition's stored position before the first submit (none: never committed),
  // its floor: a position is never stored below it (a full resync re-reads below the stored
  // position; storing its progress there would make the next sync read it again), and the
  // epoch this sync took it at (StateStore::take; 0: not taken), which every move is fenced on.
  void expect(const TopicId& topic_id, Partition partition, std::optional<Offset> stored,
              Offset floor, Epoch epoch = Epoch(0));

  // Hands `batch` and the positions that moved while it was filled to the writer, and puts
  // an empty batch in its place. Blocks while the previous batch is still being written.
  // Does nothing when there is neither a row nor a move. Rethrows the error of an earlier
  // batch that could not be written.
  void submit(std::unique_ptr<RowBatch>& batch, const std::vector<Position>& moved);

  // Waits until everything submitted is committed; rethrows a write error.
  void drain();

  // From now on, after each committed batch with no other one waiting, the writer is told it
  // is idle (BatchWriter::idle): a continuous sync that has caught up lets go of a DuckDB
  // file while its next batch fills, so that other processes can read it in between. A sync
  // catching up always has the next batch waiting, and keeps the file.
  void release_between_batches() { release_between_batches_ = true; }

  // Tells `observer` of every committed batch and every retry (from the writer thread). Call
  // before the first submit; `observer` must outlive the committer.
  void observe(SyncObserver* observer) { observer_ = observer; }

  // Staged: after drain(), moves the staged rows into `tables` and every position the run
  // advanced, in one transaction (retried like a batch). Then the positions go to after_commit.
  void publish(const std::vector<std::string>& tables);
  // Staged: after drain(), drops the staged rows; nothing of the run reaches the tables.
  void discard(const std::vector<std::string>& tables);

  // Where a partition stands once everything submitted is committed (or published); none when
  // it never had a position.
  std::optional<Offset> position(const TopicId& topic_id, Partition partition) const;

  // Finishes the batch being written (if any), drops what was not started, and ends the
  // thread. Idempotent; the destructor calls it.
  void stop();

  int64_t committed_rows() const { return rows_.load(); }
  int64_t committed_batches() const { return batches_.load(); }
  int64_t retries() const { return retries_.load(); }

 private:
  struct Job {
    std::unique_ptr<RowBatch> batch;
    std::vector<PositionMove> moves;
  };
  void loop();
  void write(RowBatch& batch, const std::vector<PositionMove>& moves);
  // Calls `attempt(again)` until it succeeds, retrying what can be retried within the budget;
  // `again` is true after a failure whose outcome is unknown. `moves`: what the attempt
  // advances, to tell from the stored positions whether a failed one landed after all.
  template <class Attempt>
  void with_retries(const std::vector<PositionMove>& moves, Attempt&& attempt);
  // After a failure: true when the stored positions show the batch committed, false when
  // they show it did not, or show neither after a failure that was not a conflict (the
  // fenced write, tried again, then says why). After a conflict (`conflict`), throws
  // fatal_run when they show neither (someone else moved them), in the conflict's words when
  // it names a partition (another worker took it).
  bool committed_anyway(const std::vector<PositionMove>& moves,
                        std::chrono::steady_clock::time_point deadline, const Error* conflict);

  BatchWriter& writer_;
  StateStore& state_;
  std::string sync_id_;
  BatchWriter::WriteMode mode_;
  bool staged_;
  std::chrono::seconds retry_budget_;
  AfterCommit after_commit_;
  SyncObserver* observer_ = nullptr;
  // Reading thread only: where each partition will stand once what was submitted commits.
  struct Tracked {
    std::optional<Offset> stored;
    Offset floor;
    Epoch epoch;
  };
  std::map<std::pair<TopicId, Partition>, Tracked> tracked_;
  // Staged, reading thread only: every partition's move over the whole run (from its first
  // batch's `from` to its last batch's `to`).
  std::map<std::pair<TopicId, Partition>, PositionMove> run_moves_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::optional<Job> pending_;         // submitted, not yet written
  std::unique_ptr<RowBatch> free_;     // written and cleared, ready to fill
  std::exception_ptr error_;
  bool busy_ = false;
  bool stop_ = false;
  std::atomic<bool> release_between_batches_{false};
  std::atomic<int64_t> rows_{0};
  std::atomic<int64_t> batches_{0};
  std::atomic<int64_t> retries_{0};
  std::thread thread_;
};

}  // namespace krow
