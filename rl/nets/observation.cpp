#include "rl/nets/observation.h"

#include <fmt/format.h>

namespace rlzoo {

torch::ScalarType torch_dtype(DType t) {
  switch (t) {
    case DType::UInt8: return torch::kUInt8;
    case DType::Int32: return torch::kInt32;
    case DType::Int64: return torch::kInt64;
    case DType::Float32: return torch::kFloat32;
    case DType::Float64: return torch::kFloat64;
  }
  return torch::kFloat32;
}

bool is_image_space(const Space& space) {
  return space.is_box() && space.dtype() == DType::UInt8 && space.shape().size() == 3;
}

namespace {
torch::Tensor field_view(const Space& s, const std::byte* base, std::size_t row_bytes, std::int64_t batch) {
  std::vector<std::int64_t> sizes{batch};
  for (auto d : s.shape()) sizes.push_back(d);
  const std::size_t esize = dtype_size(s.dtype());
  RLZOO_CHECK(row_bytes % esize == 0 && reinterpret_cast<std::uintptr_t>(base) % esize == 0,
              "observation rows are not aligned for " + s.describe());
  std::vector<std::int64_t> strides(sizes.size());
  std::int64_t stride = 1;
  for (std::size_t i = sizes.size(); i-- > 1;) {
    strides[i] = stride;
    stride *= sizes[i];
  }
  strides[0] = static_cast<std::int64_t>(row_bytes / esize);
  return torch::from_blob(const_cast<std::byte*>(base), sizes, strides,
                          torch::TensorOptions().dtype(torch_dtype(s.dtype())));
}
}  // namespace

std::vector<torch::Tensor> observation_tensors(const Space& space, const void* data, std::int64_t batch, bool copy) {
  const auto* base = static_cast<const std::byte*>(data);
  const std::size_t row = space.byte_size();
  std::vector<torch::Tensor> out;
  if (space.kind() == SpaceKind::Dict) {
    for (const auto& f : space.fields()) {
      if (f.space->kind() == SpaceKind::Dict) throw UserError("nested Dict observation spaces are not supported");
      out.push_back(field_view(*f.space, base + f.offset, row, batch));
    }
  } else {
    out.push_back(field_view(space, base, row, batch));
  }
  if (copy)
    for (auto& t : out) t = t.clone();
  return out;
}

std::vector<torch::Tensor> observation_tensors(const Space& space, const torch::Tensor& bytes) {
  RLZOO_CHECK(bytes.scalar_type() == torch::kUInt8 && bytes.dim() == 2 && bytes.is_contiguous() &&
                  bytes.size(1) == static_cast<std::int64_t>(space.byte_size()),
              "observation bytes must be a contiguous uint8 [batch, byte_size] tensor");
  return observation_tensors(space, bytes.data_ptr(), bytes.size(0));
}

torch::Tensor float_observation_rows(const Space& space, const torch::Tensor& bytes, const char* who) {
  const auto fields = observation_tensors(space, bytes);
  RLZOO_CHECK(fields.size() == 1 && fields[0].scalar_type() == torch::kFloat32,
              fmt::format("{} needs one float32 Box observation", who));
  return fields[0].reshape({bytes.size(0), -1}).contiguous();
}

}  // namespace rlzoo
