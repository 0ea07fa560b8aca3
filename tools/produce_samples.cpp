// krow-demo-produce: creates a few sample topics on a local broker for the README's demo:
// JSON events with keys and headers, plain text, binary values (including a Java Long),
// a keyed topic with a tombstone, and a committed and an aborted transaction.
// Usage: krow-demo-produce [BOOTSTRAP]   (default 127.0.0.1:9092). Idempotent: topics that
// already hold messages are left alone.

#include <cstdio>
#include <exception>
#include <string>

#include "kafka_testkit.hpp"

using krow::testkit::Record;

int main(int argc, char** argv) {
  const std::string bootstrap = argc > 1 ? argv[1] : "127.0.0.1:9092";
  try {
    krow::testkit::Admin admin(bootstrap);
    krow::testkit::Producer producer(bootstrap);
    const std::string orders = "demo.orders", notes = "demo.notes", blobs = "demo.blobs", users = "demo.users";
    bool created = false;
    for (const auto& t : {orders, notes, blobs, users}) created |= admin.create_topic(t, t == orders ? 3 : 1);
    if (!created) {
      std::printf("sample topics already exist; nothing produced\n");
      return 0;
    }
    for (int i = 0; i < 30; ++i) {
      Record r;
      r.key = "customer-" + std::to_string(i % 7);
      r.value = "{\"order_id\": " + std::to_string(1000 + i) + ", \"amount\": " + std::to_string(10 + i) +
                ".5, \"currency\": \"EUR\", \"items\": [\"book\", \"pen\"]}";
      r.headers = {{"source", std::string("web")}, {"trace", std::string("\xff\x00\x01", 3)}};
      producer.send(orders, r);
    }
    for (const char* text : {"hello, krow", "plain text is stored as a JSON string", ""}) {
      Record r;
      r.value = text;
      producer.send(notes, r);
    }
    Record java_long;
    java_long.key = std::string("\x00\x00\x00\x00\x00\x00\x00\x2a", 8);
    java_long.value = std::string("\x00\x00\x00\x00\x00\x00\x01\x00", 8);
    producer.send(blobs, java_long);
    Record png;
    png.value = std::string("\x89PNG\r\n\x1a\n\x00\x00", 10);
    producer.send(blobs, png);
    Record alice{std::string("alice"), std::string("{\"name\": \"Alice\", \"plan\": \"pro\"}")};
    Record bob{std::string("bob"), std::string("{\"name\": \"Bob\", \"plan\": \"free\"}")};
    Record bob_gone{std::string("bob"), std::nullopt};
    producer.send(users, alice);
    producer.send(users, bob);
    producer.send(users, bob_gone);
    producer.flush();

    krow::testkit::Producer tx(bootstrap, "krow-demo-tx");
    tx.begin();
    tx.send(orders, Record{std::string("tx"), std::string("{\"order_id\": 9001, \"note\": \"committed\"}")});
    tx.commit();
    tx.begin();
    tx.send(orders, Record{std::string("tx"), std::string("{\"order_id\": 9002, \"note\": \"aborted: never synced\"}")});
    tx.abort();
    std::printf("produced sample topics: %s, %s, %s, %s\n", orders.c_str(), notes.c_str(), blobs.c_str(), users.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "krow-demo-produce: %s\n", e.what());
    return 1;
  }
  return 0;
}
