// A preset: everything `rlzoo train` needs, validated from YAML (configs/<algo>/<env>.yaml).
//
//   algo: ppo
//   env: CartPole-v1
//   n_timesteps: 100000
//   seed: 0
//   device: cpu                 # or cuda, cuda:N, auto (core/torch/device.h)
//   runtime: {actors: 2}        # parallel actor threads (core/runtime/runtime_config.h)
//   hyperparams: {...}          # validated by the algorithm's own config struct
#pragma once

#include <cstdint>
#include <string>
#include <yaml-cpp/yaml.h>

#include "core/config/context.h"
#include "core/config/device_name.h"
#include "core/config/schema.h"
#include "core/runtime/runtime_config.h"

namespace rlzoo {

struct EvalSettings {
  std::int64_t every = 0;   // env steps between evaluations during training (0: off)
  int episodes = 10;
  static void describe(Fields<EvalSettings>& f) {
    f("every", &EvalSettings::every, "env steps between evaluations during training (0: off)", Bound::at_least(0));
    f("episodes", &EvalSettings::episodes, "episodes per evaluation", Bound::at_least(1));
  }
};

struct CheckpointSettings {
  std::int64_t every = 50'000;  // env steps between checkpoints (0: only the final agent)
  int keep = 3;
  bool save_replay_buffer = true;
  static void describe(Fields<CheckpointSettings>& f) {
    f("every", &CheckpointSettings::every, "env steps between checkpoints (0: only the final agent)", Bound::at_least(0));
    f("keep", &CheckpointSettings::keep, "checkpoints kept (older ones are deleted)", Bound::at_least(1));
    f("save_replay_buffer", &CheckpointSettings::save_replay_buffer,
      "off-policy agents save their replay buffer with checkpoints and the final agent");
  }
};

struct PresetConfig {
  std::string algo;
  std::string env;
  YAML::Node env_kwargs;
  std::int64_t n_timesteps = 100'000;
  std::int64_t seed = 0;
  int torch_threads = 1;
  std::string device = "cpu";
  std::int64_t log_every = 10'000;
  EvalSettings eval;
  CheckpointSettings checkpoint;
  RuntimeConfig runtime;
  YAML::Node hyperparams;

  static void describe(Fields<PresetConfig>& f) {
    f("algo", &PresetConfig::algo, "algorithm id (rlzoo list algos)", Required{});
    f("env", &PresetConfig::env, "env id (rlzoo list envs)", Required{});
    f("env_kwargs", &PresetConfig::env_kwargs, "keyword arguments of the env (docs/presets.md), and its wrappers");
    f("n_timesteps", &PresetConfig::n_timesteps, "env steps to train for", Bound::at_least(1));
    f("seed", &PresetConfig::seed, "seed of envs, networks and sampling", Bound::at_least(0));
    f("torch_threads", &PresetConfig::torch_threads, "LibTorch/BLAS threads of the learner", Bound::at_least(1));
    f("device", &PresetConfig::device,
      "where the learner's networks, optimiser state and training batches live: cpu, cuda, cuda:N, or auto (cuda "
      "where LibTorch has a GPU); envs always step on the CPU");
    f.check("device", [](const PresetConfig& c) { return device_name_problem(c.device); });
    f("log_every", &PresetConfig::log_every, "env steps between log dumps", Bound::at_least(1));
    f("eval", &PresetConfig::eval, "periodic evaluation during training");
    f("checkpoint", &PresetConfig::checkpoint, "periodic checkpoints");
    f("runtime", &PresetConfig::runtime,
      "where experience comes from: the inline loop, actor threads or actor processes (what each algorithm supports: "
      "rlzoo list algos)");
    f("hyperparams", &PresetConfig::hyperparams,
      "the algorithm's hyperparameters (docs/presets.md, or rlzoo list algos --hyperparams)");
  }
};

// A validated preset and where it came from (for errors in preset.hyperparams, use
// ctx.child("hyperparams")): what an algorithm is built from.
struct AgentSetup {
  PresetConfig preset;
  ConfigContext ctx;
};

}  // namespace rlzoo
