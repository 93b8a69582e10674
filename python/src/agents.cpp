// Trained agents (rl/agent.h) from Python: load_agent / make_agent, predict (SB3's
// predict(obs, state, episode_start, deterministic) -> (actions, state)), evaluate, learn,
// save. Observations come in as numpy in the observation space's layout and are handed to
// LibTorch without a Python loop; actions come back as numpy (int64 for Discrete, float32 for
// Box). The only LibTorch file of the module (it uses the project's precompiled header).
#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <memory>
#include <thread>
#include <vector>

#include "algorithms/dmc/decision_batch.h"
#include "algorithms/dmc/dmc.h"
#include "algorithms/dmc/dmc_player.h"
#include "envs/doudizhu/game.h"
#include "rl/agent.h"
#include "rl/algorithm_registry.h"
#include "rl/nets/observation.h"
#include "bindings.h"
#include "convert.h"

namespace rlzoo::python {

namespace {

py::array to_numpy(const torch::Tensor& t) {
  const torch::Tensor c = t.detach().to(torch::kCPU).contiguous();
  py::dtype dt;
  switch (c.scalar_type()) {
    case torch::kLong: dt = py::dtype::of<std::int64_t>(); break;
    case torch::kInt: dt = py::dtype::of<std::int32_t>(); break;
    case torch::kFloat: dt = py::dtype::of<float>(); break;
    case torch::kDouble: dt = py::dtype::of<double>(); break;
    case torch::kBool: dt = py::dtype::of<bool>(); break;
    case torch::kByte: dt = py::dtype::of<std::uint8_t>(); break;
    default: throw UserError(fmt::format("cannot return a tensor of {} to Python", c10::toString(c.scalar_type())));
  }
  std::vector<py::ssize_t> shape(c.sizes().begin(), c.sizes().end());
  return py::array(dt, shape, c.data_ptr());  // no base: numpy copies
}

// A numpy array (any real dtype) -> a float32 tensor that owns its data.
torch::Tensor float_tensor(py::handle v, const char* what) {
  const auto a = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(v);
  if (!a) throw UserError(fmt::format("{}: expected an array of numbers", what));
  std::vector<std::int64_t> shape(a.shape(), a.shape() + a.ndim());
  return torch::from_blob(const_cast<float*>(a.data()), shape, torch::kFloat).clone();
}

torch::Tensor bool_tensor(py::handle v, std::vector<std::int64_t> shape, const char* what) {
  const auto a = py::array_t<bool, py::array::c_style | py::array::forcecast>::ensure(v);
  if (!a) throw UserError(fmt::format("{}: expected an array of booleans", what));
  const std::vector<std::int64_t> given(a.shape(), a.shape() + a.ndim());
  if (given != shape) throw UserError(fmt::format("{}: expected shape {}, got {}", what, fmt::join(shape, "x"), fmt::join(given, "x")));
  return torch::from_blob(const_cast<bool*>(a.data()), shape, torch::kBool).clone();
}

torch::Tensor int_tensor(py::handle v, std::vector<std::int64_t> shape, const char* what) {
  const auto a = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(v);
  if (!a) throw UserError(fmt::format("{}: expected an array of integers", what));
  const std::vector<std::int64_t> given(a.shape(), a.shape() + a.ndim());
  if (given != shape) throw UserError(fmt::format("{}: expected shape {}, got {}", what, fmt::join(shape, "x"), fmt::join(given, "x")));
  return torch::from_blob(const_cast<std::int64_t*>(a.data()), shape, torch::kInt64).clone();
}

// Stops learn() when Python has a pending signal (Ctrl-C), checked every few thousand steps on
// the thread that called learn() (Python runs signal handlers on the main thread only).
class PythonSignals : public Callback {
 public:
  bool on_step(Agent&, std::int64_t num_timesteps) override {
    if (std::this_thread::get_id() != owner_ || num_timesteps < next_) return true;
    next_ = num_timesteps + 2048;
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() == 0) return true;
    PyErr_Clear();
    interrupted = true;
    return false;
  }
  bool interrupted = false;

 private:
  std::thread::id owner_ = std::this_thread::get_id();
  std::int64_t next_ = 0;
};

class PyAgent {
 public:
  explicit PyAgent(std::unique_ptr<Agent> agent) : agent_(std::move(agent)) { agent_->set_progress_bar(false); }

