// The committer's fencing, with a warehouse double for the one fault no real engine
// produces on demand: a commit that lands but whose acknowledgement is lost. A retry must
// then find the batch committed (its positions moved) and not write it again.

#include "sync/committer.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "util/error.hpp"
#include "warehouse/fencing.hpp"

namespace krow {
namespace {

using ::testing::HasSubstr;

// Rows and positions in memory, with the fenced commit of the BatchWriter contract.
class MemoryWarehouse : public StateStore, public BatchWriter {
 public:
  enum class Fault { none, lost_acknowledgement, failed_before_commit, moved_by_someone_else };
  Fault next_fault = Fault::none;
  int commits = 0;        // transactions that landed
  int64_t rows = 0;       // rows stored
  int64_t staged = 0;     // rows staged, not yet published
  int stage_replacements = 0;  // stage() calls told the batch may be there already
  std::map<std::pair<TopicId, Partition>, Offset> stored;
  std::map<std::pair<TopicId, Partition>, int64_t> epochs;  // bumped by take()

  std::string describe() const override { return "memory"; }
  std::vector<Position> positions(const std::string&) override {
    std::vector<Position> out;
    for (const auto& [key, next] : stored) out.push_back({"t", key.first, key.second, next});
    return out;
  }
  std::vector<TableMapping> tables() override { return {}; }
  std::vector<PartitionClaim> take(const std::string&,
                                   const std::vector<PartitionKey>& keys) override {
    std::vector<PartitionClaim> out;
    for (const auto& k : keys) {
      const auto it = stored.find({k.topic_id, k.partition});
      out.push_back({k, Epoch(++epochs[{k.topic_id, k.partition}]),
                     it == stored.end() ? std::nullopt : std::optional<Offset>(it->second)});
    }
    return out;
  }
  void create_table(const std::string&, const std::string&, const std::string&,
                    const TableSettings&, Creation) override {}
  void commit(const std::string&, RowBatch& batch, const std::vector<PositionMove>& moves, WriteMode) override {
    transact(moves, [&] { rows += static_cast<int64_t>(batch.row_count()); });
  }
  void begin_staging(const std::string&, const std::vector<std::string>&) override { staged = 0; }
  void stage(const std::string&, RowBatch& batch, bool again) override {
    // A batch staged again replaces its earlier copy (here: the rows of the last one).
    if (again && last_staged > 0) staged -= std::exchange(last_staged, 0), ++stage_replacements;
    transact({}, [&] { staged += last_staged = static_cast<int64_t>(batch.row_count()); });
  }
  void publish(const std::string&, const std::vector<std::string>&, const std::vector<PositionMove>& moves,
               WriteMode) override {
    transact(moves, [&] { rows += std::exchange(staged, 0); });
  }
  void discard_staged(const std::string&, const std::vector<std::string>&) override { staged = 0; }
  RowCount count_rows(const std::string&, const std::string&, bool in_staging, const std::vector<OffsetRange>&) override {
    return {in_staging ? staged : rows, std::nullopt};
  }
  void record_run(const RunRecord&) override {}
  std::vector<RunRecord> runs(const std::string&, int) override { return {}; }

