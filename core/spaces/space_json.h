// Spaces as JSON, for files that describe their data (datasets, see docs/datasets.md):
//
//   {"type": "Discrete", "n": 2, "start": 0}
//   {"type": "MultiDiscrete", "nvec": [3, 4]}
//   {"type": "Box", "shape": [3], "dtype": "float32", "low": -1, "high": [1, 2, "inf"]}
//   {"type": "MultiBinary", "shape": [5]}
//   {"type": "Dict", "fields": [{"name": "pos", "space": {...}}, ...]}   (fields in order)
//
// Box bounds are one value (the same for every element) or numel() values in row-major order;
// infinite bounds are the strings "inf" and "-inf" (JSON has no infinity). The round trip
// space_from_json(space_to_json(s)) == s is exact: doubles are written with enough digits.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/spaces/space.h"

namespace rlzoo {

nlohmann::json space_to_json(const Space& space);

// Throws UserError naming `where` (e.g. "D/dataset.json: observation_space"), the key and
// what was expected when `j` is not a valid space.
Space space_from_json(const nlohmann::json& j, const std::string& where);

// "float32" -> DType::Float32; nullopt for an unknown name.
std::optional<DType> dtype_from_name(std::string_view name);

}  // namespace rlzoo
