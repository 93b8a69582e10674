// rlzoo_hotpath_env: the torch-free hot paths of the speed guard (region.h says how they are
// counted): one CartPole step through the Env API, a 1024-env sync vector step, and one
// DouDizhu legal-move call, each beside the raw CartPole loop.
//
// RLZOO_HOTPATH_ADD_WORK=cartpole_step is the guard's own test: every counted CartPole step
// then does extra arithmetic, as a slower env step would, and the guard must fail naming it.
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "core/registry/env_registry.h"
#include "core/vector/vector_env.h"
#include "envs/builtin.h"
#include "envs/doudizhu/game.h"
#include "envs/doudizhu/legal_moves.h"
#include "tests/perf/hotpaths/region.h"

namespace rlzoo::hotpaths {
namespace {

// Arithmetic the compiler cannot remove, standing in for a slower step.
[[gnu::noinline]] double extra_work(double x) {
  for (int i = 0; i < 40; ++i) x = x * 1.0000001 + 1e-9;
  return x;
}

void count_env_paths(const Selection& selection) {
  const auto actions = bench::random_cartpole_actions(1 << 16);
  if (selection.wants("cartpole_step")) {
    const char* add = std::getenv("RLZOO_HOTPATH_ADD_WORK");
    const bool slower = add != nullptr && std::strcmp(add, "cartpole_step") == 0;
    constexpr std::int64_t kSteps = 20000;
    auto env = make_env("CartPole-v1");
    std::vector<std::byte> obs(env->observation_space().byte_size());
    env->reset(0, obs);
    std::int64_t t = 0;
    region("cartpole_step", kSteps, [&] {
      double x = 0;
      for (std::int64_t i = 0; i < kSteps; ++i) {
        const auto* a = reinterpret_cast<const std::byte*>(&actions[static_cast<std::size_t>(t++) & 0xFFFF]);
        if (env->step(ConstBytes(a, 8), obs).done()) env->reset(std::nullopt, obs);
        if (slower) x = extra_work(x);
      }
      g_sink = g_sink + x;
    });
  }
  if (selection.wants("vector_step_1024")) {
    constexpr std::int64_t kEnvs = 1024, kBatches = 10;
    SyncVectorEnv venv(make_envs("CartPole-v1", kEnvs));
    venv.reset(0);
    std::size_t offset = 0;
    region("vector_step_1024", kEnvs * kBatches, [&] {
      for (std::int64_t s = 0; s < kBatches; ++s) {
        offset = (offset + 977) & 0x7FFF;
        venv.step(std::span<const std::int64_t>(actions.data() + offset, kEnvs));
      }
    });
  }
}

void count_legal_moves(const Selection& selection) {
  using namespace doudizhu;
  if (!selection.wants("doudizhu_legal_moves")) return;
  // Positions from random games: (hand, rival move) as the players met them.
  Rng rng(5);
  std::vector<std::pair<CardCounts, CardCounts>> positions;
  Game g(Deal::random(rng));
  while (positions.size() < 400) {
    positions.emplace_back(g.hand(g.acting()), g.rival_move());
    g.play_index(rng.below(g.legal_moves().size()));
    if (g.over()) g.reset(Deal::random(rng));
  }
  std::vector<CardCounts> out;
  region("doudizhu_legal_moves", static_cast<std::int64_t>(positions.size()), [&] {
    std::size_t total = 0;
    for (const auto& [hand, rival] : positions) {
      generate_legal_moves(hand, rival, out);
      total += out.size();
    }
    g_sink = g_sink + static_cast<double>(total);
  });
}

}  // namespace
}  // namespace rlzoo::hotpaths

int main(int argc, char** argv) {
  using namespace rlzoo::hotpaths;
  const Selection selection(argc, argv);
  rlzoo::register_builtin_envs();
  count_raw_cartpole(selection);
  count_env_paths(selection);
  count_legal_moves(selection);
  return 0;
}
