// A sync's reading as a session over a set of partitions that grows and shrinks while it
// reads (sync/session), in process, against the real broker and a real DuckDB file: what
// workers sharing a sync will stand on. Partitions assigned mid-run are read from their
// start; a revoked one is committed up to where it was read before it goes; a lost one's
// rows in hand are dropped and another reader takes it from its stored position; a session
// that never ends picks up messages produced while it runs. Each time, the table finally
// holds every message exactly once, checked against an independent consumer.

#include "sync/session.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>

#include "engines/engines.hpp"
#include "kafka/client.hpp"
#include "kafka/cluster.hpp"
#include "manifest/manifest.hpp"
#include "sync/committer.hpp"
#include "sync/row_builder.hpp"
#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

class SessionTest : public SyncTest, public Session::Listener {
 protected:
  // A topic of `partitions` partitions holding `per_partition` messages each, and the
  // warehouse with its table, opened for writing in this process.
  void set_up(int partitions, int per_partition, int64_t batch_messages) {
    topic_ = make_topic("session", partitions);
    Producer p(bootstrap_);
    for (int part = 0; part < partitions; ++part)
      for (int i = 0; i < per_partition; ++i)
        p.send(topic_,
               Record{"k" + std::to_string(i),
                      R"({"p":)" + std::to_string(part) + R"(,"i":)" + std::to_string(i) + "}",
                      {},
                      part});
    p.flush();
    manifest_ = load_manifest(write_manifest({topic_}));
    manifest_.batch.max_messages = batch_messages;
    kafka::Client client(manifest_.source, {});
    client.check_connection(std::chrono::seconds(30));
    topic_id_ = kafka::Cluster(client).describe({topic_}).at(0).topic_id;
    warehouse_ = open_warehouse(manifest_.warehouse, manifest_.name, OpenMode::write);
    warehouse_->create_table(manifest_.name, topic_, table_of(topic_), {},
                             BatchWriter::Creation::now);
  }

  // A committer and a session reading into table slot 0.
  void start(Session::End end) {
    batch_ = std::make_unique<RowBatch>();
    auto spare = std::make_unique<RowBatch>();
    batch_->table_slot(table_of(topic_), topic_, topic_id_);
    spare->table_slot(table_of(topic_), topic_, topic_id_);
    committer_ = std::make_unique<Committer>(*warehouse_, *warehouse_, manifest_.name,
                                             BatchWriter::WriteMode::append, false,
                                             std::chrono::seconds(30), std::move(spare));
    session_ = std::make_unique<Session>(manifest_.source, manifest_.batch, rows_, *committer_,
                                         batch_, std::vector<size_t>{0}, end, false,
                                         std::chrono::seconds(30), *this);
  }
  void stop() {
    session_.reset();
    committer_.reset();
  }

  // Partition `p` read from `from` (its stored position) up to `boundary`.
  Session::Assignment partition(int32_t p, int64_t from, int64_t boundary) {
    Session::Assignment a;
    a.read.topic = 0;
    a.read.start = Position{topic_, topic_id_, Partition(p), Offset(from)};
    a.read.boundary = Offset(boundary);
    if (from > 0) a.stored = Offset(from);
    a.floor = Offset(from);
    return a;
  }

