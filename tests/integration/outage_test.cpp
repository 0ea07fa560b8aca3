// The broker stopped in the middle of a sync and started again: the sync rides it out and
// completes, with nothing lost and nothing duplicated.

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "sync_fixture.hpp"

namespace krow::testkit {
namespace {

class Outage : public SyncTest {
 protected:
  static int kafka_script(const std::string& command) {
    return std::system(("bash " + source_dir() + "/scripts/kafka.sh " + command + " >/dev/null 2>&1").c_str());
  }
};

TEST_F(Outage, BrokerStoppedMidSyncAndRestarted) {
  const auto topic = make_topic("outage", 3);
  Producer p(bootstrap_, {}, {{"linger.ms", "20"}});
  const int total = 400000;
  for (int i = 0; i < total; ++i)
    p.send(topic, Record{"k" + std::to_string(i % 1000), "{\"n\": " + std::to_string(i) + ", \"pad\": \"" +
                                                               std::string(200, 'o') + "\"}"});
  p.flush();
  const auto manifest = write_manifest({topic}, "batch:\n  max_messages: 5000\n");

  const pid_t pid = start_krow({"sync", manifest, "-v"});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_EQ(kafka_script("stop"), 0);
  int status = 0;
  const bool running_during_outage = waitpid(pid, &status, WNOHANG) == 0;
  std::this_thread::sleep_for(std::chrono::seconds(2));
  ASSERT_EQ(kafka_script("start"), 0);
  // Give krow up to three minutes to finish after the broker is back.
  const bool exited = !running_during_outage || finishes(pid, std::chrono::seconds(180), status);
  ASSERT_TRUE(running_during_outage) << "the sync ended before the broker stopped; the outage was not exercised";
  ASSERT_TRUE(exited) << "the sync did not finish after the broker came back";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;

  admin_.wait_for_topic(topic, 3);
  EXPECT_EQ(probe().count(table_of(topic)), total);
  EXPECT_EQ(probe().distinct_ids(table_of(topic)), total);
  const auto oracle = consume_all(bootstrap_, topic);
  ASSERT_EQ(oracle.size(), static_cast<size_t>(total));
  EXPECT_EQ(differences(probe().rows(table_of(topic)), oracle), 0u);
}

}  // namespace
}  // namespace krow::testkit
