// Conversions between Python and rlzoo's C++ types, shared by the binding files:
//  * numpy arrays <-> elements in a space's memory layout (core/spaces/space.h),
//  * Python keyword arguments -> YAML (what make_env and presets take),
//  * a space -> a plain description the pure-Python spaces (rlzoo/spaces.py) are built from.
// Torch-free, so that the env, vector-env and DouDizhu bindings compile without LibTorch.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/env/env.h"
#include "core/spaces/space.h"

namespace rlzoo::python {

namespace py = pybind11;

py::dtype numpy_dtype(DType t);

// numpy views of `batch` elements of `space` stored one after another from `data` (rows of
// space.byte_size() bytes): [batch, *shape] ([batch] for Discrete). A Dict space gives a dict
// of views, one per field. The views alias the memory, read-only; `base` keeps it alive.
py::object batch_views(const Space& space, const std::byte* data, std::int64_t batch, py::handle base);

// A fresh copy of one element as Python sees an observation: an ndarray of the space's shape
// and dtype, a Python int for Discrete, a dict of those for Dict.
py::object element_copy(const Space& space, const std::byte* data);

// Deep copy of what batch_views() returned (arrays copied, dicts rebuilt).
py::object copy_views(py::handle views);

// Writes `value` as `batch` elements of `space` into out (batch * byte_size() bytes), or as one
// element without a batch dimension when batch < 0. Accepts anything numpy converts (arrays of
// any integer dtype for integer spaces, any real dtype for float Boxes, Python numbers, lists);
// a Dict space takes a mapping of its fields. Converts without a Python-level loop. Throws
// UserError naming `what` with the expected and the given shape or dtype. Range and bounds are
// left to the env (Env::step checks them with its own messages).
void write_elements(const Space& space, py::handle value, std::int64_t batch, std::byte* out, const std::string& what);

// The leaf (non-Dict) part of write_elements: `value` as a C-contiguous array of the leaf's
// dtype and shape [batch, *shape] (no batch dimension when batch < 0). Aliases `value` when it
// already is one, so a vector env steps straight from the caller's actions.
py::array leaf_array(const Space& leaf, py::handle value, std::int64_t batch, const std::string& what);

// Python value -> YAML node: None, bool, int, float, str, list/tuple and dict (str keys).
// Throws UserError naming `where` for anything else.
YAML::Node to_yaml(py::handle value, const std::string& where);
// A dict of keyword arguments -> a YAML map (null when empty).
YAML::Node kwargs_to_yaml(const py::dict& kwargs);

// {"type": "Box", "shape": (4,), "dtype": "float32", "low": [...], "high": [...]}, and
// "n"/"start" (Discrete), "nvec" (MultiDiscrete), "fields": [(name, description), ...] (Dict).
py::dict describe_space(const Space& space);

// {"id", "max_episode_steps" (None: no limit), "reward_threshold" (or None), "num_agents",
// "has_action_mask", "candidate_feature_dim"}: what rlzoo/env.py's EnvSpec is built from.
py::dict describe_spec(const EnvSpec& spec);

}  // namespace rlzoo::python
