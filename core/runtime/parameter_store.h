// Versioned parameters shared between a learner and its actors.
//
// The learner publishes a complete, immutable snapshot; the store swaps it in and bumps the
// version. A reader gets a shared pointer to one snapshot, so it sees the whole old or the
// whole new set of weights and never a mix, and a snapshot stays alive while anyone reads it
// (publishing never writes into memory a reader holds). Version 0 means "nothing published".
//
//   ParameterStore<std::vector<float>> store;
//   learner: store.publish(weights);                       // -> version 1, 2, ...
//   actor:   ParameterClient client(store);
//            if (client.refresh()) copy(*client.snapshot());   // only when the version changed
//
// T is anything copyable/movable: a vector of floats in tests, cloned tensors in the learners
// (core/torch/module_parameters.h), a serialised blob over gRPC later.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>

#include "core/runtime/stop.h"

namespace rlzoo {

template <class T>
class ParameterStore {
 public:
  struct Snapshot {
    std::shared_ptr<const T> value;  // null before the first publish
    std::uint64_t version = 0;
  };

  ParameterStore() = default;
  ParameterStore(const ParameterStore&) = delete;
  ParameterStore& operator=(const ParameterStore&) = delete;

  // Makes `value` the current parameters. Returns the new version.
  std::uint64_t publish(T value) {
    auto snapshot = std::make_shared<const T>(std::move(value));
    std::uint64_t v;
    {
      std::lock_guard lock(mutex_);
      current_ = std::move(snapshot);
      v = version_.load(std::memory_order_relaxed) + 1;
      version_.store(v, std::memory_order_release);
    }
    changed_.notify_all();
    return v;
  }

  // Cheap, lock-free check for "is there something newer than what I hold".
  std::uint64_t version() const { return version_.load(std::memory_order_acquire); }

  Snapshot get() const {
    std::lock_guard lock(mutex_);
    return {current_, version_.load(std::memory_order_relaxed)};
  }

  // Blocks until version() >= min_version or `stop` is requested; returns the snapshot then
  // (check its version: it is older only after a stop). Register wake() with the StopSource.
  Snapshot wait_for(std::uint64_t min_version, const StopSource& stop) const {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return version_.load(std::memory_order_relaxed) >= min_version || stop.stop_requested(); });
    return {current_, version_.load(std::memory_order_relaxed)};
  }

  // As wait_for(), but returns at `deadline` at the latest.
  template <class Clock, class Duration>
  Snapshot wait_until(std::uint64_t min_version, const StopSource& stop,
                      std::chrono::time_point<Clock, Duration> deadline) const {
    std::unique_lock lock(mutex_);
    changed_.wait_until(lock, deadline,
                        [&] { return version_.load(std::memory_order_relaxed) >= min_version || stop.stop_requested(); });
    return {current_, version_.load(std::memory_order_relaxed)};
  }

  // Wakes wait_for() callers so they re-check their stop flag.
  void wake() const {
    { std::lock_guard lock(mutex_); }
    changed_.notify_all();
  }

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::shared_ptr<const T> current_;
  std::atomic<std::uint64_t> version_{0};
};

// An actor's view of a store: holds the snapshot it last took and refreshes only when the
// store's version moved on.
template <class T>
class ParameterClient {
 public:
  explicit ParameterClient(const ParameterStore<T>& store) : store_(&store) {}

  // Takes the newest snapshot when it is newer than the held one. Returns whether it did.
  bool refresh() {
    if (store_->version() == held_.version) return false;
    held_ = store_->get();
    return true;
  }
  // Blocks for a snapshot of at least `min_version` (see ParameterStore::wait_for). Returns
  // whether the held snapshot changed.
  bool wait_for(std::uint64_t min_version, const StopSource& stop) {
    if (held_.version >= min_version) return false;
    const std::uint64_t before = held_.version;
    held_ = store_->wait_for(min_version, stop);
    return held_.version != before;
  }
  const std::shared_ptr<const T>& snapshot() const { return held_.value; }
  std::uint64_t version() const { return held_.version; }

 private:
  const ParameterStore<T>* store_;
  typename ParameterStore<T>::Snapshot held_;
};

}  // namespace rlzoo
