#include "datasets/collect.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace rlzoo::data {

namespace {
// Streams of derive_seed(seed, ...) besides the episodes' 0, 1, 2, ...
constexpr std::uint64_t kPolicyStream = std::uint64_t{1} << 62;
constexpr std::uint64_t kExplorationStream = kPolicyStream + 1;

void append(std::vector<std::byte>& to, ConstBytes bytes) { to.insert(to.end(), bytes.begin(), bytes.end()); }

// a + noise * N(0, 1), clipped to the bounds, for every value of a float Box action.
void add_noise(const Space& space, double noise, Rng& rng, Bytes action) {
  const auto& low = space.low();
  const auto& high = space.high();
  auto noisy = [&](double v, std::size_t i) { return std::clamp(v + noise * rng.normal(), low[i], high[i]); };
  if (space.dtype() == DType::Float32) {
    auto a = as_span<float>(action);
    for (std::size_t i = 0; i < a.size(); ++i) {
      // Rounding to float32 may step past a bound; keep the value inside (as Space::sample).
      float f = static_cast<float>(noisy(a[i], i));
      if (f < low[i]) f = std::nextafter(static_cast<float>(low[i]), std::numeric_limits<float>::infinity());
      if (f > high[i]) f = std::nextafter(static_cast<float>(high[i]), -std::numeric_limits<float>::infinity());
      a[i] = f;
    }
  } else {
    auto a = as_span<double>(action);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = noisy(a[i], i);
  }
}

}  // namespace

void sample_action(const Env& env, Rng& rng, Bytes action) {
  if (env.spec().candidate_feature_dim > 0) {  // the action is an index into the legal moves
    const std::int64_t count = env.candidates().count;
    if (count < 1) throw UserError(fmt::format("{}: no candidate action to sample", env.id()));
    as_span<std::int64_t>(action)[0] = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(count)));
    return;
  }
  const auto mask = env.action_mask();
  if (mask.empty()) {
    env.action_space().sample(rng, action);
    return;
  }
  std::int64_t legal = 0;
  for (auto m : mask) legal += m != 0;
  if (legal == 0) throw UserError(fmt::format("{}: no legal action to sample (the action mask is all zero)", env.id()));
  auto k = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(legal)));
  for (std::size_t i = 0; i < mask.size(); ++i)
    if (mask[i] && k-- == 0) {
      as_span<std::int64_t>(action)[0] = env.action_space().start() + static_cast<std::int64_t>(i);
      return;
    }
}

void RandomPolicy::act(const Env& env, ConstBytes, bool, Bytes action) { sample_action(env, rng_, action); }

void check_collect_options(const Env& env, const CollectOptions& o) {
  if (o.episodes < 0 || o.steps < 0 || (o.episodes == 0 && o.steps == 0))
    throw UserError(fmt::format("collect: give a number of episodes or of steps (>= 1), got episodes {} and steps {}",
                                o.episodes, o.steps));
  if (!(o.epsilon >= 0.0 && o.epsilon <= 1.0))
    throw UserError(fmt::format("collect: epsilon must be in [0, 1], got {}", o.epsilon));
  if (!(o.noise >= 0.0 && std::isfinite(o.noise)))
    throw UserError(fmt::format("collect: noise must be a finite number >= 0, got {}", o.noise));
  const Space& act_space = env.action_space();
  if (o.noise > 0 && !(act_space.is_box() && dtype_is_floating(act_space.dtype())))
    throw UserError(fmt::format("collect: noise is added to float Box actions; {} has action space {} (use epsilon)",
                                env.id(), act_space.describe()));
}

void collect_episodes(Env& env, CollectPolicy& policy, const CollectOptions& o, DatasetWriter& out) {
  check_collect_options(env, o);
  const Space& obs_space = env.observation_space();
  const Space& act_space = env.action_space();
  RLZOO_CHECK(out.info().observation_space == obs_space && out.info().action_space == act_space,
              "collect: the dataset's spaces are not the env's");

  policy.seed(derive_seed(o.seed, kPolicyStream));
  Rng explore(derive_seed(o.seed, kExplorationStream));
  std::vector<std::byte> obs(obs_space.byte_size()), action(act_space.byte_size());
  std::int64_t total = 0;
  for (std::int64_t ep = 0; (o.episodes == 0 || ep < o.episodes) && (o.steps == 0 || total < o.steps); ++ep) {
    EpisodeData e;
    env.reset(derive_seed(o.seed, static_cast<std::uint64_t>(ep)), obs);
    for (bool start = true;; start = false) {
      policy.act(env, obs, start, action);
      if (o.epsilon > 0 && explore.uniform() < o.epsilon)
        sample_action(env, explore, action);
      else if (o.noise > 0)
        add_noise(act_space, o.noise, explore, action);
      append(e.observations, obs);
      append(e.actions, action);
      const StepResult r = env.step(action, obs);
      e.rewards.push_back(static_cast<float>(r.reward));
      if (r.done()) {
        e.terminated = r.terminated;
        e.truncated = r.truncated;
        break;
      }
    }
    e.final_observation = obs;
    total += e.length();
    out.add(e);
  }
}

}  // namespace rlzoo::data
