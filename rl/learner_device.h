// The device a learner trains on, from its preset's `device` key (core/torch/device.h), with
// errors named against that key.
#pragma once

#include <string_view>

#include "core/torch/tensor.h"
#include "rl/algorithm_registry.h"

namespace rlzoo {

// resolve_device(setup.preset.device); a UserError names the preset's `device` key.
torch::Device learner_device(const AgentSetup& setup);

// Learners that run on the CPU only do not declare AlgorithmCapabilities::gpu: a preset asking
// them for another device is refused when it is parsed (check_preset_capabilities).

}  // namespace rlzoo
