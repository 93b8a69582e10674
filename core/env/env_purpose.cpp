#include "core/env/env_purpose.h"

namespace rlzoo {

namespace {
thread_local EnvPurpose current = EnvPurpose::training;
}

EnvPurpose env_purpose() { return current; }

EnvPurposeScope::EnvPurposeScope(EnvPurpose purpose) : previous_(current) { current = purpose; }

EnvPurposeScope::~EnvPurposeScope() { current = previous_; }

}  // namespace rlzoo
