// The dependency rules of docs/architecture.md, read from the sources' #include lines: a change
// that breaks one fails here, naming the file and the line, instead of going unnoticed until a
// torch-free or sanitizer build (or a user's compile time) shows it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

namespace fs = std::filesystem;

struct Include {
  std::string file;  // relative to the source root
  int line = 0;
  std::string target;  // what is between the quotes or angle brackets
};

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// Every #include of the C++ sources under `folder` (relative to the source root).
std::vector<Include> includes_under(const std::string& folder) {
  const fs::path root = test::source_dir();
  std::vector<Include> out;
  for (const auto& e : fs::recursive_directory_iterator(root / folder)) {
    const std::string ext = e.path().extension().string();
    if (!e.is_regular_file() || (ext != ".h" && ext != ".cpp")) continue;
    std::ifstream in(e.path());
    std::string text;
    for (int n = 1; std::getline(in, text); ++n) {
      const auto first = text.find_first_not_of(" \t");
      if (first == std::string::npos || text.compare(first, 8, "#include") != 0) continue;
      const auto open = text.find_first_of("<\"", first + 8);
      const auto close = open == std::string::npos ? open : text.find_first_of(">\"", open + 1);
      if (close == std::string::npos) continue;
      out.push_back({fs::relative(e.path(), root).string(), n, text.substr(open + 1, close - open - 1)});
    }
  }
  std::sort(out.begin(), out.end(), [](const Include& a, const Include& b) {
    return a.file != b.file ? a.file < b.file : a.line < b.line;
  });
  return out;
}

// "file:line includes target" for each include under `folder` that `forbidden` picks.
template <class Pred>
std::vector<std::string> violations(const std::string& folder, Pred forbidden) {
  std::vector<std::string> out;
  for (const auto& inc : includes_under(folder))
    if (forbidden(inc)) out.push_back(inc.file + ":" + std::to_string(inc.line) + " includes " + inc.target);
  return out;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += "\n  " + l;
  return s;
}

bool is_header(const Include& inc) { return inc.file.ends_with(".h"); }

TEST(Layout, IncludeScanSeesTheSources) {
  // Guards the scan itself: if it found nothing, every rule below would pass vacuously.
  const auto rl = includes_under("rl");
  EXPECT_GT(rl.size(), 100u);
  EXPECT_TRUE(std::any_of(rl.begin(), rl.end(), [](const Include& i) {
    return i.file == "rl/agent.h" && i.target == "core/torch/tensor.h";
  }));
}

TEST(Layout, OnlyTheTorchGlueIncludesAllOfLibTorchInAHeader) {
  // A header that needs Tensor or Device includes core/torch/tensor.h; one that defines modules
  // includes <torch/nn/module.h> and the modules it holds. Sources (.cpp) may include it all.
  for (const std::string folder : {"core", "envs", "datasets", "rl", "algorithms", "distributed", "apps", "python",
                                   "include", "tests"}) {
    const auto bad = violations(folder, [](const Include& inc) {
      return is_header(inc) && inc.target == "torch/torch.h" && !starts_with(inc.file, "core/torch/");
    });
    EXPECT_TRUE(bad.empty()) << "use core/torch/tensor.h or <torch/nn/...> in headers:" << joined(bad);
  }
}

TEST(Layout, CoreOutsideItsTorchFolderIsTorchFree) {
  const auto bad = violations("core", [](const Include& inc) {
    return !starts_with(inc.file, "core/torch/") &&
           (starts_with(inc.target, "torch/") || starts_with(inc.target, "ATen/") || starts_with(inc.target, "c10/"));
  });
  EXPECT_TRUE(bad.empty()) << "core/ outside core/torch/ must build without LibTorch:" << joined(bad);
}

TEST(Layout, ArrowsPointDown) {
  struct Rule {
    std::string folder;
    std::vector<std::string> never;
  };
  const std::vector<Rule> rules = {
      {"core", {"envs/", "datasets/", "rl/", "algorithms/", "distributed/", "apps/"}},
      {"envs", {"datasets/", "rl/", "algorithms/", "distributed/", "apps/"}},
      {"datasets", {"envs/", "rl/", "algorithms/", "distributed/", "apps/"}},
      {"rl", {"algorithms/", "distributed/", "apps/"}},
      {"algorithms", {"distributed/", "apps/"}},
  };
  for (const auto& rule : rules) {
    const auto bad = violations(rule.folder, [&](const Include& inc) {
      return std::any_of(rule.never.begin(), rule.never.end(),
                         [&](const std::string& above) { return starts_with(inc.target, above); });
    });
    EXPECT_TRUE(bad.empty()) << rule.folder << "/ includes a layer it must not (docs/architecture.md):" << joined(bad);
  }
}

}  // namespace
}  // namespace rlzoo
