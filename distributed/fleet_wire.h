// The fleet's Protobuf messages to and from rlzoo's types: trajectories (torch-free, in
// distributed/trajectory_wire.h) and parameter snapshots.
#pragma once

#include "core/torch/module_parameters.h"
#include "distributed/proto/fleet.pb.h"
#include "distributed/trajectory_wire.h"

namespace rlzoo {

void encode_parameters(const ParameterSnapshot& snapshot, fleet::ParametersReply& out);
// Tensors of a reply as float/double/int64 CPU tensors; throws UserError for a malformed one
// (unknown dtype, negative dimension, a shape whose size overflows, a byte count that differs).
ParameterSnapshot decode_parameters(const fleet::ParametersReply& msg);

}  // namespace rlzoo
