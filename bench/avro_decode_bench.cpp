// Avro decoder throughput: one realistic ~350-byte order event (nested records, strings,
// longs, decimals, a timestamp, an array of records, a map, nullable unions) decoded to
// JSON again and again into a reused buffer, as the sync's batch arena does.
//
//   cmake --build build/avro --target bench-avro-decode
//   build/avro/bench/bench-avro-decode
//
// Reports records/s (items_per_second) and payload bytes/s (bytes_per_second).

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "codec/schema_decoder.hpp"

namespace {

constexpr std::string_view kSchema = R"({
  "type": "record", "name": "OrderEvent", "namespace": "com.acme.orders",
  "fields": [
    {"name": "event_id", "type": {"type": "string", "logicalType": "uuid"}},
    {"name": "order_id", "type": "long"},
    {"name": "created_at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "PAID", "SHIPPED", "CANCELLED"]}},
    {"name": "customer", "type": {"type": "record", "name": "Customer", "fields": [
      {"name": "id", "type": "long"},
      {"name": "name", "type": "string"},
      {"name": "email", "type": "string"},
      {"name": "address", "type": {"type": "record", "name": "Address", "fields": [
        {"name": "street", "type": "string"},
        {"name": "city", "type": "string"},
        {"name": "zip", "type": "string"},
        {"name": "country", "type": "string"}]}}]}},
    {"name": "total", "type": {"type": "bytes", "logicalType": "decimal", "precision": 12, "scale": 2}},
    {"name": "currency", "type": "string"},
    {"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line", "fields": [
      {"name": "sku", "type": "string"},
      {"name": "quantity", "type": "int"},
      {"name": "unit_price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}}]}}},
    {"name": "attributes", "type": {"type": "map", "values": "string"}},
    {"name": "coupon", "type": ["null", "string"]},
    {"name": "gift_message", "type": ["null", "string"]},
    {"name": "weight_kg", "type": "double"}
  ]})";

class Bytes {
 public:
  Bytes& lng(int64_t v) {
    uint64_t u = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
    while (u >= 0x80) {
      data_.push_back(static_cast<char>((u & 0x7f) | 0x80));
      u >>= 7;
    }
    data_.push_back(static_cast<char>(u));
    return *this;
  }
  Bytes& str(std::string_view s) {
    lng(static_cast<int64_t>(s.size()));
    data_.append(s);
    return *this;
  }
  Bytes& raw(std::string_view s) {
    data_.append(s);
    return *this;
  }
  const std::string& data() const { return data_; }

 private:
  std::string data_;
};

std::string message() {
  return Bytes()
      .str("5f0c0b2e-8a7b-4c1e-9a43-0d2e6f1b7c11")
      .lng(9876543210)
      .lng(1767225600123)
      .lng(1)
      .lng(123456789)
      .str("Ann-Sophie Müller")
      .str("ann.mueller@example.com")
      .str("12 Rue de la République")
      .str("Lyon")
      .str("69002")
      .str("FR")
      .str(std::string("\x01\xe2\x3a", 3))  // 123450 → "1234.50"
      .str("EUR")
      .lng(3)
      .str("SKU-100234").lng(2).str(std::string("\x0f\x9f", 2))
      .str("SKU-200871").lng(1).str(std::string("\x75\x30", 2))
      .str("SKU-300017").lng(5).str(std::string("\x00\xc3\x50", 3))
      .lng(0)
      .lng(3)
      .str("channel").str("web")
      .str("campaign").str("spring-sale-2026")
      .str("referrer").str("https://www.example.com/landing?utm_source=news")
      .lng(0)
      .lng(1).str("WELCOME10")
      .lng(1).str("Happy birthday! Enjoy it - love, Tom")
      .raw(std::string("\x9a\x99\x99\x99\x99\x99\xf9\x3f", 8))  // 1.6
      .data();
}

std::unique_ptr<krow::SchemaDecoder> compile(bool tagged) {
  krow::ResolvedSchema schema;
  schema.text = std::string(kSchema);
  return krow::compile_avro(schema, krow::DecodeOptions{tagged});
}

void run(benchmark::State& state, bool tagged) {
  const auto decoder = compile(tagged);
  const std::string payload = message();
  const auto* data = reinterpret_cast<const uint8_t*>(payload.data());
  std::string out;
  std::string error;
  if (!decoder->decode(data, payload.size(), out, error)) {
    std::fprintf(stderr, "benchmark message does not decode: %s\n", error.c_str());
    std::abort();
  }
  state.counters["payload_bytes"] = static_cast<double>(payload.size());
  state.counters["json_bytes"] = static_cast<double>(out.size());
  for (auto _ : state) {
    out.clear();
    const bool ok = decoder->decode(data, payload.size(), out, error);
    benchmark::DoNotOptimize(ok);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(payload.size()));
}

void BM_AvroDecodeOrderEvent(benchmark::State& state) { run(state, false); }
void BM_AvroDecodeOrderEventTagged(benchmark::State& state) { run(state, true); }

void BM_AvroCompileSchema(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(compile(false));
}

}  // namespace

BENCHMARK(BM_AvroDecodeOrderEvent);
BENCHMARK(BM_AvroDecodeOrderEventTagged);
BENCHMARK(BM_AvroCompileSchema);

BENCHMARK_MAIN();
