#pragma once
// Errors that end a piece of work. Each carries a class that tells the caller how far the
// failure reaches, and a sentence that names the fix.

#include <stdexcept>
#include <string>

namespace krow {

enum class ErrorClass {
  config,       // the manifest or the command line is wrong; nothing was attempted
  fatal_run,    // the whole sync cannot go on (bad credentials, unusable warehouse)
  fatal_table,  // one table cannot go on (no READ on its topic, topic deleted); others do
  transient,    // worth retrying from the last committed batch (network, broker outage)
  conflict,     // the stored state is not what the work started from (someone else moved it)
};

const char* error_class_name(ErrorClass c);

class Error : public std::runtime_error {
 public:
  Error(ErrorClass cls, std::string message) : std::runtime_error(std::move(message)), cls_(cls) {}
  ErrorClass error_class() const { return cls_; }

 private:
  ErrorClass cls_;
};

}  // namespace krow
