// Reads the tensors of a state dict that PyTorch's torch.save wrote (zip format, torch >= 1.6),
// without LibTorch: LibTorch 1.13's torch::pickle_load cannot read these files. Used to import
// DouZero's models. Nothing in the file is executed: data.pkl is interpreted by the small stack
// machine in torch_pickle.h, the zip container is read by algorithms/dmc/douzero_import/zip_reader.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace rlzoo {

struct PickledTensor {
  std::string name;  // state-dict key, e.g. "lstm.weight_ih_l0"
  // From the storage class: "float32" (FloatStorage), "float64", "float16", "bfloat16", "int64",
  // "int32", "int16", "int8", "uint8", "bool".
  std::string dtype;
  std::vector<std::int64_t> shape, strides;  // strides in elements; both empty for a 0-d tensor
  std::int64_t storage_offset = 0;           // in elements
  std::string storage_key;                   // "0", "1", ...: the entry <prefix>/data/<key>
  std::string location;                      // where it was saved from: "cpu", "cuda:0", ...
  // The whole storage's raw little-endian bytes, shared by every tensor that views it. Its size
  // was checked to cover every element of this view.
  std::shared_ptr<const std::vector<std::byte>> storage;

  // Product of the sizes (1 for a 0-d tensor); -1 when a size is negative or the product
  // overflows, which read_pytorch_state_dict never returns.
  std::int64_t numel() const;
  // The elements in row-major order, honouring storage_offset and strides, converted to float
  // (float64 is rounded; integers and bools are converted by value). Every dtype above converts;
  // another (only possible in a hand-made PickledTensor) is a UserError.
  std::vector<float> to_floats() const;
};

// All tensors of the state dict in `path` (written by torch.save(model.state_dict(), path)), in
// file order. Throws UserError "<path>: <problem>": not a zip archive (with a hint for torch's
// legacy format), truncated, no */data.pkl, a pickle opcode or global that a state dict does not
// use ("unsupported pickle opcode 0x49 ('I') at offset 57 of landlord/data.pkl"), a top-level
// object that is not a dict of tensors, a missing or too-short storage entry, a compressed entry.
std::vector<PickledTensor> read_pytorch_state_dict(const std::string& path);

}  // namespace rlzoo
