#include "algorithms/pg/trajectories.h"

#include <algorithm>
#include <cstring>
#include <functional>

namespace rlzoo::pg {

std::int64_t TrajectoryBatch::steps() const {
  std::int64_t s = 0;
  for (auto l : lengths) s += l;
  return s;
}

TrajectoryBatch sample_trajectories(PgPolicyImpl& policy, std::vector<std::unique_ptr<Env>>& envs,
                                    const std::function<std::unique_ptr<Env>()>& make, std::int64_t n,
                                    std::int64_t horizon, Rng& seeds) {
  std::vector<std::uint64_t> reset_seeds(static_cast<std::size_t>(n));
  for (auto& s : reset_seeds) s = seeds.next_u64();  // the order the resets always drew them in
  return sample_trajectories(policy, envs, make, reset_seeds, horizon);
}

TrajectoryBatch concatenate(const std::vector<TrajectoryBatch>& parts) {
  TrajectoryBatch b;
  std::vector<torch::Tensor> obs, actions, rewards, mask;
  for (const auto& p : parts) {
    if (p.size() == 0) continue;
    obs.push_back(p.obs);
    actions.push_back(p.actions);
    rewards.push_back(p.rewards);
    mask.push_back(p.mask);
    b.returns.insert(b.returns.end(), p.returns.begin(), p.returns.end());
    b.lengths.insert(b.lengths.end(), p.lengths.begin(), p.lengths.end());
  }
  b.obs = torch::cat(obs);
  b.actions = torch::cat(actions);
  b.rewards = torch::cat(rewards);
  b.mask = torch::cat(mask);
  return b;
}

TrajectoryBatch sample_trajectories(PgPolicyImpl& policy, std::vector<std::unique_ptr<Env>>& envs,
                                    const std::function<std::unique_ptr<Env>()>& make,
                                    std::span<const std::uint64_t> reset_seeds, std::int64_t horizon) {
  const auto n = static_cast<std::int64_t>(reset_seeds.size());
  while (static_cast<std::int64_t>(envs.size()) < n) envs.push_back(make());
  const Space& os = envs[0]->observation_space();
  const Space& as = envs[0]->action_space();
  const std::int64_t d = os.numel(), k = as.is_box() ? as.numel() : 1;
  TrajectoryBatch b;
  b.obs = torch::zeros({n, horizon, d}, torch::kFloat32);
  b.actions = as.is_box() ? torch::zeros({n, horizon, k}, torch::kFloat32) : torch::zeros({n, horizon}, torch::kInt64);
  b.rewards = torch::zeros({n, horizon}, torch::kFloat64);
  b.mask = torch::zeros({n, horizon}, torch::kFloat64);
  b.returns.assign(static_cast<std::size_t>(n), 0.0);
  b.lengths.assign(static_cast<std::size_t>(n), 0);
  auto obs = b.obs.accessor<float, 3>();
  auto rew = b.rewards.accessor<double, 2>();
  auto msk = b.mask.accessor<double, 2>();
  float* act_f = as.is_box() ? b.actions.data_ptr<float>() : nullptr;
  std::int64_t* act_i = as.is_box() ? nullptr : b.actions.data_ptr<std::int64_t>();
  std::vector<float> current(static_cast<std::size_t>(n * d));
  std::vector<char> alive(static_cast<std::size_t>(n), 1);
  for (std::int64_t i = 0; i < n; ++i)
    envs[static_cast<std::size_t>(i)]->reset(reset_seeds[static_cast<std::size_t>(i)],
                                             std::as_writable_bytes(std::span(current).subspan(static_cast<std::size_t>(i * d), static_cast<std::size_t>(d))));
  torch::NoGradGuard no_grad;
  std::vector<float> clipped(static_cast<std::size_t>(k));
  for (std::int64_t t = 0; t < horizon; ++t) {
    std::int64_t live = 0;
    for (std::int64_t i = 0; i < n; ++i) live += alive[static_cast<std::size_t>(i)];
    if (live == 0) break;
    const auto o = torch::from_blob(current.data(), {n, d}, torch::kFloat32);
    const auto a = policy.act(o, /*deterministic=*/false).contiguous();
    for (std::int64_t i = 0; i < n; ++i) {
      if (!alive[static_cast<std::size_t>(i)]) continue;
      Env& env = *envs[static_cast<std::size_t>(i)];
      std::memcpy(&obs[i][t][0], current.data() + i * d, static_cast<std::size_t>(d) * sizeof(float));
      auto out = std::as_writable_bytes(std::span(current).subspan(static_cast<std::size_t>(i * d), static_cast<std::size_t>(d)));
      StepResult r;
      if (as.is_box()) {
        const float* ai = a.data_ptr<float>() + i * k;
        for (std::int64_t j = 0; j < k; ++j)
          clipped[static_cast<std::size_t>(j)] = static_cast<float>(
              std::clamp<double>(ai[j], as.low()[static_cast<std::size_t>(j)], as.high()[static_cast<std::size_t>(j)]));
        std::copy(ai, ai + k, act_f + (i * horizon + t) * k);
        r = env.step(std::span<const float>(clipped), out);
      } else {
        const std::int64_t ai = a.data_ptr<std::int64_t>()[i];
        act_i[i * horizon + t] = ai;
        r = env.step(ai, out);
      }
      rew[i][t] = r.reward;
      msk[i][t] = 1.0;
      b.returns[static_cast<std::size_t>(i)] += r.reward;
      ++b.lengths[static_cast<std::size_t>(i)];
      if (r.done()) alive[static_cast<std::size_t>(i)] = 0;
    }
  }
  return b;
}

}  // namespace rlzoo::pg
