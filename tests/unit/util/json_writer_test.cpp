// JsonWriter: plans, status and run records.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>

#include "codec/json_validator.hpp"
#include "util/json_writer.hpp"

namespace krow {
namespace {

TEST(JsonWriter, ObjectsArraysAndScalars) {
  JsonWriter w;
  w.begin_object()
      .field("n", 1)
      .field("s", "x\"y")
      .field("ok", true)
      .field("no", false);
  w.key("none").null();
  w.key("list").begin_array().value(1).value("two").begin_object().end_object().end_array();
  w.key("empty").begin_array().end_array();
  w.end_object();
  EXPECT_EQ(w.str(),
            R"({"n":1,"s":"x\"y","ok":true,"no":false,"none":null,"list":[1,"two",{}],"empty":[]})");
}

TEST(JsonWriter, NestedContainersGetCommasRight) {
  JsonWriter w;
  w.begin_array();
  w.begin_object().field("a", 1).end_object();
  w.begin_object().key("b").begin_array().value(2).value(3).end_array().end_object();
  w.begin_array().end_array();
  w.end_array();
  EXPECT_EQ(w.str(), R"([{"a":1},{"b":[2,3]},[]])");
}

TEST(JsonWriter, RawJsonIsInsertedAsAValue) {
  JsonWriter w;
  w.begin_object().key("doc").raw(R"({"x":[1]})").key("n").raw("2").end_object();
  EXPECT_EQ(w.str(), R"({"doc":{"x":[1]},"n":2})");
}

TEST(JsonWriter, Integers) {
  JsonWriter w;
  w.begin_array()
      .value(int64_t{-42})
      .value(std::numeric_limits<int64_t>::min())
      .value(uint64_t{18'000'000'000})
      .end_array();
  EXPECT_EQ(w.str(), "[-42,-9223372036854775808,18000000000]");
}

TEST(JsonWriter, LargeUnsignedStaysPositive) {
  JsonWriter w;
  w.value(std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(w.str(), "18446744073709551615");
}

TEST(JsonWriter, DoublesShortestAndNullForNonFinite) {
  JsonWriter w;
  w.begin_array()
      .value(1.5)
      .value(-0.25)
      .value(std::nan(""))
      .value(std::numeric_limits<double>::infinity())
      .end_array();
  EXPECT_EQ(w.str(), "[1.5,-0.25,null,null]");
}

TEST(JsonWriter, LargeDoublesKeepTheirValue) {
  for (const double v : {1e15, 1e31, 1e40, -1e100}) {
    JsonWriter w;
    w.value(v);
    EXPECT_TRUE(JsonValidator().is_document(w.str())) << w.str();
    const double back = std::strtod(w.str().c_str(), nullptr);
    EXPECT_NEAR(back / v, 1.0, 1e-9) << v << " was written as " << w.str();
  }
}

}  // namespace
}  // namespace krow
