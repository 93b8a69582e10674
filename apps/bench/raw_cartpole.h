// The baseline of the env benchmarks and of the hot-path guard: CartPole's dynamics written
// inline with no API around them. The same arithmetic as envs/classic_control/cartpole
// (including Gymnasium's pow-based squares, so both do identical work), a reset on
// termination, actions from a table.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/common/rng.h"
#include "envs/classic_control/numerics.h"

namespace rlzoo::bench {

struct RawCartPole {
  double x = 0, x_dot = 0, theta = 0, theta_dot = 0;
  Rng rng{1};

  void reset() {
    x = rng.uniform(-0.05, 0.05);
    x_dot = rng.uniform(-0.05, 0.05);
    theta = rng.uniform(-0.05, 0.05);
    theta_dot = rng.uniform(-0.05, 0.05);
  }

  // `steps` steps with actions[t & (size - 1)] (size a power of two), t advancing. Returns a
  // checksum so that the compiler cannot drop the work.
  float run(const std::vector<std::int64_t>& actions, std::int64_t steps, std::int64_t& t) {
    constexpr double g = 9.8, mc = 1.0, mp = 0.1, total = mp + mc, l = 0.5, pml = mp * l, fmag = 10.0, tau = 0.02;
    constexpr double theta_limit = 12 * 2 * M_PI / 360, x_limit = 2.4;
    float sum = 0;
    const std::size_t mask = actions.size() - 1;
    for (std::int64_t i = 0; i < steps; ++i) {
      const double force = actions[static_cast<std::size_t>(t++) & mask] == 1 ? fmag : -fmag;
      const double c = std::cos(theta), s = std::sin(theta);
      const double temp = (force + pml * classic_control::py_square(theta_dot) * s) / total;
      const double thetaacc = (g * s - c * temp) / (l * (4.0 / 3.0 - mp * classic_control::py_square(c) / total));
      const double xacc = temp - pml * thetaacc * c / total;
      x += tau * x_dot;
      x_dot += tau * xacc;
      theta += tau * theta_dot;
      theta_dot += tau * thetaacc;
      const float obs[4] = {static_cast<float>(x), static_cast<float>(x_dot), static_cast<float>(theta),
                            static_cast<float>(theta_dot)};
      sum += obs[0];
      if (x < -x_limit || x > x_limit || theta < -theta_limit || theta > theta_limit) reset();
    }
    return sum;
  }
};

// n random CartPole actions (0 or 1) from a fixed seed; n a power of two.
inline std::vector<std::int64_t> random_cartpole_actions(std::size_t n) {
  Rng rng(7);
  std::vector<std::int64_t> a(n);
  for (auto& v : a) v = static_cast<std::int64_t>(rng.below(2));
  return a;
}

}  // namespace rlzoo::bench
