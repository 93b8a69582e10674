// Small conveniences for the classic-control env tests: an env made through the registry with
// its float32 observation buffer, and one-call steps from a chosen state.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>
#include <yaml-cpp/yaml.h>

#include "core/env/env.h"
#include "core/registry/env_registry.h"
#include "envs/builtin.h"

namespace rlzoo::test {

class EnvHarness {
 public:
  // Built by make_env (registered time limit); kwargs as YAML flow text, e.g. "{g: 9.81}".
  explicit EnvHarness(const std::string& id, const std::string& kwargs = "") {
    register_builtin_envs();
    env_ = make_env(id, kwargs.empty() ? YAML::Node() : YAML::Load(kwargs), ConfigContext("kwargs of " + id));
    access_ = dynamic_cast<StateAccess*>(env_.get());
    obs_.resize(static_cast<std::size_t>(env_->observation_space().numel()));
    reset();
  }

  Env& env() { return *env_; }
  StateAccess& access() { return *access_; }
  const std::vector<float>& obs() const { return obs_; }
  std::vector<double> state() const { return access_->get_state(); }

  void reset(std::uint64_t seed = 0) { env_->reset(seed, obs_bytes()); }
  void set_state(const std::vector<double>& s) { access_->set_state(s, obs_bytes()); }

  // A Discrete action (integers) or a one-element float32 Box action (floating point).
  template <class A>
  StepResult step(A action) {
    if constexpr (std::is_floating_point_v<A>) {
      const float a = static_cast<float>(action);
      return env_->step(std::span<const float>(&a, 1), obs_bytes());
    } else {
      return env_->step(static_cast<std::int64_t>(action), obs_bytes());
    }
  }

  // Sets the state (without touching the step counter) and takes one step.
  template <class A>
  StepResult step_from(const std::vector<double>& s, A action) {
    set_state(s);
    return step(action);
  }

 private:
  Bytes obs_bytes() { return std::as_writable_bytes(std::span<float>(obs_)); }

  std::unique_ptr<Env> env_;
  StateAccess* access_ = nullptr;
  std::vector<float> obs_;
};

// A factory for check_env_conformance: the registered env with its time limit.
inline std::function<std::unique_ptr<Env>()> registered(const std::string& id, const std::string& kwargs = "") {
  register_builtin_envs();
  return [id, kwargs] { return make_env(id, kwargs.empty() ? YAML::Node() : YAML::Load(kwargs)); };
}

// The float32 value of a double, as a double (what a float32 observation holds).
inline double f32(double x) { return static_cast<double>(static_cast<float>(x)); }

// Expects the observation to be exactly these values rounded to float32.
inline void expect_obs(const std::vector<float>& obs, const std::vector<double>& expected) {
  ASSERT_EQ(obs.size(), expected.size());
  for (std::size_t i = 0; i < obs.size(); ++i) EXPECT_EQ(obs[i], static_cast<float>(expected[i])) << "obs[" << i << "]";
}

}  // namespace rlzoo::test
