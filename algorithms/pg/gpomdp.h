// The one gradient-estimator core of GPOMDP, SVRPG, SRVR-PG and STORM-PG
// (notes: ../shared/notes/algorithms.md §1).
//
// Per-trajectory GPOMDP estimate with a per-timestep baseline b_h:
//   d(tau; theta) = sum_h ( sum_{k<=h} grad log pi_theta(a_k|s_k) ) (gamma^h r_h - b_h)
// and its importance-weighted form at other parameters theta_old on data from theta_new:
//   d~(tau; theta_old | theta_new) = sum_h w_h ( sum_{k<=h} grad log pi_old(a_k|s_k) ) (gamma^h r_h - b_h),
//   w_h = prod_{k<=h} pi_old(a_k|s_k) / pi_new(a_k|s_k)   (per-decision weights, in log space, float64)
// Both are computed through one backward pass of the surrogate
//   sum_k log pi(a_k|s_k) * sum_{h>=k} w_h (gamma^h r_h - b_h)
// and averaged over the batch. b_h is the batch mean of gamma^h r_h (steps after an episode's
// end count as 0), or 0 with baseline "none"; a correction uses the baseline of the batch it
// is evaluated on, so fresh and corrected terms share the same d(.).
#pragma once

#include "algorithms/pg/trajectories.h"
#include "core/torch/tensor.h"

namespace rlzoo::pg {

enum class Baseline { None, Average };

// [N, H] float64: gamma^h r_h - b_h on valid steps, 0 elsewhere.
torch::Tensor centred_discounted_rewards(const TrajectoryBatch& b, double gamma, Baseline baseline);
// [N, H] float64 log-probabilities of the batch's actions under `policy` (0 on padding), no gradient.
torch::Tensor batch_log_probs(PgPolicyImpl& policy, const TrajectoryBatch& b);
// [N, H] float64 cumulative importance weights pi_old/pi_new from the two log-probability
// tables; `clip` > 0 caps them from above; 0 on padding.
torch::Tensor importance_weights(const torch::Tensor& logp_old, const torch::Tensor& logp_new,
                                 const torch::Tensor& mask, double clip = 0.0);

// mean_i d(tau_i; theta) for `policy`'s parameters theta; with `weights` [N, H], the weighted
// form d~ (the weights are constants: no gradient flows through them).
torch::Tensor gpomdp_gradient(PgPolicyImpl& policy, const TrajectoryBatch& b, double gamma, Baseline baseline,
                              const torch::Tensor& weights = {});

// The estimators' update rules on flat vectors (float64):
// STORM-PG: g_{t+1} = fresh + (1 - alpha) (g_t - correction)   (alpha = 1: plain GPOMDP)
torch::Tensor storm_update(const torch::Tensor& fresh, const torch::Tensor& correction, const torch::Tensor& previous,
                           double alpha);
// SRVR-PG (SARAH): v_t = v_{t-1} + fresh - correction
torch::Tensor sarah_update(const torch::Tensor& fresh, const torch::Tensor& correction, const torch::Tensor& previous);
// SVRPG (SVRG): v_t = snapshot_mean + fresh - correction_at_snapshot
torch::Tensor svrg_update(const torch::Tensor& fresh, const torch::Tensor& correction,
                          const torch::Tensor& snapshot_mean);

}  // namespace rlzoo::pg
