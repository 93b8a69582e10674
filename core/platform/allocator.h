// Keeps freed memory in the heap instead of handing it back to the kernel at once.
//
// LibTorch allocates every CPU tensor with malloc; glibc serves big blocks with a fresh mmap (or
// trims them off the heap) and returns them to the kernel on free, so a training loop that makes
// the same big temporaries each iteration page-faults on all of them again. Measured on SeCBAD's
// grid world (VAE updates with ~20k-row decoder batches): 4.1k -> 9-11k env steps/s; PPO on
// HalfCheetah-v4: +8%.
//
// glibc reads its thresholds when malloc starts; mallopt() later in main() did not give the
// gain (the training runs on threads whose arenas were set up already), so the CLI sets
// MALLOC_MMAP_THRESHOLD_ (32 MiB) and MALLOC_TRIM_THRESHOLD_ (1 GiB) unless the user set them,
// and re-executes itself once. A no-op outside Linux/glibc or where /proc/self/exe is missing.
#pragma once

namespace rlzoo {

// Call first thing in main(); returns (without re-executing) when already tuned.
void keep_freed_memory_in_heap(char** argv);

}  // namespace rlzoo
