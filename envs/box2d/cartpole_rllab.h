// CartPoleRllab-v0: rllab's Box2D cart-pole (rllab/envs/box2d/cartpole_env.py with its model
// models/cartpole.xml.mako) seen through rllab's normalize() with its defaults: the task of the
// STORM-PG, SVRPG and SRVR-PG experiments. Simulated by Box2D (Debian's 2.4.1; rllab ran
// pybox2d 2.3), with the model's bodies, joints and solver settings:
//
//   World        gravity (0, -10), time step 0.05 s, 8 velocity and 3 position iterations,
//                warm starting on, sleeping allowed (as in rllab, whose allow_sleeping=False
//                pybox2d ignores; bodies sleep only after 0.5 s almost still, and the force
//                applied at every step wakes them).
//   Bodies       cart: a 4/sqrt(12) x 3/sqrt(12) box at density 1 (mass 1.0), friction 0.0005;
//                pole: a 0.1 x 1.0 box at density 1 (mass 0.1) hanging up from its pivot,
//                friction 2e-6; a static track. A revolute joint at the cart's top centre holds
//                the pole; a prismatic joint along x holds the cart. Jointed bodies never
//                collide and the pole ignores the track, so nothing touches: friction plays no
//                part.
//   Action       Box(-1, 1, (1,), float32), scaled to a force of 10 a N along x at the cart's
//                origin (normalize's affine map onto the control limit [-10, 10]) and clipped to
//                [-10, 10]; out-of-range actions are clipped (rejected in strict mode).
//   Observation  (x, x_dot, theta, theta_dot) of the cart and the pole, raw, float32 as Box2D
//                holds them; theta is the pole's angle from upright, counter-clockwise positive.
//   Reward       after the step: 10 - (1 - cos theta) - 1e-5 F^2 while alive, 0 on the
//                terminal step (F the clipped force in N).
//   Termination  |x| > 2.4 or |theta| > 0.2 rad.
//   Reset        x, x_dot, theta, theta_dot uniform within +-5% of (2.4, 4, 0.2, 4). As rllab's
//                reset does, the cart is moved and given its speed while the pole is only turned
//                about its pivot and spun, its pivot left at x = 0 and its centre at rest: the
//                joint pulls the two together within the first step.
// Registered with a 100-step limit (the experiments' T; returns up to about 1000).
//
// Each reset builds a fresh Box2D world (rllab kept one world, so joint impulses warm-started
// the first step of an episode from the last step of the one before): episodes are independent,
// and the state of an episode is its start and its actions. save_state stores those and
// load_state replays them, which restores Box2D's warm-start impulses exactly.
#pragma once

#include <array>
#include <memory>
#include <vector>

#include "core/env/env.h"

class b2World;
class b2Body;

namespace rlzoo {

class CartPoleRllabEnv final : public Env {
 public:
  static constexpr const char* kId = "CartPoleRllab-v0";

  CartPoleRllabEnv();
  ~CartPoleRllabEnv() override;

  // How start_from places the pole: as rllab's reset does (its pivot left at x = 0 and at rest),
  // or on the cart, moving with it (a consistent state, for starts away from the centre).
  enum class Pivot { rllab_reset, on_cart };
  // Starts an episode from the given (x, x_dot, theta, theta_dot) and writes its observation
  // (tests and tools; reset() draws the start and places the pole as rllab does).
  void start_from(const std::array<double, 4>& start, Bytes obs, Pivot pivot = Pivot::rllab_reset);

 protected:
  void do_reset(std::optional<std::uint64_t> seed, Bytes obs) override;
  StepResult do_step(ConstBytes action, Bytes obs) override;
  nlohmann::json do_save_state() const override;
  void do_load_state(const nlohmann::json& state, Bytes obs) override;

 private:
  void build_world(const std::array<double, 4>& start, Pivot pivot);
  // One Box2D step under the force given by the action; returns the clipped force in N.
  double advance(float action);
  void write_obs(Bytes obs) const;

  std::unique_ptr<b2World> world_;
  b2Body* cart_ = nullptr;
  b2Body* pole_ = nullptr;
  std::array<double, 4> start_{};
  Pivot pivot_ = Pivot::rllab_reset;
  std::vector<float> actions_;  // since the start: what save_state stores
};

}  // namespace rlzoo
