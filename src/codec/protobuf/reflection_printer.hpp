#pragma once
// Prints a message parsed by protobuf (a DynamicMessage) as JSON, through protobuf's
// Reflection. It writes exactly what WirePrinter writes from the wire bytes, about three
// times slower: it is the reference the tests and the fuzz target compare WirePrinter
// with, so both must follow the same rules (see wire_printer.hpp).

#include <google/protobuf/arena.h>
#include <google/protobuf/message.h>

#include <string>
#include <string_view>

#include "codec/protobuf/message_plan.hpp"

namespace krow::pb {

class ReflectionPrinter {
 public:
  // `out` receives the JSON text and `error` a one-line reason on failure; `arena` holds
  // the messages a google.protobuf.Any carries. All are the caller's and must outlive
  // the printer. One printer per thread.
  ReflectionPrinter(const MessagePlans& plans, google::protobuf::Arena& arena, std::string& out, std::string& error)
      : plans_(plans), arena_(arena), out_(out), error_(error) {}

  // Appends the JSON form of `message`, whose type is `plan`'s, `depth` levels below the
  // top. Returns false with `error` set when a value has no JSON form (a Timestamp out of
  // range, a non-UTF-8 proto2 string, an Any of a type outside the schema...); `out` then
  // holds partial text.
  bool print(const google::protobuf::Message& message, const MessagePlan& plan, int depth);

 private:
  bool print_object_fields(const google::protobuf::Message& m, const MessagePlan& plan, bool& first, int depth);
  template <bool kRepeated>
  bool print_value(const google::protobuf::Message& m, const FieldPlan& f, int index, int depth);
  bool print_array(const google::protobuf::Message& m, const FieldPlan& f, int depth);
  bool print_map(const google::protobuf::Message& m, const FieldPlan& f, int depth);
  bool print_string(std::string_view text, const FieldPlan& f);
  void print_enum(const google::protobuf::FieldDescriptor* field, int number);
  bool print_time(const google::protobuf::Message& m, const MessagePlan& plan);
  bool print_field_mask(const google::protobuf::Message& m, const MessagePlan& plan);
  bool print_any(const google::protobuf::Message& m, const MessagePlan& plan, int depth);
  bool print_decimal(const google::protobuf::Message& m, const MessagePlan& plan);
  bool fail(std::string reason);

  const MessagePlans& plans_;
  google::protobuf::Arena& arena_;
  std::string& out_;
  std::string& error_;
  std::string scratch_;  // for string getters that need one (never used by DynamicMessage)
};

}  // namespace krow::pb
