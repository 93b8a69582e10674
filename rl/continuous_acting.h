// The acting half of the off-policy continuous-control learners (SAC, TD3, DDPG) on every
// backend, as Stable-Baselines3's OffPolicyAlgorithm._sample_action: uniformly random actions
// before learning_starts, then the policy's (a squashed Gaussian's draw, or a deterministic
// actor's output), plus optional exploration noise, clipped to [-1, 1] and rescaled to the
// Box's bounds.
//
// Randomness comes from rlzoo's Rng, not LibTorch's generator: on the inline backend every row
// draws from the agent's own stream in row order (a checkpoint holds it); on actor threads each
// env has its own stream keyed by its global index. The Ornstein-Uhlenbeck state is the
// policy's: it starts from 0 with each episode and with each learn() (where every env starts
// one), as SB3 resets its noise when learning starts. An actor's step counts against learning_starts as the global env step it
// corresponds to (start + step x total envs).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rl/box_action_scaling.h"
#include "core/common/rng.h"
#include "core/runtime/actor_policy.h"

namespace rlzoo {

// What the evaluator's rows hold: a squashed Gaussian's mean and log-std (2 x dim floats, the
// action tanh(mean + std * N(0, 1))), a deterministic actor's action in [-1, 1] (dim floats),
// or a gSDE actor's mean and its latent features times the noise scale (dim + latent x dim
// floats, row[dim + l dim + j] = latent_l exp(log_std_lj); see GsdeActing).
enum class ContinuousActing { squashed_gaussian, deterministic, squashed_sde };

// gSDE's exploration while acting, as SB3's off-policy collection with use_sde: each env keeps
// an exploration matrix eps [latent, dim] ~ N(0, 1) and acts tanh(mean + sum_l row_lj eps_lj);
// the matrix is drawn anew when each round starts (an episode, where rounds count episodes)
// and, with sample_freq > 0, every sample_freq steps after.
struct GsdeActing {
  std::int64_t latent = 0;
  std::int64_t sample_freq = -1;  // -1: once per round
  bool at_warmup = false;         // act with gSDE before learning_starts, not uniformly
  bool per_episode = false;       // rounds count episodes
};

// Exploration noise added to the action in [-1, 1] units: none, N(0, sigma^2), or SB3's
// Ornstein-Uhlenbeck process (theta 0.15, dt 0.01, from 0; back to 0 where an episode starts).
struct ActionNoise {
  enum class Kind { none, normal, ornstein_uhlenbeck } kind = Kind::none;
  double sigma = 0.1;
  // "none", "normal" or "ornstein_uhlenbeck" (the presets' action_noise key).
  static ActionNoise named(const std::string& name, double sigma);
};

struct ContinuousActingSchedule {
  std::int64_t start_timesteps = 0;  // the agent's num_timesteps when acting started
  std::int64_t learning_starts = 0;  // env steps of uniformly random actions
  std::int64_t total_envs = 1;       // envs over all actors
  std::uint64_t seed = 0;            // per-env streams: derive_seed(seed, global env index)
  Rng* shared_stream = nullptr;      // set: every row draws from it instead (the inline backend)
};

class ContinuousActorPolicy : public ActorPolicy {
 public:
  ContinuousActorPolicy(std::shared_ptr<BatchEvaluator> evaluator, BoxActionScaling scaling, ContinuousActing acting,
                        ActionNoise noise, const ContinuousActingSchedule& schedule, GsdeActing gsde = {});
  std::uint64_t begin_trajectory(std::uint64_t sequence, const StopSource& stop) override;
  bool act(const ActBatch& batch) override;

 private:
  Rng& stream(std::int64_t row);
  std::int64_t row_floats() const;
  // gSDE: row r's action in [-1, 1] from its evaluator row, drawing its matrix when due.
  void out_sde(const ActBatch& b, std::int64_t r, const float* row, float* out);

  std::shared_ptr<BatchEvaluator> evaluator_;
  BoxActionScaling scaling_;
  ContinuousActing acting_;
  ActionNoise noise_;
  ContinuousActingSchedule schedule_;
  std::int64_t first_env_ = -1;
  std::vector<Rng> rngs_;
  std::vector<double> noise_state_;  // Ornstein-Uhlenbeck, rows x dim
  std::vector<float> rows_, unit_;
  GsdeActing gsde_;
  std::vector<double> sde_eps_;               // rows x latent x dim
  std::vector<std::int64_t> sde_since_draw_;  // per row: steps acted since its draw; -1: draw next
};

}  // namespace rlzoo
