// A small fixed pool that runs one job on every thread of the pool at once and waits for all
// (fork/join), for stepping slices of a vector env. The caller's thread is worker 0, so a pool
// of 1 thread runs the job inline. Workers spin briefly between jobs (env steps come back to
// back) and then sleep on an atomic wait, so an idle pool costs nothing.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <thread>
#include <vector>

namespace rlzoo {

class WorkerPool {
 public:
  explicit WorkerPool(int num_threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int num_threads() const { return num_threads_; }
  // Calls job(k) for every k in [0, num_threads) concurrently (k = 0 on the calling thread)
  // and returns when all have finished. If any job threw, rethrows the exception of the
  // lowest-numbered worker that threw (after all have finished).
  void run(const std::function<void(int)>& job);

 private:
  void worker_loop(int index);

  int num_threads_;
  std::vector<std::thread> workers_;
  std::vector<std::exception_ptr> errors_;
  const std::function<void(int)>* job_ = nullptr;
  std::atomic<std::uint64_t> epoch_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stop_{false};
};

}  // namespace rlzoo
