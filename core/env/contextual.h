// Envs with a hidden context (a goal, a direction, a target speed, wind) that a wrapper can
// redraw during an episode (envs/contexts/piecewise_context.h). The policy never observes it.
#pragma once

#include <span>
#include <vector>

#include "core/common/rng.h"

namespace rlzoo {

class ContextualEnv {
 public:
  virtual ~ContextualEnv() = default;
  // A fresh context from the task's distribution.
  virtual std::vector<double> sample_context(Rng& rng) const = 0;
  // The context the next steps use (validated by the env; throws UserError when malformed).
  virtual void set_context(std::span<const double> context) = 0;
  virtual std::vector<double> context() const = 0;
  // The context perturbed for one step inside a segment (the task's per-step jitter; none by
  // default).
  virtual std::vector<double> jitter(std::span<const double> base, Rng& rng) const {
    return {base.begin(), base.end()};
  }
};

}  // namespace rlzoo
