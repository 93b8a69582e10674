#include "core/env/conformance.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "core/common/crc32c.h"
#include "core/spaces/space_leaves.h"

namespace rlzoo {

namespace {

// What one reset or step returned, reduced to a fingerprint so that long runs with large
// observations stay small. reset() records have step == 0 and no reward.
struct Record {
  int episode = 0;
  std::int64_t step = 0;
  std::uint32_t obs_crc = 0;
  double reward = 0.0;
  bool terminated = false;
  bool truncated = false;
};

struct Run {
  std::vector<Record> records;
  bool complete = false;  // false when it was cut short by an exception or a failure
};

class Checker {
 public:
  Checker(const ConformanceOptions& opts, ConformanceReport& report) : opts_(opts), report_(report) {}

  bool full() const { return static_cast<int>(report_.failures.size()) >= opts_.max_failures; }

  // Records a failure. Only the first of each kind is kept (a broken observation would
  // otherwise repeat on every step and crowd out the rest); later ones are only counted.
  void fail(const std::string& kind, std::string msg) {
    if (!kinds_seen_.insert(kind).second || full()) {
      ++report_.repeated_failures;
      return;
    }
    report_.failures.push_back(std::move(msg));
  }

  // Plays opts.episodes_per_seed episodes; the observation buffer is filled with `fill`
  // before every reset and step.
  Run play(Env& env, std::uint64_t seed, std::byte fill, const std::string& label) {
    Run run;
    obs_.assign(env.observation_space().byte_size(), fill);
    action_.assign(env.action_space().byte_size(), std::byte{0});
    Rng action_rng(opts_.action_seed);
    const std::int64_t budget = opts_.max_steps_per_episode > 0 ? opts_.max_steps_per_episode
                                : env.max_episode_steps() > 0   ? env.max_episode_steps()
                                                                : 10000;
    int episode = 0;
    std::int64_t step = 0;
    auto where = [&] { return fmt::format("{} seed {} episode {} step {}", label, seed, episode, step); };
    try {
      for (episode = 0; episode < opts_.episodes_per_seed && !full(); ++episode) {
        step = 0;
        std::fill(obs_.begin(), obs_.end(), fill);
        const Info& info = env.reset(episode == 0 ? std::optional<std::uint64_t>(seed) : std::nullopt, obs_);
        ++report_.episodes;
        run.records.push_back({episode, 0, observation_crc(env), 0.0, false, false});
        check_observation(env, where());
        if (info.episode_done) fail("done-after-reset", where() + ": info().episode_done is set right after reset()");
        double sum = 0.0;
        while (true) {
          if (step >= budget) {
            fail("budget",
                 fmt::format("{}: the episode did not end (terminated or truncated) within {} steps", where(), budget));
            return run;
          }
          if (!choose_action(env, action_rng, where())) return run;
          std::fill(obs_.begin(), obs_.end(), fill);
          const StepResult r = env.step(ConstBytes(action_), obs_);
          ++step;
          ++report_.steps;
          sum += r.reward;
          run.records.push_back({episode, step, observation_crc(env), r.reward, r.terminated, r.truncated});
          check_observation(env, where());
          if (!std::isfinite(r.reward)) fail("reward", fmt::format("{}: reward {} is not finite", where(), r.reward));
          if (env.agent_rewards().size() != static_cast<std::size_t>(env.spec().num_agents))
            fail("agent-rewards", fmt::format("{}: agent_rewards() has {} entries, num_agents is {}", where(),
                                              env.agent_rewards().size(), env.spec().num_agents));
          if (opts_.check_episode_statistics && env.info().episode_done != r.done())
            fail("episode-done", fmt::format("{}: info().episode_done is {} but the step {} the episode", where(),
                                             env.info().episode_done, r.done() ? "ended" : "did not end"));
          if (r.done()) {
            check_episode_end(env, sum, step, where());
            break;
          }
          if (full()) return run;
        }
      }
    } catch (const std::exception& e) {
      fail("exception", fmt::format("{}: unexpected exception: {}", where(), e.what()));
      return run;
    }
    run.complete = true;
    return run;
  }