 private:
  int64_t last_staged = 0;
  // One transaction with the fault injected next: fenced moves, then `write`.
  template <class Write>
  void transact(const std::vector<PositionMove>& moves, Write&& write) {
    const auto fault = std::exchange(next_fault, Fault::none);
    if (fault == Fault::failed_before_commit) throw Error(ErrorClass::transient, "connection reset");
    if (fault == Fault::moved_by_someone_else) stored[{TopicId("A"), Partition(0)}] = Offset(999);
    for (const auto& m : moves) {  // the compare-and-set
      auto it = stored.find({m.to.topic_id, m.to.partition});
      const std::optional<Offset> now = it == stored.end() ? std::nullopt : std::optional<Offset>(it->second);
      if (now != m.from) throw Error(ErrorClass::conflict, "stored position is not the batch's start");
      // What every adapter says then (warehouse/fencing.hpp).
      const StoredFence here{m.to.topic_id, m.to.partition,
                             Epoch(epochs[{m.to.topic_id, m.to.partition}]), now};
      if (auto conflict = epoch_conflict("s", "memory", {m}, {here})) throw *conflict;
    }
    for (const auto& m : moves) stored[{m.to.topic_id, m.to.partition}] = m.to.next;
    write();
    ++commits;
    if (fault == Fault::lost_acknowledgement) throw Error(ErrorClass::transient, "server closed the connection");
  }
};

std::unique_ptr<RowBatch> batch_of(size_t n) {
  auto b = std::make_unique<RowBatch>();
  const auto slot = b->table_slot("t", "t", TopicId("A"));
  for (size_t i = 0; i < n; ++i) {
    b->tables()[slot].rows.emplace_back();
    b->count_row();
  }
  return b;
}

std::unique_ptr<RowBatch> spare() {
  auto b = std::make_unique<RowBatch>();
  b->table_slot("t", "t", TopicId("A"));
  return b;
}

Position at(int64_t next) { return {"t", TopicId("A"), Partition(0), Offset(next)}; }

class Fenced : public ::testing::Test {
 protected:
  MemoryWarehouse w;
  Committer c{w, w, "s", BatchWriter::WriteMode::append, false, std::chrono::seconds(10), spare()};
};

TEST_F(Fenced, BatchesMovePositionsFromWhereTheLastOneLeftThem) {
  c.expect(TopicId("A"), Partition(0), std::nullopt, Offset(0));
  auto b = batch_of(10);
  c.submit(b, {at(10)});
  *b = std::move(*batch_of(5));
  c.submit(b, {at(15)});
  c.drain();
  EXPECT_EQ(w.commits, 2);
  EXPECT_EQ(w.rows, 15);
  EXPECT_EQ(w.stored.at({TopicId("A"), Partition(0)}), Offset(15));
}

TEST_F(Fenced, LostAcknowledgementIsNotWrittenTwice) {
  w.stored[{TopicId("A"), Partition(0)}] = Offset(100);
  c.expect(TopicId("A"), Partition(0), Offset(100), Offset(100));
  w.next_fault = MemoryWarehouse::Fault::lost_acknowledgement;
  auto b = batch_of(7);
  c.submit(b, {at(107)});
  c.drain();
  EXPECT_EQ(w.commits, 1);
  EXPECT_EQ(w.rows, 7);
  EXPECT_EQ(c.committed_rows(), 7);
  EXPECT_EQ(w.stored.at({TopicId("A"), Partition(0)}), Offset(107));
}

TEST_F(Fenced, FailureBeforeTheCommitIsRetried) {
  c.expect(TopicId("A"), Partition(0), std::nullopt, Offset(0));
  w.next_fault = MemoryWarehouse::Fault::failed_before_commit;
  auto b = batch_of(3);
  c.submit(b, {at(3)});
  c.drain();
  EXPECT_EQ(w.commits, 1);
  EXPECT_EQ(w.rows, 3);
  EXPECT_EQ(c.retries(), 1);
}

TEST_F(Fenced, APartitionTakenByAnotherWorkerStopsTheSyncAndWritesNothing) {
  w.stored[{TopicId("A"), Partition(0)}] = Offset(10);
  const std::vector<PartitionKey> key = {{"t", TopicId("A"), Partition(0)}};
  const auto mine = w.take("s", key);
  c.expect(TopicId("A"), Partition(0), mine[0].position, Offset(10), mine[0].epoch);
  auto b = batch_of(5);
  c.submit(b, {at(15)});
  c.drain();
  w.take("s", key);  // another worker: the later take wins
  auto stale = batch_of(5);
  c.submit(stale, {at(20)});
  try {
    c.drain();
    ADD_FAILURE() << "a batch fenced on a lost epoch was written";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("taken by another worker"));
    EXPECT_THAT(e.what(), HasSubstr("nothing of this batch was written"));
    // A conflict naming the partition: a worker drops that partition and goes on.
    EXPECT_EQ(e.error_class(), ErrorClass::conflict);
    ASSERT_TRUE(e.source().partition.has_value());
    EXPECT_EQ(*e.source().partition, Partition(0));
  }
  EXPECT_EQ(w.rows, 5);
  EXPECT_EQ(w.stored.at({TopicId("A"), Partition(0)}), Offset(15));
}

TEST_F(Fenced, PositionsMovedBySomeoneElseStopTheSync) {
  w.stored[{TopicId("A"), Partition(0)}] = Offset(10);
  c.expect(TopicId("A"), Partition(0), Offset(10), Offset(10));
  w.next_fault = MemoryWarehouse::Fault::moved_by_someone_else;
  auto b = batch_of(4);
  c.submit(b, {at(14)});
  try {
    c.drain();
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.error_class(), ErrorClass::fatal_run);
    EXPECT_THAT(e.what(), HasSubstr("were moved by someone else"));
  }
  EXPECT_EQ(w.rows, 0);
}

