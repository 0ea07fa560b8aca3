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

}  // namespace krow
