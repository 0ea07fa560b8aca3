#include "codec/format.hpp"

namespace krow {

std::string_view format_name(Format f) {
  switch (f) {
    case Format::none: return {};
    case Format::json: return "json";
    case Format::string: return "string";
    case Format::binary: return "binary";
    case Format::schema_registry: return "schema_registry";
    case Format::avro: return "avro";
    case Format::protobuf: return "protobuf";
    case Format::json_schema: return "json_schema";
  }
  return {};
}

}  // namespace krow
