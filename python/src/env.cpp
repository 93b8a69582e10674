// One env with Gymnasium's calls: reset(seed) -> (obs, info), step(action) -> (obs, reward,
// terminated, truncated, info). rlzoo/env.py wraps it in the Python-facing Env class.
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "bindings.h"
#include "convert.h"
#include "core/registry/env_registry.h"
#ifdef RLZOO_WITH_MUJOCO
#include "envs/mujoco/mujoco_env.h"
#endif

namespace rlzoo::python {

namespace {

class PyEnv {
 public:
  // episode_info: put {"r", "l"} under info["episode"] on the step that ends an episode (off by
  // default: Gymnasium's RecordEpisodeStatistics refuses an info that has the key already).
  PyEnv(std::unique_ptr<Env> env, bool episode_info)
      : env_(std::move(env)),
        obs_(env_->observation_space().byte_size()),
        action_(env_->action_space().byte_size()),
        episode_info_(episode_info) {}

  py::tuple reset(std::optional<std::uint64_t> seed) {
    InUse use(busy_, "this env");
    {
      py::gil_scoped_release free;
      env_->reset(seed, obs_);
    }
    return py::make_tuple(observation(), info());
  }

  py::tuple step(py::handle action) {
    InUse use(busy_, "this env");
    write_elements(env_->action_space(), action, -1, action_.data(), fmt::format("{}: action", env_->id()));
    StepResult r;
    {
      py::gil_scoped_release free;
      r = env_->step(ConstBytes(action_), obs_);
    }
    return py::make_tuple(observation(), r.reward, r.terminated, r.truncated, info());
  }

  // What Info carries, as Gymnasium's info dict: the env's named scalars; "episode" {r, l} on
  // the step that ends an episode where asked (episode_info); "action_mask" (int8, 1 = legal)
  // for masked envs and candidate envs; for turn-based games "acting_agent" and
  // "agent_rewards"; for candidate envs "candidates" (one feature row per legal move; the
  // action is an index into them, so the mask is 1 on the first len(candidates) actions).
  py::dict info() const {
    py::dict d;
    const Info& i = env_->info();
    for (int k = 0; k < i.num_scalars; ++k) d[i.scalars[static_cast<std::size_t>(k)].name] = i.scalars[static_cast<std::size_t>(k)].value;
    const EnvSpec& spec = env_->spec();
    if (spec.num_agents > 1) {
      d["acting_agent"] = i.acting_agent;
      const auto r = env_->agent_rewards();
      d["agent_rewards"] = py::array_t<double>(static_cast<py::ssize_t>(r.size()), r.data());
    }
    if (spec.has_action_mask) {
      const auto m = env_->action_mask();
      d["action_mask"] = py::array_t<std::int8_t>(static_cast<py::ssize_t>(m.size()), reinterpret_cast<const std::int8_t*>(m.data()));
    }
    if (spec.candidate_feature_dim > 0) {
      const CandidateView c = env_->candidates();
      d["candidates"] = py::array_t<float>(std::vector<py::ssize_t>{c.count, c.feature_dim}, c.features);
      // A Python-side view for generic clients (Gymnasium's Discrete.sample(mask=...),
      // MaskablePPO): the action indexes the candidates, so exactly the first `count` actions
      // of the Discrete space are legal. The C++ env has no mask of its own.
      if (!spec.has_action_mask && spec.action_space.is_discrete()) {
        py::array_t<std::int8_t> mask(static_cast<py::ssize_t>(spec.action_space.n()));
        auto* m = mask.mutable_data();
        std::fill(m, m + mask.size(), std::int8_t{0});
        std::fill(m, m + std::min<py::ssize_t>(c.count, mask.size()), std::int8_t{1});
        d["action_mask"] = mask;
      }
    }
    if (episode_info_ && i.episode_done) {
      py::dict e;
      e["r"] = i.episode_return;
      e["l"] = i.episode_length;
      d["episode"] = e;
    }
    return d;
  }

  py::object observation() const { return element_copy(env_->observation_space(), obs_.data()); }

  py::dict spec() const { return describe_spec(env_->spec()); }

  bool can_render_text() const { return dynamic_cast<const TextRender*>(env_.get()) != nullptr; }

  // The simulated time one step covers where the env has one (MuJoCo: timestep x frame_skip).
  std::optional<double> seconds_per_step() const {
#ifdef RLZOO_WITH_MUJOCO
    if (const auto* m = dynamic_cast<const MujocoEnv*>(env_.get())) return m->dt();
#endif
    return std::nullopt;
  }

