// Pendulum-v1 (Gymnasium 1.4.0): swing a frictionless pendulum up and hold it upright.
//
//   Action       Box(-2, 2, (1,), float32): the torque. Out-of-range values are accepted and
//                clipped to [-2, 2] (rejected in strict mode); the clipped torque u stays a
//                float32 value, the arithmetic around it is float64.
//   Dynamics     on the float64 state [theta, theta_dot] (theta = 0 is upright, never wrapped),
//                with m = l = 1, dt = 0.05 and gravity g:
//                theta_dot' = clip(theta_dot + (3 g / (2 l) sin(theta) + 3 / (m l^2) u) dt, -8, 8)
//                theta' = theta + theta_dot' dt
//   Observation  float32 [cos theta, sin theta, theta_dot], Box bounds +-[1, 1, 8].
//   Reward       -(normalize(theta)^2 + 0.1 theta_dot^2 + 0.001 u^2) on the state before the
//                step, where normalize(x) = ((x + pi) mod 2 pi) - pi with a floored modulo.
//   Termination  never; the episode only ends by the time limit.
//   Reset        theta ~ U(-pi, pi), theta_dot ~ U(-1, 1).
// Registered with a 200-step limit and no reward threshold.
#pragma once

#include <array>

#include "core/config/schema.h"
#include "core/env/env.h"

namespace rlzoo {

// Keyword arguments of Pendulum-v1.
struct PendulumConfig {
  double g = 10.0;  // gravitational acceleration (m/s^2)

  static void describe(Fields<PendulumConfig>& f) {
    f("g", &PendulumConfig::g, "gravitational acceleration (m/s^2)", Bound::positive());
  }
};

class PendulumEnv final : public Env, public StateAccess {
 public:
  static constexpr const char* kId = "Pendulum-v1";

  explicit PendulumEnv(PendulumConfig config = {});

  // [theta, theta_dot], theta not wrapped.
  std::vector<double> get_state() const override;
  void set_state(std::span<const double> state, Bytes obs) override;

 protected:
  void do_reset(std::optional<std::uint64_t> seed, Bytes obs) override;
  StepResult do_step(ConstBytes action, Bytes obs) override;

 private:
  void write_obs(Bytes obs) const;

  PendulumConfig config_;
  std::array<double, 2> state_{};
};

}  // namespace rlzoo