  // Reports the first difference between two runs that should be identical.
  void expect_same(const Run& a, const Run& b, std::uint64_t seed, const std::string& what) {
    if (!a.complete || !b.complete) return;  // already reported
    const std::size_t n = std::min(a.records.size(), b.records.size());
    for (std::size_t i = 0; i < n; ++i) {
      const Record& x = a.records[i];
      const Record& y = b.records[i];
      std::string diff;
      if (x.obs_crc != y.obs_crc)
        diff =
            "observations differ (nondeterministic, or the env does not write the whole observation: the "
            "two runs pre-fill the buffer with different bytes)";
      else if (std::memcmp(&x.reward, &y.reward, sizeof(double)) != 0)
        diff = fmt::format("rewards differ ({} vs {})", x.reward, y.reward);
      else if (x.terminated != y.terminated || x.truncated != y.truncated)
        diff = fmt::format("flags differ (terminated {} vs {}, truncated {} vs {})", x.terminated, y.terminated,
                           x.truncated, y.truncated);
      if (!diff.empty()) {
        fail(what, fmt::format("seed {}: {} differs from the first run at episode {} step {}: {}", seed, what,
                               x.episode, x.step, diff));
        return;
      }
    }
    if (a.records.size() != b.records.size())
      fail(what, fmt::format("seed {}: {} has {} resets and steps, the first run {}", seed, what, b.records.size(),
                             a.records.size()));
  }

  // Saves `a`'s state a few steps into an episode, loads it (after a JSON text round trip) into
  // the fresh env `b`, and checks that the observation and the next 50 steps agree.
  void check_state_round_trip(Env& a, Env& b, std::uint64_t seed) {
    constexpr int kBefore = 5, kAfter = 50;
    obs_.assign(a.observation_space().byte_size(), std::byte{0});
    action_.assign(a.action_space().byte_size(), std::byte{0});
    Rng rng_a(opts_.action_seed ^ 0x57a7e);
    a.reset(seed, obs_);
    for (int i = 0; i < kBefore; ++i) {
      if (!choose_action(a, rng_a, "state round trip")) return;
      if (a.step(ConstBytes(action_), obs_).done()) a.reset(std::nullopt, obs_);
    }
    nlohmann::json saved;
    try {
      saved = a.save_state();
    } catch (const UserError& e) {
      report_.state_round_trip = std::string("skipped: ") + e.what();
      return;
    }
    std::vector<std::byte> obs_a = obs_, obs_b(obs_.size(), std::byte{0x5A});
    b.load_state(nlohmann::json::parse(saved.dump()), obs_b);
    if (obs_b != obs_a) {
      fail("state", fmt::format("seed {}: after load_state the observation differs from the saved env's", seed));
      return;
    }
    Rng rng_b = rng_a;  // the same actions for both, drawn as each env's masks allow
    std::vector<std::byte> act_a(action_.size());
    for (int step = 1; step <= kAfter; ++step) {
      if (!choose_action(a, rng_a, "state round trip")) return;
      act_a = action_;
      if (!choose_action(b, rng_b, "state round trip (loaded env)")) return;
      if (action_ != act_a) {
        fail("state", fmt::format("seed {}: {} steps after load_state the envs offer different actions", seed, step));
        return;
      }
      const StepResult ra = a.step(ConstBytes(act_a), obs_a);
      const StepResult rb = b.step(ConstBytes(action_), obs_b);
      if (obs_a != obs_b || std::memcmp(&ra.reward, &rb.reward, sizeof(double)) != 0 ||
          ra.terminated != rb.terminated || ra.truncated != rb.truncated) {
        fail("state", fmt::format("seed {}: {} step{} after load_state the loaded env differs from the saved one "
                                  "(observation, reward or flags)",
                                  seed, step, step == 1 ? "" : "s"));
        return;
      }
      if (ra.done()) {
        a.reset(std::nullopt, obs_a);
        b.reset(std::nullopt, obs_b);
        if (obs_a != obs_b) {
          fail("state", fmt::format("seed {}: the episode after the loaded one starts differently", seed));
          return;
        }
      }
    }
    report_.state_round_trip = fmt::format("passed ({} steps after loading a state saved {} steps in)", kAfter, kBefore);
  }

