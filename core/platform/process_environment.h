// Environment variables that the C and OpenMP runtimes read once at start-up, set by the CLI
// before anything runs (unless the user set them) by re-executing itself once.
//
// * Freed memory stays in the heap. LibTorch allocates every CPU tensor with malloc; glibc
//   serves big blocks with a fresh mmap (or trims them off the heap) and returns them to the
//   kernel on free, so a training loop that makes the same big temporaries each iteration
//   page-faults on all of them again. MALLOC_MMAP_THRESHOLD_ = 32 MiB, MALLOC_TRIM_THRESHOLD_ =
//   1 GiB. Measured on SeCBAD's grid world (VAE updates with ~20k-row decoder batches): 4.1k ->
//   9-11k env steps/s; PPO on HalfCheetah-v4: +8%. (mallopt() in main() did not give the gain:
//   the training runs on threads whose arenas were set up already.)
// * OpenMP threads sleep when idle (OMP_WAIT_POLICY=PASSIVE) instead of spinning. LibTorch's
//   and OpenBLAS's pools spin by default, which on a machine shared with other jobs (actors,
//   a second learner, other runs) burns the cores the work needs. Measured with `rlzoo bench dt`
//   on 2 cores with two other jobs running, 2 threads: behaviour cloning 1.2k -> 6.6k windows/s,
//   DT evaluation 52 -> 293 env steps/s; 1 thread unchanged within noise.
//
// A no-op outside Linux/glibc or where /proc/self/exe is missing.
#pragma once

namespace rlzoo {

// Call first thing in main(); returns (without re-executing) when already done.
void tune_process_environment(char** argv);

}  // namespace rlzoo
