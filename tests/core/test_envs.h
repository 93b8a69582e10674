// Small deterministic envs for testing the core machinery.
#pragma once

#include "core/env/env.h"

namespace rlzoo::test {

// Observation: [position] (float32). Action: Discrete(3) meaning -1, 0, +1. Reward: the new
// position. Terminates when |position| reaches `goal`; the reset position is uniform in {-1,0,1}.
class WalkEnv : public Env {
 public:
  explicit WalkEnv(int goal = 3, std::int64_t max_steps = 0)
      : Env(EnvSpec{"Walk-v0", Space::box(-goal, goal, {1}), Space::discrete(3), max_steps}), goal_(goal) {}
  int position() const { return pos_; }

 protected:
  void do_reset(std::optional<std::uint64_t>, Bytes obs) override {
    pos_ = static_cast<int>(rng().below(3)) - 1;
    as_span<float>(obs)[0] = static_cast<float>(pos_);
  }
  StepResult do_step(ConstBytes action, Bytes obs) override {
    pos_ += static_cast<int>(as_span<std::int64_t>(action)[0]) - 1;
    as_span<float>(obs)[0] = static_cast<float>(pos_);
    return {static_cast<double>(pos_), pos_ <= -goal_ || pos_ >= goal_, false};
  }

 private:
  int goal_;
  int pos_ = 0;
};

// Box action env: observation = the last action (float32, 2 values), reward = sum of it.
class EchoEnv : public Env {
 public:
  EchoEnv() : Env(EnvSpec{"Echo-v0", Space::box(-10, 10, {2}), Space::box(-1, 1, {2}), 5}) {}

 protected:
  void do_reset(std::optional<std::uint64_t>, Bytes obs) override {
    auto o = as_span<float>(obs);
    o[0] = o[1] = 0;
  }
  StepResult do_step(ConstBytes action, Bytes obs) override {
    auto a = as_span<float>(action);
    auto o = as_span<float>(obs);
    o[0] = a[0];
    o[1] = a[1];
    return {static_cast<double>(a[0]) + a[1], false, false};
  }
};

// Discrete(4) with a legal-action mask: only actions >= the step count are legal.
class MaskedEnv : public Env {
 public:
  MaskedEnv() : Env(make_spec()) {}

 protected:
  static EnvSpec make_spec() {
    EnvSpec s{"Masked-v0", Space::box(0, 10, {1}), Space::discrete(4)};
    s.has_action_mask = true;
    return s;
  }
  void do_reset(std::optional<std::uint64_t>, Bytes obs) override {
    t_ = 0;
    update(obs);
  }
  StepResult do_step(ConstBytes, Bytes obs) override {
    ++t_;
    update(obs);
    return {1.0, t_ >= 3, false};
  }
  void update(Bytes obs) {
    as_span<float>(obs)[0] = static_cast<float>(t_);
    auto m = mutable_action_mask();
    for (std::size_t i = 0; i < m.size(); ++i) m[i] = static_cast<int>(i) >= t_;
  }

 private:
  int t_ = 0;
};

}  // namespace rlzoo::test
