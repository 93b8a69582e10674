// The parts of an agent checkpoint that every algorithm shares:
//   metadata: {"algo", "env", "num_timesteps", "torch_version"}
//   preset.yaml: the resolved preset (load_agent rebuilds the agent from it, then the
//                algorithm's load() restores its blobs)
//   torch_rng:   the default CPU generator (sampling, minibatch order)
#pragma once

#include <string>

#include "agents/agent.h"
#include "agents/algorithm_registry.h"
#include "core/checkpoint/reader.h"
#include "core/checkpoint/writer.h"

namespace rlzoo {

CheckpointWriter agent_checkpoint_writer(const Agent& agent);

// A checkpoint directory for `path`: the path itself when it holds a checkpoint, else
// <path>/final (a run directory's final agent), else the latest valid checkpoint under
// <path>/checkpoints. Throws a UserError listing what was looked for.
std::string resolve_agent_dir(const std::string& path);

// The preset saved in a checkpoint, validated.
AgentSetup saved_setup(const CheckpointReader& reader);

}  // namespace rlzoo
