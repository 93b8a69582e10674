#include "algorithms/td3/td3_loss.h"

namespace rlzoo {

torch::Tensor td3_smoothed_actions(const torch::Tensor& next_actions, const torch::Tensor& noise, double sigma,
                                   double clip) {
  return (next_actions + (noise * sigma).clamp(-clip, clip)).clamp(-1.0, 1.0);
}

torch::Tensor td3_critic_target(const torch::Tensor& next_q, const torch::Tensor& rewards, const torch::Tensor& discounts,
                                const torch::Tensor& terminated) {
  return rewards + discounts * (1.0 - terminated) * std::get<0>(next_q.min(0));
}

torch::Tensor td3_critic_loss(const torch::Tensor& current_q, const torch::Tensor& target) {
  return (current_q - target.unsqueeze(0)).pow(2).mean(1).sum();
}

}  // namespace rlzoo
