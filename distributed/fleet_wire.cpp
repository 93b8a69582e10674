#include "distributed/fleet_wire.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <cstring>

#include "core/common/error.h"

namespace rlzoo {

using fleet::Tensor;

void encode_parameters(const ParameterSnapshot& snapshot, fleet::ParametersReply& out) {
  for (const auto& tensor : snapshot.tensors) {
    const torch::Tensor c = tensor.detach().to(torch::kCPU).contiguous();
    Tensor* t = out.add_tensors();
    switch (c.scalar_type()) {
      case torch::kFloat32: t->set_dtype(Tensor::FLOAT32); break;
      case torch::kFloat64: t->set_dtype(Tensor::FLOAT64); break;
      case torch::kInt64: t->set_dtype(Tensor::INT64); break;
      case torch::kUInt8: t->set_dtype(Tensor::UINT8); break;
      default: throw UserError(fmt::format("parameters: cannot send a tensor of dtype {}", std::string(c.dtype().name())));
    }
    for (auto s : c.sizes()) t->add_shape(s);
    t->set_data(c.data_ptr(), static_cast<std::size_t>(c.numel()) * c.element_size());
  }
}

ParameterSnapshot decode_parameters(const fleet::ParametersReply& msg) {
  ParameterSnapshot snapshot;
  for (int i = 0; i < msg.tensors_size(); ++i) {
    const Tensor& t = msg.tensors(i);
    torch::ScalarType type;
    switch (t.dtype()) {
      case Tensor::FLOAT32: type = torch::kFloat32; break;
      case Tensor::FLOAT64: type = torch::kFloat64; break;
      case Tensor::INT64: type = torch::kInt64; break;
      case Tensor::UINT8: type = torch::kUInt8; break;
      default: throw UserError(fmt::format("parameters: tensor {} has dtype {}", i, Tensor::DType_Name(t.dtype())));
    }
    std::vector<std::int64_t> shape(t.shape().begin(), t.shape().end());
    std::size_t n = wire_element_size(t.dtype());
    for (auto s : shape) {
      if (s < 0) throw UserError(fmt::format("parameters: tensor {} has a negative dimension", i));
      // A shape whose byte count wraps around could match a short payload.
      if (__builtin_mul_overflow(n, static_cast<std::size_t>(s), &n))
        throw UserError(fmt::format("parameters: tensor {} has a shape too large to hold", i));
    }
    if (t.data().size() != n)
      throw UserError(fmt::format("parameters: tensor {} holds {} bytes where its shape makes {}", i, t.data().size(), n));
    torch::Tensor x = torch::empty(shape, torch::TensorOptions().dtype(type));
    if (n > 0) std::memcpy(x.data_ptr(), t.data().data(), n);
    snapshot.tensors.push_back(std::move(x));
  }
  return snapshot;
}

}  // namespace rlzoo
