// Trajectories to and from the fleet's Protobuf message, with every check a learner needs before
// it trusts bytes from the network: dtype, shape, byte counts, the agreed trajectory shape and
// finite floats. A bad message gives a reason, never a crash. Torch-free, so that
// fuzz/fuzz_trajectory_wire can run it under libFuzzer without LibTorch.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "core/runtime/trajectory.h"
#include "core/spaces/space.h"
#include "distributed/proto/fleet.pb.h"

namespace rlzoo {

// Why a message was refused: `kind` is a short counter key ("shape", "dtype", "size",
// "non_finite", ...), `detail` says what exactly.
struct WireError {
  std::string kind;
  std::string detail;
};

void encode_trajectory(const Trajectory& t, fleet::TrajectoryUpload& out);
// Decodes into `out` (resized to `expected`) after checking everything against `expected` and
// `obs_space` (observations: byte counts and finite floats). Returns the first problem found.
std::optional<WireError> decode_trajectory(const fleet::TrajectoryUpload& msg, const TrajectoryShape& expected,
                                           const Space& obs_space, Trajectory& out);

// Bytes per element of a wire dtype; 0 for DTYPE_UNSPECIFIED or a value this build does not know.
std::size_t wire_element_size(fleet::Tensor::DType dtype);

}  // namespace rlzoo
