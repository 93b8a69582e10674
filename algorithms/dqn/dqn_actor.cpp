#include "algorithms/dqn/dqn_actor.h"

#include <cstring>
#include <limits>

#include "rl/epsilon_greedy.h"

namespace rlzoo {

DqnActorPolicy::DqnActorPolicy(std::shared_ptr<BatchEvaluator> q_values, const Space& action_space,
                               const DqnConfig& config, const DqnActingSchedule& schedule)
    : q_values_(std::move(q_values)),
      n_(action_space.n()),
      start_(action_space.start()),
      cfg_(config),
      schedule_(schedule) {
  RLZOO_CHECK(q_values_->out_row_bytes() == static_cast<std::size_t>(n_) * sizeof(float),
              "DqnActorPolicy: the evaluator must give one Q-value per action");
}

double DqnActorPolicy::exploration_rate(std::int64_t step) const {
  const std::int64_t t = schedule_.start_timesteps + step * schedule_.total_envs;
  if (t < cfg_.learning_starts) return 1.0;
  return dqn_actor_exploration_rate(cfg_, dqn_exploration_rate(cfg_, t, schedule_.total_timesteps), schedule_.actor,
                                    schedule_.actors);
}

Rng& DqnActorPolicy::stream(std::int64_t env) {
  if (schedule_.shared_stream) return *schedule_.shared_stream;
  return rngs_[static_cast<std::size_t>(env - first_env_)];
}

bool DqnActorPolicy::act(const ActBatch& b) {
  if (first_env_ < 0) {  // the slice is fixed for the actor's life
    first_env_ = b.first_env;
    for (std::int64_t r = 0; r < b.rows && !schedule_.shared_stream; ++r)
      rngs_.emplace_back(derive_seed(schedule_.seed, static_cast<std::uint64_t>(first_env_ + r)));
  }
  RLZOO_CHECK(b.first_env == first_env_ && (schedule_.shared_stream || static_cast<std::size_t>(b.rows) == rngs_.size()),
              "DqnActorPolicy: an actor's env slice must not change");
  const double eps = exploration_rate(b.step);
  auto actions = as_span<std::int64_t>(b.actions);
  const std::size_t obs_bytes = b.obs.size() / static_cast<std::size_t>(b.rows);
  greedy_.assign(static_cast<std::size_t>(b.rows), 0);
  std::int64_t n_greedy = 0;
  for (std::int64_t r = 0; r < b.rows; ++r) {
    Rng& rng = stream(b.first_env + r);
    const auto i = static_cast<std::size_t>(r);
    const std::int64_t explored = epsilon_explore(rng, eps, n_, b.masks.empty() ? nullptr : b.masks.data() + r * n_);
    if (explored >= 0) {
      actions[i] = start_ + explored;
    } else {
      greedy_[i] = 1;
      ++n_greedy;
    }
  }
  if (n_greedy == 0) return true;
  // Only the greedy rows go through the network.
  greedy_obs_.resize(static_cast<std::size_t>(n_greedy) * obs_bytes);
  std::size_t k = 0;
  for (std::int64_t r = 0; r < b.rows; ++r)
    if (greedy_[static_cast<std::size_t>(r)])
      std::memcpy(greedy_obs_.data() + (k++) * obs_bytes, b.obs.data() + static_cast<std::size_t>(r) * obs_bytes,
                  obs_bytes);
  q_.resize(static_cast<std::size_t>(n_greedy * n_));
  if (!q_values_->evaluate(ConstBytes(greedy_obs_), n_greedy, std::as_writable_bytes(std::span(q_)))) return false;
  k = 0;
  for (std::int64_t r = 0; r < b.rows; ++r) {
    if (!greedy_[static_cast<std::size_t>(r)]) continue;
    const float* q = q_.data() + (k++) * static_cast<std::size_t>(n_);
    const std::uint8_t* mask = b.masks.empty() ? nullptr : b.masks.data() + r * n_;
    std::int64_t best = -1;
    float best_q = -std::numeric_limits<float>::infinity();
    for (std::int64_t a = 0; a < n_; ++a) {
      if (mask && !mask[a]) continue;
      if (best < 0 || q[a] > best_q) {  // first maximum, as argmax
        best = a;
        best_q = q[a];
      }
    }
    RLZOO_CHECK(best >= 0, "an action mask with no legal action");
    actions[static_cast<std::size_t>(r)] = start_ + best;
  }
  return true;
}

}  // namespace rlzoo