TEST(FencedResync, PositionsNeverMoveBelowTheFloor) {
  MemoryWarehouse w;
  w.stored[{TopicId("A"), Partition(0)}] = Offset(50);
  Committer c(w, w, "s", BatchWriter::WriteMode::merge, false, std::chrono::seconds(10), spare());
  c.expect(TopicId("A"), Partition(0), Offset(50), Offset(50));
  auto b = batch_of(20);
  c.submit(b, {at(20)});  // re-read up to 20: the stored position stays at 50
  *b = std::move(*batch_of(40));
  c.submit(b, {at(60)});
  c.drain();
  EXPECT_EQ(w.commits, 2);
  EXPECT_EQ(w.stored.at({TopicId("A"), Partition(0)}), Offset(60));
}

// Staged: batches move no position; publish moves the whole run's, fenced from the first
// batch's start to the last batch's end.
class Staged : public ::testing::Test {
 protected:
  MemoryWarehouse w;
  Committer c{w, w, "s", BatchWriter::WriteMode::append, true, std::chrono::seconds(10), spare()};
};

TEST_F(Staged, BatchesMoveNoPositionUntilPublished) {
  w.stored[{TopicId("A"), Partition(0)}] = Offset(100);
  c.expect(TopicId("A"), Partition(0), Offset(100), Offset(100));
  auto b = batch_of(10);
  c.submit(b, {at(110)});
  *b = std::move(*batch_of(5));
  c.submit(b, {at(115)});
  c.drain();
  EXPECT_EQ(w.staged, 15);
  EXPECT_EQ(w.rows, 0);
  EXPECT_EQ(w.stored.at({TopicId("A"), Partition(0)}), Offset(100));
  EXPECT_EQ(c.position(TopicId("A"), Partition(0)), Offset(115));
  c.publish({"t"});
  EXPECT_EQ(w.rows, 15);
  EXPECT_EQ(w.staged, 0);
  EXPECT_EQ(w.stored.at({TopicId("A"), Partition(0)}), Offset(115));
}

TEST_F(Staged, DiscardLeavesRowsAndPositionsAsTheyWere) {
  c.expect(TopicId("A"), Partition(0), std::nullopt, Offset(0));
  auto b = batch_of(8);
  c.submit(b, {at(8)});
  c.drain();
  c.discard({"t"});
  EXPECT_EQ(w.rows, 0);
  EXPECT_EQ(w.staged, 0);
  EXPECT_TRUE(w.stored.empty());
  EXPECT_EQ(c.committed_rows(), 0);
}

TEST_F(Staged, LostAcknowledgementOfAStagedBatchReplacesItsCopy) {
  c.expect(TopicId("A"), Partition(0), std::nullopt, Offset(0));
  w.next_fault = MemoryWarehouse::Fault::lost_acknowledgement;
  auto b = batch_of(6);
  c.submit(b, {at(6)});
  c.drain();
  EXPECT_EQ(w.staged, 6);
  EXPECT_EQ(w.stage_replacements, 1);
}

TEST_F(Staged, LostAcknowledgementOfThePublishIsNotPublishedTwice) {
  c.expect(TopicId("A"), Partition(0), std::nullopt, Offset(0));
  auto b = batch_of(9);
  c.submit(b, {at(9)});
  c.drain();
  w.next_fault = MemoryWarehouse::Fault::lost_acknowledgement;
  c.publish({"t"});
  EXPECT_EQ(w.rows, 9);
  EXPECT_EQ(w.stored.at({TopicId("A"), Partition(0)}), Offset(9));
}

TEST_F(Staged, PositionsMovedBySomeoneElsePublishNothing) {
  w.stored[{TopicId("A"), Partition(0)}] = Offset(10);
  c.expect(TopicId("A"), Partition(0), Offset(10), Offset(10));
  auto b = batch_of(4);
  c.submit(b, {at(14)});
  c.drain();
  w.next_fault = MemoryWarehouse::Fault::moved_by_someone_else;
  EXPECT_THROW(c.publish({"t"}), Error);
  EXPECT_EQ(w.rows, 0);
}

}  // namespace
}  // namespace krow
