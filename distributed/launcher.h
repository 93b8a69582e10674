// `rlzoo launch`: a local fleet as processes. Starts the learner(s) (`rlzoo learner`, each on
// a free loopback port; with several, a c10d group), then the actors (`rlzoo actor`, spread
// over the learners), restarts an actor that crashed with exponential back-off, forwards
// SIGINT/SIGTERM, stops the actors once the learners are done, and returns the learners'
// exit status. The same binaries and flags run a fleet across hosts (docs/distributed.md has
// Slurm and Kubernetes job files).
#pragma once

#include <string>
#include <vector>

#include "core/platform/loopback_port.h"  // free_loopback_port(), which launch and its tests use

namespace rlzoo {

struct LaunchOptions {
  std::string executable;                 // the rlzoo binary to start (normally this one)
  std::vector<std::string> learner_args;  // --preset, --set, ... passed to every learner
  std::string run_dir;                    // the run (learner r of several: <run_dir>/learner<r>)
  // Continue this run instead (one learner, `rlzoo learner --resume`): learner_args and the
  // runtime.actors override are left out, the run keeps its own preset.
  bool resume = false;
  int actors = 2;
  int learners = 1;
  double max_backoff_s = 30;              // longest wait before restarting a crashed actor
  std::string log_dir;                    // per-process logs ("" : inherit stdout/stderr)
};

// Runs the fleet to the end; returns the exit status for the shell (0 when every learner
// finished; else the first failing learner's status, 128 + signal after SIGINT/SIGTERM).
int run_launch(const LaunchOptions& options);

}  // namespace rlzoo