  // obs: `batch` observations with a leading batch dimension (rlzoo/agents.py adds it for a
  // single observation). Returns (actions, state or None).
  // candidates / candidate_counts / acting_agent: for candidate-action envs (DouDizhu), the
  // legal moves' feature rows [B, K, F] (rows past a row's count are padding), the counts [B]
  // and the acting agents [B] (rlzoo/agents.py pads the per-observation lists).
  py::tuple predict(py::handle obs, std::int64_t batch, py::handle state, py::handle episode_start, bool deterministic,
                    py::handle action_mask, py::handle candidates, py::handle candidate_counts,
                    py::handle acting_agent) {
    InUse use(busy_, "this agent");
    if (batch < 1) throw UserError(fmt::format("predict: batch must be >= 1, got {}", batch));
    const Space& space = agent_->env_spec().observation_space;
    std::vector<std::byte> bytes(static_cast<std::size_t>(batch) * space.byte_size());
    write_elements(space, obs, batch, bytes.data(), "predict: observation");
    ActOptions options;
    options.deterministic = deterministic;
    if (!action_mask.is_none()) {
      const Space& as = agent_->env_spec().action_space;
      if (!as.is_discrete()) throw UserError("predict: action_mask needs a Discrete action space");
      options.action_mask = bool_tensor(action_mask, {batch, as.n()}, "predict: action_mask");
    }
    if (!episode_start.is_none()) options.episode_start = bool_tensor(episode_start, {batch}, "predict: episode_start");
    if (!candidates.is_none()) {
      const std::int64_t dim = agent_->env_spec().candidate_feature_dim;
      if (dim <= 0)
        throw UserError(fmt::format("predict: candidates are for envs whose actions index candidate moves; {} has none",
                                    agent_->env_spec().id));
      options.candidate_features = float_tensor(candidates, "predict: candidates");
      if (options.candidate_features.dim() != 3 || options.candidate_features.size(0) != batch ||
          options.candidate_features.size(2) != dim)
        throw UserError(fmt::format("predict: candidates must be [{}, K, {}], got {}", batch, dim,
                                    c10::str(options.candidate_features.sizes())));
      options.candidate_counts = int_tensor(candidate_counts, {batch}, "predict: candidate counts");
      if (acting_agent.is_none())
        throw UserError("predict: candidates need acting_agent too (the info's \"acting_agent\")");
      options.acting_agent = int_tensor(acting_agent, {batch}, "predict: acting_agent");
    }
    const bool stateful = agent_->recurrent() || !state.is_none();
    if (!state.is_none()) options.recurrent_state = float_tensor(state, "predict: state");
    ActResult r;
    {
      py::gil_scoped_release free;
      const auto tensors = observation_tensors(space, bytes.data(), batch);
      if (stateful)
        r = agent_->act_with_state(tensors, options);
      else
        r.actions = agent_->act(tensors, options);
    }
    return py::make_tuple(to_numpy(r.actions), r.recurrent_state.defined() ? py::object(to_numpy(r.recurrent_state)) : py::none());
  }

  py::dict evaluate(int episodes, bool deterministic, std::uint64_t seed) {
    InUse use(busy_, "this agent");
    EvalResult r;
    {
      py::gil_scoped_release free;
      r = agent_->evaluate(episodes, deterministic, seed);
    }
    py::dict d;
    d["returns"] = r.returns;
    d["lengths"] = r.lengths;
    d["mean_return"] = r.mean_return();
    d["std_return"] = r.std_return();
    d["mean_length"] = r.mean_length();
    return d;
  }

  void learn(std::int64_t timesteps, bool progress_bar) {
    InUse use(busy_, "this agent");
    CallbackList callbacks;
    auto signals = std::make_unique<PythonSignals>();
    auto* watch = signals.get();
    callbacks.add(std::move(signals));
    agent_->set_progress_bar(progress_bar);
    {
      py::gil_scoped_release free;
      agent_->learn(timesteps, &callbacks);
    }
    agent_->set_progress_bar(false);
    if (watch->interrupted) {
      PyErr_SetNone(PyExc_KeyboardInterrupt);
      throw py::error_already_set();
    }
  }

  void save(const std::string& dir) {
    InUse use(busy_, "this agent");
    py::gil_scoped_release free;
    agent_->save(dir);
  }

  // dmc agents (DouDizhu): the Q-value of each of the acting seat's legal moves in `g`, in
  // g.legal_moves() order; the same arithmetic as `rlzoo doudizhu q-values`.
  py::array_t<float> doudizhu_q_values(const doudizhu::Game& game) {
    InUse use(busy_, "this agent");
    auto& nets = dmc_nets("q_values");
    if (game.over()) throw UserError("q_values: the game is over");
    doudizhu::Game g = game;  // a copy made under the GIL: legal_moves() fills a cache
    std::vector<float> q;
    {
      py::gil_scoped_release free;
      torch::InferenceMode inference;
      dmc::DecisionBatch batch;
      batch.add(g);
      batch.evaluate(nets);
      for (std::size_t k = 0; k < g.legal_moves().size(); ++k) q.push_back(batch.q(0, k));
    }
    return py::array_t<float>(static_cast<py::ssize_t>(q.size()), q.data());
  }

