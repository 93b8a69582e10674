// The parts of an agent checkpoint that every algorithm shares:
//   metadata: {"algo", "env", "num_timesteps", "torch_version"}
//   preset.yaml: the resolved preset (load_agent rebuilds the agent from it, then the
//                algorithm's load() restores its blobs)
//   torch_rng:   the default CPU generator (sampling, minibatch order)
#pragma once

#include <string>

#include "rl/agent.h"
#include "rl/algorithm_registry.h"
#include "core/checkpoint/reader.h"
#include "core/checkpoint/writer.h"
#include "core/vector/vector_env.h"

namespace rlzoo {

CheckpointWriter agent_checkpoint_writer(const Agent& agent);

// A checkpoint directory for `path`: the path itself when it holds a checkpoint, else
// <path>/final (a run directory's final agent), else the latest valid checkpoint under
// <path>/checkpoints. Throws a UserError listing what was looked for.
std::string resolve_agent_dir(const std::string& path);

// Refuses (UserError naming the field and both versions) a checkpoint written by an rlzoo whose
// blobs this build may not read: another major version, or for 0.x another minor version
// (semantic versioning), or a version that does not parse. A different LibTorch version only
// warns: its serialisation format is stable.
void check_checkpoint_version(const CheckpointReader& reader);

// Refuses to resume the run in `run_dir` from `reader` when the run's own preset.yaml (written
// when the run started) and the checkpoint's preset.yaml differ: the message names the first key
// that differs and both values. A run without preset.yaml (an agent saved by the API) passes, and
// so does a run whose n_timesteps grew (extended with `train --resume D --set n_timesteps=N`).
void check_resume_config(const std::string& run_dir, const CheckpointReader& reader);

// The preset saved in a checkpoint, with `overrides` ("key.path=value") applied, validated.
AgentSetup saved_setup(const CheckpointReader& reader, const std::vector<std::string>& overrides = {});

// Adds the training envs' state mid-episode ("envs.json"), so that a resumed run continues
// them exactly. Envs that cannot save their state are skipped with a warning (a resumed run
// then starts new episodes).
void add_training_envs(CheckpointWriter& writer, const VectorEnv* envs);
// Restores what add_training_envs saved, or, for a checkpoint without it, resets the envs
// with `fallback_seed`.
void restore_training_envs(VectorEnv& envs, const CheckpointReader& reader, std::uint64_t fallback_seed);

}  // namespace rlzoo
