// rlzoo_hotpath_torch: the hot paths of the speed guard that use LibTorch (region.h says how
// they are counted), beside the raw CartPole loop: one DMC actor decision as `rlzoo bench
// doudizhu`'s actor makes it. LibTorch's start-up costs seconds even uninstrumented, so these
// live apart from the torch-free paths (env_paths.cpp), which the guard's own test runs.
#include <torch/torch.h>

#include <vector>

#include "apps/bench/learner_updates.h"
#include "algorithms/dmc/decision_batch.h"
#include "algorithms/dmc/seat_nets.h"
#include "core/torch/threads.h"
#include "envs/doudizhu/game.h"
#include "tests/perf/hotpaths/region.h"

namespace rlzoo::hotpaths {
namespace {

void count_dmc_decision(const Selection& selection) {
  using namespace doudizhu;
  if (!selection.wants("dmc_actor_decision")) return;
  // One actor thread: 16 games, each acting seat's legal moves evaluated in one batch per
  // seat, greedy choice.
  torch::manual_seed(0);
  dmc::SeatNets nets;  // made outside InferenceMode, as the actors' replicas are
  torch::InferenceMode inference;
  Rng rng(3);
  std::vector<Game> games;
  for (int i = 0; i < 16; ++i) games.emplace_back(Deal::random(rng));
  dmc::DecisionBatch batch;
  std::vector<std::int64_t> slot(games.size());
  constexpr int kRounds = 1;
  region("dmc_actor_decision", kRounds * static_cast<std::int64_t>(games.size()), [&] {
    for (int r = 0; r < kRounds; ++r) {
      batch.clear();
      for (std::size_t i = 0; i < games.size(); ++i)
        slot[i] = games[i].legal_moves().size() > 1 ? static_cast<std::int64_t>(batch.add(games[i])) : -1;
      if (batch.size() > 0) batch.evaluate(nets);
      for (std::size_t i = 0; i < games.size(); ++i) {
        games[i].play_index(slot[i] >= 0 ? batch.argmax(static_cast<std::size_t>(slot[i])) : 0);
        if (games[i].over()) games[i].reset(Deal::random(rng));
      }
    }
  });
}

// Two warm-up updates first: the first ones allocate the optimiser's state and the gradients.
template <class Update>
void count_update(const Selection& selection, const char* name) {
  if (!selection.wants(name)) return;
  Update update(64, /*fused=*/true);
  update.step();
  update.step();
  constexpr int kUpdates = 4;
  region(name, kUpdates, [&] {
    for (int i = 0; i < kUpdates; ++i) update.step();
  });
}

}  // namespace
}  // namespace rlzoo::hotpaths

int main(int argc, char** argv) {
  using namespace rlzoo::hotpaths;
  const Selection selection(argc, argv);
  rlzoo::configure_threads(1, 1);
  count_raw_cartpole(selection);
  count_dmc_decision(selection);
  count_update<rlzoo::bench::PpoUpdate>(selection, "ppo_update_64x64");
  count_update<rlzoo::bench::DqnUpdate>(selection, "dqn_update_64x64");
  return 0;
}
