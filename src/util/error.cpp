#include "util/error.hpp"

namespace krow {

const char* error_class_name(ErrorClass c) {
  switch (c) {
    case ErrorClass::config: return "config";
    case ErrorClass::fatal_run: return "fatal_run";
    case ErrorClass::fatal_table: return "fatal_table";
    case ErrorClass::transient: return "transient";
    case ErrorClass::conflict: return "conflict";
  }
  return "unknown";
}

Error::Error(ErrorClass cls, std::string message, ErrorSource source)
    : std::runtime_error(message),
      cls_(cls),
      said_(std::move(message)),
      source_(std::move(source)) {}

Error::Error(ErrorClass cls, std::string said, Fix fix, ErrorSource source)
    : std::runtime_error(fix.text.empty() ? said : said + fix.joint + fix.text),
      cls_(cls),
      said_(std::move(said)),
      fix_(std::move(fix.text)),
      source_(std::move(source)) {}

Error Error::as(ErrorClass cls) const {
  Error out = *this;
  out.cls_ = cls;
  return out;
}

}  // namespace krow
