// The device a learner trains on, from its preset's `device` key (core/torch/device.h), with
// errors named against that key.
#pragma once

#include <torch/torch.h>

#include <string_view>

#include "agents/algorithm_registry.h"

namespace rlzoo {

// resolve_device(setup.preset.device); a UserError names the preset's `device` key.
torch::Device learner_device(const AgentSetup& setup);

// For learners that run on the CPU only so far: a UserError naming `algorithm` when the preset
// asks for any other device ("auto" is the CPU for them).
void require_cpu_learner(const AgentSetup& setup, std::string_view algorithm);

}  // namespace rlzoo
