// rlzoo's public API in one include, for programs built against an installed rlzoo:
//
//   find_package(rlzoo REQUIRED)                          # CMakeLists.txt
//   target_link_libraries(my_app PRIVATE rlzoo::rlzoo)
//
//   #include <rlzoo/rlzoo.h>
//   rlzoo::register_builtins();                            // once, before make_env/make_agent
//   auto agent = rlzoo::Agent::from_preset("my.yaml");
//   agent->learn(agent->preset_timesteps());
//
// Any header of the library can also be included by its path in the source tree
// ("core/env/env.h", "rl/agent.h", ...). Guides: docs/getting-started.md,
// docs/custom-env.md, docs/custom-algorithm.md.
#pragma once

#include "core/env/env.h"
#include "core/registry/check_env.h"
#include "core/registry/env_registry.h"
#include "core/spaces/space.h"
#include "envs/builtin.h"
#if __has_include("rl/agent.h")  // installs built with LibTorch
#include "rl/agent.h"
#include "rl/algorithm_conformance.h"
#include "rl/algorithm_registry.h"
#include "rl/training_run.h"
#include "algorithms/builtin.h"
#define RLZOO_HAS_AGENTS 1
#endif

namespace rlzoo {

// Registers the built-in envs and (with LibTorch) the algorithms and dataset wrappers.
// Idempotent; explicit, so that static linking keeps them.
inline void register_builtins() {
  register_builtin_envs();
#ifdef RLZOO_HAS_AGENTS
  register_builtin_algorithms();
#endif
}

}  // namespace rlzoo
