// Cooperative stopping for runtime threads.
//
// A StopSource is shared by every thread of a run. request_stop() sets the flag once and runs
// the registered wake-up callbacks (closing queues, notifying waiters) so that no thread stays
// blocked on a queue or a parameter version after a stop. Threads poll stop_requested()
// between steps: an actor finishes the env step it is in, then returns.
//
// SignalStop turns SIGINT/SIGTERM into a flag (a signal handler may only touch lock-free
// atomics); the thread that drives a run polls signal_stop_requested() and forwards it to its
// StopSource. A second signal while the first is pending ends the process the default way
// (Ctrl-C twice always works). The previous handlers come back when the last SignalStop is
// destroyed.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <vector>

namespace rlzoo {

class StopSource {
 public:
  StopSource() = default;
  StopSource(const StopSource&) = delete;
  StopSource& operator=(const StopSource&) = delete;

  bool stop_requested() const { return stop_.load(std::memory_order_acquire); }
  // Sets the flag and runs every callback once (on the calling thread). Returns false when a
  // stop was already requested.
  bool request_stop();
  // Runs `wake` when a stop is requested (at once if it already was). Callbacks must not block.
  void on_stop(std::function<void()> wake);

 private:
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::vector<std::function<void()>> callbacks_;
};

class SignalStop {
 public:
  SignalStop();   // installs SIGINT/SIGTERM handlers (nested instances share them)
  ~SignalStop();  // restores the previous handlers when the last instance goes
  SignalStop(const SignalStop&) = delete;
  SignalStop& operator=(const SignalStop&) = delete;
};

// True once SIGINT or SIGTERM arrived while a SignalStop was alive (until cleared).
bool signal_stop_requested();
// The signal that arrived (SIGINT or SIGTERM), or 0.
int stop_signal();
void clear_signal_stop();

}  // namespace rlzoo
