// The speed guard: instruction counts of the hot paths (rlzoo_hotpath_counts under valgrind's
// callgrind), each as a ratio to a raw baseline counted in the same run, against the budgets in
// tests/perf/hotpath_budgets.txt. Instruction counts repeat exactly on a busy machine, and under
// valgrind OpenBLAS and glibc take their AVX2 paths whatever the host (the LibTorch program's
// OpenBLAS is held to its Sandybridge kernels), so the ratios compare across this project's
// machines where timings do not.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

namespace fs = std::filesystem;

constexpr double kAllowedOver = 0.10;  // a path more than 10% over its budget fails

struct Count {
  double instructions = -1;  // in the counted run
  double units = 0;          // steps, calls or decisions in that run
  double per_unit() const { return instructions / units; }
};

struct Budget {
  std::string path, baseline;
  double ratio = 0;  // the path's instructions per unit / the baseline's
};

std::string budgets_file() { return test::source_dir() + "/tests/perf/hotpath_budgets.txt"; }

std::vector<Budget> read_budgets() {
  std::ifstream in(budgets_file());
  std::vector<Budget> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream fields(line);
    Budget b;
    if (!(fields >> b.path)) continue;
    if (!(fields >> b.baseline >> b.ratio) || b.ratio <= 0)
      throw std::runtime_error(fmt::format("{}:{}: expected 'path baseline ratio'", budgets_file(), n));
    out.push_back(b);
  }
  return out;
}

// Runs a counting program under callgrind (`only`: a comma-separated list of regions; `env`:
// variables for the program) and returns each region's count.
std::map<std::string, Count> count_hot_paths(const std::string& program, const std::string& only = "",
                                             const std::string& env = "") {
  const std::string dir = test::make_temp_dir("rlzoo_hotpaths");
  const std::string command = fmt::format(
      "{} valgrind --tool=callgrind --instr-atstart=no --collect-atstart=no --callgrind-out-file={}/cg.%p '{}'{}", env, dir,
      program, only.empty() ? "" : " --only " + only);
  const test::CommandResult run = test::run_command(command);
  if (run.status != 0) throw std::runtime_error(fmt::format("{} failed ({}):\n{}", command, run.status, run.err));
  std::map<std::string, Count> counts;
  std::istringstream out(run.out);
  for (std::string line; std::getline(out, line);) {
    std::istringstream fields(line);
    std::string word, name;
    if (fields >> word >> name && word == "region") fields >> counts[name].units;  // other lines: logging
  }
  // Each dump: "desc: Trigger: Client Request: NAME" ... "summary: INSTRUCTIONS".
  for (const auto& e : fs::directory_iterator(dir)) {
    std::ifstream in(e.path());
    std::string line, name;
    while (std::getline(in, line)) {
      const std::string trigger = "desc: Trigger: Client Request: ";
      if (line.rfind(trigger, 0) == 0) name = line.substr(trigger.size());
      if (line.rfind("summary: ", 0) == 0 && counts.count(name)) counts[name].instructions = std::stod(line.substr(9));
    }
  }
  fs::remove_all(dir);
  for (const auto& [name, c] : counts)
    if (c.instructions < 0 || c.units <= 0) throw std::runtime_error("no callgrind count for region " + name);
  return counts;
}

struct Verdict {
  std::vector<std::string> figures;   // every path checked, with its figure
  std::vector<std::string> failures;  // those more than kAllowedOver over budget
};

Verdict judge(const std::map<std::string, Count>& counts, const std::vector<Budget>& budgets) {
  Verdict v;
  for (const auto& b : budgets) {
    if (!counts.count(b.path)) continue;  // not counted in this run (--only)
    if (!counts.count(b.baseline)) throw std::runtime_error("baseline " + b.baseline + " was not counted");
    const double ratio = counts.at(b.path).per_unit() / counts.at(b.baseline).per_unit();
    const double over = ratio / b.ratio - 1.0;
    const std::string figure =
        fmt::format("{}: {:.0f} instructions per unit, {:.3f} x {} (budget {:.3f}, {:+.1f}%)", b.path,
                    counts.at(b.path).per_unit(), ratio, b.baseline, b.ratio, 100.0 * over);
    v.figures.push_back(figure);
    if (over > kAllowedOver) v.failures.push_back(figure);
  }
  return v;
}

std::string lines(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& l : v) s += "\n  " + l;
  return s;
}

// Counts `program`'s regions (`env`: variables for it) and checks those of them that have a
// budget.
void expect_within_budgets(const std::string& program, const std::vector<std::string>& paths,
                           const std::string& env = "") {
  const auto budgets = read_budgets();
  const auto counts = count_hot_paths(program, "", env);
  for (const auto& path : paths) {
    EXPECT_TRUE(counts.count(path)) << "no region " << path << " was counted";
    EXPECT_TRUE(std::any_of(budgets.begin(), budgets.end(), [&](const Budget& b) { return b.path == path; }))
        << path << " has no budget in " << budgets_file();
  }
  const Verdict v = judge(counts, budgets);
  std::cout << "hot paths (instructions, callgrind):" << lines(v.figures) << std::endl;
  EXPECT_TRUE(v.failures.empty()) << "more than " << 100 * kAllowedOver << "% over budget (" << budgets_file()
                                  << "):" << lines(v.failures);
}

TEST(HotPathGuard, EnvAndDouDizhuPathsWithinBudget) {
  expect_within_budgets(RLZOO_HOTPATH_ENV, {"cartpole_step", "vector_step_1024", "doudizhu_legal_moves"});
}

TEST(HotPathGuard, LibTorchPathsWithinBudget) {
  // OpenBLAS's Sandybridge kernels (AVX, no FMA): valgrind emulates each fused multiply-add in
  // software (h_generic_calc_MAddF32), and with the Haswell kernels the DMC decision's products
  // alone took 107 s of the 125 s this test took; with these the test takes ~20 s. The counts
  // are those of one fixed kernel either way.
  expect_within_budgets(RLZOO_HOTPATH_TORCH, {"dmc_actor_decision", "ppo_update_64x64", "dqn_update_64x64"},
                        "OPENBLAS_CORETYPE=Sandybridge");
}

TEST(HotPathGuard, FailsWhenTheCartPoleStepSlowsDown) {
  // The counting program's test switch adds arithmetic to every CartPole step: the guard must
  // then fail, naming the path and its figure.
  const auto counts =
      count_hot_paths(RLZOO_HOTPATH_ENV, "raw_cartpole,cartpole_step", "RLZOO_HOTPATH_ADD_WORK=cartpole_step");
  const Verdict v = judge(counts, read_budgets());
  ASSERT_EQ(v.failures.size(), 1u) << lines(v.figures);
  EXPECT_THAT(v.failures[0], testing::StartsWith("cartpole_step: "));
  EXPECT_THAT(v.failures[0], testing::HasSubstr("x raw_cartpole (budget"));
}

}  // namespace
}  // namespace rlzoo
