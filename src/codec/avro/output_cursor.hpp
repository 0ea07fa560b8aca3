#pragma once
// A write cursor over the tail of a caller-owned std::string, for hot paths that emit many
// small tokens: the string is extended once by an estimate (zero-filled, then overwritten),
// each token is copied through a raw pointer after one capacity check, and the string is
// cut back to what was written when the cursor is closed or destroyed. Helpers that append
// to a std::string are used through string() and resume().
//
// Ownership: the cursor borrows the string; nothing else may touch it until close() (or
// the destructor). Not thread-safe; one cursor per decode.

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace krow::avro {

class OutputCursor {
 public:
  // Starts writing at the end of `out`, with room for `estimate` bytes to begin with.
  OutputCursor(std::string& out, size_t estimate) : out_(out), start_(out.size()) { open(estimate); }
  ~OutputCursor() { close(); }
  OutputCursor(const OutputCursor&) = delete;
  OutputCursor& operator=(const OutputCursor&) = delete;

  // Makes room for `n` more bytes at pos().
  [[gnu::always_inline]] void reserve(size_t n) {
    if (static_cast<size_t>(end_ - pos_) < n) [[unlikely]] grow(n);
  }
  [[gnu::always_inline]] void put(char c) {
    reserve(1);
    *pos_++ = c;
  }
  // Tokens are mostly short (keys, names, numbers): up to 16 bytes are copied with two
  // overlapping fixed-size moves instead of a call to memcpy.
  [[gnu::always_inline]] void put(const char* data, size_t n) {
    reserve(n);
    if (n >= 8 && n <= 16) {
      std::memcpy(pos_, data, 8);
      std::memcpy(pos_ + n - 8, data + n - 8, 8);
    } else if (n >= 4 && n < 8) {
      std::memcpy(pos_, data, 4);
      std::memcpy(pos_ + n - 4, data + n - 4, 4);
    } else if (n > 0 && n < 4) {
      pos_[0] = data[0];
      pos_[n / 2] = data[n / 2];
      pos_[n - 1] = data[n - 1];
    } else if (n > 16) {
      std::memcpy(pos_, data, n);
    }
    pos_ += n;
  }
  [[gnu::always_inline]] void put(std::string_view s) { put(s.data(), s.size()); }
  void put_int(int64_t v) {
    reserve(24);
    pos_ = std::to_chars(pos_, pos_ + 24, v).ptr;
  }

  // Raw access after reserve(n): write at most n bytes from pos(), then advance(end).
  char* pos() { return pos_; }
  void advance(char* end) { pos_ = end; }

  // The string cut to what was written, for a helper that appends to it; call resume()
  // before writing through the cursor again.
  std::string& string() {
    cut();
    return out_;
  }
  void resume() { open(kSlack); }

  // Cuts the string to what was written. Idempotent.
  void close() {
    if (pos_ != nullptr) cut();
  }

 private:
  static constexpr size_t kSlack = 256;

  void open(size_t n) {
    const size_t used = out_.size();
    out_.resize(used + std::max(n, kSlack));
    pos_ = out_.data() + used;
    end_ = out_.data() + out_.size();
  }

  void cut() {
    out_.resize(static_cast<size_t>(pos_ - out_.data()));
    pos_ = end_ = nullptr;
  }

  // Grows by at least as much as this cursor has written so far: amortized linear.
  [[gnu::noinline]] void grow(size_t n) {
    const size_t written = static_cast<size_t>(pos_ - out_.data()) - start_;
    cut();
    open(std::max(n, written + kSlack));
  }

  std::string& out_;
  const size_t start_;     // where this cursor's text begins in out_
  char* pos_ = nullptr;    // next byte to write
  char* end_ = nullptr;    // end of the room made so far
};

}  // namespace krow::avro