  py::object render_text() const {
    const auto* t = dynamic_cast<const TextRender*>(env_.get());
    return t ? py::object(py::str(t->render_text())) : py::none();
  }

  py::array get_state() const {
    const auto s = state_access().get_state();
    return py::array_t<double>(static_cast<py::ssize_t>(s.size()), s.data());
  }

  py::object set_state(const py::array_t<double, py::array::c_style | py::array::forcecast>& s) {
    InUse use(busy_, "this env");
    state_access().set_state(std::span<const double>(s.data(), static_cast<std::size_t>(s.size())), obs_);
    return observation();
  }

  // The complete mid-episode state (Env::save_state) as JSON text, and back.
  std::string save_state() {
    InUse use(busy_, "this env");  // step() releases the GIL: a state read mid-step would be torn
    return env_->save_state().dump();
  }

  py::object load_state(const std::string& text) {
    InUse use(busy_, "this env");
    nlohmann::json state;
    try {
      state = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
      throw UserError(fmt::format("{}: load_state: not JSON: {}", env_->id(), e.what()));
    }
    env_->load_state(state, obs_);
    return observation();
  }

  Env& env() { return *env_; }

 private:
  StateAccess& state_access() const {
    auto* a = dynamic_cast<StateAccess*>(env_.get());
    if (!a) throw UserError(fmt::format("{} does not expose its internal state", env_->id()));
    return *a;
  }

  std::unique_ptr<Env> env_;
  std::vector<std::byte> obs_, action_;
  bool episode_info_;
  std::atomic<bool> busy_{false};
};

}  // namespace

void bind_env(py::module_& m) {
  py::class_<PyEnv>(m, "Env", "An rlzoo env (use rlzoo.make, which wraps it in rlzoo.Env)")
      .def("reset", &PyEnv::reset, py::arg("seed") = py::none(),
           "Starts an episode (seed: reseed the env's RNG; None continues its stream) -> (obs, info)")
      .def("step", &PyEnv::step, py::arg("action"), "-> (obs, reward, terminated, truncated, info)")
      .def("info", &PyEnv::info, "The info dict of the last reset/step")
      .def("observation", &PyEnv::observation, "A copy of the last observation")
      .def_property_readonly("id", [](PyEnv& e) { return e.env().id(); })
      .def_property_readonly("spec", &PyEnv::spec)
      .def_property_readonly("observation_space", [](PyEnv& e) { return describe_space(e.env().observation_space()); })
      .def_property_readonly("action_space", [](PyEnv& e) { return describe_space(e.env().action_space()); })
      .def_property_readonly("elapsed_steps", [](PyEnv& e) { return e.env().elapsed_steps(); })
      .def_property_readonly("needs_reset", [](PyEnv& e) { return e.env().needs_reset(); })
      .def("render_text", &PyEnv::render_text, "The env drawn as text, or None when it cannot draw itself")
      .def_property_readonly("can_render_text", &PyEnv::can_render_text, "Whether render_text() draws the env")
      .def_property_readonly("seconds_per_step", &PyEnv::seconds_per_step,
                             "The simulated seconds one step covers (MuJoCo), else None")
      .def("get_state", &PyEnv::get_state, "The internal float64 state (classic control)")
      .def("set_state", &PyEnv::set_state, py::arg("state"), "Sets the internal state; returns the observation")
      .def("save_state", &PyEnv::save_state, "The complete mid-episode state (RNG, counters, the env's own) as JSON text")
      .def("load_state", &PyEnv::load_state, py::arg("state"),
           "Restores a state from save_state() (any env of the same id); returns the observation")
      .def("doudizhu_game", [](PyEnv& e) { return doudizhu_game_of(e.env()); },
           "A copy of the DouDizhu game (DouDizhu-v0), else None");

  m.def(
      "make_env",
      [](const std::string& id, const py::dict& kwargs, std::optional<std::int64_t> max_episode_steps,
         bool episode_info) {
        auto env = make_env(id, kwargs_to_yaml(kwargs), ConfigContext(fmt::format("kwargs of {}", id)));
        if (max_episode_steps) env->set_max_episode_steps(*max_episode_steps);
        return std::make_unique<PyEnv>(std::move(env), episode_info);
      },
      py::arg("id"), py::arg("kwargs") = py::dict(), py::arg("max_episode_steps") = py::none(),
      py::arg("episode_info") = false);
}

}  // namespace rlzoo::python