  static bool same(const Run& a, const Run& b) {
    if (a.records.size() != b.records.size()) return false;
    for (std::size_t i = 0; i < a.records.size(); ++i) {
      const Record& x = a.records[i];
      const Record& y = b.records[i];
      if (x.obs_crc != y.obs_crc || std::memcmp(&x.reward, &y.reward, sizeof(double)) != 0 ||
          x.terminated != y.terminated || x.truncated != y.truncated)
        return false;
    }
    return true;
  }

 private:
  std::uint32_t observation_crc(const Env& env) const {
    std::uint32_t crc = 0;
    for_each_leaf(env.observation_space(), ConstBytes(obs_),
                  [&](const Space&, ConstBytes x) { crc = crc32c(x.data(), x.size(), crc); });
    return crc;
  }

  void check_observation(const Env& env, const std::string& where) {
    const Space& space = env.observation_space();
    for_each_leaf(space, ConstBytes(obs_), [&](const Space& leaf, ConstBytes x) {
      if (auto i = first_non_finite(leaf, x))
        fail("obs-finite", fmt::format("{}: observation element {} is not finite", where, *i));
    });
    if (!space.contains(obs_))
      fail("obs-bounds", fmt::format("{}: observation is outside {}", where, space.describe()));
  }

  // Writes a random acceptable action into action_; false when there is none.
  bool choose_action(Env& env, Rng& rng, const std::string& where) {
    const Space& as = env.action_space();
    if (env.spec().candidate_feature_dim > 0) {
      const CandidateView c = env.candidates();
      if (c.count < 1 || c.count > as.n()) {
        fail("candidates", fmt::format("{}: {} candidate actions, expected 1..{}", where, c.count, as.n()));
        return false;
      }
      if (c.feature_dim != env.spec().candidate_feature_dim)
        fail("candidate-dim", fmt::format("{}: candidate feature_dim {}, the spec says {}", where, c.feature_dim,
                                          env.spec().candidate_feature_dim));
      for (std::int64_t i = 0; c.features && i < c.count * c.feature_dim; ++i)
        if (!std::isfinite(c.features[i])) {
          fail("candidate-finite", fmt::format("{}: candidate feature {} is not finite", where, i));
          break;
        }
      const auto pick = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(c.count)));
      as_span<std::int64_t>(Bytes(action_))[0] = as.start() + pick;
      return true;
    }
    if (env.spec().has_action_mask) {
      const auto mask = env.action_mask();
      if (static_cast<std::int64_t>(mask.size()) != as.n()) {
        fail("mask-size",
             fmt::format("{}: action mask has {} entries, the action space {}", where, mask.size(), as.describe()));
        return false;
      }
      std::vector<std::int64_t> legal;
      for (std::size_t i = 0; i < mask.size(); ++i) {
        if (mask[i] > 1)
          fail("mask-value", fmt::format("{}: action mask entry {} is {}, not 0 or 1", where, i, mask[i]));
        if (mask[i]) legal.push_back(as.start() + static_cast<std::int64_t>(i));
      }
      if (legal.empty()) {
        fail("mask-empty", where + ": no legal action in the mask of an episode that has not ended");
        return false;
      }
      as_span<std::int64_t>(Bytes(action_))[0] = legal[rng.below(legal.size())];
      return true;
    }
    as.sample(rng, action_);
    return true;
  }

