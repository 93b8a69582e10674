// A network's weights as one immutable snapshot for the runtime's ParameterStore: the learner
// publishes, actor replicas and the inference server copy in when the version changes.
//
//   ModuleParameterStore store;
//   store.publish(snapshot_module(*q_net));          // learner, after an update
//   load_snapshot(*replica, *client.snapshot());     // actor, when client.refresh()
#pragma once

#include "core/torch/tensor.h"

#include <vector>

#include "core/runtime/parameter_store.h"

namespace rlzoo {

struct ParameterSnapshot {
  std::vector<torch::Tensor> tensors;  // parameters, then buffers, in registration order (cloned)
};
using ModuleParameterStore = ParameterStore<ParameterSnapshot>;

// Detached CPU copies of every parameter and buffer of `module` (whatever its device).
ParameterSnapshot snapshot_module(const torch::nn::Module& module);
// Copies a snapshot into `module` (same architecture; checked: count and shapes).
void load_snapshot(torch::nn::Module& module, const ParameterSnapshot& snapshot);

}  // namespace rlzoo
