// A bounded multi-producer/multi-consumer FIFO with back-pressure: push() blocks while the
// queue is full, pop() blocks while it is empty. close() ends the stream: pushes fail from
// then on, pops drain what is left and then return nothing, and every blocked thread wakes.
// Register close() with a StopSource so that a stop never leaves a thread blocked here.
//
//   BoundedQueue<Trajectory> queue(8);
//   actor:   if (!queue.push(std::move(trajectory))) return;   // closed: stop
//   learner: while (auto t = queue.pop()) consume(*t);
//
// A mutex and two condition variables: the queue moves whole trajectories (hundreds of env
// steps each), so contention is low and the simple protocol is what ThreadSanitizer checks.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>

#include "core/common/error.h"

namespace rlzoo {

template <class T>
class BoundedQueue {
 public:
  explicit BoundedQueue(std::size_t capacity) : capacity_(capacity) {
    if (capacity < 1) throw UserError("queue_capacity must be >= 1");
  }
  BoundedQueue(const BoundedQueue&) = delete;
  BoundedQueue& operator=(const BoundedQueue&) = delete;

  // Blocks while full. Returns false (and drops nothing else) when the queue is closed; the
  // item is then not enqueued.
  bool push(T item) {
    std::unique_lock lock(mutex_);
    not_full_.wait(lock, [&] { return closed_ || items_.size() < capacity_; });
    if (closed_) return false;
    items_.push_back(std::move(item));
    ++pushed_;
    lock.unlock();
    not_empty_.notify_one();
    return true;
  }

  // Never blocks: false when the queue is full or closed (the item is then not enqueued).
  bool try_push(T& item) {
    {
      std::lock_guard lock(mutex_);
      if (closed_ || items_.size() >= capacity_) return false;
      items_.push_back(std::move(item));
      ++pushed_;
    }
    not_empty_.notify_one();
    return true;
  }

  // As push(), but gives up after `timeout`: false when it timed out or the queue is closed
  // (the item is then left in place).
  template <class Rep, class Period>
  bool push_for(T& item, std::chrono::duration<Rep, Period> timeout) {
    {
      std::unique_lock lock(mutex_);
      if (!not_full_.wait_for(lock, timeout, [&] { return closed_ || items_.size() < capacity_; }) || closed_)
        return false;
      items_.push_back(std::move(item));
      ++pushed_;
    }
    not_empty_.notify_one();
    return true;
  }

  // Blocks while empty and open. Nothing once the queue is closed and drained.
  std::optional<T> pop() {
    std::unique_lock lock(mutex_);
    not_empty_.wait(lock, [&] { return closed_ || !items_.empty(); });
    return take(lock);
  }

  // As pop(), but gives up after `timeout` (returns nothing; check closed() to tell apart).
  template <class Rep, class Period>
  std::optional<T> pop_for(std::chrono::duration<Rep, Period> timeout) {
    std::unique_lock lock(mutex_);
    not_empty_.wait_for(lock, timeout, [&] { return closed_ || !items_.empty(); });
    return take(lock);
  }

  // The first item if there is one, without waiting. (pop_for with a zero timeout still enters
  // the kernel, which may give the core away: ~70 us on a busy 2-core machine.)
  std::optional<T> try_pop() {
    std::unique_lock lock(mutex_);
    return take(lock);
  }

  void close() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
    }
    not_full_.notify_all();
    not_empty_.notify_all();
  }

  bool closed() const {
    std::lock_guard lock(mutex_);
    return closed_;
  }
  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return items_.size();
  }
  std::size_t capacity() const { return capacity_; }
  // Items ever pushed / popped (for tests and statistics).
  std::uint64_t pushed() const {
    std::lock_guard lock(mutex_);
    return pushed_;
  }
  std::uint64_t popped() const {
    std::lock_guard lock(mutex_);
    return popped_;
  }

 private:
  std::optional<T> take(std::unique_lock<std::mutex>& lock) {
    if (items_.empty()) return std::nullopt;
    std::optional<T> item(std::move(items_.front()));
    items_.pop_front();
    ++popped_;
    lock.unlock();
    not_full_.notify_one();
    return item;
  }

  const std::size_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable not_full_, not_empty_;
  std::deque<T> items_;
  bool closed_ = false;
  std::uint64_t pushed_ = 0, popped_ = 0;
};

}  // namespace rlzoo