  // dmc agents: the index into g.legal_moves() of the move the agent plays (the greedy one;
  // the only one without asking the networks), as `rlzoo doudizhu eval` plays it.
  std::size_t doudizhu_choose(const doudizhu::Game& game) {
    InUse use(busy_, "this agent");
    dmc_nets("choose");
    if (game.over()) throw UserError("choose: the game is over");
    doudizhu::Game g = game;
    py::gil_scoped_release free;
    dmc::DmcPlayer player(dynamic_cast<dmc::DmcAgent&>(*agent_).shared_nets(), "dmc");
    return player.choose(g);
  }

  Agent& agent() { return *agent_; }

 private:
  dmc::SeatNets& dmc_nets(const char* what) {
    auto* d = dynamic_cast<dmc::DmcAgent*>(agent_.get());
    if (!d)
      throw UserError(fmt::format("{}: a {} agent on {}; only dmc agents (DouDizhu) value and choose moves", what,
                                  agent_->algorithm(), agent_->env_spec().id));
    return d->nets();
  }

  std::unique_ptr<Agent> agent_;
  std::atomic<bool> busy_{false};
};

std::unique_ptr<PyAgent> wrap(std::unique_ptr<Agent> a) { return std::make_unique<PyAgent>(std::move(a)); }

}  // namespace

void bind_agents(py::module_& m) {
  py::class_<PyAgent>(m, "Agent", "A trained or training rlzoo agent (use rlzoo.load_agent / rlzoo.make_agent)")
      .def("predict", &PyAgent::predict, py::arg("obs"), py::arg("batch"), py::arg("state") = py::none(),
           py::arg("episode_start") = py::none(), py::arg("deterministic") = true, py::arg("action_mask") = py::none(),
           py::arg("candidates") = py::none(), py::arg("candidate_counts") = py::none(),
           py::arg("acting_agent") = py::none())
      .def("doudizhu_q_values", &PyAgent::doudizhu_q_values, py::arg("game"))
      .def("doudizhu_choose", &PyAgent::doudizhu_choose, py::arg("game"))
      .def("evaluate", &PyAgent::evaluate, py::arg("episodes") = 10, py::arg("deterministic") = true,
           py::arg("seed") = std::uint64_t{1'000'000})
      .def("learn", &PyAgent::learn, py::arg("timesteps"), py::arg("progress_bar") = false)
      .def("save", &PyAgent::save, py::arg("dir"))
      .def_property_readonly("algorithm", [](PyAgent& a) { return a.agent().algorithm(); })
      .def_property_readonly("env_id", [](PyAgent& a) { return a.agent().env_spec().id; })
      .def_property_readonly("num_timesteps", [](PyAgent& a) { return a.agent().num_timesteps(); })
      .def_property_readonly("recurrent", [](PyAgent& a) { return a.agent().recurrent(); })
      .def_property_readonly("observation_space", [](PyAgent& a) { return describe_space(a.agent().env_spec().observation_space); })
      .def_property_readonly("action_space", [](PyAgent& a) { return describe_space(a.agent().env_spec().action_space); })
      .def_property_readonly("config_yaml", [](PyAgent& a) {
        YAML::Emitter out;
        out << a.agent().config();
        return std::string(out.c_str());
      });

  m.def(
      "load_agent",
      [](const std::string& path, const std::vector<std::string>& overrides) {
        py::gil_scoped_release free;
        return wrap(load_agent(path, overrides));
      },
      py::arg("path"), py::arg("overrides") = std::vector<std::string>{});
  m.def(
      "make_agent",
      [](const std::string& algorithm, const std::string& env_id, const std::vector<std::string>& overrides) {
        return wrap(make_agent(algorithm, env_id, overrides));
      },
      py::arg("algorithm"), py::arg("env_id"), py::arg("overrides") = std::vector<std::string>{});
  m.def(
      "agent_from_preset",
      [](const std::string& path, const std::vector<std::string>& overrides) {
        return wrap(Agent::from_preset(path, overrides));
      },
      py::arg("path"), py::arg("overrides") = std::vector<std::string>{});
  m.def("algorithms", [] { return algorithm_registry().names(); }, "Registered algorithm ids");
}

}  // namespace rlzoo::python
