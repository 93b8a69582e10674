// Grid worlds from text maps, for quick experiments with DQN, PPO and the belief-inference
// methods (SeCBAD's task is one member of this family).
//
//   Map       rows of characters: '#' wall, '.' or ' ' floor, 'S' start (exactly one), 'G' goal
//             (terminal, goal_reward), 'L' lava (terminal, lava_reward), 'C' cliff (back to
//             the start, cliff_reward, not terminal). Outside the map counts as wall.
//   Action    Discrete(4): 0 up, 1 right, 2 down, 3 left. With probability `slip` the action
//             is replaced by a uniformly random one of the four. Moving into a wall stays.
//   Reward    step_reward on every step, plus goal_reward / lava_reward / cliff_reward on
//             entering such a cell (the step reward is included on that step too).
//   Obs       "onehot": float32 [rows x cols], 1 at the agent's cell; "coords": float32 [2],
//             (row, col) scaled to [0, 1].
//   State     [row, col] (StateAccess: `rlzoo env replay` can start anywhere).
// Registered layouts: GridWorld-Empty-v0 (6x6 room, start top-left, goal bottom-right, 100
// steps), GridWorld-FourRooms-v0 (Sutton, Precup & Singh's four rooms, 11x11 inside walls,
// 200 steps), GridWorld-Cliff-v0 (Sutton & Barto's 4x12 cliff walk: -1 per step, -100 and
// back to the start on the cliff, 100 steps). `map:` in env_kwargs replaces the layout.
#pragma once

#include <string>
#include <vector>

#include "core/config/schema.h"
#include "core/env/env.h"

namespace rlzoo {

struct GridWorldConfig {
  std::string layout = "empty";          // empty | four_rooms | cliff (ignored when map is given)
  std::vector<std::string> map;          // rows of the map (see above)
  double slip = 0.0;
  double step_reward = -0.01;
  double goal_reward = 1.0;
  double lava_reward = -1.0;
  double cliff_reward = -100.0;
  std::string observation = "onehot";    // onehot | coords

  static void describe(Fields<GridWorldConfig>& f);
};

class GridWorldEnv final : public Env, public StateAccess, public TextRender {
 public:
  GridWorldEnv(std::string id, GridWorldConfig config);

  int rows() const { return rows_; }
  int cols() const { return cols_; }
  char cell(int r, int c) const;  // '#' outside the map
  int row() const { return row_; }
  int col() const { return col_; }
  // The best return from the start without slipping (shortest path to a goal, by BFS):
  // goal_reward + step_reward x steps. Throws UserError when no goal is reachable.
  double optimal_return() const;
  // The map with the agent drawn as 'A'.
  std::string render_text() const override;

  std::vector<double> get_state() const override;
  void set_state(std::span<const double> state, Bytes obs) override;

  // The built-in layouts' maps.
  static std::vector<std::string> layout_map(const std::string& layout);

 protected:
  void do_reset(std::optional<std::uint64_t> seed, Bytes obs) override;
  StepResult do_step(ConstBytes action, Bytes obs) override;
  nlohmann::json do_save_state() const override;
  void do_load_state(const nlohmann::json& state, Bytes obs) override;

 private:
  void write_obs(Bytes obs) const;

  GridWorldConfig config_;
  std::vector<std::string> map_;
  int rows_ = 0, cols_ = 0, start_row_ = 0, start_col_ = 0, row_ = 0, col_ = 0;
  bool onehot_ = true;
};

void register_gridworld_envs();

}  // namespace rlzoo
