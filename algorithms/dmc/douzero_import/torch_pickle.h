// The pickle (data.pkl) inside a torch.save checkpoint, interpreted by a small stack machine that
// knows only what a state dict needs: protocol 2, plus the protocol 4 opcodes FRAME, MEMOIZE,
// SHORT_BINUNICODE and STACK_GLOBAL. Nothing in the file is executed: the few globals a state
// dict names (collections.OrderedDict, torch._utils._rebuild_tensor_v2, torch.FloatStorage, ...)
// are recognised by name and any other is an error. read_pytorch_state_dict's pickle half; the
// zip container and the storages are pytorch_state_dict.cpp's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/dmc/douzero_import/pytorch_state_dict.h"

namespace rlzoo::torch_pickle {

// Bytes per element of a PickledTensor::dtype ("float32" -> 4); 0 for an unknown dtype.
std::int64_t element_size(std::string_view dtype);

// Product of the sizes (1 for a 0-d tensor); -1 when a size is negative or the product overflows.
std::int64_t checked_numel(std::span<const std::int64_t> shape);

// Storage elements a view needs (its largest index + 1; 0 for an empty view); -1 when its sizes,
// strides or offset are negative, the ranks of shape and strides differ, or the arithmetic
// overflows.
std::int64_t view_extent(const PickledTensor& t);

struct StateDictEntry {
  PickledTensor tensor;            // everything but the storage bytes
  std::int64_t storage_numel = 0;  // the storage's element count, as its persistent id declares it
};

// The (name -> tensor) pairs of the state dict pickled in `pickle`, in order; `path` and `entry`
// (the zip entry) are only for messages. Every view was checked to lie within its storage as
// declared. Throws UserError "<path>: <problem> at offset N of <entry>": an opcode or global that
// a state dict does not use, a truncated or malformed pickle, a malformed tensor; or
// "<path>: <problem>" when the top-level object is not a dict of str -> tensor.
std::vector<StateDictEntry> unpickle_state_dict(std::span<const std::byte> pickle, const std::string& path,
                                                const std::string& entry);

}  // namespace rlzoo::torch_pickle
