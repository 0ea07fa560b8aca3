// decode() against decode_reference() (codec/protobuf): the fast road prints JSON straight
// from the wire bytes, the reference road parses with protobuf's DynamicMessage and prints
// through Reflection. Thousands of pseudo-random messages (fixed seeds, so failures
// reproduce) over a schema with every field shape, then the same bytes merged, re-encoded
// packed/unpacked, read with closed enums, truncated and corrupted: both roads must agree
// on success and, when they succeed, on every byte of the JSON.

#include <gtest/gtest.h>
#include <google/protobuf/dynamic_message.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "codec/protobuf/protobuf_decoder.hpp"
#include "codec/protobuf/schema_pool.hpp"

namespace krow {
namespace {

namespace gpb = google::protobuf;

constexpr const char* kLegacy = R"proto(
syntax = "proto2";
package diff2;
enum Kind { Z = 0; A = 1; B = 2; C = 5; }
message Legacy {
  optional int32 i = 1 [default = -7];
  optional string s = 2 [default = "dflt"];
  optional Kind k = 3 [default = C];
  repeated Kind ks = 4;
  repeated Kind ks_packed = 5 [packed = true];
  optional bytes by = 6 [default = "\001\377"];
  optional Legacy child = 7;
  repeated group G = 8 {
    optional int32 gi = 9;
    optional string gs = 10;
  }
  optional float f = 11 [default = inf];
  optional double d = 12 [default = -1.5];
  map<int32, Kind> mk = 13;
  optional uint64 u = 14 [default = 18446744073709551615];
  oneof o {
    int32 oi = 15;
    Legacy om = 16;
  }
  optional sint64 s64 = 17 [default = -9223372036854775808];
}
)proto";

constexpr const char* kRoot = R"proto(
syntax = "proto3";
package diff;
import "google/protobuf/timestamp.proto";
import "google/protobuf/duration.proto";
import "google/protobuf/wrappers.proto";
import "google/protobuf/struct.proto";
import "google/protobuf/any.proto";
import "google/protobuf/field_mask.proto";
import "google/protobuf/empty.proto";
import "confluent/type/decimal.proto";
import "legacy.proto";

enum Color { COLOR_UNSPECIFIED = 0; RED = 1; GREEN = 2; BLUE = -3; }

message Everything {
  int32 i32 = 1;
  int64 i64 = 2;
  uint32 u32 = 3;
  uint64 u64 = 4;
  sint32 s32 = 5;
  sint64 s64 = 6;
  fixed32 f32 = 7;
  fixed64 f64 = 8;
  sfixed32 sf32 = 9;
  sfixed64 sf64 = 10;
  float fl = 11;
  double db = 12;
  bool b = 13;
  string s = 14;
  bytes by = 15;
  Color color = 16;
  repeated int32 r_i32 = 17;
  repeated sint64 r_s64 = 18;
  repeated fixed32 r_f32 = 19;
  repeated double r_db = 20;
  repeated bool r_b = 21;
  repeated Color r_color = 22;
  repeated string r_s = 23;
  repeated bytes r_by = 24;
  Everything child = 25;
  repeated Everything children = 26;
  oneof choice {
    string c_text = 27;
    int64 c_num = 28;
    Everything c_msg = 29;
    Color c_color = 30;
  }
  optional int32 opt_i32 = 31;
  optional Everything opt_msg = 32;
  map<string, int32> m_str = 33;
  map<int64, Everything> m_msg = 34;
  map<bool, bytes> m_bool = 35;
  map<uint64, Color> m_enum = 36;
  map<sint32, double> m_sint = 37;
  map<fixed64, string> m_fix = 38;
  google.protobuf.Timestamp ts = 39;
  google.protobuf.Duration dur = 40;
  google.protobuf.Int64Value w_i64 = 41;
  google.protobuf.StringValue w_s = 42;
  google.protobuf.DoubleValue w_d = 43;
  google.protobuf.Struct st = 44;
  google.protobuf.Value val = 45;
  google.protobuf.ListValue lv = 46;
  google.protobuf.Any any = 47;
  google.protobuf.FieldMask fm = 48;
  google.protobuf.Empty empty = 49;
  confluent.type.Decimal dec = 50;
  repeated google.protobuf.Timestamp r_ts = 51;
  repeated int64 r_unpacked = 52 [packed = false];
  google.protobuf.NullValue nul = 53;
  diff2.Legacy legacy = 54;
  map<string, google.protobuf.Value> m_val = 55;
}

// Twins with the same field numbers, packed and unpacked, for re-encoding.
message Unpacked {
  repeated int32 a = 1 [packed = false];
  repeated Color c = 2 [packed = false];
  repeated double d = 3 [packed = false];
  repeated sint32 s = 4 [packed = false];
  repeated fixed64 x = 5 [packed = false];
}
message Packed {
  repeated int32 a = 1;
  repeated Color c = 2;
  repeated double d = 3;
  repeated sint32 s = 4;
  repeated fixed64 x = 5;
}

// diff2.Legacy's enum fields as open integers, to send numbers its closed enum lacks.
message OpenKinds {
  int32 k = 3;
  repeated int32 ks = 4 [packed = false];
  repeated int32 ks_packed = 5;
  map<int32, int32> mk = 13;
  int32 oi = 15;
}
message LegacyHolder { diff2.Legacy l = 1; repeated diff2.Legacy ls = 2; }
message OpenHolder { OpenKinds l = 1; repeated OpenKinds ls = 2; }
message Point { int32 x = 1; int32 y = 2; }
)proto";

class ProtobufDifferentialTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto legacy = std::make_shared<ResolvedSchema>();
    legacy->type = SchemaType::protobuf;
    legacy->text = kLegacy;
    schema_.type = SchemaType::protobuf;
    schema_.id = 3;
    schema_.text = kRoot;
    schema_.references.push_back({"legacy.proto", legacy});
    decoder_ = std::make_unique<pb::ProtobufDecoder>(schema_);
    pool_ = std::make_unique<pb::SchemaPool>(schema_);
  }

  const gpb::Descriptor* type(const std::string& name) { return pool_->pool().FindMessageTypeByName(name); }
  std::unique_ptr<gpb::Message> make(const gpb::Descriptor* d) {
    return std::unique_ptr<gpb::Message>(factory_.GetPrototype(d)->New());
  }

  // Decodes `payload` both ways; returns true when both succeeded.
  bool agree(const std::string& payload, const std::string& what) {
    const auto* data = reinterpret_cast<const uint8_t*>(payload.data());
    std::string fast, fast_error, reference, reference_error;
    const bool fast_ok = decoder_->decode(data, payload.size(), fast, fast_error);
    const bool reference_ok = decoder_->decode_reference(data, payload.size(), reference, reference_error);
    EXPECT_EQ(fast_ok, reference_ok) << what << ": " << fast_error << " / " << reference_error;
    if (fast_ok && reference_ok) {
      EXPECT_EQ(fast, reference) << what;
    }
    if (!fast_ok) {
      EXPECT_FALSE(fast_error.empty()) << what;
    }
    ++decoded_;
    if (fast_ok) ++succeeded_;
    return fast_ok && reference_ok;
  }

  // Fills `m` with pseudo-random values: some fields unset, edge values favoured.
  void fill(gpb::Message& m, int depth) {
    const gpb::Descriptor* d = m.GetDescriptor();
    const gpb::Reflection* r = m.GetReflection();
    if (d->full_name() == "google.protobuf.Any") return fill_any(m, depth);
    if (d->full_name() == "google.protobuf.Timestamp" || d->full_name() == "google.protobuf.Duration") {
      // Mostly in range; now and then just outside, which both roads must refuse.
      const bool ts = d->full_name() == "google.protobuf.Timestamp";
      const int64_t lo = ts ? -62135596800 : -315576000000, hi = ts ? 253402300799 : 315576000000;
      int64_t seconds = lo + static_cast<int64_t>(rng_() % static_cast<uint64_t>(hi - lo + 1));
      if (pick(20) == 0) seconds = pick(2) == 0 ? hi + 1 : lo - 1;
      int32_t nanos = pick(3) == 0 ? 0 : static_cast<int32_t>(rng_() % 1000000000u);
      if (!ts && seconds < 0) nanos = -nanos;
      r->SetInt64(&m, d->FindFieldByName("seconds"), seconds);
      r->SetInt32(&m, d->FindFieldByName("nanos"), nanos);
      return;
    }
    if (d->full_name() == "confluent.type.Decimal") {
      r->SetString(&m, d->FindFieldByName("value"), some_bytes() + some_bytes() + some_bytes());
      r->SetInt32(&m, d->FindFieldByName("scale"), pick(40) == 0 ? 5000 : static_cast<int32_t>(pick(60)) - 20);
      return;
    }
    for (int i = 0; i < d->field_count(); ++i) {
      const gpb::FieldDescriptor* f = d->field(i);
      if (pick(3) == 0) continue;
      if (f->cpp_type() == gpb::FieldDescriptor::CPPTYPE_MESSAGE && depth >= 2) continue;
      if (f->is_repeated()) {
        const int n = static_cast<int>(pick(f->cpp_type() == gpb::FieldDescriptor::CPPTYPE_MESSAGE ? 3 : 5));
        for (int k = 0; k < n; ++k) add_value(m, f, depth);
      } else {
        set_value(m, f, depth);
      }
    }
  }

  uint64_t pick(uint64_t n) { return rng_() % n; }

  int64_t some_int() {
    static constexpr int64_t kEdges[] = {0, 1, -1, 127, 128, -128, 300, std::numeric_limits<int32_t>::max(),
                                         std::numeric_limits<int32_t>::min(), std::numeric_limits<int64_t>::max(),
                                         std::numeric_limits<int64_t>::min()};
    return pick(2) == 0 ? kEdges[pick(std::size(kEdges))] : static_cast<int64_t>(rng_());
  }
  double some_double() {
    static constexpr double kEdges[] = {0.0, -0.0, 0.1, 1e-7, 1e300, -2.5, 123456789.125,
                                        std::numeric_limits<double>::infinity(),
                                        std::numeric_limits<double>::quiet_NaN(),
                                        std::numeric_limits<double>::denorm_min()};
    return pick(2) == 0 ? kEdges[pick(std::size(kEdges))] : std::ldexp(static_cast<double>(some_int()), static_cast<int>(pick(200)) - 100);
  }
  std::string some_string() {
    static const char* const kEdges[] = {"", "a", "héllo", "\"quoted\" \\ /", "tab\there\nline", "\x01\x1f", "日本語",
                                         "emoji 😀", "snake_case_path.sub_field"};
    return kEdges[pick(std::size(kEdges))];
  }
  std::string some_bytes() {
    std::string out(pick(6), '\0');
    for (char& c : out) c = static_cast<char>(rng_());
    return out;
  }

  void set_value(gpb::Message& m, const gpb::FieldDescriptor* f, int depth) {
    const gpb::Reflection* r = m.GetReflection();
    switch (f->cpp_type()) {
      case gpb::FieldDescriptor::CPPTYPE_INT32: r->SetInt32(&m, f, static_cast<int32_t>(some_int())); break;
      case gpb::FieldDescriptor::CPPTYPE_INT64: r->SetInt64(&m, f, some_int()); break;
      case gpb::FieldDescriptor::CPPTYPE_UINT32: r->SetUInt32(&m, f, static_cast<uint32_t>(some_int())); break;
      case gpb::FieldDescriptor::CPPTYPE_UINT64: r->SetUInt64(&m, f, static_cast<uint64_t>(some_int())); break;
      case gpb::FieldDescriptor::CPPTYPE_FLOAT: r->SetFloat(&m, f, static_cast<float>(some_double())); break;
      case gpb::FieldDescriptor::CPPTYPE_DOUBLE: r->SetDouble(&m, f, some_double()); break;
      case gpb::FieldDescriptor::CPPTYPE_BOOL: r->SetBool(&m, f, pick(2) == 0); break;
      case gpb::FieldDescriptor::CPPTYPE_ENUM: r->SetEnumValue(&m, f, some_enum(f)); break;
      case gpb::FieldDescriptor::CPPTYPE_STRING:
        r->SetString(&m, f, f->type() == gpb::FieldDescriptor::TYPE_BYTES ? some_bytes() : some_string());
        break;
      case gpb::FieldDescriptor::CPPTYPE_MESSAGE: fill(*r->MutableMessage(&m, f), depth + 1); break;
    }
  }

  void add_value(gpb::Message& m, const gpb::FieldDescriptor* f, int depth) {
    const gpb::Reflection* r = m.GetReflection();
    switch (f->cpp_type()) {
      case gpb::FieldDescriptor::CPPTYPE_INT32: r->AddInt32(&m, f, static_cast<int32_t>(some_int())); break;
      case gpb::FieldDescriptor::CPPTYPE_INT64: r->AddInt64(&m, f, some_int()); break;
      case gpb::FieldDescriptor::CPPTYPE_UINT32: r->AddUInt32(&m, f, static_cast<uint32_t>(some_int())); break;
      case gpb::FieldDescriptor::CPPTYPE_UINT64: r->AddUInt64(&m, f, static_cast<uint64_t>(some_int())); break;
      case gpb::FieldDescriptor::CPPTYPE_FLOAT: r->AddFloat(&m, f, static_cast<float>(some_double())); break;
      case gpb::FieldDescriptor::CPPTYPE_DOUBLE: r->AddDouble(&m, f, some_double()); break;
      case gpb::FieldDescriptor::CPPTYPE_BOOL: r->AddBool(&m, f, pick(2) == 0); break;
      case gpb::FieldDescriptor::CPPTYPE_ENUM: r->AddEnumValue(&m, f, some_enum(f)); break;
      case gpb::FieldDescriptor::CPPTYPE_STRING:
        r->AddString(&m, f, f->type() == gpb::FieldDescriptor::TYPE_BYTES ? some_bytes() : some_string());
        break;
      case gpb::FieldDescriptor::CPPTYPE_MESSAGE: {
        gpb::Message* child = r->AddMessage(&m, f);
        if (f->is_map()) {
          // Map entries: a key always, a value most of the time.
          const gpb::Descriptor* e = child->GetDescriptor();
          set_value(*child, e->field(0), depth + 1);
          if (pick(5) != 0) set_value(*child, e->field(1), depth + 1);
        } else {
          fill(*child, depth + 1);
        }
        break;
      }
    }
  }

  int some_enum(const gpb::FieldDescriptor* f) {
    const gpb::EnumDescriptor* e = f->enum_type();
    // Open (proto3) enums sometimes get a number they do not name.
    if (f->file()->syntax() == gpb::FileDescriptor::SYNTAX_PROTO3 && pick(5) == 0) return static_cast<int>(pick(9)) - 4;
    return e->value(static_cast<int>(pick(static_cast<uint64_t>(e->value_count()))))->number();
  }

  void fill_any(gpb::Message& m, int depth) {
    static const char* const kTypes[] = {"diff.Point", "google.protobuf.Timestamp", "google.protobuf.Int64Value",
                                         "diff.Everything", "google.protobuf.Struct", "google.protobuf.Empty"};
    const std::string name = kTypes[pick(std::size(kTypes))];
    std::unique_ptr<gpb::Message> inner = make(type(name));
    if (depth < 3) fill(*inner, depth + 1);
    const gpb::Descriptor* d = m.GetDescriptor();
    m.GetReflection()->SetString(&m, d->FindFieldByName("type_url"), "type.googleapis.com/" + name);
    m.GetReflection()->SetString(&m, d->FindFieldByName("value"), inner->SerializeAsString());
  }

  std::string random_payload(const char* type_name, const std::string& index_list) {
    std::unique_ptr<gpb::Message> m = make(type(type_name));
    fill(*m, 0);
    return index_list + m->SerializePartialAsString();
  }

  ResolvedSchema schema_;
  std::unique_ptr<pb::ProtobufDecoder> decoder_;
  std::unique_ptr<pb::SchemaPool> pool_;
  gpb::DynamicMessageFactory factory_;
  std::mt19937_64 rng_{20241105};
  int decoded_ = 0;
  int succeeded_ = 0;
};

