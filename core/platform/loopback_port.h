// A free TCP port on 127.0.0.1, for processes that must agree on an address before one of them
// listens (a learner group's rendezvous, `rlzoo launch`'s learners, tests).
#pragma once

namespace rlzoo {

// Bound and released at once: another process may still take it before the caller listens.
// Throws UserError when no loopback port can be bound.
int free_loopback_port();

}  // namespace rlzoo
