#include "core/runtime/stop.h"

#include <csignal>

namespace rlzoo {

bool StopSource::request_stop() {
  std::vector<std::function<void()>> callbacks;
  {
    std::lock_guard lock(mutex_);
    if (stop_.exchange(true, std::memory_order_acq_rel)) return false;
    callbacks.swap(callbacks_);
  }
  for (auto& wake : callbacks) wake();
  return true;
}

void StopSource::on_stop(std::function<void()> wake) {
  {
    std::lock_guard lock(mutex_);
    if (!stop_.load(std::memory_order_acquire)) {
      callbacks_.push_back(std::move(wake));
      return;
    }
  }
  wake();
}

namespace {
// Lock-free atomics only: they are touched from the signal handler.
std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

std::mutex g_install_mutex;
int g_installed = 0;
struct sigaction g_old_int, g_old_term;

// The first signal asks for a clean stop; a second one (the user insists) ends the process the
// default way. signal() and raise() are async-signal-safe.
extern "C" void on_stop_signal(int sig) {
  if (g_signal.exchange(sig, std::memory_order_relaxed) != 0) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
  }
}
}  // namespace

SignalStop::SignalStop() {
  std::lock_guard lock(g_install_mutex);
  if (g_installed++ > 0) return;
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, &g_old_int);
  sigaction(SIGTERM, &action, &g_old_term);
}

SignalStop::~SignalStop() {
  std::lock_guard lock(g_install_mutex);
  if (--g_installed > 0) return;
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
}

bool signal_stop_requested() { return g_signal.load(std::memory_order_relaxed) != 0; }
int stop_signal() { return g_signal.load(std::memory_order_relaxed); }
void clear_signal_stop() { g_signal.store(0, std::memory_order_relaxed); }

}  // namespace rlzoo
