// The built-in envs and algorithms registered, for tests that make agents by id.
#pragma once

#include "algorithms/builtin.h"
#include "envs/builtin.h"

namespace rlzoo::test {

inline void register_builtins() {
  register_builtin_envs();
  register_builtin_algorithms();
}

}  // namespace rlzoo::test
