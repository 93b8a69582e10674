// Deep Monte-Carlo (DouZero) hyperparameters: the one source of their defaults, which are
// DouZero's (douzero/dmc/arguments.py). Validated from a preset's `hyperparams:` section.
// Actor threads, concurrent games per actor and the shared inference server come from the
// preset's `runtime:` section (actors, envs_per_actor, inference).
#pragma once

#include <string>

#include "core/config/schema.h"

namespace rlzoo::dmc {

struct DmcConfig {
  std::string objective = "adp";
  double exp_epsilon = 0.01;
  std::int64_t batch_size = 32;
  std::int64_t unroll_length = 100;
  double learning_rate = 1e-4;
  double alpha = 0.99;
  double momentum = 0.0;
  double epsilon = 1e-5;
  double max_grad_norm = 40.0;
  std::int64_t eval_every = 0;
  std::int64_t eval_deals = 500;

  std::int64_t frames_per_step() const { return batch_size * unroll_length; }

  static void describe(Fields<DmcConfig>& f) {
    f("objective", &DmcConfig::objective, "Monte-Carlo target: adp (+-2^bombs), wp (+-1) or logadp (+-(bombs+1))");
    f.check("objective", [](const DmcConfig& c) -> std::optional<std::string> {
      if (c.objective == "adp" || c.objective == "wp" || c.objective == "logadp") return std::nullopt;
      return "objective must be adp, wp or logadp, got '" + c.objective + "'";
    });
    f("exp_epsilon", &DmcConfig::exp_epsilon, "actors' probability of a uniformly random legal move", Bound::unit());
    f("batch_size", &DmcConfig::batch_size, "B: unrolls per learner step", Bound::at_least(1));
    f("unroll_length", &DmcConfig::unroll_length, "T: frames per unroll (a learner step trains on B x T frames)",
      Bound::at_least(1));
    f("learning_rate", &DmcConfig::learning_rate, "RMSprop step size", Bound::positive());
    f("alpha", &DmcConfig::alpha, "RMSprop smoothing constant", Bound::unit());
    f("momentum", &DmcConfig::momentum, "RMSprop momentum", Bound::at_least(0.0));
    f("epsilon", &DmcConfig::epsilon, "RMSprop epsilon", Bound::positive());
    f("max_grad_norm", &DmcConfig::max_grad_norm, "gradient-norm clipping", Bound::positive());
    f("eval_every", &DmcConfig::eval_every,
      "frames between evaluations against the random and the rule-based agent, both roles (0: off)",
      Bound::at_least(0));
    f("eval_deals", &DmcConfig::eval_deals, "deals per evaluation (each played in both roles)", Bound::at_least(1));
  }
};

}  // namespace rlzoo::dmc
