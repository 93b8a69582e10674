#include "rl/algorithm_conformance.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <functional>
#include <optional>

#include "rl/agent.h"
#include "rl/algorithm_registry.h"
#include "rl/callbacks.h"
#include "rl/nets/observation.h"
#include "core/checkpoint/manager.h"
#include "core/registry/env_registry.h"

namespace rlzoo {

namespace fs = std::filesystem;

namespace {

// Records the callbacks' calls in order, for the order check.
class RecordingCallback : public Callback {
 public:
  struct Event {
    char kind;  // 's' start, 'p' step, 'r' rollout end, 'e' end
    std::int64_t steps;
  };
  std::vector<Event> events;
  void on_training_start(Agent& a) override { events.push_back({'s', a.num_timesteps()}); }
  bool on_step(Agent&, std::int64_t n) override {
    events.push_back({'p', n});
    return true;
  }
  void on_rollout_end(Agent&, std::int64_t n) override { events.push_back({'r', n}); }
  void on_training_end(Agent& a) override { events.push_back({'e', a.num_timesteps()}); }
};

// "" when the calls came in the driver's order, else what broke it.
std::string callback_order_problem(const std::vector<RecordingCallback::Event>& events) {
  if (events.empty() || events.front().kind != 's') return "on_training_start did not come first";
  if (events.back().kind != 'e') return "on_training_end did not come last";
  std::int64_t starts = 0, ends = 0, rollouts = 0, last_step = -1, last_rollout = -1;
  for (const auto& e : events) {
    starts += e.kind == 's';
    ends += e.kind == 'e';
    if (e.kind == 'p') {
      if (e.steps < last_step) return fmt::format("on_step went back from {} to {}", last_step, e.steps);
      last_step = e.steps;
    }
    if (e.kind == 'r') {
      ++rollouts;
      if (e.steps < last_rollout) return fmt::format("on_rollout_end went back from {} to {}", last_rollout, e.steps);
      last_rollout = e.steps;
    }
  }
  if (starts != 1 || ends != 1) return fmt::format("{} on_training_start and {} on_training_end calls", starts, ends);
  if (rollouts == 0) return "no on_rollout_end (no cycle end where a checkpoint could be taken)";
  return "";
}

// A learner group of two that must never be used: an algorithm that does not declare several
// learners has to be refused before training starts.
class UnusableGroup : public GradientReducer {
 public:
  void reduce(const std::vector<torch::Tensor>&) override { throw std::logic_error("reduce() on a refused group"); }
  void synchronize(const std::vector<torch::Tensor>&) override {
    throw std::logic_error("synchronize() on a refused group");
  }
  int world_size() const override { return 2; }
};

// Observations of a few fresh episodes of the agent's env, with what act() needs beside them.
struct ObservationBatch {
  std::vector<torch::Tensor> obs;
  ActOptions options;
};

ObservationBatch observation_batch(const Agent& agent, int rows) {
  auto env = make_env(agent.preset().env, agent.preset().env_kwargs, ConfigContext("env_kwargs"));
  const EnvSpec& spec = env->spec();
  const Space& space = spec.observation_space;
  std::vector<std::byte> bytes(space.byte_size() * static_cast<std::size_t>(rows));
  std::vector<torch::Tensor> masks, features, counts, agents;
  const std::int64_t f = spec.candidate_feature_dim;
  std::vector<CandidateView> views;
  std::vector<std::vector<float>> candidate_rows;
  for (int r = 0; r < rows; ++r) {
    env->reset(static_cast<std::uint64_t>(101 + r),
               Bytes(bytes.data() + space.byte_size() * static_cast<std::size_t>(r), space.byte_size()));
    if (spec.has_action_mask) {
      const auto m = env->action_mask();
      masks.push_back(torch::tensor(std::vector<std::uint8_t>(m.begin(), m.end()), torch::kUInt8).to(torch::kBool));
    }
    if (f > 0) {
      const CandidateView c = env->candidates();
      candidate_rows.emplace_back(c.features, c.features + c.count * f);
      counts.push_back(torch::tensor(c.count, torch::kInt64));
      agents.push_back(torch::tensor(static_cast<std::int64_t>(env->info().acting_agent), torch::kInt64));
    }
  }
  ObservationBatch out{observation_tensors(space, bytes.data(), rows, /*copy=*/true), {}};
  if (!masks.empty()) out.options.action_mask = torch::stack(masks);
  if (f > 0) {
    std::int64_t k = 0;
    for (const auto& c : counts) k = std::max(k, c.item<std::int64_t>());
    auto padded = torch::zeros({rows, k, f});
    for (int r = 0; r < rows; ++r) {
      const auto n = counts[static_cast<std::size_t>(r)].item<std::int64_t>();
      padded[r].slice(0, 0, n).copy_(torch::from_blob(candidate_rows[static_cast<std::size_t>(r)].data(), {n, f}));
    }
    out.options.candidate_features = padded;
    out.options.candidate_counts = torch::stack(counts);
    out.options.acting_agent = torch::stack(agents);
  }
  return out;
}

// The saved state blob for blob, but optimiser state (keyed by tensor addresses).
std::map<std::string, std::string> comparable_blobs(const Agent& agent) {
  std::map<std::string, std::string> out;
  const CheckpointWriter saved = agent.checkpoint();  // kept alive: files() refers into it
  for (const auto& [name, bytes] : saved.files())
    if (name.find("optimizer") == std::string::npos) out.emplace(name, bytes);
  return out;
}

}  // namespace

std::string AlgorithmCheckReport::summary() const {
  std::string s = fmt::format("check_algorithm({}): {} passed, {} skipped, {} failed\n", algorithm, passed.size(),
                              skipped.size(), failures.size());
  for (const auto& p : passed) s += "  passed  " + p + "\n";
  for (const auto& p : skipped) s += "  skipped " + p + "\n";
  for (const auto& f : failures) s += "  FAILED  " + f + "\n";
  return s;
}

AlgorithmCheckReport check_algorithm(const std::string& id, const AlgorithmCheckOptions& o) {
  AlgorithmCheckReport report;
  report.algorithm = id;
  const AlgorithmCapabilities caps = algorithm_registry().get(id).capabilities;
  const fs::path work = fs::path(o.work_dir) / id;
  fs::create_directories(work);
  // Runs one check; an exception is that check's failure.
  auto check = [&](const std::string& name, const std::function<std::string()>& body) {
    std::string problem;
    try {
      problem = body();
    } catch (const std::exception& e) {
      problem = std::string("threw: ") + e.what();
    }
    if (problem.empty()) report.passed.push_back(name);
    else if (problem.starts_with("skip: ")) report.skipped.push_back(name + ": " + problem.substr(6));
    else report.failures.push_back(name + ": " + problem);
  };
  auto overrides_for = [&](Backend b) {
    std::vector<std::string> v = o.overrides;
    if (b == Backend::threads) {
      v.push_back("runtime.backend=threads");
      v.push_back("runtime.actors=2");
      v.insert(v.end(), o.thread_overrides.begin(), o.thread_overrides.end());
    }
    return v;
  };
  auto make = [&](Backend b) {
    auto agent = make_agent(id, o.env, overrides_for(b));
    agent->set_progress_bar(false);
    return agent;
  };

  // learn[...] on every declared backend; the first also checks callbacks and checkpoints.
  std::unique_ptr<Agent> trained;  // the first backend's agent, for the acting checks
  for (Backend b : caps.backends) {
    const std::string name = fmt::format("learn[{}]", backend_name(b));
    if (b == Backend::processes) {
      report.skipped.push_back(name + ": needs actor processes (tests/distributed runs them)");
      continue;
    }
    const bool first = !trained;
    check(name, [&]() -> std::string {
      auto agent = make(b);
      CallbackList callbacks;
      auto recorder = std::make_unique<RecordingCallback>();
      RecordingCallback* events = recorder.get();
      callbacks.add(std::move(recorder));
      const fs::path ckpts = work / fmt::format("checkpoints_{}", backend_name(b));
      const std::int64_t every = std::max<std::int64_t>(1, o.timesteps / 2);
      if (first) callbacks.add(std::make_unique<CheckpointCallback>(ckpts.string(), every, 100));
      agent->learn(o.timesteps, &callbacks);
      if (agent->num_timesteps() < o.timesteps)
        return fmt::format("learn({}) stopped at {}", o.timesteps, agent->num_timesteps());
      if (agent->last_training().backend != b)
        return fmt::format("ran on the {} backend", backend_name(agent->last_training().backend));
      if (b != Backend::inline_loop && agent->last_training().actor_batches == 0)
        return fmt::format("declares {} but no experience came from actors (it acted inline)", backend_name(b));
      if (first) {
        check("callbacks", [&] { return callback_order_problem(events->events); });
        check("checkpoints", [&]() -> std::string {
          const auto steps = CheckpointManager(ckpts, 100).steps();
          if (steps.empty()) return fmt::format("no checkpoint with every={} over {} steps", every, o.timesteps);
          // One per cadence mark crossed (at the end of the cycle that crossed it), and the
          // final state at on_training_end (which may share its mark's interval).
          const std::size_t periodic = steps.back() == agent->num_timesteps() ? steps.size() - 1 : steps.size();
          for (std::size_t i = 1; i < periodic; ++i)
            if (steps[i] / every == steps[i - 1] / every)
              return fmt::format("two checkpoints ({}, {}) within one cadence of {}", steps[i - 1], steps[i], every);
          if (steps.front() < every) return fmt::format("a checkpoint at {} before its mark {}", steps.front(), every);
          for (std::int64_t s : {steps.front(), steps.back()}) {
            auto loaded = load_agent((ckpts / CheckpointManager::dir_name(s)).string());
            if (loaded->num_timesteps() != s)
              return fmt::format("checkpoint {} loads at step {}", s, loaded->num_timesteps());
          }
          return "";
        });
        trained = std::move(agent);
      }
      return "";
    });
  }

  if (trained) {
    const ObservationBatch batch = observation_batch(*trained, 16);
    ActOptions det = batch.options;
    det.deterministic = true;
    check("deterministic_act", [&]() -> std::string {
      const auto first = trained->act(batch.obs, det);
      for (int i = 0; i < 4; ++i)
        if (!trained->act(batch.obs, det).equal(first))
          return "deterministic act() calls on the same observations differ";
      return "";
    });
    check("save_load_act", [&]() -> std::string {
      const fs::path dir = work / "saved";
      trained->save(dir.string());
      auto loaded = load_agent(dir.string());
      if (loaded->num_timesteps() != trained->num_timesteps())
        return fmt::format("loaded at step {}, saved at {}", loaded->num_timesteps(), trained->num_timesteps());
      return loaded->act(batch.obs, det).equal(trained->act(batch.obs, det)) ? ""
                                                                             : "the loaded agent acts differently";
    });
    check("export", [&]() -> std::string {
      const bool has = trained->export_policy().has_value();
      if (has == caps.exportable) return "";
      return caps.exportable ? "declared exportable but export_policy() gives nothing"
                             : "export_policy() gives a policy but exportable is not declared";
    });
  }

  if (caps.supports(Backend::inline_loop) && !caps.exact_resume) {
    report.skipped.push_back("exact_resume: the algorithm declares that a resumed run starts fresh episodes");
  } else if (caps.supports(Backend::inline_loop)) {
    check("exact_resume", [&]() -> std::string {
      auto straight = make(Backend::inline_loop);
      straight->learn(o.timesteps);
      straight->learn(o.timesteps);
      const fs::path dir = work / "resume";
      {
        auto first = make(Backend::inline_loop);
        first->learn(o.timesteps);
        first->save(dir.string());
      }
      auto resumed = load_agent(dir.string());
      resumed->set_progress_bar(false);
      resumed->learn(o.timesteps);
      const auto a = comparable_blobs(*straight), b = comparable_blobs(*resumed);
      std::vector<std::string> missing, differ;
      for (const auto& [name, bytes] : a) {
        const auto it = b.find(name);
        if (it == b.end()) missing.push_back(name);
        else if (it->second != bytes) differ.push_back(name);
      }
      if (!missing.empty()) return fmt::format("{} missing after the resume", fmt::join(missing, ", "));
      if (!differ.empty()) return fmt::format("{} differ from the uninterrupted run's", fmt::join(differ, ", "));
      if (a.size() != b.size()) return "the resumed agent saves other blobs";
      return "";
    });
  } else {
    report.skipped.push_back("exact_resume: declared for the inline backend only");
  }

  // Undeclared capabilities are refused. "" when `attempt` threw a UserError naming `key`.
  auto refusal = [](const std::function<void()>& attempt, const std::string& key,
                    const std::string& if_accepted) -> std::string {
    try {
      attempt();
    } catch (const UserError& e) {
      return std::string(e.what()).find(key) != std::string::npos
                 ? ""
                 : fmt::format("refused without naming {}: {}", key, e.what());
    }
    return if_accepted;
  };
  for (Backend b : {Backend::inline_loop, Backend::threads, Backend::processes}) {
    if (caps.supports(b)) continue;
    check(fmt::format("refuses[{}]", backend_name(b)), [&] {
      std::vector<std::string> v = o.overrides;
      v.push_back(fmt::format("runtime.backend={}", backend_name(b)));
      if (b != Backend::inline_loop) v.push_back("runtime.actors=2");
      return refusal([&] { make_agent(id, o.env, v); }, "runtime.backend",
                     "an agent was made for an undeclared backend");
    });
  }
  check("refuses[spaces]", [&]() -> std::string {
    // The first registered env whose space kinds the algorithm does not declare.
    for (const std::string& env : env_registry().names()) {
      std::optional<EnvSpec> spec;
      try {
        spec = make_env(env)->spec();
      } catch (const std::exception&) {
        continue;  // an env that needs keyword arguments
      }
      if (caps.handles(*spec)) continue;
      return refusal([&] { make_agent(id, env, {}); }, "learns on",
                     fmt::format("an agent was made for {}, whose space kinds are not declared", env));
    }
    return "skip: it declares the space kinds of every registered env";
  });
  if (!caps.several_learners) {
    check("refuses[several learners]", [&]() -> std::string {
      auto agent = make(caps.backends.front());
      agent->set_gradient_reducer(std::make_shared<UnusableGroup>());
      const std::string problem =
          refusal([&] { agent->learn(o.timesteps); }, "one learner only",
                  "learn() ran in a group of two learners although several learners are not declared");
      return problem.empty() && agent->num_timesteps() != 0 ? "refused only after training" : problem;
    });
  }
  if (!caps.gpu) {
    check("refuses[device cuda]", [&] {
      std::vector<std::string> v = o.overrides;
      v.push_back("device=cuda");
      return refusal([&] { make_agent(id, o.env, v); }, "device",
                     "an agent was made for device cuda although gpu is not declared");
    });
  }
  return report;
}

}  // namespace rlzoo
