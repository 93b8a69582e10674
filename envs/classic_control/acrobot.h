// Acrobot-v1 (Gymnasium 1.4.0, Sutton 1996): two links hanging from a fixed pivot, actuated
// only at the joint between them; the goal is to swing the tip above a line one link length
// above the pivot.
//
//   Action       Discrete(3): torque -1, 0 or +1 on the joint between the links (no noise).
//   Dynamics     the "book" equations of motion (m1 = m2 = 1, l1 = l2 = 1, lc1 = lc2 = 0.5,
//                I1 = I2 = 1, g = 9.8), integrated by one classic RK4 step of dt = 0.2 on the
//                float64 state [theta1, theta2, dtheta1, dtheta2]; then theta1 and theta2 are
//                wrapped into [-pi, pi] by adding or subtracting 2 pi, dtheta1 is clipped to
//                +-4 pi and dtheta2 to +-9 pi.
//   Observation  float32 [cos theta1, sin theta1, cos theta2, sin theta2, dtheta1, dtheta2],
//                Box bounds +-[1, 1, 1, 1, 4 pi, 9 pi].
//   Reward       -1 per step, 0 on the terminating step.
//   Termination  -cos(theta1) - cos(theta2 + theta1) > 1 on the new state.
//   Reset        every state variable ~ U(-0.1, 0.1), rounded to float32 (as Gymnasium stores it).
// Registered with a 500-step limit and reward threshold -100.
#pragma once

#include <array>

#include "core/config/schema.h"
#include "core/env/env.h"

namespace rlzoo {

// Acrobot-v1 takes no keyword arguments; the empty table makes every given key an error.
struct AcrobotConfig {
  static void describe(Fields<AcrobotConfig>&) {}
};

class AcrobotEnv final : public Env, public StateAccess {
 public:
  static constexpr const char* kId = "Acrobot-v1";

  explicit AcrobotEnv(AcrobotConfig config = {});

  // [theta1, theta2, dtheta1, dtheta2]
  std::vector<double> get_state() const override;
  void set_state(std::span<const double> state, Bytes obs) override;

 protected:
  void do_reset(std::optional<std::uint64_t> seed, Bytes obs) override;
  StepResult do_step(ConstBytes action, Bytes obs) override;

 private:
  void write_obs(Bytes obs) const;

  std::array<double, 4> state_{};
};

}  // namespace rlzoo
