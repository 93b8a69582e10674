// The `_rlzoo` extension module (the `rlzoo` Python package wraps it; see python/rlzoo/).
// Importing it registers the built-in envs (and algorithms when built with LibTorch), as the
// rlzoo CLI does at start-up. rlzoo's UserError (bad input: an unknown id, a malformed or
// illegal action, a bad keyword argument) becomes rlzoo.UserError, a ValueError with
// rlzoo's message.
#include <pybind11/stl.h>

#include "bindings.h"
#include "convert.h"
#include "core/common/error.h"
#include "core/registry/env_registry.h"
#include "envs/builtin.h"
#ifdef RLZOO_PYTHON_WITH_AGENTS
#include "algorithms/builtin.h"
#endif

PYBIND11_MODULE(_rlzoo, m) {
  namespace py = pybind11;
  using namespace rlzoo::python;
  m.doc() = "rlzoo's C++ envs, vector envs, DouDizhu engine and agents";
  m.attr("__version__") = RLZOO_VERSION;
  py::register_exception<rlzoo::UserError>(m, "UserError", PyExc_ValueError);

  rlzoo::register_builtin_envs();
#ifdef RLZOO_PYTHON_WITH_AGENTS
  rlzoo::register_builtin_algorithms();
  m.attr("has_agents") = true;
#else
  m.attr("has_agents") = false;
#endif

  m.def("env_ids", [] { return rlzoo::env_registry().names(); }, "Registered env ids");
  m.def(
      "env_description",
      [](const std::string& id) {
        const auto& e = rlzoo::env_registry().get(id);
        py::dict d;
        d["id"] = id;
        d["description"] = e.description;
        d["max_episode_steps"] = e.max_episode_steps > 0 ? py::object(py::int_(e.max_episode_steps)) : py::none();
        d["reward_threshold"] = e.reward_threshold ? py::object(py::float_(*e.reward_threshold)) : py::none();
        return d;
      },
      py::arg("id"));

  bind_env(m);
  bind_vector_env(m);
  bind_doudizhu(m);
#ifdef RLZOO_PYTHON_WITH_AGENTS
  bind_agents(m);
#endif
}
