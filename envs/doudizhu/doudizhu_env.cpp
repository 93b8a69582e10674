#include "envs/doudizhu/doudizhu_env.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/common/error.h"

#include "core/registry/env_registry.h"
#include "envs/doudizhu/encoding.h"

namespace rlzoo::doudizhu {

void DouDizhuConfig::describe(Fields<DouDizhuConfig>& f) {
  f("objective", &DouDizhuConfig::objective,
    "training return: adp (+-2^bombs), wp (+-1) or logadp (+-(bombs+1)), from the landlord's view");
  f.check("objective", [](const DouDizhuConfig& c) -> std::optional<std::string> {
    if (c.objective == "adp" || c.objective == "wp" || c.objective == "logadp") return std::nullopt;
    return "objective must be adp, wp or logadp, got '" + c.objective + "'";
  });
}

namespace {

EnvSpec make_spec() {
  EnvSpec s;
  s.id = DouDizhuEnv::kId;
  s.observation_space = Space::box(0.0, 1.0, {DouDizhuEnv::kObservationSize}, DType::UInt8);
  s.action_space = Space::discrete(DouDizhuEnv::kMaxMoves);
  s.num_agents = kNumSeats;
  s.candidate_feature_dim = kCardDim;
  return s;
}

}  // namespace

DouDizhuEnv::DouDizhuEnv(DouDizhuConfig config)
    : Env(make_spec()), objective_(objective_from_name(config.objective)), game_(Deal{}) {
  candidate_features_.reserve(512 * kCardDim);
}

void DouDizhuEnv::do_reset(std::optional<std::uint64_t>, Bytes obs) {
  game_.reset(Deal::random(rng()));
  after_move(obs);
}

void DouDizhuEnv::reset_to(const Deal& deal, Bytes obs) {
  reset(std::nullopt, obs);  // bookkeeping (step counter, statistics) through the public path
  game_.reset(deal);
  after_move(obs);
}

StepResult DouDizhuEnv::do_step(ConstBytes action, Bytes obs) {
  std::int64_t index = 0;
  std::memcpy(&index, action.data(), sizeof index);
  const auto& legal = game_.legal_moves();
  if (index < 0 || index >= static_cast<std::int64_t>(legal.size()))
    throw UserError(fmt::format("{}: action {} is not a candidate index (0..{})", kId, index, legal.size() - 1));
  const Seat mover = game_.acting();
  game_.play_index(static_cast<std::size_t>(index));
  after_move(obs);
  StepResult r;
  if (game_.over()) {
    auto rewards = mutable_agent_rewards();
    for (Seat s : kSeats) rewards[static_cast<std::size_t>(seat_index(s))] = game_.reward(s, objective_);
    r.reward = game_.reward(mover, objective_);
    r.terminated = true;
  }
  return r;
}

void DouDizhuEnv::after_move(Bytes obs) {
  auto* out = reinterpret_cast<std::uint8_t*>(obs.data());
  const Seat s = game_.acting();
  std::fill(out, out + kObservationSize, std::uint8_t{0});
  encode_state(game_, s, out);
  encode_history(game_, out + kMaxStateDim);
  auto rewards = mutable_agent_rewards();
  std::fill(rewards.begin(), rewards.end(), 0.0);
  mutable_info().acting_agent = seat_index(s);
  const auto& legal = game_.legal_moves();
  candidate_features_.resize(std::max<std::size_t>(legal.size(), 1) * kCardDim);
  for (std::size_t i = 0; i < legal.size(); ++i) encode_cards(legal[i], candidate_features_.data() + i * kCardDim);
  set_candidates({static_cast<std::int64_t>(legal.size()), kCardDim, candidate_features_.data()});
}

nlohmann::json DouDizhuEnv::do_save_state() const {
  return record_to_json({game_.deal(), {game_.history().begin(), game_.history().end()}});
}

void DouDizhuEnv::do_load_state(const nlohmann::json& state, Bytes obs) {
  game_ = replay(record_from_json(state, "DouDizhu-v0 state"));
  after_move(obs);
}

void register_doudizhu_envs() {
  EnvEntry e;
  e.factory = [](const YAML::Node& kwargs, const ConfigContext& ctx) -> std::unique_ptr<Env> {
    return std::make_unique<DouDizhuEnv>(parse_config<DouDizhuConfig>(kwargs, ctx));
  };
  e.describe_kwargs = [] { return document_config<DouDizhuConfig>(); };
  e.description = "DouDizhu, the three-player card game, with DouZero's rules and observation encoding";
  register_env(DouDizhuEnv::kId, std::move(e));
}

}  // namespace rlzoo::doudizhu
