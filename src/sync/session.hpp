#pragma once
// The reading half of a sync: a set of partitions read into row batches that a Committer
// writes, each batch with the positions it advances. The set can grow (assign) and shrink
// while the session runs — revoke drains (what was read of a partition is committed before
// it goes), lose drops (nothing more of it is committed) — which is what workers sharing a
// sync's partitions need. A session ends when every partition has reached its boundary
// (End::at_boundaries: `krow sync`, each partition up to the last stable offset captured when
// it was planned) or never (End::never: a continuous sync, ended by its owner).
//
// Tables are made ready before a session starts (sync/table_preparation); a session only
// reads, builds rows and hands batches over.
//
// Thread: the reading thread, for the object's whole life. The Committer writes on its own.

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kafka/message.hpp"
#include "kafka/source_config.hpp"
#include "rows/row_batch.hpp"
#include "sync/committer.hpp"
#include "sync/continuous.hpp"
#include "sync/partition_reader.hpp"
#include "sync/row_builder.hpp"
#include "util/ids.hpp"

namespace krow {

class Session : PartitionReader::Handler {
 public:
  enum class End {
    at_boundaries,  // when every partition has reached its boundary
    never,          // only when the owner stops polling
  };

  // What a session tells its owner about its tables (the owner's indexes: ReadStart::topic).
  class Listener {
   public:
    virtual ~Listener() = default;
    // Message `m` became `row` of the batch in hand.
    virtual void on_row(size_t table, const kafka::Message& m, const Row& row) = 0;
    // Rows read but dropped before they were handed over (a topic replaced, a partition lost).
    virtual void on_rows_dropped(size_t table, const std::vector<Row>& rows) = 0;
    // See PartitionReader::Handler.
    virtual void on_topic_stopped(size_t table, const std::string& error) = 0;
    virtual void on_topic_replaced(size_t table, const std::string& error) = 0;
    virtual void on_gap(size_t table, const Gap& gap) = 0;
  };

  // A partition given to the session: where to read, and what the committer must know of it
  // (Committer::expect: the stored position, the floor no position is stored below, and the
  // epoch the partition was taken at, which its commits are fenced on).
  struct Assignment {
    ReadStart read;
    std::optional<Offset> stored;
    Offset floor;
    Epoch epoch;
  };

  // `batch` is the batch to fill, with `slots[t]` the slot of table t; the session hands it
  // to `committer` when full (`limits`) — with End::never also `limits.max_wait_ms` after its
  // first message — and gets an empty one back. `listener`, `rows` and
  // `committer` must outlive the session.
  Session(const SourceConfig& source, const BatchConfig& limits, RowBuilder& rows,
          Committer& committer, std::unique_ptr<RowBatch>& batch, std::vector<size_t> slots,
          End end, bool verbose, std::chrono::seconds retry_timeout, Listener& listener);

  // Adds partitions, read from their start. A partition assigned again starts anew.
  void assign(std::vector<Assignment> partitions);

  // Stops reading `partitions`, hands over the batch in hand and every position moved so far,
  // and waits until they are committed (or staged): nothing read of them is lost. Rethrows a
  // write error.
  void revoke(const std::vector<TopicPartition>& partitions);

  // Stops reading `partitions` and drops their rows from the batch in hand without handing
  // them over: another reader owns them now. A batch already handed over still commits (the
  // committer fences it on the positions it started from).
  void lose(const std::vector<TopicPartition>& partitions);

  // Reads what arrives within ~100 ms (blocking meanwhile: an idle session costs no CPU), and
  // with End::never hands the batch over once it is due by time. False once the session has
  // ended (End::at_boundaries: nothing is left to read). Throws as PartitionReader::poll and
  // Committer::submit do.
  bool poll();

  // Hands over the batch in hand and the positions moved without rows (past expired or
  // aborted offsets), and waits until everything is committed. Rethrows a write error.
  void drain();

  // How far each partition being read stands behind its end: its end (the high watermark,
  // as the last fetch said) minus its position once what was handed over commits. Partitions
  // whose end or position is not known yet are left out.
  struct Lag {
    std::string topic;
    Partition partition;
    int64_t messages;
  };
  std::vector<Lag> lags() const;

  // Partitions of `table` still being read.
  size_t active_in(size_t table) const { return reader_.active_in(table); }
  // See PartitionReader::furthest_behind.
  std::string furthest_behind() const { return reader_.furthest_behind(); }
  // Rows in the batch in hand, not yet handed over.
  size_t rows_in_hand() const { return batch_->row_count(); }
  // When a batch was last handed over (or the session began): how long it has been idle.
  std::chrono::steady_clock::time_point last_submit() const { return last_submit_; }

 private:
  void on_message(size_t topic, const kafka::Message& m) override;
  void on_topic_stopped(size_t topic, const std::string& error) override;
  void on_topic_replaced(size_t topic, const std::string& error) override;
  void on_gap(size_t topic, const Gap& gap) override;
  // Hands the batch and the positions it advances to the committer.
  void submit();

  BatchConfig limits_;
  RowBuilder& rows_;
  Committer& committer_;
  std::unique_ptr<RowBatch>& batch_;
  std::vector<size_t> slots_;
  End end_;
  BatchClock clock_;
  std::chrono::steady_clock::time_point last_submit_ = std::chrono::steady_clock::now();
  Listener& listener_;
  PartitionReader reader_;
};

}  // namespace krow
