// Typed columns' extraction throughput (rows/typed_values): one ~420-byte decoded order event
// (the JSON the Avro decoder writes for bench/avro_decode_bench's record) read into its 18
// flattened typed columns again and again, into a reused arena, as the row builder does.
//
//   cmake --build build/release --target bench-typed-values
//   build/release/bench/bench-typed-values
//
// Reports rows/s (items_per_second) and value bytes/s (bytes_per_second).

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "rows/typed_values.hpp"

namespace {

using krow::ColumnType;
using krow::columns::ColumnSpec;

constexpr std::string_view kValue =
    R"({"event_id":"1b4e28ba-2fa1-11d2-883f-0016d3cca427","order_id":"9007199254740993",)"
    R"("created_at":"2024-02-29T12:34:56.789Z","status":"PAID","customer":{"id":"4711","name":"Zoë Müller",)"
    R"("email":"zoe@example.com","address":{"street":"Hauptstraße 1","city":"Köln","zip":"50667",)"
    R"("country":"DE"}},"total":"1234.50","currency":"EUR","lines":[{"sku":"A-1","quantity":2,)"
    R"("unit_price":"10.00"},{"sku":"B-22","quantity":1,"unit_price":"1214.50"}],)"
    R"("attributes":{"channel":"web","campaign":"spring"},"coupon":null,"gift_message":"Happy birthday!",)"
    R"("weight_kg":1.25})";

ColumnSpec col(std::vector<std::string> path, ColumnType type, int32_t precision = 0,
               int32_t scale = 0) {
  ColumnSpec c;
  for (const auto& p : path) c.name += (c.name.empty() ? "" : "__") + p;
  c.path = std::move(path);
  c.type = type;
  c.precision = precision;
  c.scale = scale;
  return c;
}

void BM_ExtractTypedColumns(benchmark::State& state) {
  const krow::rows::TypedLayout layout(std::vector<ColumnSpec>{
      col({"event_id"}, ColumnType::text),
      col({"order_id"}, ColumnType::int64),
      col({"created_at"}, ColumnType::timestamp),
      col({"status"}, ColumnType::text),
      col({"customer", "id"}, ColumnType::int64),
      col({"customer", "name"}, ColumnType::text),
      col({"customer", "email"}, ColumnType::text),
      col({"customer", "address", "street"}, ColumnType::text),
      col({"customer", "address", "city"}, ColumnType::text),
      col({"customer", "address", "zip"}, ColumnType::text),
      col({"customer", "address", "country"}, ColumnType::text),
      col({"total"}, ColumnType::decimal, 12, 2),
      col({"currency"}, ColumnType::text),
      col({"lines"}, ColumnType::json),
      col({"attributes"}, ColumnType::json),
      col({"coupon"}, ColumnType::text),
      col({"gift_message"}, ColumnType::text),
      col({"weight_kg"}, ColumnType::float64),
  });
  krow::rows::TypedExtractor extractor;
  std::vector<krow::rows::TypedCell> cells(layout.columns.size());
  std::string arena, notes;
  for (auto _ : state) {
    arena.clear();
    notes.clear();
    extractor.extract(kValue, layout, cells.data(), arena, notes);
    benchmark::DoNotOptimize(cells.data());
  }
  if (!notes.empty()) state.SkipWithError(notes.c_str());
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(kValue.size()));
}
BENCHMARK(BM_ExtractTypedColumns);

}  // namespace

BENCHMARK_MAIN();
