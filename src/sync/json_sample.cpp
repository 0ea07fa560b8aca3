#include "sync/json_sample.hpp"

#include "sync/partition_reader.hpp"

namespace krow {

namespace {

class Collect final : public PartitionReader::Handler {
 public:
  Collect(std::vector<std::string>& out, size_t max) : out_(out), max_(max) {}
  void on_message(size_t, const kafka::Message& m) override {
    if (out_.size() >= max_ || !m.has_value()) return;
    const auto* p = static_cast<const char*>(m.value());
    size_t i = 0, n = m.value_size();
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n')) ++i;
    if (i < n && p[i] == '{') out_.emplace_back(p, n);  // an object, or no JSON at all: inference parses it
  }
  // A topic that cannot be read is reported by the run itself, which reads it next.
  void on_topic_stopped(size_t, const std::string&) override {}
  void on_topic_replaced(size_t, const std::string&) override {}
  void on_gap(size_t, const Gap&) override {}

 private:
  std::vector<std::string>& out_;
  size_t max_;
};

}  // namespace

std::vector<std::string> sample_json_values(const SourceConfig& source, const TopicPlan& topic, size_t max,
                                            std::chrono::seconds retry_timeout) {
  std::vector<std::string> out;
  std::vector<ReadStart> starts;
  for (const auto& p : topic.partitions) {
    if (p.to_read() <= 0) continue;
    ReadStart r;
    r.start = Position{topic.topic, topic.topic_id, p.partition, p.start};
    r.boundary = p.boundary;
    starts.push_back(std::move(r));
  }
  if (starts.empty() || max == 0) return out;
  PartitionReader reader(source, false, std::move(starts), retry_timeout);
  Collect collect(out, max);
  while (reader.active() > 0 && out.size() < max) reader.poll(collect);
  return out;
}

}  // namespace krow
