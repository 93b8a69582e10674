// Several learners as one (data parallelism): every learner computes gradients on its own
// trajectories, and this GradientReducer (core/torch/gradient_reducer.h) replaces them by
// their mean over all learners with LibTorch's c10d: ProcessGroupNCCL when the learners train
// on CUDA (and LibTorch has NCCL), ProcessGroupGloo on the CPU. Learners meet through a
// TCPStore at the rendezvous address, where rank 0 hosts the store. Torch-only: built without
// gRPC too (library rlzoo_learner_group), so a GPU build with gRPC off still has NCCL groups.
//
//   auto reducer = std::make_shared<C10dGradientReducer>(C10dOptions{"127.0.0.1:29500", rank, 2});
//   agent->set_gradient_reducer(reducer);   // rlzoo train/learner --learners 2 --rank R
//
// Parameters stay identical across ranks because every rank starts from rank 0's parameters
// (synchronize(), broadcast at the start of learn()) and applies the same averaged gradient
// with the same optimiser state. Every rank must run the same number of reductions (same
// preset; no per-rank early stopping such as PPO's target_kl).
#pragma once

#include <memory>
#include <string>

#include "core/torch/gradient_reducer.h"

namespace rlzoo {

enum class C10dBackend { gloo, nccl };
const char* to_string(C10dBackend backend);


// The backend for learners whose networks live on `device`: Gloo on the CPU, NCCL on CUDA.
// `has_nccl` is nccl_compiled() (core/torch/device.h) (a parameter so both answers are testable on any build).
// Throws UserError naming NCCL for CUDA learners without it: Gloo would move every gradient
// through host memory, and silently slower is not what `device: cuda` asked for.
C10dBackend choose_c10d_backend(const c10::Device& device, bool has_nccl, int learners);

struct C10dOptions {
  std::string rendezvous = "127.0.0.1:29500";  // host:port of the TCPStore (rank 0 listens there)
  int rank = 0;
  int world_size = 1;
  int timeout_s = 300;  // for the rendezvous and each collective
  // Where the learners' parameters live (the preset's `device`): picks the backend.
  c10::Device device{c10::kCPU};
};

class C10dGradientReducer : public GradientReducer {
 public:
  // Joins the group: blocks until all world_size learners have reached the rendezvous (or
  // throws UserError after timeout_s).
  explicit C10dGradientReducer(const C10dOptions& options);
  ~C10dGradientReducer() override;

  void reduce(const std::vector<torch::Tensor>& parameters) override;
  void synchronize(const std::vector<torch::Tensor>& parameters) override;
  std::vector<std::int64_t> minimum(std::vector<std::int64_t> values) override;
  int world_size() const override { return options_.world_size; }
  int rank() const override { return options_.rank; }
  C10dBackend backend() const { return backend_; }

 private:
  C10dBackend backend_;
  C10dOptions options_;
  struct Group;
  std::unique_ptr<Group> group_;
};

}  // namespace rlzoo
