// Batches of whole episodes for the policy-gradient family: N trajectories sampled with the
// current policy, each cut at `horizon` steps, stored padded as [N, H] with a validity mask.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "algorithms/pg/pg_policy.h"
#include "core/common/rng.h"
#include "core/env/env.h"
#include "core/torch/tensor.h"

namespace rlzoo::pg {

struct TrajectoryBatch {
  torch::Tensor obs;      // [N, H, d] float32
  torch::Tensor actions;  // [N, H] int64 or [N, H, k] float32 (as sampled, before clipping)
  torch::Tensor rewards;  // [N, H] float64, 0 after the end
  torch::Tensor mask;     // [N, H] float64: 1 for steps that happened
  std::vector<double> returns;         // undiscounted return of each trajectory
  std::vector<std::int64_t> lengths;   // steps of each trajectory
  std::int64_t size() const { return static_cast<std::int64_t>(returns.size()); }
  std::int64_t steps() const;
};

// Samples n trajectories in lockstep on envs[0..n) (grown from `make` when too few), each
// reset with a seed drawn from `seeds`, actions from `policy` (Box actions clipped to the
// bounds for the env only), each cut after `horizon` steps or at its end.
TrajectoryBatch sample_trajectories(PgPolicyImpl& policy, std::vector<std::unique_ptr<Env>>& envs,
                                    const std::function<std::unique_ptr<Env>()>& make, std::int64_t n,
                                    std::int64_t horizon, Rng& seeds);
// The same with the reset seeds given (one per trajectory): how actor threads sample their
// share of a batch whose seeds the learner drew in the inline order.
TrajectoryBatch sample_trajectories(PgPolicyImpl& policy, std::vector<std::unique_ptr<Env>>& envs,
                                    const std::function<std::unique_ptr<Env>()>& make,
                                    std::span<const std::uint64_t> reset_seeds, std::int64_t horizon);
// Trajectory batches one after the other (the actors' shares, in actor order).
TrajectoryBatch concatenate(const std::vector<TrajectoryBatch>& parts);

}  // namespace rlzoo::pg
