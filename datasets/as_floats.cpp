#include "datasets/as_floats.h"

#include <cstring>
#include <fmt/format.h>

namespace rlzoo::data {

namespace {

template <class T>
void convert(const std::byte* p, std::size_t n, float* out) {
  for (std::size_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, p + i * sizeof(T), sizeof(T));
    out[i] = static_cast<float>(v);
  }
}

// One element's values into out (space.numel() floats).
void element_to_floats(const Space& space, const std::byte* p, float* out) {
  if (space.kind() == SpaceKind::Dict) {
    for (const auto& f : space.fields()) {
      element_to_floats(*f.space, p + f.offset, out);
      out += f.space->numel();
    }
    return;
  }
  const auto n = static_cast<std::size_t>(space.numel());
  switch (space.dtype()) {
    case DType::UInt8: convert<std::uint8_t>(p, n, out); break;
    case DType::Int32: convert<std::int32_t>(p, n, out); break;
    case DType::Int64: convert<std::int64_t>(p, n, out); break;
    case DType::Float32: std::memcpy(out, p, n * sizeof(float)); break;
    case DType::Float64: convert<double>(p, n, out); break;
  }
}

}  // namespace

std::vector<float> as_floats(const Space& space, std::span<const std::byte> elements) {
  const std::size_t size = space.byte_size();
  if (elements.size() % size != 0)
    throw UserError(fmt::format("as_floats: {} bytes are not a whole number of elements of {} ({} bytes each)",
                                elements.size(), space.describe(), size));
  const std::size_t count = elements.size() / size;
  const auto numel = static_cast<std::size_t>(space.numel());
  std::vector<float> out(count * numel);
  for (std::size_t i = 0; i < count; ++i) element_to_floats(space, elements.data() + i * size, out.data() + i * numel);
  return out;
}

}  // namespace rlzoo::data