  void check_episode_end(Env& env, double sum, std::int64_t steps, const std::string& where) {
    if (opts_.check_episode_statistics) {
      const Info& info = env.info();
      if (std::abs(info.episode_return - sum) > 1e-9 * std::max(1.0, std::abs(sum)))
        fail("episode-return",
             fmt::format("{}: info().episode_return is {}, the rewards add up to {}", where, info.episode_return, sum));
      if (info.episode_length != steps)
        fail("episode-length", fmt::format("{}: info().episode_length is {}, the episode had {} steps", where,
                                           info.episode_length, steps));
    }
    if (!env.needs_reset()) fail("needs-reset", where + ": needs_reset() is false after the episode ended");
    try {
      env.step(ConstBytes(action_), obs_);
      fail("step-after-end", where + ": step() after the end of the episode did not throw");
    } catch (const UserError&) {
    }
  }

  const ConformanceOptions& opts_;
  ConformanceReport& report_;
  std::vector<std::byte> obs_;
  std::vector<std::byte> action_;
  std::set<std::string> kinds_seen_;
};

}  // namespace

std::string ConformanceReport::summary() const {
  std::string out = fmt::format("conformance of {}: {} episodes, {} steps, {} failure{}", env_id.empty() ? "?" : env_id,
                                episodes, steps, failures.size(), failures.size() == 1 ? "" : "s");
  for (const auto& f : failures) out += "\n  " + f;
  if (repeated_failures > 0)
    out += fmt::format("\n  ({} more failures of the kinds above not shown)", repeated_failures);
  if (!state_round_trip.empty()) out += "\n  state round trip: " + state_round_trip;
  return out;
}

ConformanceReport check_env_conformance(const std::function<std::unique_ptr<Env>()>& make,
                                        const ConformanceOptions& opts) {
  ConformanceReport report;
  Checker checker(opts, report);
  if (opts.seeds.empty() || opts.episodes_per_seed < 1) {
    checker.fail("options", "nothing to play: ConformanceOptions needs at least one seed and one episode per seed");
    return report;
  }
  auto fresh = [&]() -> std::unique_ptr<Env> {
    std::unique_ptr<Env> env;
    try {
      env = make();
    } catch (const std::exception& e) {
      checker.fail("factory", fmt::format("creating the env threw: {}", e.what()));
      return nullptr;
    }
    if (!env)
      checker.fail("factory", "the factory returned null");
    else
      report.env_id = env->id();
    return env;
  };

  std::vector<std::pair<std::uint64_t, Run>> first_runs;
  for (const std::uint64_t seed : opts.seeds) {
    auto env = fresh();
    if (!env) return report;
    auto other = fresh();
    if (!other) return report;
    Run first = checker.play(*env, seed, std::byte{0xA5}, "run 1");
    const Run second = checker.play(*other, seed, std::byte{0x5A}, "run 2 (fresh env)");
    checker.expect_same(first, second, seed, "run 2 (a fresh env with the same seed)");
    const Run again = checker.play(*env, seed, std::byte{0x5A}, "run 3 (reused env)");
    checker.expect_same(first, again, seed, "run 3 (the same env after reset(seed))");
    if (checker.full()) return report;
    first_runs.emplace_back(seed, std::move(first));
  }
  if (opts.check_state_round_trip) {
    auto saved = fresh();
    auto loaded = saved ? fresh() : nullptr;
    if (!loaded) return report;
    try {
      checker.check_state_round_trip(*saved, *loaded, opts.seeds.front());
    } catch (const std::exception& e) {
      checker.fail("state", fmt::format("state round trip: unexpected exception: {}", e.what()));
    }
  }
  if (opts.expect_seed_dependence) {
    for (std::size_t i = 0; i < first_runs.size(); ++i)
      for (std::size_t j = i + 1; j < first_runs.size(); ++j)
        if (first_runs[i].second.complete && Checker::same(first_runs[i].second, first_runs[j].second))
          checker.fail("seed", fmt::format("seeds {} and {} gave identical trajectories (the env ignores its seed?)",
                                           first_runs[i].first, first_runs[j].first));
  }
  return report;
}

}  // namespace rlzoo
