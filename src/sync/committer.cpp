#include "sync/committer.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "util/error.hpp"
#include "util/fault_injection.hpp"

namespace krow {

Committer::Committer(BatchWriter& writer, StateStore& state, std::string sync_id,
                     BatchWriter::WriteMode mode, bool staged, std::chrono::seconds retry_budget,
                     std::unique_ptr<RowBatch> spare, AfterCommit after_commit)
    : writer_(writer),
      state_(state),
      sync_id_(std::move(sync_id)),
      mode_(mode),
      staged_(staged),
      retry_budget_(retry_budget),
      after_commit_(std::move(after_commit)),
      free_(std::move(spare)) {
  thread_ = std::thread([this] { loop(); });
}

Committer::~Committer() { stop(); }

void Committer::stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Committer::expect(const TopicId& topic_id, Partition partition, std::optional<Offset> stored,
                       Offset floor, Epoch epoch) {
  tracked_[{topic_id, partition}] = Tracked{stored, floor, epoch};
}

void Committer::submit(std::unique_ptr<RowBatch>& batch, const std::vector<Position>& moved) {
  if (moved.empty() && batch->row_count() == 0) return;
  writer_.encode(*batch);  // here, while the writing thread still writes the batch before
  Job job;
  for (const auto& p : moved) {
    auto& t = tracked_[{p.topic_id, p.partition}];
    PositionMove m{p, t.stored, t.epoch};
    m.to.next = std::max(p.next, t.floor);
    t.stored = m.to.next;
    if (staged_) {
      run_moves_.try_emplace({p.topic_id, p.partition}, m).first->second.to = m.to;
      continue;  // staged batches move no position
    }
    job.moves.push_back(std::move(m));
  }
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return (!pending_ && !busy_) || error_; });
  if (error_) std::rethrow_exception(error_);
  job.batch = std::move(batch);
  pending_ = std::move(job);
  batch = std::move(free_);
  lock.unlock();
  cv_.notify_all();
}

void Committer::drain() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return (!pending_ && !busy_) || error_; });
  if (error_) std::rethrow_exception(error_);
}

void Committer::loop() {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return pending_ || stop_; });
      if (!pending_) return;
      job = std::move(*pending_);
      pending_.reset();
      busy_ = true;
    }
    std::exception_ptr error;
    const auto t0 = std::chrono::steady_clock::now();
    // Tests kill krow while a batch is being written: they wait for this line.
    if (fault::trace_batches())
      std::fprintf(stderr, "krow: batch of %zu rows being written\n", job.batch->row_count());
    try {
      if (staged_)
        with_retries({}, [&](bool again) { writer_.stage(sync_id_, *job.batch, again); });
      else write(*job.batch, job.moves);
      if (observer_)
        observer_->on_commit(job.batch->row_count(), std::chrono::steady_clock::now() - t0);
      if (after_commit_ && !staged_) {
        std::vector<Position> stored;
        for (const auto& m : job.moves) stored.push_back(m.to);
        after_commit_(stored);
      }
      if (fault::trace_batches())
        std::fprintf(stderr, "krow: batch of %zu rows %s in %.1f ms\n", job.batch->row_count(),
                     staged_ ? "staged" : "committed",
                     std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    } catch (...) {
      error = std::current_exception();
    }
    rows_ += error ? 0 : static_cast<int64_t>(job.batch->row_count());
    batches_ += error ? 0 : 1;
    if (!error && release_between_batches_) {
      bool waiting = false;
      {
        std::lock_guard lock(mu_);
        waiting = pending_.has_value();
      }
      // Before busy_ is cleared: whoever waits for this batch may use the writer next. The
      // batch is committed; a failure to let go stops the sync as a write error would.
      if (!waiting) {
        try {
          writer_.idle();
        } catch (...) {
          error = std::current_exception();
        }
      }
    }
    job.batch->clear();
    {
      std::lock_guard lock(mu_);
      free_ = std::move(job.batch);
      busy_ = false;
      if (error && !error_) error_ = error;
    }
    cv_.notify_all();
  }
}

namespace {

// Backoff between attempts: 0.5 s, doubling, at most 5 s.
std::chrono::milliseconds backoff(int attempt) {
  return std::chrono::milliseconds(std::min(500 << std::min(attempt - 1, 4), 5000));
}

}  // namespace

void Committer::write(RowBatch& batch, const std::vector<PositionMove>& moves) {
  with_retries(moves, [&](bool) { writer_.commit(sync_id_, batch, moves, mode_); });
}