TEST_F(ProtobufDifferentialTest, RandomMessagesDecodeAlike) {
  for (int i = 0; i < 1000; ++i) agree(random_payload("diff.Everything", std::string(1, '\0')), "message " + std::to_string(i));
  // Most random messages are valid; the rest fail both ways (a Timestamp out of range, a
  // Decimal scale beyond bounds...).
  EXPECT_GT(succeeded_, decoded_ / 2);
}

TEST_F(ProtobufDifferentialTest, MergedMessagesDecodeAlike) {
  // Two or three messages back to back are their merge: last scalar wins, messages merge,
  // oneofs switch, repeated fields and maps append.
  for (int i = 0; i < 500; ++i) {
    std::string payload = random_payload("diff.Everything", std::string(1, '\0'));
    const int parts = 1 + static_cast<int>(pick(2));
    for (int k = 0; k < parts; ++k) payload += random_payload("diff.Everything", "");
    agree(payload, "merge " + std::to_string(i));
  }
  EXPECT_GT(succeeded_, decoded_ / 3);
}

TEST_F(ProtobufDifferentialTest, PackedAndUnpackedEncodingsDecodeAlike) {
  // diff.Unpacked is index [1], diff.Packed [2]: each decodes the other's bytes, and a mix.
  for (int i = 0; i < 400; ++i) {
    const std::string unpacked = random_payload("diff.Unpacked", "");
    const std::string packed = random_payload("diff.Packed", "");
    agree(std::string("\x02\x02", 2) + unpacked, "unpacked read as unpacked");
    agree(std::string("\x02\x04", 2) + unpacked, "unpacked read as packed");
    agree(std::string("\x02\x02", 2) + packed, "packed read as unpacked");
    agree(std::string("\x02\x04", 2) + packed + unpacked + packed, "mixed");
  }
  EXPECT_EQ(succeeded_, decoded_);
}

