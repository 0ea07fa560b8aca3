#pragma once
// Files a manifest or a command line names, checked before a library is handed them, so that
// a wrong path is reported with the setting that named it instead of the library's own words
// (OpenSSL's "x509 certificate routines::system lib", say).

#include <string>

namespace krow {

// Throws Error(config) naming `setting` and `path` unless `path` is a readable regular file.
// `what` says what the file is for ("a PEM CA bundle").
void require_readable_file(const std::string& path, const std::string& setting, const std::string& what);

}  // namespace krow
