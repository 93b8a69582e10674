// CartPole-v1 (Gymnasium 1.4.0, Barto, Sutton & Anderson 1983): a pole hinged on a cart that
// moves along a frictionless track.
//
//   Action       Discrete(2): 0 pushes the cart left with 10 N, 1 pushes it right.
//   Dynamics     explicit Euler, tau = 0.02 s, on the float64 state [x, x_dot, theta, theta_dot]:
//                temp = (F + m_p l theta_dot^2 sin(theta)) / M
//                theta_acc = (g sin(theta) - cos(theta) temp) / (l (4/3 - m_p cos^2(theta) / M))
//                x_acc = temp - m_p l theta_acc cos(theta) / M
//                with g = 9.8, m_cart = 1, m_p = 0.1, M = 1.1, l = 0.5 (half the pole).
//   Observation  the state as float32. Box low/high = -/+[4.8, float32 max, 0.41887903, float32 max].
//   Reward       +1 every step, the terminating step included; with sutton_barto_reward, 0 per
//                step and -1 on the terminating step.
//   Termination  |x| > 2.4 or |theta| > 12 degrees (strict), tested on the new float64 state.
//   Reset        every state variable ~ U(-0.05, 0.05).
// Registered with a 500-step limit and reward threshold 475.
#pragma once

#include <array>

#include "core/config/schema.h"
#include "core/env/env.h"

namespace rlzoo {

// Keyword arguments of CartPole-v1.
struct CartPoleConfig {
  bool sutton_barto_reward = false;  // reward 0 per step and -1 on failure instead of +1 per step

  static void describe(Fields<CartPoleConfig>& f) {
    f("sutton_barto_reward", &CartPoleConfig::sutton_barto_reward,
      "reward 0 per step and -1 on termination, as in Sutton & Barto, instead of +1 per step");
  }
};

class CartPoleEnv final : public Env, public StateAccess {
 public:
  static constexpr const char* kId = "CartPole-v1";

  explicit CartPoleEnv(CartPoleConfig config = {});

  // [x, x_dot, theta, theta_dot]
  std::vector<double> get_state() const override;
  void set_state(std::span<const double> state, Bytes obs) override;
  // A vector env's runs of CartPoles, with do_step inlined.
  void step_run(StepRun& run) override;

 protected:
  void do_reset(std::optional<std::uint64_t> seed, Bytes obs) override;
  StepResult do_step(ConstBytes action, Bytes obs) override;

 private:
  void write_obs(Bytes obs) const;
  // What a step that has just moved state_ returns, with the observation written to obs.
  StepResult result_after_step(bool terminated, Bytes obs) const;
  // Two envs' steps at once, their arithmetic in the two lanes of SSE2 registers (Env::step_run_paired).
  static std::array<StepResult, 2> step_pair(CartPoleEnv& a, CartPoleEnv& b, ConstBytes a_action, ConstBytes b_action,
                                             Bytes a_obs, Bytes b_obs) noexcept;

  // The reward of a step that does not end the episode, and of one that does (from the config,
  // so that a step selects one without testing the config).
  double step_reward_, end_reward_;
  std::array<double, 4> state_{};
};

}  // namespace rlzoo
