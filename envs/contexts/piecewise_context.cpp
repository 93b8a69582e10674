#include "envs/contexts/piecewise_context.h"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/common/error.h"

namespace rlzoo {

void SegmentConfig::describe(Fields<SegmentConfig>& f) {
  f("distribution", &SegmentConfig::distribution,
    "segment lengths: normal (floor(max(N(mean, std), min))), constant (mean), geometric (hazard 1/mean, >= min)",
    OneOf{{"normal", "constant", "geometric"}});
  f("mean", &SegmentConfig::mean, "mean segment length in steps", Bound::at_least(1.0));
  f("std", &SegmentConfig::std, "standard deviation of normal segment lengths", Bound::at_least(0.0));
  f("min", &SegmentConfig::min, "shortest segment", Bound::at_least(1));
  f("jitter", &SegmentConfig::jitter, "perturb the context at every step inside a segment (the task's jitter)");
}

std::int64_t SegmentConfig::sample(Rng& rng) const {
  if (distribution == "constant") return std::max<std::int64_t>(min, static_cast<std::int64_t>(mean));
  if (distribution == "geometric") {
    std::int64_t n = 1;
    while (rng.uniform() >= 1.0 / mean) ++n;
    return std::max(min, n);
  }
  return static_cast<std::int64_t>(std::floor(std::max(mean + std * rng.normal(), static_cast<double>(min))));
}

PiecewiseContext::PiecewiseContext(std::unique_ptr<Env> env, SegmentConfig segments)
    : Wrapper(std::move(env)), segments_(std::move(segments)) {
  contextual_ = find_in_chain<ContextualEnv>(inner());
  if (!contextual_)
    throw UserError(fmt::format("piecewise contexts: {} has no context to change (it is not a ContextualEnv)", id()));
}

void PiecewiseContext::new_segment() {
  base_ = contextual_->sample_context(rng_);
  length_ = segments_.sample(rng_);
  drawn_.push_back(length_);
  step_ = 0;
}

void PiecewiseContext::apply_context() {
  if (segments_.jitter) contextual_->set_context(contextual_->jitter(base_, rng_));
  else contextual_->set_context(base_);
}

void PiecewiseContext::report(bool change) {
  mutable_info().set_scalar("segment_step", static_cast<double>(step_));
  mutable_info().set_scalar("segment_change", change ? 1.0 : 0.0);
}

void PiecewiseContext::do_reset(std::optional<std::uint64_t> seed, Bytes obs) {
  if (seed) rng_.seed_with(derive_seed(*seed, 0xc0a7e));
  Wrapper::do_reset(seed, obs);
  new_segment();
  apply_context();
  report(true);
}

StepResult PiecewiseContext::do_step(ConstBytes action, Bytes obs) {
  const StepResult r = Wrapper::do_step(action, obs);
  ++step_;
  const bool change = step_ >= length_;
  if (change) new_segment();
  apply_context();
  report(change);
  return r;
}

nlohmann::json PiecewiseContext::do_save_state() const {
  nlohmann::json j = Wrapper::do_save_state();
  j["segments"] = {{"rng", rng_.state()},
                   {"base", base_},
                   {"length", length_},
                   {"step", step_},
                   {"context", contextual_->context()}};
  return j;
}

void PiecewiseContext::do_load_state(const nlohmann::json& state, Bytes obs) {
  Wrapper::do_load_state(state, obs);
  const auto& s = state.at("segments");
  rng_.set_state(s.at("rng").get<std::string>());
  base_ = s.at("base").get<std::vector<double>>();
  length_ = s.at("length").get<std::int64_t>();
  step_ = s.at("step").get<std::int64_t>();
  contextual_->set_context(s.at("context").get<std::vector<double>>());
}

}  // namespace rlzoo
