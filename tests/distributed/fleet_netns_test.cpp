// A fleet across "hosts": the learner and two actors each in a network namespace made by the
// test, joined by veth pairs with addresses that exist only inside the namespaces. One actor's
// link is cut while training runs and restored: the other actor keeps the learner going, and
// the cut actor comes back on its own. Needs root and `ip` (skipped with a message otherwise).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include "tests/support/child_process.h"
#include "tests/support/fleet_stats.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

bool sh(const std::string& cmd) { return test::run_command(cmd + " 2>&1").status == 0; }

// Three namespaces: learner (10.77.1.1 towards actor 0, 10.77.2.1 towards actor 1) and one per
// actor (10.77.1.2, 10.77.2.2). Removed again (with their links) by the destructor.
struct Hosts {
  std::string learner = fmt::format("rlzoo_l_{}", getpid()), a0 = fmt::format("rlzoo_a0_{}", getpid()),
              a1 = fmt::format("rlzoo_a1_{}", getpid());
  bool ok = false;
  Hosts() {
    if (!sh("ip netns add " + learner)) return;
    ok = sh("ip netns add " + a0) && sh("ip netns add " + a1);
    for (int i = 0; ok && i < 2; ++i) {
      const std::string ns = i == 0 ? a0 : a1;
      const std::string l = fmt::format("vl{}", i), a = fmt::format("va{}", i);
      ok = sh(fmt::format("ip link add {} netns {} type veth peer name {} netns {}", l, learner, a, ns)) &&
           sh(fmt::format("ip -n {} addr add 10.77.{}.1/24 dev {}", learner, i + 1, l)) &&
           sh(fmt::format("ip -n {} addr add 10.77.{}.2/24 dev {}", ns, i + 1, a)) &&
           sh(fmt::format("ip -n {} link set {} up", learner, l)) && sh(fmt::format("ip -n {} link set {} up", ns, a)) &&
           sh(fmt::format("ip -n {} link set lo up", ns));
    }
    ok = ok && sh(fmt::format("ip -n {} link set lo up", learner));
  }
  ~Hosts() {
    for (const auto& ns : {learner, a0, a1}) sh("ip netns del " + ns);
  }
};

TEST(FleetNetns, LearnerAndActorsOnSeparateHostsSurviveACutLink) {
  if (geteuid() != 0) GTEST_SKIP() << "network namespaces need root; not run";
  Hosts hosts;
  if (!hosts.ok) GTEST_SKIP() << "cannot create network namespaces here (ip netns add failed); not run";
  const fs::path dir = test::make_temp_dir("rlzoo-netns");
  std::ofstream(dir / "token") << "multi-host-token\n";
  const std::string cli = test::cli_path(), token = (dir / "token").string(), st = (dir / "stats.json").string();
  // Any address: a token is required for that. 600 k steps: the run must outlast a cut and a
  // restored link (200 k took seconds once PPO's small-network updates got fast).
  test::ChildProcess learner({"/usr/sbin/ip", "netns", "exec", hosts.learner, cli, "learner", "-q", "--preset",
                              "configs/ppo/CartPole-v1-fleet.yaml", "--set", "n_timesteps=600000", "--listen",
                              "0.0.0.0:50777", "--token-file", token, "--stats-file", st, "--heartbeat-timeout-ms",
                              "2000", "--run-dir", (dir / "run").string()},
                             test::source_dir(), (dir / "learner.log").string());
  std::vector<test::ChildProcess> actors;
  for (int i = 0; i < 2; ++i)
    actors.emplace_back(std::vector<std::string>{"/usr/sbin/ip", "netns", "exec", i == 0 ? hosts.a0 : hosts.a1, cli,
                                                 "actor", "--connect", fmt::format("10.77.{}.1:50777", i + 1),
                                                 "--token-file", token, "--actor-id", std::to_string(i),
                                                 "--deadline-ms", "2000"},
                        test::source_dir(), (dir / fmt::format("actor{}.log", i)).string());
  auto logs = [&] { return test::read_file_or_empty(dir / "learner.log") + test::read_file_or_empty(dir / "actor0.log") + test::read_file_or_empty(dir / "actor1.log"); };
  ASSERT_TRUE(test::wait_until([&] { return test::used_by_actor(st, 1) >= 10 && test::used_by_actor(st, 0) >= 10; }, 120s))
      << logs();

  // Cut actor 1's link: actor 0 alone keeps training going.
  ASSERT_TRUE(sh(fmt::format("ip -n {} link set va1 down", hosts.a1)));
  const std::uint64_t a0_at_cut = test::used_by_actor(st, 0);
  EXPECT_TRUE(test::wait_until([&] { return test::used_by_actor(st, 0) >= a0_at_cut + 20; }, 120s)) << logs();
  const std::uint64_t a1_during_cut = test::used_by_actor(st, 1);
  // Restore it: actor 1 (the same process, retrying with back-off) comes back and is used again.
  ASSERT_TRUE(sh(fmt::format("ip -n {} link set va1 up", hosts.a1)));
  EXPECT_TRUE(test::wait_until([&] { return test::used_by_actor(st, 1) >= a1_during_cut + 10; }, 120s)) << logs();

  const int status = learner.wait(600s);
  ASSERT_TRUE(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0) << logs();
  for (auto& a : actors) EXPECT_NE(a.wait(60s), -1);
  EXPECT_TRUE(fs::exists(dir / "run" / "final"));
  EXPECT_EQ(test::fleet_stats(st)["used_after_end"].get<int>(), 0);
}

}  // namespace
}  // namespace rlzoo
