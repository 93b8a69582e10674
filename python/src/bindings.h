// The parts of the `_rlzoo` extension module, one per file, and what they share.
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <stdexcept>

#include "core/env/env.h"

namespace rlzoo::python {

namespace py = pybind11;

void bind_env(py::module_& m);         // env.cpp: Env, make_env
void bind_vector_env(py::module_& m);  // vector_env.cpp: VectorEnv, make_vector_env
void bind_doudizhu(py::module_& m);    // doudizhu.cpp: the DouDizhu engine (submodule `doudizhu`)
void bind_agents(py::module_& m);      // agents.cpp: Agent, load_agent, make_agent (LibTorch)

// A copy of the DouDizhu game inside `env` (a DouDizhuEnv), as a Python `doudizhu.Game`, or
// None for any other env. Defined in doudizhu.cpp.
py::object doudizhu_game_of(const Env& env);

// Marks an object busy for the length of a call that releases the GIL, so that a second
// Python thread calling into the same env gets an error instead of a data race.
class InUse {
 public:
  InUse(std::atomic<bool>& flag, const char* what) : flag_(flag) {
    if (flag_.exchange(true)) throw std::runtime_error(std::string(what) + " is in use by another thread");
  }
  ~InUse() { flag_.store(false); }
  InUse(const InUse&) = delete;
  InUse& operator=(const InUse&) = delete;

 private:
  std::atomic<bool>& flag_;
};

}  // namespace rlzoo::python
