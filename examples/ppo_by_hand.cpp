// Low-level API example: PPO assembled by hand (see ppo_by_hand.h).
//   build/examples/ppo_by_hand [steps]
#include <cstdlib>
#include <iostream>

#include "envs/builtin.h"
#include "examples/ppo_by_hand.h"

int main(int argc, char** argv) {
  rlzoo::register_builtin_envs();
  torch::set_num_threads(1);
  const std::int64_t steps = argc > 1 ? std::atoll(argv[1]) : 50'000;
  const auto r = rlzoo::examples::train_ppo_by_hand("CartPole-v1", steps);
  std::cout << "CartPole-v1 after " << steps << " steps: mean return of the last 20 episodes " << r.mean_recent_return
            << " (" << r.episodes << " episodes)\n";
}
