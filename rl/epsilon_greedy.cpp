#include "rl/epsilon_greedy.h"

#include "core/common/error.h"

namespace rlzoo {

std::int64_t uniform_legal_choice(Rng& rng, std::int64_t n, const std::uint8_t* legal) {
  if (!legal) return static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(n)));
  std::int64_t count = 0;
  for (std::int64_t a = 0; a < n; ++a) count += legal[a] ? 1 : 0;
  RLZOO_CHECK(count > 0, "an action mask with no legal action");
  auto k = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(count)));
  for (std::int64_t a = 0; a < n; ++a)
    if (legal[a] && k-- == 0) return a;
  return 0;  // unreachable
}

}  // namespace rlzoo
