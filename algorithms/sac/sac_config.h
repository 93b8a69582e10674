// SAC hyperparameters: the one source of their defaults, Stable-Baselines3's
// (stable_baselines3/sac/sac.py, sac/policies.py): Adam 3e-4 for the actor, the critics and the
// entropy coefficient; buffer 1e6; learning starts 100; batch 256; tau 0.005; gamma 0.99; one
// gradient step per env step; entropy coefficient learned from 1.0 towards the target entropy
// -dim(A); two critics; MLPs [256, 256] ReLU with LibTorch's default initialisation.
// Validated from a preset's `hyperparams:` section.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

#include "rl/nets/policy_config.h"
#include "rl/off_policy_config_checks.h"
#include "rl/train_frequency.h"
#include "core/config/schema.h"

namespace rlzoo {

// "auto", "auto_<x>" (learned, starting at x) or a fixed number: the entropy coefficient as
// SB3 writes it. Nothing when the text is none of these.
struct EntropyCoefficient {
  bool learned = true;
  double initial = 1.0;  // the starting value when learned, else the fixed value
};
inline std::optional<EntropyCoefficient> parse_entropy_coefficient(const std::string& text) {
  auto number = [](const std::string& s) -> std::optional<double> {
    if (s.empty()) return std::nullopt;
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || !(v > 0) || v == HUGE_VAL) return std::nullopt;
    return v;
  };
  if (text == "auto") return EntropyCoefficient{};
  if (text.rfind("auto_", 0) == 0) {
    if (auto v = number(text.substr(5))) return EntropyCoefficient{true, *v};
    return std::nullopt;
  }
  if (auto v = number(text)) return EntropyCoefficient{false, *v};
  return std::nullopt;
}

struct SacConfig {
  double learning_rate = 3e-4;
  std::int64_t buffer_size = 1'000'000;
  std::int64_t learning_starts = 100;
  std::int64_t batch_size = 256;
  double tau = 0.005;
  double gamma = 0.99;
  TrainFrequency train_freq;
  std::int64_t gradient_steps = 1;
  std::string ent_coef = "auto";
  std::string target_entropy = "auto";
  std::int64_t target_update_interval = 1;
  std::int64_t n_critics = 2;
  std::int64_t n_envs = 1;
  std::int64_t n_step = 1;
  bool use_sde = false;
  std::int64_t sde_sample_freq = -1;
  bool use_sde_at_warmup = false;
  PolicyConfig policy = [] {
    PolicyConfig p;
    p.hidden = {256, 256};
    p.activation = "relu";
    p.ortho_init = false;
    p.log_std_init = -3.0;  // SB3's SAC policy default (gSDE's starting log-std)
    return p;
  }();

  // The entropy target: -dim(A) for "auto", else the number.
  double entropy_target(std::int64_t action_dim) const {
    return target_entropy == "auto" ? -static_cast<double>(action_dim) : std::strtod(target_entropy.c_str(), nullptr);
  }

  static void describe(Fields<SacConfig>& f) {
    f("learning_rate", &SacConfig::learning_rate, "Adam step size (actor, critics and entropy coefficient)",
      Bound::positive());
    f("buffer_size", &SacConfig::buffer_size, "replay capacity in transitions over all envs", Bound::at_least(2));
    f("learning_starts", &SacConfig::learning_starts,
      "env steps of uniformly random actions before learning starts", Bound::at_least(0));
    f("batch_size", &SacConfig::batch_size, "transitions per gradient step", Bound::at_least(1));
    f("tau", &SacConfig::tau, "Polyak coefficient of the target critics (1 = hard copy)", Bound{0.0, 1.0, true, false});
    f("gamma", &SacConfig::gamma, "discount factor", Bound::unit());
    f("train_freq", &SacConfig::train_freq,
      "vector-env steps between training phases, or [n, episode]: after every n finished episodes (one env)");
    f("gradient_steps", &SacConfig::gradient_steps,
      "gradient steps per training phase (-1: as many as env steps collected)", Bound::at_least(-1));
    f("ent_coef", &SacConfig::ent_coef,
      "entropy coefficient: auto (learned from 1.0), auto_<x> (learned from x) or a fixed number > 0");
    f("target_entropy", &SacConfig::target_entropy, "entropy the learned coefficient aims at: auto (-dim(A)) or a number");
    f("target_update_interval", &SacConfig::target_update_interval, "target update at the first gradient step of each training phase and every this many after (SB3's count)",
      Bound::at_least(1));
    f("n_critics", &SacConfig::n_critics, "Q networks (the target takes their minimum)", Bound::at_least(1));
    f("n_envs", &SacConfig::n_envs, "parallel envs", Bound::at_least(1));
    f("n_step", &SacConfig::n_step, "n-step returns (stopping at episode ends)", Bound::at_least(1));
    f("use_sde", &SacConfig::use_sde,
      "gSDE: state-dependent exploration noise (an exploration matrix on the actor's latent features, log-std from "
      "policy.log_std_init)");
    f("sde_sample_freq", &SacConfig::sde_sample_freq,
      "gSDE: steps between new exploration matrices (-1: once per training round)", Bound::at_least(-1));
    f("use_sde_at_warmup", &SacConfig::use_sde_at_warmup,
      "gSDE: act with it before learning_starts instead of uniformly random actions");
    f("policy", &SacConfig::policy, "actor and critic MLPs (hidden, activation; log_std_init with gSDE)");
    f.check("gradient_steps", [](const SacConfig& c) { return gradient_steps_problem(c.gradient_steps); });
    f.check("ent_coef", [](const SacConfig& c) -> std::optional<std::string> {
      if (!parse_entropy_coefficient(c.ent_coef))
        return "'" + c.ent_coef + "' is not auto, auto_<x> or a number > 0";
      return std::nullopt;
    });
    f.check("target_entropy", [](const SacConfig& c) -> std::optional<std::string> {
      char* end = nullptr;
      std::strtod(c.target_entropy.c_str(), &end);
      if (c.target_entropy != "auto" && (c.target_entropy.empty() || end != c.target_entropy.c_str() + c.target_entropy.size()))
        return "'" + c.target_entropy + "' is not auto or a number";
      return std::nullopt;
    });
    f.check("buffer_size", [](const SacConfig& c) { return buffer_size_problem(c.buffer_size, c.n_envs); });
    f.check("train_freq", [](const SacConfig& c) { return train_frequency_problem(c.train_freq, c.n_envs); });
    f.check("policy", [](const SacConfig& c) {
      return continuous_policy_problem(c.policy, "SAC", c.use_sde, SacConfig{}.policy.log_std_init);
    });
    f.check("sde_sample_freq", [](const SacConfig& c) -> std::optional<std::string> {
      if (c.sde_sample_freq == 0) return "must be >= 1, or -1 for once per training round";
      if (!c.use_sde && c.sde_sample_freq != -1) return "is a gSDE setting: set use_sde: true or leave it out";
      return std::nullopt;
    });
    f.check("use_sde_at_warmup", [](const SacConfig& c) -> std::optional<std::string> {
      if (!c.use_sde && c.use_sde_at_warmup) return "is a gSDE setting: set use_sde: true or leave it out";
      return std::nullopt;
    });
  }
};

}  // namespace rlzoo
