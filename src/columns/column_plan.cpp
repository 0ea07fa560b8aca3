#include "columns/column_plan.hpp"

#include <stdexcept>

namespace krow::columns {

ColumnPlan plan_columns(const ResolvedSchema& schema, const ColumnOptions& options) {
  switch (schema.type) {
    case SchemaType::avro:
      return plan_avro_columns(schema, options);
    case SchemaType::protobuf:
      return plan_protobuf_columns(schema, options);
    case SchemaType::json:
      return plan_json_schema_columns(schema, options);
  }
  throw std::invalid_argument("unknown schema type");
}

}  // namespace krow::columns
