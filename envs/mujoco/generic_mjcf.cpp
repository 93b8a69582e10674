#include "envs/mujoco/generic_mjcf.h"

#include <mujoco/mujoco.h>

#include <algorithm>
#include <fmt/format.h>
#include <regex>

#include "core/common/strings.h"

namespace rlzoo {

void GenericMjcfConfig::describe(Fields<GenericMjcfConfig>& f) {
  f("model_path", &GenericMjcfConfig::model_path, "the MJCF file", Required{});
  f("frame_skip", &GenericMjcfConfig::frame_skip, "mj_step calls per env step", Bound::at_least(1));
  f("observation", &GenericMjcfConfig::observation,
    "mjData fields concatenated into the observation, each optionally sliced: qpos[1:], qvel, sensordata[0:3], ...");
  f("clip_velocity", &GenericMjcfConfig::clip_velocity, "clip qvel in the observation to +-this (0: no clip)",
    Bound::non_negative());
  f("reset_noise_scale", &GenericMjcfConfig::reset_noise_scale, "qpos, qvel + U(-s, s) at reset",
    Bound::non_negative());
  f("forward_reward_weight", &GenericMjcfConfig::forward_reward_weight, "weight of the forward (x) velocity");
  f("forward_body", &GenericMjcfConfig::forward_body, "body whose xpos gives the x velocity (empty: qpos[0])");
  f("ctrl_cost_weight", &GenericMjcfConfig::ctrl_cost_weight, "weight of sum(action^2)", Bound::non_negative());
  f("healthy_reward", &GenericMjcfConfig::healthy_reward, "reward per step while healthy");
  f("healthy_z_range", &GenericMjcfConfig::healthy_z_range, "open range of qpos[healthy_z_index] (empty: always healthy)");
  f("healthy_z_index", &GenericMjcfConfig::healthy_z_index, "qpos index checked by healthy_z_range", Bound::at_least(0));
  f("terminate_when_unhealthy", &GenericMjcfConfig::terminate_when_unhealthy, "end the episode when unhealthy");
  f.check("healthy_z_range", [](const GenericMjcfConfig& c) -> std::optional<std::string> {
    if (!c.healthy_z_range.empty() && (c.healthy_z_range.size() != 2 || !(c.healthy_z_range[0] < c.healthy_z_range[1])))
      return "must be empty or [low, high] with low < high";
    return std::nullopt;
  });
}

namespace {

const std::vector<std::string>& field_names() {
  static const std::vector<std::string> names{"qpos",    "qvel", "act",          "ctrl",            "cinert",
                                              "cvel",    "qfrc_actuator", "qfrc_constraint", "cfrc_ext", "xpos",
                                              "xipos",   "site_xpos",     "sensordata"};
  return names;
}

int length_of(const mjModel* m, const std::string& f) {
  if (f == "qpos") return m->nq;
  if (f == "qvel" || f == "qfrc_actuator" || f == "qfrc_constraint") return m->nv;
  if (f == "act") return m->na;
  if (f == "ctrl") return m->nu;
  if (f == "cinert") return 10 * m->nbody;
  if (f == "cvel" || f == "cfrc_ext") return 6 * m->nbody;
  if (f == "xpos" || f == "xipos") return 3 * m->nbody;
  if (f == "site_xpos") return 3 * m->nsite;
  if (f == "sensordata") return m->nsensordata;
  return -1;
}

const double* pointer_of(const mjData* d, const std::string& f) {
  if (f == "qpos") return d->qpos;
  if (f == "qvel") return d->qvel;
  if (f == "act") return d->act;
  if (f == "ctrl") return d->ctrl;
  if (f == "cinert") return d->cinert;
  if (f == "cvel") return d->cvel;
  if (f == "qfrc_actuator") return d->qfrc_actuator;
  if (f == "qfrc_constraint") return d->qfrc_constraint;
  if (f == "cfrc_ext") return d->cfrc_ext;
  if (f == "xpos") return d->xpos;
  if (f == "xipos") return d->xipos;
  if (f == "site_xpos") return d->site_xpos;
  return d->sensordata;
}

std::vector<GenericMjcfEnv::Slice> parse_observation(const GenericMjcfConfig& c, const mjModel* m) {
  static const std::regex pattern(R"(^([a-z_]+)(?:\[(-?\d*):(-?\d*)\])?$)");
  std::vector<GenericMjcfEnv::Slice> out;
  for (const auto& entry : c.observation) {
    std::smatch match;
    if (!std::regex_match(entry, match, pattern))
      throw UserError(fmt::format("MJCF-v0 observation entry '{}': expected a field name, optionally sliced as "
                                  "name[begin:end]",
                                  entry));
    GenericMjcfEnv::Slice s;
    s.field = match[1];
    const int n = length_of(m, s.field);
    if (n < 0)
      throw UserError(fmt::format("MJCF-v0 observation entry '{}': unknown field{}; valid: {}", entry,
                                  did_you_mean(s.field, field_names()), join(field_names())));
    auto index = [n](const std::string& text, int fallback) {
      if (text.empty()) return fallback;
      const int i = std::stoi(text);
      return std::clamp(i < 0 ? n + i : i, 0, n);  // Python slicing
    };
    s.begin = index(match[2], 0);
    s.end = index(match[3], n);
    if (s.end <= s.begin)
      throw UserError(fmt::format("MJCF-v0 observation entry '{}': the slice is empty ({} has {} values)", entry,
                                  s.field, n));
    out.push_back(s);
  }
  if (out.empty()) throw UserError("MJCF-v0: observation must name at least one field");
  return out;
}

std::int64_t obs_dim(const GenericMjcfConfig& c) {
  if (c.model_path.empty()) throw UserError("MJCF-v0: model_path is required (the MJCF file to load)");
  const auto model = load_mujoco_model(c.model_path, "");
  std::int64_t n = 0;
  for (const auto& s : parse_observation(c, model->get())) n += s.end - s.begin;
  return n;
}

}  // namespace

GenericMjcfEnv::GenericMjcfEnv(GenericMjcfConfig config)
    : MujocoEnv(kId, load_mujoco_model(config.model_path, ""), config.frame_skip, obs_dim(config)),
      config_(std::move(config)),
      slices_(parse_observation(config_, model())) {
  if (!config_.forward_body.empty()) forward_body_ = body_id(config_.forward_body.c_str());
  // The index matters only with a range: a model with fewer joints and no health rule is fine.
  if (!config_.healthy_z_range.empty() && config_.healthy_z_index >= nq())
    throw UserError(fmt::format("MJCF-v0 healthy_z_index {}: the model has {} qpos values", config_.healthy_z_index, nq()));
}

bool GenericMjcfEnv::is_healthy() const {
  if (config_.healthy_z_range.empty()) return true;
  const double z = data()->qpos[config_.healthy_z_index];
  return config_.healthy_z_range[0] < z && z < config_.healthy_z_range[1];
}

void GenericMjcfEnv::write_observation(Bytes obs) const {
  auto o = as_span<double>(obs);
  std::size_t k = 0;
  for (const auto& s : slices_) {
    const double* p = pointer_of(data(), s.field);
    const bool clip = s.field == "qvel" && config_.clip_velocity > 0;
    for (int i = s.begin; i < s.end; ++i)
      o[k++] = clip ? std::clamp(p[i], -config_.clip_velocity, config_.clip_velocity) : p[i];
  }
}

void GenericMjcfEnv::reset_model(Rng& rng) {
  // Two statements: the qpos noise is drawn first (function arguments have no fixed order).
  const auto qpos = plus_uniform(init_qpos(), config_.reset_noise_scale, rng);
  const auto qvel = plus_uniform(init_qvel(), config_.reset_noise_scale, rng);
  set_state(qpos, qvel);
}

StepResult GenericMjcfEnv::step_task(ConstBytes action, Bytes obs) {
  const auto a = as_span<const float>(action);
  auto x_of = [&] { return forward_body_ >= 0 ? data()->xpos[3 * forward_body_] : data()->qpos[0]; };
  if (reward_hook_) qpos_before_.assign(data()->qpos, data()->qpos + nq());
  const double x_before = x_of();
  simulate(a);
  const double x_velocity = (x_of() - x_before) / dt();
  const StepContext step{a, qpos_before_, x_velocity};
  const bool healthy = is_healthy();
  double reward;
  if (reward_hook_) {
    reward = reward_hook_(*this, step);
  } else {
    // Gymnasium's order: (forward + healthy) - costs.
    reward = config_.forward_reward_weight * x_velocity +
             (healthy || config_.terminate_when_unhealthy ? config_.healthy_reward : 0.0) -
             config_.ctrl_cost_weight * squared_norm(a);
  }
  const bool terminated =
      termination_hook_ ? termination_hook_(*this) : config_.terminate_when_unhealthy && !healthy;
  write_observation(obs);
  mutable_info().set_scalar("x_velocity", x_velocity);
  return {reward, terminated, false};
}

}  // namespace rlzoo
