// The low-level API: a PPO learner assembled by hand from rlzoo's public blocks — a vector
// env, the space-driven ActorCritic, the rollout buffer with GAE, and a LibTorch optimizer —
// with no Agent class and no preset. examples/ppo_by_hand.cpp runs it; a test does too.
#pragma once

#include <torch/torch.h>

#include <deque>
#include <numeric>

#include "rl/buffers/rollout_buffer.h"
#include "rl/nets/networks.h"
#include "rl/nets/observation.h"
#include "core/vector/vector_env.h"

namespace rlzoo::examples {

struct ByHandResult {
  double mean_recent_return = 0;  // over the last 20 finished episodes
  std::int64_t episodes = 0;
};

inline ByHandResult train_ppo_by_hand(const std::string& env_id, std::int64_t total_steps, std::uint64_t seed = 0) {
  torch::manual_seed(seed);
  const std::int64_t n_envs = 8, n_steps = 32, epochs = 10, batch = 64;
  const double gamma = 0.98, lambda = 0.8, clip = 0.2;

  SyncVectorEnv venv(make_envs(env_id, n_envs));                // batch in, batch out
  const Space& obs_space = venv.single_observation_space();
  ActorCritic policy(obs_space, venv.single_action_space(), PolicyConfig{});  // built from the spaces
  torch::optim::Adam opt(policy->parameters(), torch::optim::AdamOptions(1e-3).eps(1e-5));
  RolloutBuffer buffer(n_steps, n_envs);

  auto observations = [&] { return observation_tensors(obs_space, venv.observation_bytes().data(), n_envs, true); };
  std::deque<double> recent;
  ByHandResult result;
  venv.reset(seed);
  for (std::int64_t step = 0; step < total_steps; step += n_envs * n_steps) {
    buffer.reset();
    {
      torch::NoGradGuard no_grad;
      while (!buffer.full()) {
        const auto obs = observations();
        auto [dist, values] = policy->forward(obs);
        const auto actions = dist.sample();
        venv.step(std::span<const std::int64_t>(actions.data_ptr<std::int64_t>(), static_cast<std::size_t>(n_envs)));
        std::vector<float> r(n_envs), d(n_envs);
        for (std::int64_t i = 0; i < n_envs; ++i) {
          r[i] = static_cast<float>(venv.rewards()[i]);
          d[i] = venv.terminated()[i] || venv.truncated()[i];
          if (d[i]) {
            recent.push_back(venv.episode_returns()[i]);
            if (recent.size() > 20) recent.pop_front();
            ++result.episodes;
          }
        }
        buffer.add(obs, actions, torch::tensor(r), torch::tensor(d), values, dist.log_prob(actions));
      }
      buffer.compute_returns_and_advantages(policy->value(observations()), gamma, lambda);
    }
    for (std::int64_t e = 0; e < epochs; ++e)
      for (auto& mb : buffer.minibatches(batch)) {
        auto [dist, values] = policy->forward(mb.obs);
        const auto adv = (mb.advantages - mb.advantages.mean()) / (mb.advantages.std() + 1e-8);
        const auto ratio = (dist.log_prob(mb.actions) - mb.old_log_probs).exp();
        const auto pg = -torch::min(adv * ratio, adv * ratio.clamp(1 - clip, 1 + clip)).mean();
        const auto loss = pg + 0.5 * torch::mse_loss(values, mb.returns);
        opt.zero_grad();
        loss.backward();
        torch::nn::utils::clip_grad_norm_(policy->parameters(), 0.5);
        opt.step();
      }
  }
  result.mean_recent_return =
      recent.empty() ? 0.0 : std::accumulate(recent.begin(), recent.end(), 0.0) / static_cast<double>(recent.size());
  return result;
}

}  // namespace rlzoo::examples
