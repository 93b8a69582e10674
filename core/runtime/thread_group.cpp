#include "core/runtime/thread_group.h"

#include <fmt/format.h>

namespace rlzoo {

namespace {
std::string describe(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  } catch (...) {
    return "unknown exception";
  }
}
}  // namespace

ThreadError::ThreadError(std::string thread, const std::string& what, std::exception_ptr cause)
    : std::runtime_error(fmt::format("thread '{}' failed: {}", thread, what)),
      thread_(std::move(thread)),
      cause_(std::move(cause)) {}

ThreadGroup::~ThreadGroup() {
  stop_.request_stop();
  join_all();
}

void ThreadGroup::spawn(std::string name, std::function<void(const StopSource&)> body) {
  {
    std::lock_guard lock(mutex_);
    ++running_;
  }
  threads_.emplace_back([this, name = std::move(name), body = std::move(body)] {
    try {
      body(stop_);
    } catch (...) {
      fail(name, std::current_exception());
    }
    {
      std::lock_guard lock(mutex_);
      --running_;
    }
    done_.notify_all();
  });
}

void ThreadGroup::fail(const std::string& name, std::exception_ptr error) {
  {
    std::lock_guard lock(mutex_);
    // Only the first failure is the cause; later ones are usually consequences of the stop.
    if (!error_) {
      error_ = std::move(error);
      error_thread_ = name;
    }
  }
  done_.notify_all();
  stop_.request_stop();
}

bool ThreadGroup::failed() const {
  std::lock_guard lock(mutex_);
  return static_cast<bool>(error_);
}

void ThreadGroup::check() {
  std::exception_ptr error;
  std::string name;
  {
    std::lock_guard lock(mutex_);
    if (!error_ || reported_) return;
    reported_ = true;
    error = error_;
    name = error_thread_;
  }
  throw ThreadError(name, describe(error), error);
}

bool ThreadGroup::wait_for(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  done_.wait_for(lock, timeout, [&] { return running_ == 0 || error_; });
  return running_ == 0;
}

void ThreadGroup::join_all() {
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

void ThreadGroup::stop_and_join() {
  stop_.request_stop();
  join_all();
  check();
}

void ThreadGroup::join() {
  join_all();
  check();
}

}  // namespace rlzoo
