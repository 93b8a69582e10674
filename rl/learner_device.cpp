#include "rl/learner_device.h"

#include <fmt/format.h>

#include "core/torch/device.h"

namespace rlzoo {

torch::Device learner_device(const AgentSetup& setup) {
  try {
    return resolve_device(setup.preset.device);
  } catch (const UserError& e) {
    setup.ctx.child("device").fail(YAML::Mark::null_mark(), e.what());
  }
  return torch::kCPU;  // not reached: fail() throws
}

}  // namespace rlzoo
