// Walking an element's leaves (the non-Dict parts) and checking their values: used where bytes
// from elsewhere must be checked before use (env conformance, trajectories from remote actors).
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>

#include "core/common/bytes.h"
#include "core/spaces/space.h"

namespace rlzoo {

// Calls fn(leaf_space, leaf_bytes) for each non-Dict part of element x. Dict padding is
// skipped: it is not part of the element, so an env need not write it.
template <class F>
void for_each_leaf(const Space& space, ConstBytes x, F&& fn) {
  if (space.kind() == SpaceKind::Dict) {
    for (const auto& f : space.fields()) for_each_leaf(*f.space, x.subspan(f.offset, f.space->byte_size()), fn);
  } else {
    fn(space, x);
  }
}

// Index of the first non-finite float in a leaf (Box of float32/float64), or nothing.
inline std::optional<std::int64_t> first_non_finite(const Space& leaf, ConstBytes x) {
  if (leaf.kind() != SpaceKind::Box) return std::nullopt;
  for (std::int64_t i = 0; i < leaf.numel(); ++i) {
    double v = 0;
    if (leaf.dtype() == DType::Float32)
      v = as_span<float>(x)[static_cast<std::size_t>(i)];
    else if (leaf.dtype() == DType::Float64)
      v = as_span<double>(x)[static_cast<std::size_t>(i)];
    if (!std::isfinite(v)) return i;
  }
  return std::nullopt;
}

// True when every float of a leaf is finite. Env::step checks each observation with it, so it
// is one tight loop per dtype without early exit (which the compiler can vectorise).
inline bool leaf_all_finite(const Space& leaf, ConstBytes x) {
  if (leaf.kind() != SpaceKind::Box) return true;
  const auto n = static_cast<std::size_t>(leaf.numel());
  bool ok = true;
  if (leaf.dtype() == DType::Float32) {
    const auto v = as_span<float>(x);
    for (std::size_t i = 0; i < n; ++i) ok &= std::isfinite(v[i]);
  } else if (leaf.dtype() == DType::Float64) {
    const auto v = as_span<double>(x);
    for (std::size_t i = 0; i < n; ++i) ok &= std::isfinite(v[i]);
  }
  return ok;
}

// True when every float of element x is finite.
inline bool all_finite(const Space& space, ConstBytes x) {
  if (space.kind() != SpaceKind::Dict) return leaf_all_finite(space, x);
  bool ok = true;
  for_each_leaf(space, x, [&](const Space& leaf, ConstBytes v) { ok = ok && leaf_all_finite(leaf, v); });
  return ok;
}

}  // namespace rlzoo
