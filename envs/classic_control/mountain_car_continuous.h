// MountainCarContinuous-v0 (Gymnasium 1.4.0): the mountain car with a continuous force and an
// energy penalty.
//
//   Action       Box(-1, 1, (1,), float32): the force. Out-of-range values are accepted and
//                clipped to [-1, 1] for the dynamics (rejected in strict mode).
//   Dynamics     v += force * 0.0015 - 0.0025 cos(3 p); v = clip(v, -0.07, 0.07); p += v;
//                p = clip(p, -1.2, 0.6); if p == -1.2 and v < 0 then v = 0 (left wall).
//                The arithmetic is float64; the state is stored as float32 after every step, as
//                Gymnasium does.
//   Observation  the state as float32, Box low [-1.2, -0.07], high [0.6, 0.07].
//   Reward       100 on reaching the goal, minus 0.1 a^2 with the unclipped action a.
//   Termination  p >= 0.45 and v >= goal_velocity, tested on the float64 values before the
//                float32 store.
//   Reset        p ~ U(-0.6, -0.4), v = 0 (float64).
// Registered with a 999-step limit and reward threshold 90.
#pragma once

#include <array>

#include "core/config/schema.h"
#include "core/env/env.h"

namespace rlzoo {

// Keyword arguments of MountainCarContinuous-v0.
struct MountainCarContinuousConfig {
  double goal_velocity = 0.0;  // the car must reach the flag at least this fast (position units/step)

  static void describe(Fields<MountainCarContinuousConfig>& f) {
    f("goal_velocity", &MountainCarContinuousConfig::goal_velocity,
      "minimum velocity at the flag for the episode to terminate (position units per step)");
  }
};

class MountainCarContinuousEnv final : public Env, public StateAccess {
 public:
  static constexpr const char* kId = "MountainCarContinuous-v0";

  explicit MountainCarContinuousEnv(MountainCarContinuousConfig config = {});

  // [position, velocity]. After a step both are float32 values.
  std::vector<double> get_state() const override;
  void set_state(std::span<const double> state, Bytes obs) override;

 protected:
  void do_reset(std::optional<std::uint64_t> seed, Bytes obs) override;
  StepResult do_step(ConstBytes action, Bytes obs) override;

 private:
  void write_obs(Bytes obs) const;

  MountainCarContinuousConfig config_;
  std::array<double, 2> state_{};
};

}  // namespace rlzoo
