#include "rl/runtime/module_evaluator.h"

#include <cstring>

#include "rl/nets/observation.h"
#include "core/torch/device.h"
#include "core/torch/threads.h"

namespace rlzoo {

ModuleEvaluator::ModuleEvaluator(Space observation_space, std::size_t out_floats,
                                 std::shared_ptr<torch::nn::Module> replica, Forward forward,
                                 const ModuleParameterStore* store)
    : ModuleEvaluator(std::move(observation_space), 0, out_floats, std::move(replica),
                      [f = std::move(forward)](const std::vector<torch::Tensor>& obs, const torch::Tensor&) {
                        return f(obs);
                      },
                      store) {}

ModuleEvaluator::ModuleEvaluator(Space observation_space, std::size_t mask_size, std::size_t out_floats,
                                 std::shared_ptr<torch::nn::Module> replica, MaskedForward forward,
                                 const ModuleParameterStore* store)
    : ModuleEvaluator(std::move(observation_space), mask_size, 0, out_floats, std::move(replica),
                      [f = std::move(forward)](const std::vector<torch::Tensor>& obs, const torch::Tensor& masks,
                                               const torch::Tensor&) { return f(obs, masks); },
                      store) {}

ModuleEvaluator::ModuleEvaluator(Space observation_space, std::size_t mask_size, std::size_t in_floats,
                                 std::size_t out_floats, std::shared_ptr<torch::nn::Module> replica,
                                 InputForward forward, const ModuleParameterStore* store)
    : space_(std::move(observation_space)),
      mask_size_(mask_size),
      in_floats_(in_floats),
      out_floats_(out_floats),
      replica_(std::move(replica)),
      forward_(std::move(forward)) {
  if (store) client_.emplace(*store);
  replica_->eval();
  device_ = module_device(*replica_);
}

std::uint64_t ModuleEvaluator::refresh() {
  if (client_ && client_->refresh()) load_snapshot(*replica_, *client_->snapshot());
  return version();
}

std::uint64_t ModuleEvaluator::wait_for(std::uint64_t version, const StopSource& stop) {
  if (client_ && client_->wait_for(version, stop)) load_snapshot(*replica_, *client_->snapshot());
  return refresh();
}

bool ModuleEvaluator::evaluate(ConstBytes in, std::int64_t rows, Bytes out) {
  RLZOO_CHECK(in.size() == static_cast<std::size_t>(rows) * in_row_bytes() &&
                  out.size() == static_cast<std::size_t>(rows) * out_row_bytes(),
              "ModuleEvaluator: row sizes do not match");
  if (rows == 0) return true;
  // Runtime threads (actors, the inference server) run LibTorch single-threaded.
  static thread_local bool configured = false;
  if (!configured) {
    use_one_torch_thread();
    configured = true;
  }
  refresh();
  if (row_forward_ && mask_size_ == 0 && in_floats_ == 0 && device_.is_cpu() && space_.kind() == SpaceKind::Box &&
      space_.dtype() == DType::Float32) {
    // Copied: the rows need not be 4-byte aligned.
    row_in_.resize(in.size() / sizeof(float));
    std::memcpy(row_in_.data(), in.data(), in.size());
    row_out_.resize(out.size() / sizeof(float));
    if (row_forward_(row_in_.data(), rows, row_out_.data())) {
      std::memcpy(out.data(), row_out_.data(), out.size());
      return true;
    }
  }
  torch::NoGradGuard no_grad;
  torch::Tensor y;
  if (mask_size_ == 0 && in_floats_ == 0) {
    // Copy: rows handed in by an actor or the server need not be 8-byte aligned.
    y = forward_(to_device(observation_tensors(space_, in.data(), rows, /*copy=*/true), device_), torch::Tensor(),
                 torch::Tensor());
  } else {
    // Split the rows into their parts (memcpy: the floats after the bytes need not be aligned).
    const std::size_t ob = space_.byte_size(), fb = in_floats_ * sizeof(float), n = static_cast<std::size_t>(rows);
    obs_.resize(n * ob);
    masks_.resize(n * mask_size_);
    inputs_.resize(n * in_floats_);
    for (std::size_t r = 0; r < n; ++r) {
      const std::byte* row = in.data() + r * in_row_bytes();
      std::memcpy(obs_.data() + r * ob, row, ob);
      if (mask_size_) std::memcpy(masks_.data() + r * mask_size_, row + ob, mask_size_);
      if (fb) std::memcpy(inputs_.data() + r * in_floats_, row + ob + mask_size_, fb);
    }
    torch::Tensor masks, inputs;
    if (mask_size_)
      masks = torch::from_blob(masks_.data(), {rows, static_cast<std::int64_t>(mask_size_)}, torch::kUInt8)
                  .to(device_, torch::kBool);
    if (in_floats_)
      inputs = torch::from_blob(inputs_.data(), {rows, static_cast<std::int64_t>(in_floats_)}, torch::kFloat32)
                   .to(device_);
    y = forward_(to_device(observation_tensors(space_, obs_.data(), rows), device_), masks, inputs);
  }
  y = y.to(torch::kCPU, torch::kFloat32).contiguous();
  RLZOO_CHECK(y.numel() == rows * static_cast<std::int64_t>(out_floats_), "ModuleEvaluator: forward gave the wrong size");
  std::memcpy(out.data(), y.data_ptr<float>(), out.size());
  return true;
}

}  // namespace rlzoo
