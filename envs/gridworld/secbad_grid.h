// SecbadGrid-v0: SeCBAD's toy grid world with a piecewise-stable goal (the goal-as-context
// variant (a) of the released code, GridNaviNonStationary, whose per-cell Bernoulli reward
// decoder fits a goal context; variant (b), wind on a fixed goal, is not implemented).
//
//   Grid      5 x 5, start (0, 0); the agent is never told where the goal is.
//   Actions   Discrete(5): 0 stay, 1 up, 2 right, 3 down, 4 left (moves off the grid stay).
//   Reward    +1 when the agent is on the goal after its move, -0.1 otherwise; the episode never
//             terminates (the goal does not end it), it is cut at 60 steps.
//   Obs       float32 [2]: (row, col) as numbers 0..4.
//   Context   the goal cell, uniform over the 21 cells outside the 2 x 2 start corner.
//   Segments  the registered env wraps it in PiecewiseContext with floor(max(N(15, 5), 3))-step
//             segments (several per 60-step episode; the code changed the goal with probability
//             0.1 per step over 15-step episodes); env_kwargs `segments:` changes that.
#pragma once

#include "core/env/contextual.h"
#include "core/env/env.h"

namespace rlzoo {

class SecbadGridEnv final : public Env, public ContextualEnv, public StateAccess, public TextRender {
 public:
  static constexpr int kSize = 5;
  SecbadGridEnv();

  std::vector<double> sample_context(Rng& rng) const override;
  void set_context(std::span<const double> context) override;
  std::vector<double> context() const override { return {static_cast<double>(goal_row_), static_cast<double>(goal_col_)}; }

  std::vector<double> get_state() const override { return {static_cast<double>(row_), static_cast<double>(col_)}; }
  void set_state(std::span<const double> state, Bytes obs) override;
  std::string render_text() const override;

 protected:
  void do_reset(std::optional<std::uint64_t> seed, Bytes obs) override;
  StepResult do_step(ConstBytes action, Bytes obs) override;
  nlohmann::json do_save_state() const override;
  void do_load_state(const nlohmann::json& state, Bytes obs) override;

 private:
  void write_obs(Bytes obs) const;
  int row_ = 0, col_ = 0, goal_row_ = kSize - 1, goal_col_ = kSize - 1;
};

void register_secbad_grid();

}  // namespace rlzoo
