#include "algorithms/builtin.h"

#include <mutex>

#include "datasets/record_episodes.h"
#include "algorithms/dmc/dmc.h"
#include "algorithms/dqn/dqn.h"
#include "algorithms/dt/dt_agent.h"
#include "algorithms/ppo/ppo.h"
#include "algorithms/sac/sac.h"
#include "algorithms/td3/td3.h"
#include "algorithms/secbad/secbad_agent.h"
#include "algorithms/pg/pg_agent.h"

namespace rlzoo {

void register_builtin_algorithms() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_ppo();
    register_dqn();
    register_sac();
    register_td3();
    dmc::register_dmc();
    pg::register_pg();
    secbad::register_secbad();
    dt::register_dt();
    // Presets name record_episodes in their wrapper lists; everything that makes agents from
    // presets comes through here (rlzoo_envs cannot: it does not link rlzoo_datasets).
    data::register_dataset_wrappers();
  });
}

}  // namespace rlzoo
