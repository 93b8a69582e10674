// Scheduling priority of the calling thread (Linux: each thread has its own nice value).
//
// Actor threads can run at a higher nice value than the learner's thread
// (`runtime.actor_nice`): when both want a core the learner's thread runs first, and the actors
// use whatever time it leaves. Raising a nice value needs no privilege; it cannot be undone by
// an unprivileged thread, which is why only threads that end with their run take it.
#pragma once

namespace rlzoo {

// The calling thread's nice value (-20..19).
int current_thread_nice();
// Adds `increment` (>= 0) to the calling thread's nice value, up to 19. Throws
// std::system_error when the system refuses.
void raise_current_thread_nice(int increment);

}  // namespace rlzoo
