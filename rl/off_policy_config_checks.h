// The config checks every replay-based learner makes (DQN, SAC, TD3, DDPG), each giving the
// message for the key it belongs to, or nothing when the value is fine.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "rl/nets/policy_config.h"
#include "rl/train_frequency.h"

namespace rlzoo {

// gradient_steps: >= 1, or -1 for as many as env steps collected.
inline std::optional<std::string> gradient_steps_problem(std::int64_t gradient_steps) {
  if (gradient_steps == 0) return "must be >= 1, or -1 for as many as env steps collected";
  return std::nullopt;
}

// buffer_size: at least 2 transitions per env (a stored transition needs the next slot).
inline std::optional<std::string> buffer_size_problem(std::int64_t buffer_size, std::int64_t n_envs) {
  if (buffer_size < 2 * n_envs)
    return "must hold at least 2 transitions per env (n_envs = " + std::to_string(n_envs) + ")";
  return std::nullopt;
}

// train_freq in episodes: one env only, as SB3 (episodes of several envs end apart).
inline std::optional<std::string> train_frequency_problem(const TrainFrequency& freq, std::int64_t n_envs) {
  if (freq.episodes && n_envs != 1)
    return "[" + std::to_string(freq.n) + ", episode] needs one env (n_envs = " + std::to_string(n_envs) +
           "): episodes of several envs end apart; count steps instead";
  return std::nullopt;
}

// The policy keys the continuous-control networks (rl/nets/continuous_control.h) do not take,
// named for `algo` ("SAC", "TD3 and DDPG"). policy.log_std_init is taken only where
// `log_std_used` (SAC with gSDE); elsewhere it must stay at `log_std_default`.
inline std::optional<std::string> continuous_policy_problem(const PolicyConfig& p, const std::string& algo,
                                                            bool log_std_used = false,
                                                            double log_std_default = PolicyConfig{}.log_std_init) {
  if (p.ortho_init) return "policy.ortho_init is not supported by " + algo + " (LibTorch's default init, as SB3)";
  if (p.recurrent.enabled())
    return "policy.recurrent.cell '" + p.recurrent.cell + "': " + algo + " has no recurrent policies; leave it out";
  if (p.shared_trunk) return "policy.shared_trunk is not supported by " + algo + " (the actor and critics are separate)";
  if (p.dueling) return "policy.dueling applies to DQN only";
  if (!log_std_used && p.log_std_init != log_std_default)
    return "policy.log_std_init is not used by " + algo + (algo == "SAC" ? " without gSDE (use_sde: true)" : "") +
           "; leave it out";
  return std::nullopt;
}

}  // namespace rlzoo
