// Hyperparameters of the offline sequence/imitation agents (dt, bc; see dt_agent.h), validated
// from a preset's `hyperparams:` section. Defaults are the Decision Transformer's gym settings
// (../shared/notes/algorithms.md §3.2); the bc defaults are its MLP baseline's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/config/schema.h"

namespace rlzoo::dt {

struct DtConfig {
  std::string dataset;                 // an rlzoo dataset directory (docs/datasets.md)
  double pct_traj = 1.0;               // train on the episodes with the top pct_traj of the steps by return (%BC)
  std::int64_t context = 20;           // K: steps per training window and per evaluation window
  std::int64_t max_ep_len = 0;         // timestep embeddings (0: the env's step limit, else 1000)
  std::int64_t width = 128;
  std::int64_t layers = 3;
  std::int64_t heads = 1;
  double dropout = 0.1;
  std::string activation = "relu";
  std::vector<std::int64_t> bc_hidden = {128, 128, 128};  // bc's MLP
  std::int64_t batch_size = 64;
  double learning_rate = 1e-4;
  double weight_decay = 1e-4;
  std::int64_t warmup_steps = 10'000;
  double max_grad_norm = 0.25;
  double rtg_scale = 1000.0;           // returns-to-go are divided by this
  double target_return = 0.0;          // the return asked for in evaluation (dt)
  // Before the preset's top-level `device`, DT had its own; agents saved then carry it in their
  // preset.yaml, so the key still parses (and is otherwise ignored).
  std::string device = "cpu";

  static void describe(Fields<DtConfig>& f) {
    f("dataset", &DtConfig::dataset, "dataset directory (rlzoo dataset collect/import; docs/datasets.md)",
      Required{});
    f("pct_traj", &DtConfig::pct_traj,
      "keep the best episodes (by return) holding this fraction of the steps; < 1 with bc is %BC",
      Bound{0.0, 1.0, true, false});
    f("context", &DtConfig::context, "K: steps per window (dt; bc uses the last K states)", Bound::at_least(1));
    f("max_ep_len", &DtConfig::max_ep_len, "timestep embeddings (0: the env's step limit, or 1000)",
      Bound::at_least(0));
    f("width", &DtConfig::width, "dt: embedding width", Bound::at_least(1));
    f("layers", &DtConfig::layers, "dt: transformer blocks", Bound::at_least(1));
    f("heads", &DtConfig::heads, "dt: attention heads (width must be a multiple)", Bound::at_least(1));
    f("dropout", &DtConfig::dropout, "dropout on embeddings, attention and residuals (bc: after each layer)",
      Bound{0.0, 1.0, false, true});
    f("activation", &DtConfig::activation, "activation of the MLPs (make_activation names)");
    f("bc_hidden", &DtConfig::bc_hidden, "bc: hidden widths of the MLP", Bound::at_least(1));
    f("batch_size", &DtConfig::batch_size, "windows per gradient step", Bound::at_least(1));
    f("learning_rate", &DtConfig::learning_rate, "AdamW step size after warm-up", Bound::positive());
    f("weight_decay", &DtConfig::weight_decay, "AdamW weight decay (all parameters)", Bound::non_negative());
    f("warmup_steps", &DtConfig::warmup_steps, "linear warm-up of the step size over this many steps",
      Bound::at_least(0));
    f("max_grad_norm", &DtConfig::max_grad_norm, "global gradient norm clip (0: off)", Bound::non_negative());
    f("rtg_scale", &DtConfig::rtg_scale, "returns-to-go are divided by this", Bound::positive());
    f("target_return", &DtConfig::target_return,
      "dt: the return asked for when acting (rlzoo eval --target-return); 0: the dataset's best return");
    f("device", &DtConfig::device,
      "ignored, kept so that agents saved with it load: use the preset's top-level device", OneOf{{"cpu", "cuda"}});
  }
};

}  // namespace rlzoo::dt
