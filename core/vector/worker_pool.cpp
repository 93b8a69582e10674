#include "core/vector/worker_pool.h"

#include "core/common/error.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define RLZOO_CPU_RELAX() _mm_pause()
#else
#define RLZOO_CPU_RELAX() std::this_thread::yield()
#endif

namespace rlzoo {

namespace {
// About 100 us of spinning before sleeping: long enough to bridge consecutive env steps.
constexpr int kSpinIterations = 4000;

template <class T, class Pred>
void spin_then_wait(std::atomic<T>& a, Pred done) {
  for (int i = 0; i < kSpinIterations; ++i) {
    if (done(a.load(std::memory_order_acquire))) return;
    RLZOO_CPU_RELAX();
  }
  while (true) {
    const T v = a.load(std::memory_order_acquire);
    if (done(v)) return;
    a.wait(v, std::memory_order_acquire);
  }
}
}  // namespace

WorkerPool::WorkerPool(int num_threads) : num_threads_(num_threads) {
  if (num_threads < 1) throw UserError("a worker pool needs at least 1 thread, got " + std::to_string(num_threads));
  errors_.resize(static_cast<std::size_t>(num_threads));
  for (int k = 1; k < num_threads; ++k) workers_.emplace_back([this, k] { worker_loop(k); });
}

WorkerPool::~WorkerPool() {
  stop_.store(true, std::memory_order_release);
  epoch_.fetch_add(1, std::memory_order_acq_rel);
  epoch_.notify_all();
  for (auto& t : workers_) t.join();
}

void WorkerPool::worker_loop(int index) {
  std::uint64_t seen = 0;
  while (true) {
    spin_then_wait(epoch_, [seen](std::uint64_t e) { return e != seen; });
    seen = epoch_.load(std::memory_order_acquire);
    if (stop_.load(std::memory_order_acquire)) return;
    try {
      (*job_)(index);
    } catch (...) {
      errors_[static_cast<std::size_t>(index)] = std::current_exception();
    }
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) pending_.notify_one();
  }
}

void WorkerPool::run(const std::function<void(int)>& job) {
  if (num_threads_ == 1) {
    job(0);
    return;
  }
  job_ = &job;
  for (auto& e : errors_) e = nullptr;
  pending_.store(num_threads_ - 1, std::memory_order_release);
  epoch_.fetch_add(1, std::memory_order_acq_rel);
  epoch_.notify_all();
  try {
    job(0);
  } catch (...) {
    errors_[0] = std::current_exception();
  }
  spin_then_wait(pending_, [](int p) { return p == 0; });
  for (auto& e : errors_)
    if (e) std::rethrow_exception(e);
}

}  // namespace rlzoo
