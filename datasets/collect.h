// Runs a policy in an env and records the episodes into a dataset (`rlzoo dataset collect`).
//
//   auto env = make_env("CartPole-v1");
//   RandomPolicy random;
//   DatasetWriter out(dir, env->id(), env->observation_space(), env->action_space(), source);
//   collect_episodes(*env, random, {.episodes = 100, .seed = 1}, out);
//   out.close();
//
// What is recorded is what the env saw and gave: raw observations and rewards, and the action
// actually taken (after epsilon and noise). Given the same seed, policy and env, the data is
// the same bit for bit.
#pragma once

#include <cstdint>

#include "datasets/dataset_writer.h"
#include "core/common/rng.h"
#include "core/env/env.h"

namespace rlzoo::data {

// Chooses the actions. Implementations: RandomPolicy here, a saved agent in apps/cmd_dataset.cpp.
class CollectPolicy {
 public:
  virtual ~CollectPolicy() = default;
  // Called once before the first episode with a seed derived from CollectOptions::seed, for
  // whatever randomness the policy has of its own.
  virtual void seed(std::uint64_t seed) = 0;
  // Writes the action for `observation` (the env's current one) into `action` (action space
  // layout). episode_start: the observation is the first of an episode (recurrent policies
  // reset their state). The env gives legal-action masks (env.action_mask()).
  virtual void act(const Env& env, ConstBytes observation, bool episode_start, Bytes action) = 0;
};

// Uniform over the action space, or over the legal actions when the env has masks or
// candidate actions.
class RandomPolicy : public CollectPolicy {
 public:
  void seed(std::uint64_t seed) override { rng_.seed_with(seed); }
  void act(const Env& env, ConstBytes observation, bool episode_start, Bytes action) override;

 private:
  Rng rng_;
};

// A uniform random action for env into `action`: over the legal actions when it has masks,
// over the candidates' indices when it has candidate actions.
void sample_action(const Env& env, Rng& rng, Bytes action);

struct CollectOptions {
  std::int64_t episodes = 1;  // at most this many episodes (0: no limit; then steps must be set)
  std::int64_t steps = 0;     // stop after the episode that brings the total to >= steps (0: no limit)
  // Probability of replacing the policy's action by a uniform random one, in [0, 1].
  double epsilon = 0.0;
  // Standard deviation of Gaussian noise added to the policy's Box actions (float dtypes), which
  // are then clipped to the bounds; >= 0. Actions replaced by epsilon get no noise.
  double noise = 0.0;
  // Episode i is reset with derive_seed(seed, i); the policy and the exploration draws get
  // seeds derived from it too.
  std::uint64_t seed = 0;
};

// Throws UserError for options that do not suit env: no limit (episodes and steps both 0) or a
// negative one, epsilon outside [0, 1],
// negative noise, or noise for an action space that is not a float Box.
void check_collect_options(const Env& env, const CollectOptions& options);

// Runs whole episodes until options.episodes or options.steps is reached and adds each to `out` (its spaces must be the env's). Checks
// the options first (check_collect_options).
void collect_episodes(Env& env, CollectPolicy& policy, const CollectOptions& options, DatasetWriter& out);

}  // namespace rlzoo::data
