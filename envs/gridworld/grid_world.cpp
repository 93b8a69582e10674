#include "envs/gridworld/grid_world.h"

#include <algorithm>
#include <deque>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/common/error.h"
#include "core/registry/env_registry.h"

namespace rlzoo {

void GridWorldConfig::describe(Fields<GridWorldConfig>& f) {
  f("layout", &GridWorldConfig::layout, "built-in map when `map` is not given",
    OneOf{{"empty", "four_rooms", "cliff"}});
  f("map", &GridWorldConfig::map,
    "rows of the map: # wall, . floor, S start (one), G goal, L lava, C cliff (replaces the layout)");
  f("slip", &GridWorldConfig::slip, "probability that an action is replaced by a random one", Bound::unit());
  f("step_reward", &GridWorldConfig::step_reward, "reward of every step");
  f("goal_reward", &GridWorldConfig::goal_reward, "reward on reaching a goal (the episode ends)");
  f("lava_reward", &GridWorldConfig::lava_reward, "reward on entering lava (the episode ends)");
  f("cliff_reward", &GridWorldConfig::cliff_reward, "reward on stepping onto the cliff (back to the start)");
  f("observation", &GridWorldConfig::observation, "onehot (a cell indicator) or coords (row, col in [0, 1])",
    OneOf{{"onehot", "coords"}});
}

std::vector<std::string> GridWorldEnv::layout_map(const std::string& layout) {
  if (layout == "empty") return {"S.....", "......", "......", "......", "......", ".....G"};
  if (layout == "four_rooms")
    return {"S....#.....", ".....#.....", "...........", ".....#.....", ".....#.....", "#.####.....",
            ".....###.##", ".....#.....", ".....#.....", "...........", ".....#....G"};
  if (layout == "cliff") return {"............", "............", "............", "SCCCCCCCCCCG"};
  throw UserError(fmt::format("unknown grid layout '{}' (valid: empty, four_rooms, cliff)", layout));
}

namespace {

EnvSpec make_spec(const std::string& id, int rows, int cols, bool onehot) {
  EnvSpec s;
  s.id = id;
  s.observation_space = onehot ? Space::box(0.0, 1.0, {rows * cols}) : Space::box(0.0, 1.0, {2});
  s.action_space = Space::discrete(4);
  return s;
}

std::vector<std::string> checked_map(const GridWorldConfig& c) {
  auto map = c.map.empty() ? GridWorldEnv::layout_map(c.layout) : c.map;
  if (map.empty()) throw UserError("grid map: no rows");
  int starts = 0;
  for (std::size_t r = 0; r < map.size(); ++r) {
    if (map[r].size() != map[0].size())
      throw UserError(fmt::format("grid map: row {} has {} cells, row 0 has {} (rows must be equally long)", r,
                                  map[r].size(), map[0].size()));
    for (std::size_t k = 0; k < map[r].size(); ++k) {
      char& ch = map[r][k];
      if (ch == ' ') ch = '.';
      if (std::string_view("#.SGLC").find(ch) == std::string_view::npos)
        throw UserError(fmt::format("grid map: '{}' at row {}, column {} is not a cell (# . S G L C)", ch, r, k));
      starts += ch == 'S';
    }
  }
  if (starts != 1) throw UserError(fmt::format("grid map: {} start cells 'S', expected exactly one", starts));
  return map;
}

constexpr int kDr[4] = {-1, 0, 1, 0};
constexpr int kDc[4] = {0, 1, 0, -1};

}  // namespace

namespace {

EnvSpec spec_for(const std::string& id, const GridWorldConfig& c) {
  const auto map = checked_map(c);
  return make_spec(id, static_cast<int>(map.size()), static_cast<int>(map[0].size()), c.observation == "onehot");
}

}  // namespace

GridWorldEnv::GridWorldEnv(std::string id, GridWorldConfig config)
    : Env(spec_for(id, config)), config_(std::move(config)), map_(checked_map(config_)) {
  rows_ = static_cast<int>(map_.size());
  cols_ = static_cast<int>(map_[0].size());
  onehot_ = config_.observation == "onehot";
  for (int r = 0; r < rows_; ++r)
    for (int c = 0; c < cols_; ++c)
      if (map_[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)] == 'S') start_row_ = r, start_col_ = c;
}

char GridWorldEnv::cell(int r, int c) const {
  if (r < 0 || c < 0 || r >= rows_ || c >= cols_) return '#';
  return map_[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)];
}

void GridWorldEnv::write_obs(Bytes obs) const {
  auto o = as_span<float>(obs);
  if (onehot_) {
    std::fill(o.begin(), o.end(), 0.0f);
    o[static_cast<std::size_t>(row_ * cols_ + col_)] = 1.0f;
  } else {
    o[0] = rows_ > 1 ? static_cast<float>(row_) / static_cast<float>(rows_ - 1) : 0.0f;
    o[1] = cols_ > 1 ? static_cast<float>(col_) / static_cast<float>(cols_ - 1) : 0.0f;
  }
}

void GridWorldEnv::do_reset(std::optional<std::uint64_t>, Bytes obs) {
  row_ = start_row_, col_ = start_col_;
  write_obs(obs);
}