void Committer::publish(const std::vector<std::string>& tables) {
  // Nothing moved, so nothing was staged: there is nothing to publish (and a publish without
  // a position to move could not tell, after a failure, whether it landed).
  if (run_moves_.empty()) return discard(tables);
  std::vector<PositionMove> moves;
  for (const auto& [partition, m] : run_moves_) moves.push_back(m);
  with_retries(moves, [&](bool) { writer_.publish(sync_id_, tables, moves, mode_); });
  if (after_commit_) {
    std::vector<Position> stored;
    for (const auto& m : moves) stored.push_back(m.to);
    after_commit_(stored);
  }
}

void Committer::discard(const std::vector<std::string>& tables) {
  with_retries({}, [&](bool) { writer_.discard_staged(sync_id_, tables); });
  rows_ = 0;
}

std::optional<Offset> Committer::position(const TopicId& topic_id, Partition partition) const {
  const auto it = tracked_.find({topic_id, partition});
  return it == tracked_.end() ? std::nullopt : it->second.stored;
}

template <class Attempt>
void Committer::with_retries(const std::vector<PositionMove>& moves, Attempt&& attempt) {
  std::optional<std::chrono::steady_clock::time_point> deadline;
  for (int n = 1;; ++n) {
    try {
      attempt(n > 1);
      return;
    } catch (const Error& e) {
      if (e.error_class() != ErrorClass::transient && e.error_class() != ErrorClass::conflict) throw;
      if (!deadline) deadline = std::chrono::steady_clock::now() + retry_budget_;
      // Did it land after all? Only the stored positions can say.
      if (committed_anyway(moves, *deadline,
                           e.error_class() == ErrorClass::conflict ? &e : nullptr))
        return;
      if (e.error_class() == ErrorClass::conflict)
        throw Error(e.source().partition ? ErrorClass::conflict : ErrorClass::fatal_run,
                    std::string(e.what()) + "; nothing of this batch was written", e.source());
      if (std::chrono::steady_clock::now() + backoff(n) > *deadline)
        throw Error(ErrorClass::transient,
                    std::string(e.what()) + " (retried for " +
                        std::to_string(retry_budget_.count()) + " s, warehouse.retry_timeout)",
                    Fix{"Everything up to the last committed batch is kept; run the sync again "
                        "once the warehouse is "
                        "back"},
                    e.source());
      ++retries_;
      if (observer_) observer_->on_retry();
      std::this_thread::sleep_for(backoff(n));
    }
  }
}

bool Committer::committed_anyway(const std::vector<PositionMove>& moves,
                                 std::chrono::steady_clock::time_point deadline,
                                 const Error* conflict) {
  // A batch whose moves all stay in place (a full resync below the stored positions) cannot
  // be told committed from not: it merges by id, so writing it again is harmless.
  if (std::all_of(moves.begin(), moves.end(), [](const PositionMove& m) { return m.from == m.to.next; })) return false;
  std::vector<Position> stored;
  for (int attempt = 1;; ++attempt) {
    try {
      stored = state_.positions(sync_id_);
      break;
    } catch (const Error& e) {
      if (e.error_class() != ErrorClass::transient || std::chrono::steady_clock::now() + backoff(attempt) > deadline)
        throw;
      ++retries_;
      std::this_thread::sleep_for(backoff(attempt));
    }
  }
  auto find = [&](const Position& p) -> std::optional<Offset> {
    for (const auto& s : stored)
      if (s.topic_id == p.topic_id && s.partition == p.partition) return s.next;
    return std::nullopt;
  };
  bool all_to = true, all_from = true;
  for (const auto& m : moves) {
    const auto now = find(m.to);
    all_to &= now == m.to.next;
    all_from &= now == m.from;
  }
  if (all_to) return true;
  if (all_from) return false;
  // Moved by someone else. After a failure that was not the warehouse's verdict (a lost
  // connection), the fenced write is tried again: it writes nothing, and its conflict says
  // what moved them.
  if (!conflict) return false;
  // The partition another worker took: still a conflict naming it, which a worker answers by
  // dropping that partition and going on (a single sync stops on it as on any other error).
  if (conflict->source().partition)
    throw Error(ErrorClass::conflict,
                std::string(conflict->what()) + "; nothing of this batch was written",
                conflict->source());
  throw Error(ErrorClass::fatal_run, "the positions of sync '" + sync_id_ + "' in " +
                                         state_.describe() +
                                         " were moved by someone else while this sync ran (another "
                                         "krow with the same sync ID and warehouse "
                                         "schema, or a manual change); nothing of this batch was "
                                         "written. Make sure one sync at a time "
                                         "writes them, then run the sync again");
}

}  // namespace krow
