#include "envs/gridworld/secbad_grid.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/common/error.h"
#include "core/registry/env_registry.h"
#include "envs/contexts/piecewise_context.h"

namespace rlzoo {

namespace {

constexpr int kDr[5] = {0, -1, 0, 1, 0};
constexpr int kDc[5] = {0, 0, 1, 0, -1};

bool in_start_corner(int r, int c) { return r < 2 && c < 2; }

}  // namespace

SecbadGridEnv::SecbadGridEnv()
    : Env(EnvSpec{"SecbadGrid-v0", Space::box(0.0, kSize - 1.0, {2}), Space::discrete(5), 0}) {}

std::vector<double> SecbadGridEnv::sample_context(Rng& rng) const {
  std::int64_t k = static_cast<std::int64_t>(rng.below(kSize * kSize - 4));
  for (int r = 0; r < kSize; ++r)
    for (int c = 0; c < kSize; ++c)
      if (!in_start_corner(r, c) && k-- == 0) return {static_cast<double>(r), static_cast<double>(c)};
  return {kSize - 1.0, kSize - 1.0};
}

void SecbadGridEnv::set_context(std::span<const double> context) {
  if (context.size() != 2) throw UserError(fmt::format("{}: the context is a goal cell (row, col)", id()));
  const int r = static_cast<int>(context[0]), c = static_cast<int>(context[1]);
  if (r < 0 || c < 0 || r >= kSize || c >= kSize || in_start_corner(r, c))
    throw UserError(fmt::format("{}: goal ({}, {}) is not one of the 21 goal cells", id(), context[0], context[1]));
  goal_row_ = r, goal_col_ = c;
}

void SecbadGridEnv::write_obs(Bytes obs) const {
  auto o = as_span<float>(obs);
  o[0] = static_cast<float>(row_);
  o[1] = static_cast<float>(col_);
}

void SecbadGridEnv::do_reset(std::optional<std::uint64_t>, Bytes obs) {
  row_ = col_ = 0;
  write_obs(obs);
}

StepResult SecbadGridEnv::do_step(ConstBytes action, Bytes obs) {
  const auto a = static_cast<int>(as_span<const std::int64_t>(action)[0]);
  row_ = std::clamp(row_ + kDr[a], 0, kSize - 1);
  col_ = std::clamp(col_ + kDc[a], 0, kSize - 1);
  write_obs(obs);
  return {row_ == goal_row_ && col_ == goal_col_ ? 1.0 : -0.1, false, false};
}

void SecbadGridEnv::set_state(std::span<const double> state, Bytes obs) {
  if (state.size() != 2 || state[0] < 0 || state[1] < 0 || state[0] >= kSize || state[1] >= kSize)
    throw UserError(fmt::format("{}: state is [row, col] inside the 5 x 5 grid", id()));
  row_ = static_cast<int>(state[0]), col_ = static_cast<int>(state[1]);
  write_obs(obs);
}

std::string SecbadGridEnv::render_text() const {
  std::string out;
  for (int r = 0; r < kSize; ++r) {
    for (int c = 0; c < kSize; ++c) out.push_back(r == row_ && c == col_ ? 'A' : r == goal_row_ && c == goal_col_ ? 'G' : '.');
    out.push_back('\n');
  }
  return out;
}

nlohmann::json SecbadGridEnv::do_save_state() const {
  return {{"row", row_}, {"col", col_}, {"goal", {goal_row_, goal_col_}}};
}

void SecbadGridEnv::do_load_state(const nlohmann::json& state, Bytes obs) {
  row_ = state.at("row").get<int>();
  col_ = state.at("col").get<int>();
  goal_row_ = state.at("goal")[0].get<int>();
  goal_col_ = state.at("goal")[1].get<int>();
  write_obs(obs);
}

namespace {

struct SecbadGridConfig {
  SegmentConfig segments = [] {
    SegmentConfig s;
    s.mean = 15, s.std = 5, s.min = 3, s.jitter = false;
    return s;
  }();
  static void describe(Fields<SecbadGridConfig>& f) {
    f("segments", &SecbadGridConfig::segments, "how long the goal stays put (envs/contexts/piecewise_context.h)");
  }
};

}  // namespace

void register_secbad_grid() {
  EnvEntry e;
  e.factory = [](const YAML::Node& kwargs, const ConfigContext& ctx) -> std::unique_ptr<Env> {
    const auto cfg = parse_config<SecbadGridConfig>(kwargs, ctx);
    return std::make_unique<PiecewiseContext>(std::make_unique<SecbadGridEnv>(), cfg.segments);
  };
  e.max_episode_steps = 60;
  e.describe_kwargs = [] { return document_config<SecbadGridConfig>(); };
  e.description = "SeCBAD's 5x5 grid: a hidden goal that moves to a new cell every ~15 steps (piecewise-stable context)";
  register_env("SecbadGrid-v0", std::move(e));
}

}  // namespace rlzoo
