#include "core/wrappers/previous_action_reward.h"

#include <cmath>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/common/error.h"

namespace rlzoo {

namespace {

EnvSpec augmented_spec(const Env& env) {
  const Space& obs = env.observation_space();
  const Space& act = env.action_space();
  if (!obs.is_box() || (obs.dtype() != DType::Float32 && obs.dtype() != DType::Float64))
    throw UserError(fmt::format("previous_action_reward: env {} must observe a float32 or float64 Box, not {}",
                                env.id(), obs.describe()));
  std::vector<double> low = obs.low(), high = obs.high();
  if (act.is_discrete()) {
    low.insert(low.end(), static_cast<std::size_t>(act.n()), 0.0);
    high.insert(high.end(), static_cast<std::size_t>(act.n()), 1.0);
  } else if (act.is_box() && (act.dtype() == DType::Float32 || act.dtype() == DType::Float64)) {
    low.insert(low.end(), act.low().begin(), act.low().end());
    high.insert(high.end(), act.high().begin(), act.high().end());
  } else {
    throw UserError(fmt::format("previous_action_reward: env {} has actions {} (supported: Discrete, float Box)",
                                env.id(), act.describe()));
  }
  low.push_back(-INFINITY);
  high.push_back(INFINITY);
  const auto n = static_cast<std::int64_t>(low.size());
  return with_observation_space(env, Space::box(std::move(low), std::move(high), {n}, obs.dtype()));
}

}  // namespace

PreviousActionReward::PreviousActionReward(std::unique_ptr<Env> env)
    : Wrapper(std::move(env), augmented_spec(*env)),
      inner_obs_(inner().observation_space().byte_size()),
      extra_(static_cast<std::size_t>(observation_space().numel() - inner().observation_space().numel()), 0.0) {}

void PreviousActionReward::write(Bytes obs) const {
  std::memcpy(obs.data(), inner_obs_.data(), inner_obs_.size());
  std::byte* out = obs.data() + inner_obs_.size();
  if (observation_space().dtype() == DType::Float64) {
    std::memcpy(out, extra_.data(), extra_.size() * sizeof(double));
  } else {
    for (std::size_t i = 0; i < extra_.size(); ++i) {
      const auto v = static_cast<float>(extra_[i]);
      std::memcpy(out + i * sizeof v, &v, sizeof v);
    }
  }
}

void PreviousActionReward::do_reset(std::optional<std::uint64_t> seed, Bytes obs) {
  Wrapper::do_reset(seed, inner_obs_);
  std::fill(extra_.begin(), extra_.end(), 0.0);
  write(obs);
}

StepResult PreviousActionReward::do_step(ConstBytes action, Bytes obs) {
  const StepResult r = Wrapper::do_step(action, inner_obs_);
  std::fill(extra_.begin(), extra_.end(), 0.0);
  const Space& act = action_space();
  if (act.is_discrete()) {
    std::int64_t a = 0;
    std::memcpy(&a, action.data(), sizeof a);
    extra_[static_cast<std::size_t>(a - act.start())] = 1.0;
  } else if (act.dtype() == DType::Float64) {
    std::memcpy(extra_.data(), action.data(), action.size());
  } else {
    for (std::size_t i = 0; i + 1 < extra_.size(); ++i) {
      float v = 0;
      std::memcpy(&v, action.data() + i * sizeof v, sizeof v);
      extra_[i] = v;
    }
  }
  extra_.back() = r.reward;
  write(obs);
  return r;
}

nlohmann::json PreviousActionReward::do_save_state() const {
  nlohmann::json j = Wrapper::do_save_state();
  j["previous_action_reward"] = extra_;
  return j;
}

void PreviousActionReward::do_load_state(const nlohmann::json& state, Bytes obs) {
  Wrapper::do_load_state(state, inner_obs_);
  extra_ = state.at("previous_action_reward").get<std::vector<double>>();
  write(obs);
}

}  // namespace rlzoo
