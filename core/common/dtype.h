// Element types of spaces and buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rlzoo {

enum class DType : std::uint8_t { UInt8, Int32, Int64, Float32, Float64 };

constexpr std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::UInt8: return 1;
    case DType::Int32: return 4;
    case DType::Int64: return 8;
    case DType::Float32: return 4;
    case DType::Float64: return 8;
  }
  return 0;
}

constexpr std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::UInt8: return "uint8";
    case DType::Int32: return "int32";
    case DType::Int64: return "int64";
    case DType::Float32: return "float32";
    case DType::Float64: return "float64";
  }
  return "?";
}

constexpr bool dtype_is_floating(DType t) { return t == DType::Float32 || t == DType::Float64; }

template <class T> constexpr DType dtype_of();
template <> constexpr DType dtype_of<std::uint8_t>() { return DType::UInt8; }
template <> constexpr DType dtype_of<std::int32_t>() { return DType::Int32; }
template <> constexpr DType dtype_of<std::int64_t>() { return DType::Int64; }
template <> constexpr DType dtype_of<float>() { return DType::Float32; }
template <> constexpr DType dtype_of<double>() { return DType::Float64; }

}  // namespace rlzoo
