// Named threads of one run, with error propagation and a shared stop.
//
//   ThreadGroup group;
//   group.spawn("actor-0", [&](const StopSource& stop) { while (!stop.stop_requested()) ...; });
//   ...                                   // the calling thread runs the learner
//   group.check();                        // rethrows a worker's error on this thread
//   group.stop_and_join();                // or let the destructor do it
//
// The first exception thrown by any thread is kept with the thread's name, a stop is requested
// at once (which runs the StopSource's wake-ups: queues close, waiters wake), and the calling
// thread gets it from check()/join() as a ThreadError "thread 'actor-1' failed: ...". Errors
// that other threads throw because of that stop are not reported again. The destructor stops
// and joins, so a run never outlives its owner and never hangs on exit.
#pragma once

#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/runtime/stop.h"

namespace rlzoo {

// A worker thread's failure, rethrown on the thread that owns the group.
class ThreadError : public std::runtime_error {
 public:
  ThreadError(std::string thread, const std::string& what, std::exception_ptr cause);
  const std::string& thread() const { return thread_; }
  // The original exception (rethrow it to recover its type).
  std::exception_ptr cause() const { return cause_; }

 private:
  std::string thread_;
  std::exception_ptr cause_;
};

class ThreadGroup {
 public:
  ThreadGroup() = default;
  ~ThreadGroup();  // stop_and_join(), errors swallowed (call join() to see them)
  ThreadGroup(const ThreadGroup&) = delete;
  ThreadGroup& operator=(const ThreadGroup&) = delete;

  StopSource& stop_source() { return stop_; }
  const StopSource& stop_source() const { return stop_; }

  void spawn(std::string name, std::function<void(const StopSource&)> body);

  // Records an error that happened on the owning thread (the learner), stopping the workers.
  void fail(const std::string& name, std::exception_ptr error);
  // Rethrows the first recorded error as a ThreadError (once), else returns.
  void check();
  // Whether some thread failed (the error may not have been rethrown yet).
  bool failed() const;
  // Blocks until every thread has returned or one failed, at most `timeout`. Returns whether
  // all have returned.
  bool wait_for(std::chrono::milliseconds timeout);
  // Requests a stop and joins every thread; then check().
  void stop_and_join();
  // Joins every thread (without requesting a stop); then check().
  void join();
  std::size_t size() const { return threads_.size(); }

 private:
  void join_all();

  StopSource stop_;
  std::vector<std::thread> threads_;
  mutable std::mutex mutex_;
  std::condition_variable done_;
  std::size_t running_ = 0;
  std::exception_ptr error_;
  std::string error_thread_;
  bool reported_ = false;
};

}  // namespace rlzoo
