// A generic random-play conformance check that every env's tests run (classic control,
// MuJoCo, grid worlds, card games). It plays seeded episodes with actions sampled from the
// action space by a fixed-seed Rng (only legal actions when the env has a mask, only listed
// candidates when it has candidate actions) and checks what the Env API promises:
//
//   * observations are finite, fully written and inside observation_space() (Space::contains);
//   * rewards are finite; agent_rewards() has num_agents entries;
//   * every episode ends (terminated or truncated) within the step budget, and step() after
//     the end throws UserError instead of stepping;
//   * info(): episode_done only on the last step, episode_return == the sum of the rewards,
//     episode_length == the number of steps;
//   * action masks: n() entries, at least one legal action; candidates: at least one, no more
//     than the action space allows, finite features;
//   * the same seed gives the same trajectory (observations, rewards, flags) in a fresh env and
//     again in a used env after reset(seed); different seeds give different trajectories;
//   * serialisation: a state saved in mid-episode (save_state, through JSON text) and loaded
//     into a fresh env gives the same observation, and both envs then continue identically
//     (50 steps, across episode ends). Envs that cannot save their state are skipped, and the
//     report says so.
//
// Unwritten observation bytes are found by filling the buffer with a different byte pattern
// in the two runs that should agree. Usage (no test framework needed):
//
//   auto report = check_env_conformance([] { return make_env("CartPole-v1"); });
//   EXPECT_TRUE(report.ok()) << report.summary();
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/env/env.h"

namespace rlzoo {

struct ConformanceOptions {
  // Env seeds; each gets its own trajectory. At least two are needed for the divergence check.
  std::vector<std::uint64_t> seeds{11, 22, 33};
  // Episodes per seed: the first starts with reset(seed), later ones with reset(nullopt).
  int episodes_per_seed = 2;
  // Step budget of one episode; 0 uses the env's time limit, or 10000 when it has none.
  std::int64_t max_steps_per_episode = 0;
  // Seed of the action sampler. The same for every env seed, so that a divergence between
  // seeds has to come from the env's own Rng.
  std::uint64_t action_seed = 0x5eed;
  // Off for envs that are deterministic whatever the seed (fixed start, deterministic rules).
  bool expect_seed_dependence = true;
  // Off for wrappers that transform rewards after the inner env's statistics are taken.
  bool check_episode_statistics = true;
  // The save_state / load_state round trip (skipped anyway where saving throws UserError).
  bool check_state_round_trip = true;
  // Distinct failures recorded before the check stops early. Only the first failure of each
  // kind is listed; repeats are counted.
  int max_failures = 20;
};

struct ConformanceReport {
  std::string env_id;
  std::vector<std::string> failures;   // the first failure of each kind
  std::int64_t repeated_failures = 0;  // further failures of a kind already listed
  std::int64_t episodes = 0;           // episodes played, all runs together
  std::int64_t steps = 0;              // steps taken, all runs together
  // The state round trip: "passed (...)", "skipped: <why>", or "" when not run.
  std::string state_round_trip;

  bool ok() const { return failures.empty(); }
  // One line per failure, after a header naming the env and what was played.
  std::string summary() const;
};

// `make` must return a fresh env each call (with its time limit, if the tests want one).
// Exceptions thrown by the env are reported as failures, not propagated.
ConformanceReport check_env_conformance(const std::function<std::unique_ptr<Env>()>& make,
                                        const ConformanceOptions& opts = {});

}  // namespace rlzoo
