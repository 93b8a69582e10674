// The `runtime:` section of a preset: where an algorithm's experience comes from.
//
//   runtime:
//     backend: auto        # inline | threads | processes; auto: threads when actors > 0, else the
//                          # algorithm's own first backend (inline for all but dmc)
//     actors: 2            # 0: the plain synchronous loop (the default where it is fastest)
//     envs_per_actor: 8
//     inference: {max_batch: 0, max_wait_us: 200}   # max_batch > 0: one shared inference server
//     queue_capacity: 4    # trajectories in flight per actor before actors wait (back-pressure)
//     actor_nice: 10       # actor threads yield their core to the learner's thread (threads only)
#pragma once

#include <cstdint>
#include <string>

#include "core/config/schema.h"

namespace rlzoo {

struct InferenceConfig {
  std::int64_t max_batch = 0;
  std::int64_t max_wait_us = 200;
  static void describe(Fields<InferenceConfig>& f) {
    f("max_batch", &InferenceConfig::max_batch,
      "rows per forward pass of the shared inference server (0: each actor runs its own network replica)",
      Bound::at_least(0));
    f("max_wait_us", &InferenceConfig::max_wait_us,
      "microseconds the server waits for more requests after the first (it never waits once every actor has asked)",
      Bound::at_least(0));
  }
};

struct RuntimeConfig {
  std::string backend = "auto";
  int actors = 0;
  int envs_per_actor = 1;
  InferenceConfig inference;
  int queue_capacity = 2;
  int actor_nice = 0;
  static void describe(Fields<RuntimeConfig>& f) {
    f("backend", &RuntimeConfig::backend,
      "where experience comes from: inline (the synchronous loop on the learner's thread), threads (actor threads), "
      "processes (actor processes over gRPC), or auto (threads when actors > 0, else the algorithm's first backend); "
      "each algorithm declares the backends it supports (rlzoo list algos)",
      OneOf{{"auto", "inline", "threads", "processes"}});
    f("actors", &RuntimeConfig::actors,
      "actors: threads on the threads backend, processes on the processes backend (also the trajectories per round); "
      "0 on the inline backend",
      Bound::at_least(0));
    f("envs_per_actor", &RuntimeConfig::envs_per_actor, "envs each actor thread steps", Bound::at_least(1));
    f("inference", &RuntimeConfig::inference, "batched inference across actor threads");
    f("queue_capacity", &RuntimeConfig::queue_capacity,
      "trajectories each actor may have in flight before it waits for the learner", Bound::at_least(1));
    f("actor_nice", &RuntimeConfig::actor_nice,
      "added to the actor threads' nice value (0: the learner's priority): when both want a core the learner's "
      "thread runs first and the actors take the time it leaves; threads backend only",
      Bound::closed(0, 19));
  }
  bool enabled() const { return actors > 0; }
  std::int64_t total_envs() const { return static_cast<std::int64_t>(actors) * envs_per_actor; }
};

}  // namespace rlzoo
