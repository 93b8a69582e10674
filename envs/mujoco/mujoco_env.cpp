#include "envs/mujoco/mujoco_env.h"

#include <mujoco/mujoco.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

namespace rlzoo {

namespace {
Space action_space_of(const mjModel* m) {
  std::vector<double> low, high;
  for (int i = 0; i < m->nu; ++i) {
    // An actuator without a control range accepts any value.
    const bool limited = m->actuator_ctrllimited[i];
    low.push_back(limited ? m->actuator_ctrlrange[2 * i] : -std::numeric_limits<double>::infinity());
    high.push_back(limited ? m->actuator_ctrlrange[2 * i + 1] : std::numeric_limits<double>::infinity());
  }
  return Space::box(low, high, {m->nu}, DType::Float32);
}
}  // namespace

namespace {
EnvSpec spec_of(const std::string& id, const mjModel* m, std::int64_t obs_dim) {
  EnvSpec s;
  s.id = id;
  const double inf = std::numeric_limits<double>::infinity();
  s.observation_space = Space::box(-inf, inf, {obs_dim}, DType::Float64);
  s.action_space = action_space_of(m);
  return s;
}
}  // namespace

MujocoEnv::MujocoEnv(const std::string& id, std::shared_ptr<const MujocoModel> model, int frame_skip,
                     std::int64_t obs_dim)
    : Env(spec_of(id, model->get(), obs_dim)),
      model_(std::move(model)),
      data_(mj_makeData(model_->get())),
      frame_skip_(frame_skip) {
  if (frame_skip < 1) throw UserError(fmt::format("{}: frame_skip must be >= 1, got {}", id, frame_skip));
  RLZOO_CHECK(data_ != nullptr, "mj_makeData failed");
  init_qpos_.assign(data_->qpos, data_->qpos + model_->get()->nq);
  init_qvel_.assign(data_->qvel, data_->qvel + model_->get()->nv);
}

MujocoEnv::~MujocoEnv() { mj_deleteData(data_); }

double MujocoEnv::dt() const { return model()->opt.timestep * frame_skip_; }
int MujocoEnv::nq() const { return model()->nq; }
int MujocoEnv::nv() const { return model()->nv; }

int MujocoEnv::body_id(const char* name) const {
  const int i = mj_name2id(model(), mjOBJ_BODY, name);
  if (i < 0) throw UserError(fmt::format("{}: the model {} has no body '{}'", id(), model_->source(), name));
  return i;
}

int MujocoEnv::site_id(const char* name) const {
  const int i = mj_name2id(model(), mjOBJ_SITE, name);
  if (i < 0) throw UserError(fmt::format("{}: the model {} has no site '{}'", id(), model_->source(), name));
  return i;
}

void MujocoEnv::set_state(std::span<const double> qpos, std::span<const double> qvel) {
  if (qpos.size() != static_cast<std::size_t>(nq()) || qvel.size() != static_cast<std::size_t>(nv()))
    throw UserError(fmt::format("{}: set_state needs {} qpos and {} qvel values, got {} and {}", id(), nq(), nv(),
                                qpos.size(), qvel.size()));
  std::copy(qpos.begin(), qpos.end(), data_->qpos);
  std::copy(qvel.begin(), qvel.end(), data_->qvel);
  mj_forward(model(), data_);
  origin_.valid = false;
}

std::vector<double> MujocoEnv::get_state() const {
  std::vector<double> s(data_->qpos, data_->qpos + nq());
  s.insert(s.end(), data_->qvel, data_->qvel + nv());
  return s;
}

void MujocoEnv::set_state(std::span<const double> state, Bytes obs) {
  if (state.size() != static_cast<std::size_t>(nq() + nv()))
    throw UserError(fmt::format("{}: a state is qpos ({}) followed by qvel ({}): {} values, got {}", id(), nq(), nv(),
                                nq() + nv(), state.size()));
  set_state(state.first(static_cast<std::size_t>(nq())), state.subspan(static_cast<std::size_t>(nq())));
  write_observation(obs);
}

void MujocoEnv::simulate(std::span<const float> action) {
  for (int i = 0; i < model()->nu; ++i) data_->ctrl[i] = static_cast<double>(action[static_cast<std::size_t>(i)]);
  for (int k = 0; k < frame_skip_; ++k) {
    if (k == frame_skip_ - 1) {
      origin_.valid = true;
      origin_.time = data_->time;
      origin_.qpos.assign(data_->qpos, data_->qpos + nq());
      origin_.qvel.assign(data_->qvel, data_->qvel + nv());
      origin_.act.assign(data_->act, data_->act + model()->na);
      origin_.qacc_warmstart.assign(data_->qacc_warmstart, data_->qacc_warmstart + nv());
    }
    mj_step(model(), data_);
  }
  // As Gymnasium: cacc, cfrc_int and cfrc_ext for the observation and contact costs.
  mj_rnePostConstraint(model(), data_);
}

void MujocoEnv::do_reset(std::optional<std::uint64_t>, Bytes obs) {
  mj_resetData(model(), data_);
  origin_.valid = false;
  reset_model(rng());
  write_observation(obs);
}

namespace {
// The warnings MuJoCo raises when it finds a bad position, velocity or acceleration; it then
// resets the data (which clears every warning counter, then counts the one that fired).
constexpr int kResetWarnings[] = {mjWARN_BADQPOS, mjWARN_BADQVEL, mjWARN_BADQACC};
}  // namespace

StepResult MujocoEnv::do_step(ConstBytes action, Bytes obs) {
  for (const int w : kResetWarnings) data_->warning[w].number = 0;
  const double time_before = data_->time;
  StepResult r = step_task(action, obs);
  bool reset = false;
  for (const int w : kResetWarnings) reset = reset || data_->warning[w].number > 0;
  if (reset) {
    // The task compared positions across MuJoCo's reset: its reward means nothing.
    r.reward = 0.0;
    r.truncated = !r.terminated;
    mutable_info().set_scalar("physics_reset", 1.0);
    if (!warned_physics_reset_) {
      warned_physics_reset_ = true;
      spdlog::warn("{}: the simulation became unstable in the step from time {:.4g} (a bad position, velocity or "
                   "acceleration; MuJoCo reset it); the episode is truncated (info physics_reset = 1). Further "
                   "occurrences in this env are not logged.",
                   id(), time_before);
    }
  }
  return r;
}

nlohmann::json MujocoEnv::do_save_state() const {
  nlohmann::json j;
  j["qpos"] = std::vector<double>(data_->qpos, data_->qpos + nq());
  j["qvel"] = std::vector<double>(data_->qvel, data_->qvel + nv());
  j["act"] = std::vector<double>(data_->act, data_->act + model()->na);
  j["ctrl"] = std::vector<double>(data_->ctrl, data_->ctrl + model()->nu);
  j["time"] = data_->time;
  // The constraint solver starts from the previous step's accelerations: without them a model
  // with contacts does not continue bit for bit after a load.
  j["qacc_warmstart"] = std::vector<double>(data_->qacc_warmstart, data_->qacc_warmstart + nv());
  if (origin_.valid)
    j["step_origin"] = {{"time", origin_.time},
                        {"qpos", origin_.qpos},
                        {"qvel", origin_.qvel},
                        {"act", origin_.act},
                        {"qacc_warmstart", origin_.qacc_warmstart}};
  return j;
}

namespace {
// A saved array of the size the model needs; UserError naming the field otherwise.
std::vector<double> saved_array(const nlohmann::json& state, const char* field, int size, const std::string& env) {
  auto v = state.at(field).get<std::vector<double>>();
  if (v.size() != static_cast<std::size_t>(size))
    throw UserError(fmt::format("{}: saved state does not fit the model: {} has {} values, the model needs {}", env,
                                field, v.size(), size));
  return v;
}
}  // namespace

void MujocoEnv::do_load_state(const nlohmann::json& state, Bytes obs) {
  const auto qpos = saved_array(state, "qpos", nq(), id());
  const auto qvel = saved_array(state, "qvel", nv(), id());
  const auto act = saved_array(state, "act", model()->na, id());
  const auto ctrl = saved_array(state, "ctrl", model()->nu, id());
  // Older saved states lack the warm start and the step origin: a cold start, close but not
  // bit for bit where there are contacts.
  const auto warm = state.contains("qacc_warmstart") ? saved_array(state, "qacc_warmstart", nv(), id())
                                                     : std::vector<double>(static_cast<std::size_t>(nv()), 0.0);
  StepOrigin origin;
  if (state.contains("step_origin")) {
    const auto& o = state.at("step_origin");
    origin = {true, o.at("time").get<double>(), saved_array(o, "qpos", nq(), id()), saved_array(o, "qvel", nv(), id()),
              saved_array(o, "act", model()->na, id()), saved_array(o, "qacc_warmstart", nv(), id())};
  }
  mj_resetData(model(), data_);  // derived quantities as after a reset
  std::copy(ctrl.begin(), ctrl.end(), data_->ctrl);
  if (origin.valid) {
    // Replay the last mj_step from its origin: the derived quantities the tasks read are then
    // those of the original; the state it reaches is the saved one.
    data_->time = origin.time;
    std::copy(origin.qpos.begin(), origin.qpos.end(), data_->qpos);
    std::copy(origin.qvel.begin(), origin.qvel.end(), data_->qvel);
    std::copy(origin.act.begin(), origin.act.end(), data_->act);
    std::copy(origin.qacc_warmstart.begin(), origin.qacc_warmstart.end(), data_->qacc_warmstart);
    mj_step(model(), data_);
    mj_rnePostConstraint(model(), data_);
    std::copy(qpos.begin(), qpos.end(), data_->qpos);
    std::copy(qvel.begin(), qvel.end(), data_->qvel);
  } else {
    std::copy(warm.begin(), warm.end(), data_->qacc_warmstart);
    set_state(qpos, qvel);
    // A state of the older format was saved mid-episode: its step had filled the contact forces.
    if (!state.contains("qacc_warmstart")) mj_rnePostConstraint(model(), data_);
  }
  std::copy(act.begin(), act.end(), data_->act);
  std::copy(warm.begin(), warm.end(), data_->qacc_warmstart);
  data_->time = state.at("time").get<double>();
  origin_ = std::move(origin);
  write_observation(obs);
}

std::vector<double> plus_uniform(std::span<const double> base, double scale, Rng& rng) {
  std::vector<double> out(base.begin(), base.end());
  for (auto& v : out) v += rng.uniform(-scale, scale);
  return out;
}

std::vector<double> plus_normal(std::span<const double> base, double scale, Rng& rng) {
  std::vector<double> out(base.begin(), base.end());
  for (auto& v : out) v += scale * rng.normal();
  return out;
}

double squared_norm(std::span<const float> action) {
  double s = 0;
  for (float a : action) s += static_cast<double>(a) * static_cast<double>(a);
  return s;
}

}  // namespace rlzoo
