// Hyperparameters of the belief agents (secbad, varibad, belief_oracle, belief_ppo; see
// secbad_agent.h): one struct,
// validated from a preset's `hyperparams:` section. Defaults are the released SeCBAD code's
// grid-world values (../shared/notes/algorithms.md §2.3-2.4); the MuJoCo presets set theirs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "algorithms/ppo/ppo_config.h"
#include "core/config/schema.h"

namespace rlzoo::secbad {

// The VAE: encoder q(c | transitions) and reward (and optional task) decoder.
struct VaeConfig {
  std::int64_t latent_dim = 5;
  std::int64_t gru_hidden = 64;
  std::int64_t action_embed = 8;  // 0: the action is not fed to the encoder
  std::int64_t state_embed = 8;
  std::int64_t reward_embed = 8;
  std::vector<std::int64_t> reward_decoder = {32, 32};
  std::vector<std::int64_t> task_decoder = {32, 32};
  double task_loss_coeff = 0.0;
  double kl_weight = 0.01;
  double learning_rate = 1e-3;
  std::int64_t batch_episodes = 25;
  std::int64_t buffer_episodes = 2000;
  std::int64_t updates_per_iteration = 3;
  std::int64_t pretrain_frames = 5000;
  std::int64_t elbo_samples = 0;
  std::int64_t decode_samples = 0;
  double max_grad_norm = 0.0;

  static void describe(Fields<VaeConfig>& f) {
    f("latent_dim", &VaeConfig::latent_dim, "dimension of the Gaussian latent context", Bound::at_least(1));
    f("gru_hidden", &VaeConfig::gru_hidden, "units of the encoder's GRU", Bound::at_least(1));
    f("action_embed", &VaeConfig::action_embed, "embedding of the previous action (0: not encoded)", Bound::at_least(0));
    f("state_embed", &VaeConfig::state_embed, "embedding of the state (shared by encoder input and decoder)",
      Bound::at_least(1));
    f("reward_embed", &VaeConfig::reward_embed, "embedding of the reward", Bound::at_least(1));
    f("reward_decoder", &VaeConfig::reward_decoder, "hidden widths of the reward decoder (ReLU)", Bound::at_least(1));
    f("task_decoder", &VaeConfig::task_decoder, "hidden widths of the task (context) decoder (ReLU)", Bound::at_least(1));
    f("task_loss_coeff", &VaeConfig::task_loss_coeff, "weight of the context regression loss (0: no task decoder)",
      Bound::non_negative());
    f("kl_weight", &VaeConfig::kl_weight, "weight of KL(q_t || q_{t-1}) (the first against N(0, I))",
      Bound::non_negative());
    f("learning_rate", &VaeConfig::learning_rate, "Adam step of the VAE", Bound::positive());
    f("batch_episodes", &VaeConfig::batch_episodes, "episodes per VAE update", Bound::at_least(1));
    f("buffer_episodes", &VaeConfig::buffer_episodes, "episodes kept for VAE updates (oldest dropped)",
      Bound::at_least(1));
    f("updates_per_iteration", &VaeConfig::updates_per_iteration, "VAE updates after each rollout", Bound::at_least(0));
    f("pretrain_frames", &VaeConfig::pretrain_frames, "env steps collected before the first VAE update",
      Bound::at_least(0));
    f("elbo_samples", &VaeConfig::elbo_samples, "ELBO time indices sampled per episode (0: all)", Bound::at_least(0));
    f("decode_samples", &VaeConfig::decode_samples,
      "decoded steps sampled per ELBO index, from its segment (0: all of them)", Bound::at_least(0));
    f("max_grad_norm", &VaeConfig::max_grad_norm, "clip the VAE's gradient norm (0: off)", Bound::non_negative());
  }
};

struct SecbadConfig {
  std::string train_segmentation = "oracle";
  std::string eval_segmentation = "inferred";
  std::string belief = "mixture";
  std::string likelihood = "predictive";
  double likelihood_std = 1.0;
  std::string segment_prior = "estimate";
  double prune_below = 1e-8;
  std::int64_t max_hypotheses = 0;
  std::int64_t state_embed = 16;
  std::int64_t belief_embed = 16;
  PpoConfig ppo = [] {
    PpoConfig p;  // the code's grid settings (notes §2.4)
    p.n_envs = 16;
    p.n_steps = 60;
    p.batch_size = 240;
    p.n_epochs = 2;
    p.learning_rate = 7e-4;
    p.gamma = 0.95;
    p.gae_lambda = 0.95;
    p.clip_range = 0.05;
    p.ent_coef = 0.01;
    p.adam_eps = 1e-8;
    p.normalize_obs = true;
    p.normalize_reward = true;
    p.policy.hidden = {32};
    return p;
  }();
  VaeConfig vae;

  static void describe(Fields<SecbadConfig>& f) {
    f("train_segmentation", &SecbadConfig::train_segmentation,
      "secbad's segments in training rollouts and VAE updates: oracle (the env's change points, as the released "
      "code) or inferred (the change-point posterior)",
      OneOf{{"oracle", "inferred"}});
    f("eval_segmentation", &SecbadConfig::eval_segmentation, "secbad's segments in evaluation: inferred or oracle",
      OneOf{{"inferred", "oracle"}});
    f("belief", &SecbadConfig::belief,
      "inferred belief: mixture over segment lengths (the paper) or the most likely length's (the released code)",
      OneOf{{"mixture", "map"}});
    f("likelihood", &SecbadConfig::likelihood,
      "change-point likelihood of step t: predictive (q(c | steps before t)) or posterior (the code: after "
      "absorbing step t)",
      OneOf{{"predictive", "posterior"}});
    f("likelihood_std", &SecbadConfig::likelihood_std, "std of the Gaussian reward likelihood", Bound::positive());
    f("segment_prior", &SecbadConfig::segment_prior,
      "hazard of a change: estimate (Monte Carlo from the env's segment distribution) or constant (1 / mean)",
      OneOf{{"estimate", "constant"}});
    f("prune_below", &SecbadConfig::prune_below, "drop segment-length hypotheses below this probability",
      Bound::unit());
    f("max_hypotheses", &SecbadConfig::max_hypotheses, "keep at most this many hypotheses (0: no cap)",
      Bound::at_least(0));
    f("state_embed", &SecbadConfig::state_embed, "policy: Linear+tanh units for the state", Bound::at_least(1));
    f("belief_embed", &SecbadConfig::belief_embed, "policy: Linear+tanh units for the belief", Bound::at_least(1));
    f("ppo", &SecbadConfig::ppo, "PPO's settings (algorithms/ppo/ppo_config.h); policy.hidden: actor/critic MLPs");
    f("vae", &SecbadConfig::vae, "the belief VAE");
    f.check("ppo", [](const SecbadConfig& c) -> std::optional<std::string> {
      if (c.ppo.policy.recurrent.enabled())
        return "ppo.policy.recurrent.cell '" + c.ppo.policy.recurrent.cell +
               "': the belief agents' policies are feed-forward (the belief is their memory); RL² is ppo with a "
               "recurrent policy";
      return std::nullopt;
    });
  }
};

}  // namespace rlzoo::secbad
