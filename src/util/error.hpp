#pragma once
// Errors that end a piece of work. Each carries a class that tells the caller how far the
// failure reaches, and a sentence that names the fix: what() is that sentence, as users read
// it; said(), fix() and source() hold its parts for callers that show them apart
// (`krow doctor`) or decide by them (by the engine's own code, never by the sentence's words).

#include <optional>
#include <stdexcept>
#include <string>

#include "util/ids.hpp"

namespace krow {

enum class ErrorClass {
  config,       // the manifest or the command line is wrong; nothing was attempted
  fatal_run,    // the whole sync cannot go on (bad credentials, unusable warehouse)
  fatal_table,  // one table cannot go on (no READ on its topic, topic deleted); others do
  transient,    // worth retrying from the last committed batch (network, broker outage)
  conflict,     // the stored state is not what the work started from (someone else moved it)
};

const char* error_class_name(ErrorClass c);

// Where an error came from. Each field is empty when it does not apply: an error krow finds on
// its own names no system, and most errors concern no single Kafka message.
struct ErrorSource {
  // The subsystem or engine that answered with it: "kafka", "schema registry", "DuckDB",
  // "PostgreSQL", "BigQuery", "HTTP".
  std::string system;
  // That system's own code for it, spelt as the system spells it: librdkafka's error name
  // ("TOPIC_AUTHORIZATION_FAILED"), a SQLSTATE ("42501"), DuckDB's error type ("TRANSACTION"),
  // BigQuery's error reason ("accessDenied"), an HTTP status ("HTTP 503"), or how a transfer
  // failed ("timeout"). Empty when the system gave none.
  std::string code;
  // The Kafka input it concerns: a topic, and within it a partition and an offset.
  std::string topic;
  std::optional<Partition> partition;
  std::optional<Offset> offset;
};

// The fix an Error names, and how what() joins it to what happened: a sentence of its own by
// default ("<what happened>. <Fix>"); a joint of "; " or ": " goes on with the same sentence.
struct Fix {
  std::string text;
  const char* joint = ". ";
};

class Error : public std::runtime_error {
 public:
  // `message` is the whole sentence, the fix (if any) in it: said() is all of it, fix() "".
  Error(ErrorClass cls, std::string message, ErrorSource source = {});
  // what() is `said` followed by the fix (its joint, then its text; nothing when its text is
  // empty).
  Error(ErrorClass cls, std::string said, Fix fix, ErrorSource source = {});

  ErrorClass error_class() const { return cls_; }
  // What happened: what() without the fix.
  const std::string& said() const { return said_; }
  // The fix as what() ends with it; "" when the error names none apart from said().
  const std::string& fix() const { return fix_; }
  const ErrorSource& source() const { return source_; }

  // The same error, of another class: for a caller that knows better how far it reaches.
  Error as(ErrorClass cls) const;

 private:
  ErrorClass cls_;
  std::string said_;
  std::string fix_;
  ErrorSource source_;
};

}  // namespace krow
