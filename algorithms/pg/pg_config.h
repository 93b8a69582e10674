// Hyperparameters shared by GPOMDP, SVRPG, SRVR-PG and STORM-PG: the one source of their
// defaults. The defaults follow the public reference code (notes §1.4: batch 10, initial batch
// 100, alpha 0.9, gamma 0.99, horizon 100) and the paper (one hidden layer of 64, Adam with
// learning-rate decay). Validated from a preset's `hyperparams:` section.
#pragma once

#include <optional>
#include <string>

#include "rl/nets/policy_config.h"
#include "core/config/schema.h"

namespace rlzoo::pg {

struct PgConfig {
  double gamma = 0.99;
  std::int64_t horizon = 100;
  double learning_rate = 0.01;
  double lr_decay = 1.0;
  std::int64_t lr_decay_every = 1;
  std::int64_t batch_size = 10;
  std::int64_t initial_batch = 100;
  std::int64_t epoch_length = 10;
  double adam_beta1 = 0.9;
  double adam_beta2 = 0.999;
  double alpha = 0.9;
  double iw_clip = 0.0;
  std::string baseline = "average";
  std::int64_t max_trajectories = 0;
  bool fixed_std = false;
  PolicyConfig policy = [] {
    PolicyConfig p;
    p.hidden = {64};
    p.activation = "tanh";
    p.ortho_init = false;
    return p;
  }();

  static void describe(Fields<PgConfig>& f) {
    f("gamma", &PgConfig::gamma, "discount factor of the objective", Bound::unit());
    f("horizon", &PgConfig::horizon, "steps per trajectory at most (0: the env's time limit)", Bound::at_least(0));
    f("learning_rate", &PgConfig::learning_rate, "Adam step size (the estimate is fed to Adam as the gradient)",
      Bound::positive());
    f("lr_decay", &PgConfig::lr_decay, "learning rate multiplied by this every lr_decay_every iterations",
      Bound{0.0, 1.0, true, false});
    f("lr_decay_every", &PgConfig::lr_decay_every, "iterations between learning-rate decays", Bound::at_least(1));
    f("adam_beta1", &PgConfig::adam_beta1, "Adam's first-moment decay", Bound{0.0, 1.0, false, true});
    f("adam_beta2", &PgConfig::adam_beta2, "Adam's second-moment decay", Bound{0.0, 1.0, false, true});
    f("batch_size", &PgConfig::batch_size, "B: trajectories per iteration", Bound::at_least(1));
    f("initial_batch", &PgConfig::initial_batch,
      "S0 (STORM-PG's first batch) / N (the snapshot batch of SVRPG and SRVR-PG); unused by GPOMDP",
      Bound::at_least(1));
    f("epoch_length", &PgConfig::epoch_length, "m: iterations between snapshots (SVRPG, SRVR-PG)",
      Bound::at_least(1));
    f("alpha", &PgConfig::alpha, "STORM-PG's momentum: 1 = plain GPOMDP, 0 = the SARAH recursion", Bound::unit());
    f("iw_clip", &PgConfig::iw_clip, "upper clip of the importance weights (0: off, as in the paper)",
      Bound::at_least(0.0));
    f("baseline", &PgConfig::baseline, "per-timestep baseline b_h: average (batch mean of gamma^h r_h) or none",
      OneOf{{"average", "none"}});
    f("max_trajectories", &PgConfig::max_trajectories,
      "stop after this many trajectories (0: only n_timesteps counts)", Bound::at_least(0));
    f("fixed_std", &PgConfig::fixed_std,
      "Box actions: the Gaussian's standard deviation stays exp(policy.log_std_init), not learned (rllab's "
      "learn_std=False)");
    f("policy", &PgConfig::policy, "the policy network");
    f.check("policy", [](const PgConfig& c) -> std::optional<std::string> {
      if (c.policy.recurrent.enabled())
        return "policy.recurrent.cell '" + c.policy.recurrent.cell +
               "': the policy-gradient family has no recurrent policies (recurrent policies: ppo)";
      return std::nullopt;
    });
  }
};

}  // namespace rlzoo::pg
