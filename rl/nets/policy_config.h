// The `policy:` section of a preset: how networks are built from the spaces. Torch-free so
// that algorithm configs can embed it without pulling in LibTorch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/config/schema.h"

namespace rlzoo {

// `policy.recurrent`: an LSTM or GRU between the observation encoder and the MLP heads, whose
// state is carried from step to step and reset where an episode starts (recurrent PPO). The
// critic has its own RNN (SB3-contrib's RecurrentPPO default) or shares the actor's (CleanRL's
// ppo_atari_lstm).
struct RecurrentConfig {
  std::string cell = "none";
  std::int64_t hidden = 64;
  std::int64_t layers = 1;
  bool shared = false;

  bool enabled() const { return cell != "none"; }

  static void describe(Fields<RecurrentConfig>& f) {
    f("cell", &RecurrentConfig::cell, "recurrent core: none (feed-forward), lstm or gru",
      OneOf{{"none", "lstm", "gru"}});
    f("hidden", &RecurrentConfig::hidden, "units of the recurrent state", Bound::at_least(1));
    f("layers", &RecurrentConfig::layers, "stacked recurrent layers", Bound::at_least(1));
    f("shared", &RecurrentConfig::shared, "the critic reads the actor's RNN instead of having its own");
  }
};

struct PolicyConfig {
  std::vector<std::int64_t> hidden = {64, 64};
  std::string activation = "tanh";
  bool ortho_init = true;
  bool shared_trunk = false;
  double log_std_init = 0.0;
  bool dueling = false;
  std::int64_t cnn_features = 512;
  RecurrentConfig recurrent;

  static void describe(Fields<PolicyConfig>& f) {
    f("hidden", &PolicyConfig::hidden, "widths of the hidden layers of each MLP", Bound::at_least(1));
    f("activation", &PolicyConfig::activation, "activation between layers",
      OneOf{{"tanh", "relu", "elu", "leaky_relu", "gelu", "silu"}});
    f("ortho_init", &PolicyConfig::ortho_init,
      "orthogonal init (gain sqrt 2 hidden, 0.01 policy head, 1 value head) and zero biases");
    f("shared_trunk", &PolicyConfig::shared_trunk, "actor and critic share one MLP trunk (else separate)");
    f("log_std_init", &PolicyConfig::log_std_init, "initial log standard deviation of Gaussian policies");
    f("dueling", &PolicyConfig::dueling, "dueling Q head: V(s) + A(s,a) - mean_a A(s,a)");
    f("cnn_features", &PolicyConfig::cnn_features, "output units of the Nature CNN for image observations",
      Bound::at_least(1));
    f("recurrent", &PolicyConfig::recurrent,
      "recurrent core between the encoder and the MLP heads (PPO): {cell: lstm|gru, hidden, layers, shared}");
  }
};

}  // namespace rlzoo
