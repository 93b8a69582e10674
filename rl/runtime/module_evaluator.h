// A BatchEvaluator backed by a network replica (core/runtime/actor_policy.h): decodes the
// observation rows, runs `forward` without gradients, writes the float32 result rows. With
// mask_size > 0 an input row is the observation followed by mask_size legal-action flags
// (uint8), handed to `forward` as a [rows, mask_size] bool tensor; with in_floats > 0 each row
// ends with that many float32 inputs (a recurrent policy's episode-start flag and state),
// handed over as a [rows, in_floats] tensor. Before
// each batch it copies in the newest weights from the learner's store when their version
// changed, so one object serves an actor thread (its own replica) or the inference server
// (the one shared replica, on the server thread).
//
//   auto q = QNetwork(obs_space, act_space, cfg);                     // the replica
//   ModuleEvaluator eval(obs_space, n_actions, q.ptr(),
//                        [q](const auto& obs) mutable { return q->forward(obs); }, &store);
#pragma once

#include <functional>
#include <memory>
#include <optional>

#include "core/runtime/actor_policy.h"
#include "core/spaces/space.h"
#include "core/torch/module_parameters.h"
#include "core/torch/tensor.h"

namespace rlzoo {

class ModuleEvaluator : public BatchEvaluator {
 public:
  // Maps observation tensors (one per field, [rows, ...]) to [rows, out_floats].
  using Forward = std::function<torch::Tensor(const std::vector<torch::Tensor>& obs)>;
  // The same with legal-action masks ([rows, mask_size] bool).
  using MaskedForward = std::function<torch::Tensor(const std::vector<torch::Tensor>& obs, const torch::Tensor& masks)>;

  // The same with per-row float inputs ([rows, in_floats]; undefined when in_floats is 0).
  using InputForward = std::function<torch::Tensor(const std::vector<torch::Tensor>& obs, const torch::Tensor& masks,
                                                   const torch::Tensor& inputs)>;

  // `store` may be null (fixed weights). The replica must be of the learner's architecture.
  ModuleEvaluator(Space observation_space, std::size_t out_floats, std::shared_ptr<torch::nn::Module> replica,
                  Forward forward, const ModuleParameterStore* store);
  ModuleEvaluator(Space observation_space, std::size_t mask_size, std::size_t out_floats,
                  std::shared_ptr<torch::nn::Module> replica, MaskedForward forward, const ModuleParameterStore* store);
  ModuleEvaluator(Space observation_space, std::size_t mask_size, std::size_t in_floats, std::size_t out_floats,
                  std::shared_ptr<torch::nn::Module> replica, InputForward forward, const ModuleParameterStore* store);

  // A way around the tensors for few rows: maps `rows` observations (float32, [rows, numel]) to
  // the output rows, or declines (false) and the rows take `forward`. Used only where the rows
  // are just a float32 Box observation (no masks, no inputs) and the replica is on the CPU; it
  // must give what `forward` gives.
  using RowForward = std::function<bool(const float* obs, std::int64_t rows, float* out)>;
  void set_row_forward(RowForward f) { row_forward_ = std::move(f); }

  std::size_t in_row_bytes() const override { return space_.byte_size() + mask_size_ + in_floats_ * sizeof(float); }
  std::size_t out_row_bytes() const override { return out_floats_ * sizeof(float); }
  bool evaluate(ConstBytes in, std::int64_t rows, Bytes out) override;
  // Copies in newer weights if there are any; returns the version held afterwards.
  std::uint64_t refresh();
  // Blocks until the held weights are at least `version` (or `stop`).
  std::uint64_t wait_for(std::uint64_t version, const StopSource& stop);
  std::uint64_t version() const { return client_ ? client_->version() : 0; }

 private:
  Space space_;
  std::size_t mask_size_ = 0;
  std::size_t in_floats_ = 0;
  std::size_t out_floats_;
  std::shared_ptr<torch::nn::Module> replica_;
  torch::Device device_ = torch::kCPU;  // the replica's, read once: inputs are moved there
  InputForward forward_;
  RowForward row_forward_;
  std::vector<float> row_in_, row_out_;
  std::vector<std::byte> obs_, masks_;
  std::vector<float> inputs_;
  std::optional<ParameterClient<ParameterSnapshot>> client_;
};

}  // namespace rlzoo
