// Protobuf decoding throughput: a realistic ~350-byte order event (nested message, strings,
// int64s, a Timestamp, a repeated message, a map, an enum) through compile_protobuf's
// decoder; its reference road, protobuf's own parse and MessageToJsonString for scale; and
// the decoder's two stages alone.
//
//   cmake --build build/proto --target bench-protobuf-decode
//   build/proto/bench/bench-protobuf-decode --benchmark_min_time=2

#include <benchmark/benchmark.h>
#include <google/protobuf/arena.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "codec/protobuf/message_plan.hpp"
#include "codec/protobuf/protobuf_decoder.hpp"
#include "codec/protobuf/schema_pool.hpp"
#include "codec/protobuf/wire_check.hpp"
#include "codec/protobuf/wire_printer.hpp"
#include "codec/schema_decoder.hpp"

namespace {

namespace gpb = google::protobuf;

constexpr const char* kSchema = R"proto(
syntax = "proto3";
package shop.v1;

import "google/protobuf/timestamp.proto";

message Order {
  enum Status { STATUS_UNSPECIFIED = 0; PLACED = 1; PAID = 2; SHIPPED = 3; }
  message Address {
    string street = 1;
    string city = 2;
    string postal_code = 3;
    string country = 4;
  }
  message LineItem {
    string sku = 1;
    string title = 2;
    int32 quantity = 3;
    int64 unit_price_cents = 4;
  }
  string order_id = 1;
  int64 customer_id = 2;
  Status status = 3;
  google.protobuf.Timestamp created_at = 4;
  Address shipping_address = 5;
  repeated LineItem items = 6;
  map<string, string> attributes = 7;
  int64 total_cents = 8;
  string currency = 9;
  repeated string tags = 10;
  bool gift = 11;
  double weight_kg = 12;
}
)proto";

constexpr const char* kOrder = R"txt(
order_id: "ord-2024-11-05-000183746"
customer_id: 918273645501
status: PAID
created_at { seconds: 1730803261 nanos: 482000000 }
shipping_address { street: "1600 Amphitheatre Parkway" city: "Mountain View" postal_code: "94043" country: "US" }
items { sku: "SKU-AX-1001" title: "Wireless noise-cancelling headphones" quantity: 1 unit_price_cents: 29999 }
items { sku: "SKU-CB-2040" title: "USB-C charging cable, braided, 2 m" quantity: 3 unit_price_cents: 1299 }
items { sku: "SKU-GW-0007" title: "Gift wrap" quantity: 1 unit_price_cents: 499 }
attributes { key: "channel" value: "mobile-app" }
attributes { key: "campaign" value: "black-friday-early" }
attributes { key: "warehouse" value: "SJC-3" }
total_cents: 34395
currency: "USD"
tags: "priority"
tags: "gift"
gift: true
weight_kg: 0.85
)txt";

struct Fixture {
  krow::ResolvedSchema schema;
  std::unique_ptr<krow::SchemaDecoder> decoder;
  std::unique_ptr<krow::pb::SchemaPool> pool;  // for protobuf's own parse and JSON printer
  gpb::DynamicMessageFactory factory;
  const gpb::Message* prototype = nullptr;
  std::string wire;     // the serialized Order
  std::string payload;  // message-index list + wire data, as decode() receives it

  Fixture() {
    schema.type = krow::SchemaType::protobuf;
    schema.id = 1;
    schema.text = kSchema;
    decoder = krow::compile_protobuf(schema, {});
    pool = std::make_unique<krow::pb::SchemaPool>(schema);
    prototype = factory.GetPrototype(pool->root().message_type(0));
    std::unique_ptr<gpb::Message> order(prototype->New());
    if (!gpb::TextFormat::ParseFromString(kOrder, order.get())) throw std::runtime_error("bad sample order");
    order->SerializeToString(&wire);
    payload = std::string(1, '\0') + wire;
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

// The decoder as the sync uses it: message-index list, wire check, JSON from the bytes.
void BM_KrowDecode(benchmark::State& state) {
  Fixture& f = fixture();
  std::string out, error;
  const auto* data = reinterpret_cast<const uint8_t*>(f.payload.data());
  for (auto _ : state) {
    out.clear();
    if (!f.decoder->decode(data, f.payload.size(), out, error)) state.SkipWithError(error.c_str());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(f.payload.size()));
  state.counters["payload_bytes"] = static_cast<double>(f.payload.size());
  state.counters["json_bytes"] = static_cast<double>(out.size());
}
BENCHMARK(BM_KrowDecode);

// The decoder's reference road: protobuf's DynamicMessage, then JSON through Reflection.
void BM_KrowDecodeReference(benchmark::State& state) {
  Fixture& f = fixture();
  const auto& decoder = static_cast<const krow::pb::ProtobufDecoder&>(*f.decoder);
  std::string out, error;
  const auto* data = reinterpret_cast<const uint8_t*>(f.payload.data());
  for (auto _ : state) {
    out.clear();
    if (!decoder.decode_reference(data, f.payload.size(), out, error)) state.SkipWithError(error.c_str());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(f.payload.size()));
}
BENCHMARK(BM_KrowDecodeReference);

// protobuf's DynamicMessage parse alone, on an arena: what any DynamicMessage-based
// decoder pays before printing anything.
void BM_ProtobufParseOnly(benchmark::State& state) {
  Fixture& f = fixture();
  for (auto _ : state) {
    gpb::Arena arena;
    gpb::Message* m = f.prototype->New(&arena);
    benchmark::DoNotOptimize(m->ParsePartialFromString(f.wire));
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(f.wire.size()));
}
BENCHMARK(BM_ProtobufParseOnly);

// Parse plus protobuf's own JSON printer with the options krow's row contract (docs/row-contract.md) calls for.
void BM_ProtobufMessageToJsonString(benchmark::State& state) {
  Fixture& f = fixture();
  gpb::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string out;
  for (auto _ : state) {
    gpb::Arena arena;
    gpb::Message* m = f.prototype->New(&arena);
    m->ParsePartialFromString(f.wire);
    out.clear();
    benchmark::DoNotOptimize(gpb::util::MessageToJsonString(*m, &out, options).ok());
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(f.wire.size()));
}
BENCHMARK(BM_ProtobufMessageToJsonString);

// The decoder's stages one by one, on the same message.
void BM_StageWireCheck(benchmark::State& state) {
  Fixture& f = fixture();
  krow::pb::MessagePlans plans(f.pool->pool(), f.pool->root(), f.factory);
  std::string error;
  for (auto _ : state) {
    benchmark::DoNotOptimize(krow::pb::check_wire(plans, *plans.top()[0], reinterpret_cast<const uint8_t*>(f.wire.data()),
                                                  f.wire.size(), 0, 0, error));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_StageWireCheck);

void BM_StageWirePrint(benchmark::State& state) {
  Fixture& f = fixture();
  krow::pb::MessagePlans plans(f.pool->pool(), f.pool->root(), f.factory);
  krow::pb::WireScratch scratch;
  std::string out, error;
  for (auto _ : state) {
    out.clear();
    krow::pb::WirePrinter printer(plans, scratch, out, error);
    benchmark::DoNotOptimize(printer.print(reinterpret_cast<const uint8_t*>(f.wire.data()), f.wire.size(), *plans.top()[0]));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_StageWirePrint);

}  // namespace

BENCHMARK_MAIN();