TEST_F(ProtobufDifferentialTest, ClosedEnumsDropUnnamedNumbersAlike) {
  // OpenHolder's bytes (open ints) read as LegacyHolder (proto2, closed enum Kind {0, 1, 2, 5}):
  // numbers 0..6 mix named and unnamed ones. LegacyHolder is [4].
  for (int i = 0; i < 600; ++i) {
    std::unique_ptr<gpb::Message> holder = make(type("diff.OpenHolder"));
    const gpb::Reflection* hr = holder->GetReflection();
    const gpb::Descriptor* hd = holder->GetDescriptor();
    for (int k = 0; k < 1 + static_cast<int>(pick(3)); ++k) {
      gpb::Message* open = k == 0 ? hr->MutableMessage(holder.get(), hd->field(0)) : hr->AddMessage(holder.get(), hd->field(1));
      const gpb::Descriptor* od = open->GetDescriptor();
      const gpb::Reflection* orf = open->GetReflection();
      auto kind = [&] { return static_cast<int32_t>(pick(7)); };
      if (pick(2) == 0) orf->SetInt32(open, od->FindFieldByName("k"), kind());
      if (pick(2) == 0) orf->SetInt32(open, od->FindFieldByName("oi"), kind());
      for (int n = static_cast<int>(pick(4)); n > 0; --n) orf->AddInt32(open, od->FindFieldByName("ks"), kind());
      for (int n = static_cast<int>(pick(4)); n > 0; --n) orf->AddInt32(open, od->FindFieldByName("ks_packed"), kind());
      for (int n = static_cast<int>(pick(3)); n > 0; --n) {
        gpb::Message* e = orf->AddMessage(open, od->FindFieldByName("mk"));
        e->GetReflection()->SetInt32(e, e->GetDescriptor()->field(0), kind());
        e->GetReflection()->SetInt32(e, e->GetDescriptor()->field(1), kind());
      }
    }
    agree(std::string("\x02\x08", 2) + holder->SerializeAsString(), "closed enums " + std::to_string(i));
  }
  EXPECT_EQ(succeeded_, decoded_);
}

TEST_F(ProtobufDifferentialTest, CorruptedAndTruncatedBytesDecodeAlike) {
  // Valid messages with bytes flipped, dropped or cut: whatever passes the wire check must
  // print the same both ways, and nothing may crash.
  for (int i = 0; i < 600; ++i) {
    std::string payload = random_payload("diff.Everything", std::string(1, '\0'));
    if (payload.size() < 3) continue;
    std::string mutated = payload;
    switch (pick(4)) {
      case 0: mutated[1 + pick(mutated.size() - 1)] = static_cast<char>(rng_()); break;
      case 1: mutated.erase(1 + pick(mutated.size() - 1), 1); break;
      case 2: mutated.resize(1 + pick(mutated.size() - 1)); break;
      default:
        for (int k = 0; k < 4; ++k) mutated[1 + pick(mutated.size() - 1)] ^= static_cast<char>(1 << pick(8));
    }
    agree(mutated, "mutation " + std::to_string(i));
  }
}

}  // namespace
}  // namespace krow
