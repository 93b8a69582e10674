#pragma once
#include <string>
namespace rlzoo {
// The LibTorch version rlzoo was built against (recorded in checkpoint manifests).
std::string torch_version();
}  // namespace rlzoo
