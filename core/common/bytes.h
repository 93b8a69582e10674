// Untyped views of observation/action memory. Envs write observations into memory they are
// handed (a row of a preallocated batch), so the hot path never allocates.
#pragma once

#include <cstddef>
#include <span>

#include "core/common/error.h"

namespace rlzoo {

using Bytes = std::span<std::byte>;
using ConstBytes = std::span<const std::byte>;

// Typed view of a byte span. The size must be a whole number of T (checked).
template <class T>
std::span<T> as_span(Bytes b) {
  RLZOO_CHECK(b.size() % sizeof(T) == 0);
  return {reinterpret_cast<T*>(b.data()), b.size() / sizeof(T)};
}
template <class T>
std::span<const T> as_span(ConstBytes b) {
  RLZOO_CHECK(b.size() % sizeof(T) == 0);
  return {reinterpret_cast<const T*>(b.data()), b.size() / sizeof(T)};
}

template <class T>
ConstBytes bytes_of(std::span<const T> s) { return std::as_bytes(s); }
template <class T>
ConstBytes bytes_of(const T& value) { return {reinterpret_cast<const std::byte*>(&value), sizeof(T)}; }
template <class T>
Bytes writable_bytes_of(std::span<T> s) { return std::as_writable_bytes(s); }

}  // namespace rlzoo
