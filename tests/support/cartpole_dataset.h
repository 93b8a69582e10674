// A small offline dataset for the DT/BC tests: CartPole episodes from two scripted policies, a
// balancing one (long, high return) and one that always pushes left (short, low return).
#pragma once

#include <string>
#include <vector>

#include "datasets/dataset_writer.h"
#include "core/registry/env_registry.h"
#include "envs/builtin.h"
#include "tests/support/test_paths.h"

namespace rlzoo::test {

// Eight episodes (even: balancing, at most 200 steps; odd: always left), written as an rlzoo
// dataset in a fresh temporary folder; returns the dataset's folder.
inline std::string write_cartpole_dataset() {
  register_builtin_envs();
  const auto dir = test::make_temp_dir("dt_cartpole") + "/data";
  auto env = make_env("CartPole-v1");
  data::DatasetWriter out(dir, "CartPole-v1", env->observation_space(), env->action_space(), {{"made_by", "dt_test"}});
  std::vector<std::byte> obs(env->observation_space().byte_size());
  for (int ep = 0; ep < 8; ++ep) {
    const bool good = ep % 2 == 0;
    data::EpisodeData e;
    env->reset(100 + ep, obs);
    for (;;) {
      const auto* o = reinterpret_cast<const float*>(obs.data());
      const std::int64_t a = good ? (o[2] + 0.5f * o[3] > 0 ? 1 : 0) : 0;
      e.observations.insert(e.observations.end(), obs.begin(), obs.end());
      const auto* ab = reinterpret_cast<const std::byte*>(&a);
      e.actions.insert(e.actions.end(), ab, ab + sizeof a);
      const auto r = env->step(a, obs);
      e.rewards.push_back(static_cast<float>(r.reward));
      if (r.done() || e.length() >= 200) {
        e.terminated = r.terminated;
        e.truncated = !r.terminated;
        break;
      }
    }
    out.add(e);
  }
  out.close();
  return dir;
}

}  // namespace rlzoo::test
