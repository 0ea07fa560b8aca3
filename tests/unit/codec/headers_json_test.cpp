// HeadersJson: the `headers` column, [{"key": ..., "value": ...}] in message order.

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>

#include "codec/headers_json.hpp"
#include "codec/json_validator.hpp"

namespace krow {
namespace {

struct Header {
  std::string_view key;
  std::optional<std::string_view> value;  // nullopt: the header has no value
};

// Builds the column after some earlier arena text, checks it is one JSON document.
std::string headers(std::initializer_list<Header> list) {
  std::string arena = "earlier";
  HeadersJson h(arena);
  for (const auto& hd : list)
    h.add(hd.key, hd.value ? hd.value->data() : nullptr, hd.value ? hd.value->size() : 0);
  const Slice s = h.finish();
  EXPECT_TRUE(s.present);
  EXPECT_EQ(arena.substr(0, 7), "earlier");
  const std::string out(s.view(arena));
  EXPECT_TRUE(JsonValidator().is_document(out)) << out;
  return out;
}

TEST(HeadersJson, NoHeadersIsAnEmptyArray) {
  EXPECT_EQ(headers({}), "[]");
}

TEST(HeadersJson, KeepsMessageOrderAndDuplicates) {
  EXPECT_EQ(headers({{"z", "1"}, {"a", "2"}, {"z", "3"}}),
            R"([{"key":"z","value":"1"},{"key":"a","value":"2"},{"key":"z","value":"3"}])");
}

TEST(HeadersJson, NullValueIsJsonNull) {
  EXPECT_EQ(headers({{"trace", std::nullopt}}), R"([{"key":"trace","value":null}])");
}

TEST(HeadersJson, EmptyValueIsTheEmptyString) {
  EXPECT_EQ(headers({{"k", ""}}), R"([{"key":"k","value":""}])");
}

TEST(HeadersJson, NonUtf8ValueIsGivenAsBase64) {
  EXPECT_EQ(headers({{"bin", std::string_view("\xff\x00\x01", 3)}, {"txt", "ok"}}),
            R"([{"key":"bin","value_base64":"/wAB"},{"key":"txt","value":"ok"}])");
}

TEST(HeadersJson, EscapesKeysAndValues) {
  EXPECT_EQ(headers({{"a\"b\\c", "line1\nline2\t\"q\""}}),
            R"([{"key":"a\"b\\c","value":"line1\nline2\t\"q\""}])");
  EXPECT_EQ(headers({{"ctl", "\x01"}}), R"([{"key":"ctl","value":"\u0001"}])");
}

TEST(HeadersJson, Utf8TextIsKeptAsIs) {
  EXPECT_EQ(headers({{"caf\xc3\xa9", "\xe2\x82\xac"}}),
            "[{\"key\":\"caf\xc3\xa9\",\"value\":\"\xe2\x82\xac\"}]");
}

TEST(HeadersJson, NonUtf8KeyStillGivesValidJson) {
  const std::string out = headers({{"\xff", "v"}});
  EXPECT_NE(out.find("/w=="), std::string::npos) << out;  // the key's bytes are not lost
}

}  // namespace
}  // namespace krow