  // Polls until `done` or 60 s; false on the time-out.
  template <class Done>
  bool poll_until(Done&& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      session_->poll();
    }
    return true;
  }

  // Polls until the session ends (every partition at its boundary) or 60 s; false on the
  // time-out.
  bool read_to_end() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (session_->poll())
      if (std::chrono::steady_clock::now() > deadline) return false;
    return true;
  }

  // The committed position of partition `p` (-1: none), as krow's state holds it.
  int64_t stored(int32_t p) {
    for (const auto& pos : warehouse_->positions(manifest_.name))
      if (pos.partition.value() == p) return pos.next.value();
    return -1;
  }

  void on_row(size_t, const kafka::Message& m, const Row&) override {
    ++read_[m.partition().value()];
  }
  void on_rows_dropped(size_t, const std::vector<Row>& rows) override {
    for (const auto& r : rows) ++dropped_[r.partition.value()];
  }
  void on_topic_stopped(size_t, const std::string& error) override { ADD_FAILURE() << error; }
  void on_topic_replaced(size_t, const std::string& error) override { ADD_FAILURE() << error; }
  void on_gap(size_t, const Gap& gap) override { ADD_FAILURE() << gap.reason; }

  std::string topic_;
  TopicId topic_id_;
  Manifest manifest_;
  std::unique_ptr<Warehouse> warehouse_;
  RowBuilder rows_{DecoderOptions{8u << 20}, nullptr};
  std::unique_ptr<RowBatch> batch_;
  std::unique_ptr<Committer> committer_;
  std::unique_ptr<Session> session_;
  std::map<int32_t, int64_t> read_, dropped_;  // rows by partition
};

TEST_F(SessionTest, PartitionsAssignedAndRevokedWhileReadingAreEachStoredOnce) {
  set_up(3, 300, 50);
  start(Session::End::at_boundaries);
  session_->assign({partition(0, 0, 300), partition(1, 0, 300)});
  ASSERT_TRUE(poll_until([&] { return read_[1] >= 80; }));
  // Revoked: what was read of partition 1 is committed before it goes, and no more is read.
  session_->revoke({{topic_, Partition(1)}});
  const int64_t p1 = stored(1);
  EXPECT_EQ(p1, read_[1]);
  EXPECT_GE(p1, 80);
  // Assigned while reading: partition 2 from its start.
  session_->assign({partition(2, 0, 300)});
  ASSERT_TRUE(read_to_end());
  session_->drain();
  EXPECT_EQ(read_[1], p1);
  EXPECT_EQ(stored(0), 300);
  EXPECT_EQ(stored(1), p1);
  EXPECT_EQ(stored(2), 300);
  stop();
  // Another reader takes partition 1 from where it was committed.
  start(Session::End::at_boundaries);
  session_->assign({partition(1, p1, 300)});
  ASSERT_TRUE(read_to_end());
  session_->drain();
  stop();
  warehouse_.reset();
  expect_every_message_once(topic_, 900);
}

TEST_F(SessionTest, ALostPartitionsRowsInHandAreDroppedAndItsNextReaderStartsFromItsPosition) {
  set_up(1, 200, 100000);  // no batch is handed over while reading
  start(Session::End::at_boundaries);
  session_->assign({partition(0, 0, 200)});
  ASSERT_TRUE(poll_until([&] { return read_[0] >= 50; }));
  session_->lose({{topic_, Partition(0)}});
  session_->drain();
  EXPECT_EQ(dropped_[0], read_[0]);
  EXPECT_EQ(stored(0), -1);  // nothing of it was committed
  stop();
  start(Session::End::at_boundaries);
  session_->assign({partition(0, 0, 200)});
  ASSERT_TRUE(read_to_end());
  session_->drain();
  stop();
  warehouse_.reset();
  expect_every_message_once(topic_, 200);
}

TEST_F(SessionTest, ASessionThatNeverEndsReadsWhatIsProducedWhileItRuns) {
  set_up(2, 100, 40);
  start(Session::End::never);
  session_->assign({partition(0, 0, 100), partition(1, 0, 100)});  // boundaries do not end it
  ASSERT_TRUE(poll_until([&] { return read_[0] + read_[1] >= 200; }));
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(session_->poll());  // caught up, and still going
  Producer p(bootstrap_);
  for (int i = 0; i < 50; ++i)
    p.send(topic_, Record{"later", R"({"later":)" + std::to_string(i) + "}", {}, i % 2});
  p.flush();
  ASSERT_TRUE(poll_until([&] { return read_[0] + read_[1] >= 250; }));
  session_->drain();
  EXPECT_EQ(stored(0) + stored(1), 250);
  stop();
  warehouse_.reset();
  expect_every_message_once(topic_, 250);
}

}  // namespace
}  // namespace krow::testkit
