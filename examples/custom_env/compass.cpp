// A user-written env trained with rlzoo's high-level API (docs/custom-env.md). Built against
// an installed rlzoo: see CMakeLists.txt here. Usage: compass [PRESET] [OUT_DIR]
#include <rlzoo/rlzoo.h>

#include <cstdio>

// Compass-v0: each episode the goal lies to the left or to the right (observation[0] = -1 or
// +1; observation[1] = the agent's position, starting near 0). Action 0 steps left, 1 steps
// right; a step towards the goal pays +1, a step away -1. 20 steps per episode: optimum 20.
class Compass final : public rlzoo::Env {
 public:
  static constexpr const char* kId = "Compass-v0";
  Compass() : Env({.id = kId,
                   .observation_space = rlzoo::Space::box(-2.0, 2.0, {2}),
                   .action_space = rlzoo::Space::discrete(2)}) {}

 protected:
  void do_reset(std::optional<std::uint64_t>, rlzoo::Bytes obs) override {
    goal_ = rng().uniform(0.0, 1.0) < 0.5 ? -1.0f : 1.0f;  // the env's own seeded Rng
    position_ = static_cast<float>(rng().uniform(-0.1, 0.1));
    observe(obs);
  }
  rlzoo::StepResult do_step(rlzoo::ConstBytes action, rlzoo::Bytes obs) override {
    const float step = rlzoo::as_span<const std::int64_t>(action)[0] == 1 ? 1.0f : -1.0f;
    position_ += step / 20.0f;
    observe(obs);
    return {.reward = step == goal_ ? 1.0 : -1.0};
  }

 private:
  void observe(rlzoo::Bytes obs) const {
    auto o = rlzoo::as_span<float>(obs);
    o[0] = goal_;
    o[1] = position_;
  }
  float goal_ = 1.0f, position_ = 0.0f;
};

int main(int argc, char** argv) {
  rlzoo::register_builtins();
  rlzoo::register_env(Compass::kId, rlzoo::env_entry<Compass>(20, 18.0, "Walk the way the compass points"));
  if (auto report = rlzoo::check_env(Compass::kId); !report.ok()) return std::puts(report.summary().c_str()), 1;

  auto agent = rlzoo::Agent::from_preset(argc > 1 ? argv[1] : "compass.yaml");
  agent->learn(agent->preset_timesteps());
  agent->save(argc > 2 ? argv[2] : "compass_agent");
  const rlzoo::EvalResult eval = agent->evaluate(20);
  std::printf("Compass-v0: mean return %.2f over 20 episodes (optimum 20)\n", eval.mean_return());
  return eval.mean_return() >= 0.9 * 20 ? 0 : 1;
}
