#pragma once
// One way to own a C library's handle: a std::unique_ptr whose deleter is the handle's
// documented destroy call. Every C handle krow holds (librdkafka, libcurl, DuckDB, libpq,
// OpenSSL) is owned through it, in the layer that wraps that library.

#include <memory>

namespace krow {

// Calls `Destroy` on a handle that is not null. C destroy calls do not throw.
template <auto Destroy>
struct CDeleter {
  template <class T>
  void operator()(T* p) const noexcept {
    if (p) Destroy(p);
  }
};

// Owns a `T*` and destroys it with `Destroy`.
template <class T, auto Destroy>
using CHandle = std::unique_ptr<T, CDeleter<Destroy>>;

}  // namespace krow