StepResult GridWorldEnv::do_step(ConstBytes action, Bytes obs) {
  auto a = static_cast<int>(as_span<const std::int64_t>(action)[0]);
  if (config_.slip > 0 && rng().uniform() < config_.slip) a = static_cast<int>(rng().below(4));
  const int r = row_ + kDr[a], c = col_ + kDc[a];
  if (cell(r, c) != '#') row_ = r, col_ = c;
  StepResult out{config_.step_reward, false, false};
  switch (cell(row_, col_)) {
    case 'G': out.reward += config_.goal_reward, out.terminated = true; break;
    case 'L': out.reward += config_.lava_reward, out.terminated = true; break;
    case 'C':
      out.reward += config_.cliff_reward;
      row_ = start_row_, col_ = start_col_;
      break;
    default: break;
  }
  write_obs(obs);
  return out;
}

double GridWorldEnv::optimal_return() const {
  std::vector<int> dist(static_cast<std::size_t>(rows_ * cols_), -1);
  std::deque<std::pair<int, int>> q{{start_row_, start_col_}};
  dist[static_cast<std::size_t>(start_row_ * cols_ + start_col_)] = 0;
  while (!q.empty()) {
    const auto [r, c] = q.front();
    q.pop_front();
    const int d = dist[static_cast<std::size_t>(r * cols_ + c)];
    if (cell(r, c) == 'G') return config_.goal_reward + config_.step_reward * d;
    if (cell(r, c) == 'L' || cell(r, c) == 'C') continue;
    for (int a = 0; a < 4; ++a) {
      const int nr = r + kDr[a], nc = c + kDc[a];
      if (cell(nr, nc) == '#' || dist[static_cast<std::size_t>(nr * cols_ + nc)] >= 0) continue;
      dist[static_cast<std::size_t>(nr * cols_ + nc)] = d + 1;
      q.emplace_back(nr, nc);
    }
  }
  throw UserError(fmt::format("{}: no goal is reachable from the start", id()));
}

std::string GridWorldEnv::render_text() const {
  std::string out;
  for (int r = 0; r < rows_; ++r) {
    for (int c = 0; c < cols_; ++c) out.push_back(r == row_ && c == col_ ? 'A' : cell(r, c));
    out.push_back('\n');
  }
  return out;
}

std::vector<double> GridWorldEnv::get_state() const { return {static_cast<double>(row_), static_cast<double>(col_)}; }

void GridWorldEnv::set_state(std::span<const double> state, Bytes obs) {
  if (state.size() != 2) throw UserError(fmt::format("{}: state is [row, col], got {} values", id(), state.size()));
  const int r = static_cast<int>(state[0]), c = static_cast<int>(state[1]);
  if (r != state[0] || c != state[1] || cell(r, c) == '#')
    throw UserError(fmt::format("{}: ({}, {}) is not a free cell of the map", id(), state[0], state[1]));
  row_ = r, col_ = c;
  write_obs(obs);
}

nlohmann::json GridWorldEnv::do_save_state() const { return {{"row", row_}, {"col", col_}}; }

void GridWorldEnv::do_load_state(const nlohmann::json& state, Bytes obs) {
  row_ = state.at("row").get<int>();
  col_ = state.at("col").get<int>();
  write_obs(obs);
}

void register_gridworld_envs() {
  struct Layout {
    const char* id;
    const char* layout;
    std::int64_t steps;
    double step_reward;
    double goal_reward;
    const char* description;
  };
  for (const Layout& l : {Layout{"GridWorld-Empty-v0", "empty", 100, -0.01, 1.0, "A 6x6 empty room: walk from one corner to the other"},
                          Layout{"GridWorld-FourRooms-v0", "four_rooms", 200, -0.01, 1.0,
                                 "Sutton, Precup & Singh's four rooms (11x11): reach the far corner"},
                          Layout{"GridWorld-Cliff-v0", "cliff", 100, -1.0, 0.0,
                                 "Sutton & Barto's cliff walk (4x12): -1 per step, -100 and back to start on the cliff"}}) {
    EnvEntry e;
    const std::string id = l.id, layout = l.layout;
    const double step = l.step_reward, goal = l.goal_reward;
    e.factory = [id, layout, step, goal](const YAML::Node& kwargs, const ConfigContext& ctx) -> std::unique_ptr<Env> {
      YAML::Node k = kwargs.IsMap() ? YAML::Clone(kwargs) : YAML::Node(YAML::NodeType::Map);
      if (!k["layout"]) k["layout"] = layout;
      if (!k["step_reward"]) k["step_reward"] = step;
      if (!k["goal_reward"]) k["goal_reward"] = goal;
      return std::make_unique<GridWorldEnv>(id, parse_config<GridWorldConfig>(k, ctx));
    };
    e.max_episode_steps = l.steps;
    e.describe_kwargs = [layout, step, goal] {
      GridWorldConfig defaults;  // this id's defaults
      defaults.layout = layout;
      defaults.step_reward = step;
      defaults.goal_reward = goal;
      return document_config(defaults);
    };
    e.description = l.description;
    e.deterministic = true;  // fixed start, deterministic moves: the seed changes nothing
    register_env(id, std::move(e));
  }
}

}  // namespace rlzoo
