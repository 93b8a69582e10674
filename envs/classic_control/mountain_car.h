// MountainCar-v0 (Gymnasium 1.4.0, Moore 1990): an underpowered car in a valley must rock back
// and forth to reach the flag on the right hill.
//
//   Action       Discrete(3): 0 accelerates left, 1 does nothing, 2 accelerates right.
//   Dynamics     on the float64 state [position, velocity]:
//                v += (action - 1) * 0.001 + cos(3 p) * (-0.0025); v = clip(v, -0.07, 0.07)
//                p += v; p = clip(p, -1.2, 0.6); if p == -1.2 and v < 0 then v = 0 (left wall)
//   Observation  the state as float32, Box low [-1.2, -0.07], high [0.6, 0.07].
//   Reward       -1 every step, the terminating step included.
//   Termination  p >= 0.5 and v >= goal_velocity.
//   Reset        p ~ U(-0.6, -0.4), v = 0.
// Registered with a 200-step limit and reward threshold -110.
#pragma once

#include <array>

#include "core/config/schema.h"
#include "core/env/env.h"

namespace rlzoo {

// Keyword arguments of MountainCar-v0.
struct MountainCarConfig {
  double goal_velocity = 0.0;  // the car must reach the flag at least this fast (position units/step)

  static void describe(Fields<MountainCarConfig>& f) {
    f("goal_velocity", &MountainCarConfig::goal_velocity,
      "minimum velocity at the flag for the episode to terminate (position units per step)");
  }
};

class MountainCarEnv final : public Env, public StateAccess {
 public:
  static constexpr const char* kId = "MountainCar-v0";

  explicit MountainCarEnv(MountainCarConfig config = {});

  // [position, velocity]
  std::vector<double> get_state() const override;
  void set_state(std::span<const double> state, Bytes obs) override;

 protected:
  void do_reset(std::optional<std::uint64_t> seed, Bytes obs) override;
  StepResult do_step(ConstBytes action, Bytes obs) override;

 private:
  void write_obs(Bytes obs) const;

  MountainCarConfig config_;
  std::array<double, 2> state_{};
};

}  // namespace rlzoo
