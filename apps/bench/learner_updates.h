// One PPO minibatch step and one DQN gradient step on CartPole's spaces with synthetic data, as
// the algorithms take them (run_ppo_epochs; DqnAgent::train's path with double_q off). Shared by
// `rlzoo bench learner` and the hot-path guard (tests/perf/hotpaths/torch_paths.cpp), so that
// both measure the same update. `fused` picks rlzoo's path (fused MLP chains, FusedAdam, the
// fused losses) or LibTorch's: the modules, torch::optim::Adam and the losses as operations.
// (Both clear and clip gradients with zero_gradients and clip_and_check_gradients.)
#pragma once

#include <torch/nn/functional/loss.h>
#include <torch/optim/adam.h>

#include <memory>
#include <vector>

#include "algorithms/dqn/dqn_fused_update.h"
#include "core/common/error.h"
#include "algorithms/dqn/dqn_loss.h"
#include "algorithms/ppo/ppo_fused_update.h"
#include "algorithms/ppo/ppo_loss.h"
#include "rl/gradient_guard.h"
#include "rl/nets/networks.h"
#include "rl/optim/fused_adam.h"
#include "rl/optim/zero_gradients.h"

namespace rlzoo::bench {

inline PolicyConfig two_layer_policy(std::int64_t width) {
  PolicyConfig p;
  p.hidden = {width, width};
  return p;
}

inline std::unique_ptr<torch::optim::Adam> make_adam(const std::vector<torch::Tensor>& params,
                                                     const torch::optim::AdamOptions& options, bool fused) {
  if (fused) return std::make_unique<FusedAdam>(params, options);
  return std::make_unique<torch::optim::Adam>(params, options);
}

// PPO, batch 256, separate actor and critic trunks, clip 0.2, Adam (lr 1e-3, eps 1e-5).
class PpoUpdate {
 public:
  static constexpr std::int64_t kBatch = 256;
  PpoUpdate(std::int64_t width, bool fused)
      : policy_(Space::box(-10, 10, {4}), Space::discrete(2), two_layer_policy(width)), fused_(fused) {
    policy_->use_fused_path(fused);
    optimizer_ = make_adam(policy_->parameters(), torch::optim::AdamOptions(1e-3).eps(1e-5), fused);
    cfg_.n_epochs = 1;
    cfg_.batch_size = kBatch;
    torch::manual_seed(0);
    mb_.obs = {torch::randn({kBatch, 4})};
    // int32 actions keep ppo_loss on its LibTorch operations (the fused loss takes int64 ones).
    mb_.actions = torch::randint(0, 2, {kBatch}, fused ? torch::kInt64 : torch::kInt32);
    mb_.advantages = torch::randn({kBatch});
    mb_.returns = torch::randn({kBatch});
    torch::NoGradGuard no_grad;
    auto [dist, values] = policy_->forward(mb_.obs);
    mb_.old_log_probs = dist.log_prob(mb_.actions);
    mb_.old_values = values;
  }
  void step() {
    run_ppo_epochs(
        cfg_, 0.2, *optimizer_, params_, [this] { return std::vector<RolloutBuffer::Batch>{mb_}; },
        [this](const RolloutBuffer::Batch& b) { return policy_->forward(b.obs); }, nullptr, n_updates_, 0,
        fused_ ? &plain_ : nullptr);  // as PpoAgent takes it: plain passes (ppo_fused_update.h)
  }

 private:
  ActorCritic policy_;
  bool fused_;
  PpoFusedUpdate plain_{policy_};
  std::unique_ptr<torch::optim::Adam> optimizer_;
  std::vector<torch::Tensor> params_ = policy_->parameters();
  PpoConfig cfg_;
  RolloutBuffer::Batch mb_;
  std::int64_t n_updates_ = 0;
};

// DQN, batch 64, a target network's forward, Huber loss, gradient clip 10, Adam (lr 1e-3).
// On `device` (LibTorch's path only: the fused one is CPU code; `rlzoo bench gpu` uses CUDA).
class DqnUpdate {
 public:
  static constexpr std::int64_t kBatch = 64;
  DqnUpdate(std::int64_t width, bool fused, const torch::Device& device = torch::kCPU)
      : fused_(fused),
        q_(Space::box(-10, 10, {4}), Space::discrete(2), two_layer_policy(width)),
        target_(Space::box(-10, 10, {4}), Space::discrete(2), two_layer_policy(width)) {
    RLZOO_CHECK(!fused || device.is_cpu(), "DqnUpdate: the fused path runs on the CPU only");
    q_->use_fused_path(fused);
    target_->use_fused_path(fused);
    q_->to(device);
    target_->to(device);
    optimizer_ = make_adam(q_->parameters(), torch::optim::AdamOptions(1e-3), fused);
    torch::manual_seed(0);
    obs_ = torch::randn({kBatch, 4}).to(device);
    next_obs_ = torch::randn({kBatch, 4}).to(device);
    actions_ = torch::randint(0, 2, {kBatch}).to(device);
    rewards_ = torch::ones({kBatch}).to(device);
    discounts_ = torch::full({kBatch}, 0.99f).to(device);
    terminated_ = torch::zeros({kBatch}).to(device);
    plain_ = fused ? DqnFusedUpdate::make(q_, target_) : nullptr;
  }
  void step() {
    torch::Tensor target_q, loss;
    if (plain_) {  // as DqnAgent takes it: plain passes (dqn_fused_update.h)
      zero_gradients(*optimizer_);
      const DqnFusedUpdate::Batch batch{obs_.data_ptr<float>(),       next_obs_.data_ptr<float>(),
                                        actions_.data_ptr<std::int64_t>(), 0,
                                        rewards_.data_ptr<float>(),   discounts_.data_ptr<float>(),
                                        terminated_.data_ptr<float>(), kBatch};
      const double value = plain_->gradients(batch, /*double_q=*/false, /*huber=*/true).value;
      clip_and_check_gradients(params_, 10.0, value, {"DQN gradient step", ++n_updates_, 0});
      optimizer_->step();
      return;
    }
    if (fused_) {
      {
        torch::NoGradGuard no_grad;
        target_q = dqn_targets(target_->forward({next_obs_}), {}, rewards_, discounts_, terminated_);
      }
      loss = dqn_td_loss(q_->forward({obs_}), actions_, target_q, /*huber=*/true).loss;
    } else {
      {
        torch::NoGradGuard no_grad;
        target_q = rewards_ + discounts_ * (1.0f - terminated_) * std::get<0>(target_->forward({next_obs_}).max(1));
      }
      loss = torch::nn::functional::smooth_l1_loss(q_->forward({obs_}).gather(1, actions_.unsqueeze(1)).squeeze(1),
                                                   target_q);
    }
    zero_gradients(*optimizer_);
    loss.backward();
    clip_and_check_gradients(params_, 10.0, loss, {"DQN gradient step", ++n_updates_, 0});
    optimizer_->step();
  }

 private:
  bool fused_;
  QNetwork q_, target_;
  std::unique_ptr<DqnFusedUpdate> plain_;
  std::unique_ptr<torch::optim::Adam> optimizer_;
  std::vector<torch::Tensor> params_ = q_->parameters();
  torch::Tensor obs_, next_obs_, actions_, rewards_, discounts_, terminated_;
  std::int64_t n_updates_ = 0;
};

}  // namespace rlzoo::bench
