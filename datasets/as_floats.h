// Elements of a space as float32 values, for consumers that want numbers rather than the
// space's memory layout (the Decision Transformer reads observations and actions this way).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "core/spaces/space.h"

namespace rlzoo::data {

// A sequence of elements of `space` (a whole number of byte_size() blocks, as EpisodeData holds
// them) -> numel() float32 values per element, row-major: a Box's values of any dtype, a
// Discrete's value (start included), MultiDiscrete's and MultiBinary's entries, a Dict's fields
// in order (padding skipped). Throws UserError when the size is not a whole number of elements.
std::vector<float> as_floats(const Space& space, std::span<const std::byte> elements);

}  // namespace rlzoo::data
