#include "envs/box2d/cartpole_rllab.h"

#include <box2d/box2d.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/common/error.h"

namespace rlzoo {

namespace {

// The model (rllab models/cartpole.xml.mako) and the world's settings (rllab's XML parser's
// defaults: pybox2d's gravity, 8/3 solver iterations, warm starting; sleeping allowed, as
// rllab's world had it: it asks pybox2d for none with a keyword pybox2d ignores).
constexpr double kCartWidth = 4.0 / 3.4641016151377544;  // 4 / sqrt(12)
constexpr double kCartHeight = 3.0 / 3.4641016151377544;
constexpr double kPoleWidth = 0.1;
constexpr double kPoleHeight = 1.0;
constexpr double kCartFriction = 0.0005;
constexpr double kPoleFriction = 0.000002;
constexpr float kTimeStep = 0.05f;
constexpr int kVelocityIterations = 8;
constexpr int kPositionIterations = 3;
constexpr double kForceLimit = 10.0;  // the control's ctrllimit, N

// The task (rllab cartpole_env.py).
constexpr double kMaxCartPosition = 2.4;
constexpr double kMaxPoleAngle = 0.2;
constexpr std::array<double, 4> kResetBounds{2.4, 4.0, 0.2, 4.0};
constexpr double kResetRange = 0.05;

EnvSpec make_spec() {
  EnvSpec spec;
  spec.id = CartPoleRllabEnv::kId;
  const double inf = std::numeric_limits<double>::infinity();
  spec.observation_space = Space::box(-inf, inf, {4});
  spec.action_space = Space::box(-1.0, 1.0, {1});
  return spec;
}

b2Body* add_box_body(b2World& world, b2BodyType type, b2Vec2 position, const b2PolygonShape& shape, double density,
                     double friction, int16 group) {
  b2BodyDef def;
  def.type = type;
  def.position = position;
  b2Body* body = world.CreateBody(&def);
  b2FixtureDef fixture;
  fixture.shape = &shape;
  fixture.density = static_cast<float>(density);
  fixture.friction = static_cast<float>(friction);
  fixture.filter.groupIndex = group;
  body->CreateFixture(&fixture);
  return body;
}

}  // namespace

CartPoleRllabEnv::CartPoleRllabEnv() : Env(make_spec()) {}

CartPoleRllabEnv::~CartPoleRllabEnv() = default;

void CartPoleRllabEnv::build_world(const std::array<double, 4>& start, Pivot pivot) {
  world_ = std::make_unique<b2World>(b2Vec2(0.0f, -10.0f));
  world_->SetAllowSleeping(true);
  world_->SetWarmStarting(true);
  world_->SetContinuousPhysics(true);
  world_->SetSubStepping(false);

  // In the model's order (Box2D's solver order follows creation order): cart, pole, track.
  const float h = static_cast<float>(kCartHeight);
  b2PolygonShape cart_shape;
  cart_shape.SetAsBox(static_cast<float>(kCartWidth / 2), h / 2);
  cart_ = add_box_body(*world_, b2_dynamicBody, b2Vec2(0.0f, h / 2), cart_shape, 1.0, kCartFriction, 0);
  // The pole: the rectangle from its pivot (0, 0) up to (0, 1), 0.1 wide.
  const float hw = static_cast<float>(kPoleWidth / 2);
  const float top = static_cast<float>(kPoleHeight);
  const b2Vec2 pole_vertices[4] = {{hw, 0.0f}, {hw, top}, {-hw, top}, {-hw, 0.0f}};
  b2PolygonShape pole_shape;
  pole_shape.Set(pole_vertices, 4);
  pole_ = add_box_body(*world_, b2_dynamicBody, b2Vec2(0.0f, h), pole_shape, 1.0, kPoleFriction, -1);
  b2PolygonShape track_shape;
  track_shape.SetAsBox(100.0f, 0.1f);
  b2Body* track = add_box_body(*world_, b2_staticBody, b2Vec2(0.0f, h / 2), track_shape, 0.0, kPoleFriction, -1);

  b2RevoluteJointDef hinge;
  hinge.Initialize(cart_, pole_, b2Vec2(0.0f, h));
  world_->CreateJoint(&hinge);
  b2PrismaticJointDef rail;  // the definition's defaults: anchors at both origins, axis x
  rail.bodyA = track;
  rail.bodyB = cart_;
  world_->CreateJoint(&rail);

  // rllab's reset: the cart moved and given its speed; the pole turned about its pivot and spun.
  start_ = start;
  pivot_ = pivot;
  actions_.clear();
  const float x = static_cast<float>(start[0]), x_dot = static_cast<float>(start[1]);
  cart_->SetTransform(b2Vec2(x, cart_->GetPosition().y), cart_->GetAngle());
  cart_->SetLinearVelocity(b2Vec2(x_dot, cart_->GetLinearVelocity().y));
  const b2Vec2 pole_at = pivot == Pivot::on_cart ? b2Vec2(x, h) : pole_->GetPosition();
  pole_->SetTransform(pole_at, static_cast<float>(start[2]));
  const float w = static_cast<float>(start[3]);
  pole_->SetAngularVelocity(w);
  if (pivot == Pivot::on_cart)  // the pivot moves with the cart: the centre at v_pivot + w x (centre - pivot)
    pole_->SetLinearVelocity(b2Vec2(x_dot, 0.0f) + b2Cross(w, pole_->GetWorldCenter() - pole_->GetPosition()));
}

double CartPoleRllabEnv::advance(float action) {
  // normalize(): the affine map from [-1, 1] onto the control limit, then a clip (float64).
  const double lb = -kForceLimit, ub = kForceLimit;
  double force = lb + (static_cast<double>(action) + 1.0) * 0.5 * (ub - lb);
  force = std::min(std::max(force, lb), ub);
  // The control: a force along the cart's x direction at its origin.
  const b2Vec2 world_force = cart_->GetWorldVector(b2Vec2(static_cast<float>(force), 0.0f));
  cart_->ApplyForce(world_force, cart_->GetWorldPoint(b2Vec2(0.0f, 0.0f)), true);
  world_->Step(kTimeStep, kVelocityIterations, kPositionIterations);
  actions_.push_back(action);
  return force;
}

void CartPoleRllabEnv::write_obs(Bytes obs) const {
  auto o = as_span<float>(obs);
  o[0] = cart_->GetPosition().x;
  o[1] = cart_->GetLinearVelocity().x;
  o[2] = pole_->GetAngle();
  o[3] = pole_->GetAngularVelocity();
}

void CartPoleRllabEnv::start_from(const std::array<double, 4>& start, Bytes obs, Pivot pivot) {
  build_world(start, pivot);
  write_obs(obs);
}

void CartPoleRllabEnv::do_reset(std::optional<std::uint64_t>, Bytes obs) {
  std::array<double, 4> start{};
  for (std::size_t i = 0; i < start.size(); ++i)
    start[i] = rng().uniform(-kResetRange * kResetBounds[i], kResetRange * kResetBounds[i]);
  start_from(start, obs);
}

StepResult CartPoleRllabEnv::do_step(ConstBytes action, Bytes obs) {
  const double force = advance(as_span<float>(action)[0]);
  const double x = cart_->GetPosition().x;
  const double theta = pole_->GetAngle();
  StepResult r;
  r.terminated = std::abs(x) > kMaxCartPosition || std::abs(theta) > kMaxPoleAngle;
  r.reward = r.terminated ? 0.0 : 10.0 - (1.0 - std::cos(theta)) - 1e-5 * (force * force);
  write_obs(obs);
  return r;
}

nlohmann::json CartPoleRllabEnv::do_save_state() const {
  if (!world_) throw UserError(fmt::format("env {}: nothing to save before the first reset", id()));
  return {{"start", start_}, {"pivot_on_cart", pivot_ == Pivot::on_cart}, {"actions", actions_}};
}

void CartPoleRllabEnv::do_load_state(const nlohmann::json& state, Bytes obs) {
  // Everything is read and checked before the world is touched (a bad state changes nothing).
  const auto numbers = [&](const char* key) {
    const nlohmann::json& v = state.at(key);
    if (!v.is_array() || !std::all_of(v.begin(), v.end(), [](const nlohmann::json& x) { return x.is_number(); }))
      throw UserError(fmt::format("env {}: saved state: own.{} must be a list of numbers", id(), key));
    return v.get<std::vector<double>>();
  };
  const std::vector<double> start = numbers("start");
  if (start.size() != 4)
    throw UserError(fmt::format("env {}: saved state: own.start must hold 4 numbers (x, x_dot, theta, theta_dot), "
                                "not {}", id(), start.size()));
  const std::vector<double> actions = numbers("actions");
  if (static_cast<std::int64_t>(actions.size()) != elapsed_steps())
    throw UserError(fmt::format("env {}: saved state: own.actions holds {} actions for an episode of {} steps", id(),
                                actions.size(), elapsed_steps()));
  if (!state.at("pivot_on_cart").is_boolean())
    throw UserError(fmt::format("env {}: saved state: own.pivot_on_cart must be true or false", id()));
  build_world({start[0], start[1], start[2], start[3]},
              state.at("pivot_on_cart").get<bool>() ? Pivot::on_cart : Pivot::rllab_reset);
  for (const double a : actions) advance(static_cast<float>(a));
  write_obs(obs);
}

}  // namespace rlzoo
