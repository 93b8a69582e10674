// check_algorithm(): the algorithms' conformance check, the analogue of check_env_conformance
// (core/env/conformance.h). Every registered algorithm runs it in the tests; a new algorithm gets
// all of it by registering. It trains short runs of the algorithm on `env` and checks what the
// training driver and the Agent API promise:
//
//   learn[<backend>]      a short learn() on every declared backend but processes (which needs
//                         actor processes: tests/distributed) reaches the requested steps, and
//                         an actor backend really got its experience from actors;
//   callbacks             on_training_start first and once, on_training_end last and once,
//                         on_step and on_rollout_end counts that never go back, at least one
//                         cycle end;
//   checkpoints           a CheckpointCallback saves at its cadence, and each checkpoint loads
//                         with the step it is named after;
//   save_load_act         save(), load_agent() and the same deterministic actions on a batch of
//                         the env's observations (legal-action masks and candidate moves
//                         passed as the env gives them);
//   deterministic_act     act(deterministic) five times on the same 16 observations agrees;
//   exact_resume          (inline backend, unless the algorithm declares it does not resume
//                         exactly) learn(T), save, load, learn(T) gives the same saved
//                         state, blob for blob (optimiser blobs excepted: LibTorch keys them by
//                         tensor address), as learn(T), learn(T) in one agent;
//   refuses[<what>]       every undeclared backend, a GPU device and the first registered env
//                         whose space kinds it does not declare are refused when the agent is
//                         made, several learners when learn() starts;
//   export                export_policy() gives a policy exactly when the algorithm declares
//                         it exportable.
//
//   auto report = check_algorithm("ppo", {"CartPole-v1", {"hyperparams.n_steps=32"}, 128});
//   EXPECT_TRUE(report.ok()) << report.summary();
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rlzoo {

struct AlgorithmCheckOptions {
  std::string env;                     // an env the algorithm takes
  std::vector<std::string> overrides;  // small settings for short runs ("hyperparams.n_steps=32")
  std::int64_t timesteps = 256;        // per learn() call, in the algorithm's progress unit
  // Extra overrides for the threads backend (runtime.backend=threads and runtime.actors=2 are
  // always added).
  std::vector<std::string> thread_overrides;
  std::string work_dir;                // where saved agents and checkpoints go (must exist)
};

struct AlgorithmCheckReport {
  std::string algorithm;
  std::vector<std::string> passed;    // the checks that held, by name
  std::vector<std::string> skipped;   // "<check>: why"
  std::vector<std::string> failures;  // "<check>: what was wrong"
  bool ok() const { return failures.empty(); }
  // A header naming the algorithm, then a line per check (passed, skipped, failed).
  std::string summary() const;
};

// Exceptions from the algorithm are reported as failures of the check they happened in.
AlgorithmCheckReport check_algorithm(const std::string& id, const AlgorithmCheckOptions& options);

}  // namespace rlzoo
