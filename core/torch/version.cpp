#include "core/torch/version.h"

#include <torch/version.h>

namespace rlzoo {
std::string torch_version() { return TORCH_VERSION; }
}  // namespace rlzoo
