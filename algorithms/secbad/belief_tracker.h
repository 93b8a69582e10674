// Online beliefs for a batch of envs while acting (training rollouts and evaluation).
//
// Each env keeps the encoder's state over its current segment (notes §2.2):
//   none      one GRU state over the whole episode (VariBAD);
//   oracle    the GRU state is reset where the env says a new segment starts (the released
//             code's training mode);
//   inferred  one GRU state per candidate segment start (CandidateEncoder) and the posterior over
//             the segment length (SegmentPosterior); the belief is the mixture over lengths
//             (moment-matched Gaussian) or the most likely length's latent.
// The belief given to the policy is [mu, log sigma^2] of the latent; at an episode start (and
// with oracle segmentation, right before a segment starts) it is the prior's.
#pragma once

#include <vector>

#include "algorithms/secbad/belief_vae.h"
#include "algorithms/secbad/candidate_encoder.h"
#include "algorithms/secbad/segment_posterior.h"
#include "core/torch/tensor.h"
#include "core/torch/tensor_io.h"

namespace rlzoo::secbad {

enum class Segmentation { none, oracle, inferred };
Segmentation parse_segmentation(const std::string& name);

class BeliefTracker {
 public:
  BeliefTracker(BeliefEncoder encoder, RewardDecoder decoder, const SecbadConfig& cfg, SegmentPrior prior,
                std::int64_t n_envs, Segmentation mode);

  // Env i starts an episode: prior belief, no hypotheses.
  void reset(std::int64_t i);
  void reset_all();
  // Env i's transition (a_{t-1}, s_t, r_t) from s_{t-1}: rows [A], [S], [S], scalar. `next_segment`
  // (oracle mode): the env's next step starts a new segment.
  void observe(std::int64_t i, const torch::Tensor& prev_action, const torch::Tensor& prev_state,
               const torch::Tensor& state, double reward, bool next_segment);
  // Every env's transition at once ([N, A], [N, S], [N, S], [N]); envs with `reset` set ended
  // their episode instead (their belief goes back to the prior). One batched GRU step in the
  // none and oracle modes.
  void observe_all(const torch::Tensor& prev_actions, const torch::Tensor& prev_states, const torch::Tensor& states,
                   std::span<const double> rewards, std::span<const std::uint8_t> next_segment,
                   std::span<const std::uint8_t> reset);

  // [N, 2 * latent]: mu and log sigma^2 of every env's current belief.
  torch::Tensor beliefs() const;
  // Inferred mode: env i's most likely segment length (0 before its first step) and live
  // hypotheses; other modes: 0.
  std::int64_t map_length(std::int64_t i) const;
  std::int64_t hypotheses(std::int64_t i) const;

  // Every env's encoder state, candidates, posterior and belief as named tensors (a checkpoint
  // holds them so that training resumes mid-episode exactly), and back.
  TensorMap state() const;
  void load_state(const TensorMap& state);

 private:
  struct EnvState {
    torch::Tensor hidden;  // none / oracle: [1, H]
    CandidateEncoder candidates;
    SegmentPosterior posterior;
  };
  void reset_segment(std::int64_t i);
  torch::Tensor belief_of(const torch::Tensor& hidden, std::span<const double> log_weights);
  std::vector<double> log_likelihoods(const torch::Tensor& hidden, const torch::Tensor& prev_action,
                                      const torch::Tensor& prev_state, const torch::Tensor& state, double reward);

  BeliefEncoder encoder_;
  RewardDecoder decoder_;
  Segmentation mode_;
  bool mixture_, predictive_;
  double lik_std_;
  std::vector<EnvState> envs_;
  std::vector<torch::Tensor> beliefs_;
};

}  // namespace rlzoo::secbad
