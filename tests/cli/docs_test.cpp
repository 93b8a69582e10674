// The committed reference pages are what the binary prints: docs/cli.md is `rlzoo docs cli`,
// docs/presets.md is `rlzoo docs presets`. A command, option, preset key, hyperparameter, env
// keyword argument or wrapper argument that is missing from them, or that has no description,
// fails here by name; so does a preset under configs/ that uses a key the reference lacks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <yaml-cpp/yaml.h>

#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

namespace fs = std::filesystem;

const char* const kRegenerate =
    "Regenerate the pages with scripts/gen-docs (or: build/apps/rlzoo docs cli > docs/cli.md; "
    "build/apps/rlzoo docs presets > docs/presets.md) and review the diff.";

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The things a page documents: its headings and table rows, each with the heading it is under
// ("## rlzoo train | `--seed` | INT | ..."), so that a row moved to another command differs.
std::vector<std::string> items_of(const std::string& text) {
  std::vector<std::string> items;
  std::string heading;
  for (const auto& line : lines_of(text)) {
    if (line.rfind("#", 0) == 0) {
      heading = line;
      items.push_back(line);
    } else if (line.rfind("|", 0) == 0 && line.rfind("|---", 0) != 0) {
      items.push_back(heading + " " + line);
    }
  }
  return items;
}

std::string listed(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += "\n  " + item;
  return out;
}

// Compares the committed page with what `rlzoo docs <page>` prints. A build without some
// optional part (LibTorch, MuJoCo, gRPC) prints less than the committed page, which comes from
// a build with every part: there only what it prints must be in the page.
void expect_page_up_to_date(const std::string& page) {
  const auto r = test::run_command(test::cli_quoted() + " docs " + page);
  ASSERT_EQ(r.status, 0) << r.err;
  const fs::path path = fs::path(test::source_dir()) / "docs" / (page + ".md");
  ASSERT_TRUE(fs::exists(path)) << path << " is missing. " << kRegenerate;
  const std::string committed = read_file(path);

  std::vector<std::string> undocumented;
  std::string heading;
  for (const auto& line : lines_of(r.out)) {
    if (line.rfind("#", 0) == 0) heading = line;
    if (line.find("**Undocumented**") != std::string::npos) undocumented.push_back(heading + ": " + line);
  }
  EXPECT_TRUE(undocumented.empty())
      << "`rlzoo docs " << page << "` finds items without a description (give each one: the description "
      << "argument of add_subcommand/add_option/add_flag, the doc of the field in its struct's describe(), an env's "
      << "EnvEntry::describe_kwargs, a wrapper's WrapperDoc):" << listed(undocumented);

  const auto generated_items = items_of(r.out), committed_items = items_of(committed);
  const std::set<std::string> in_generated(generated_items.begin(), generated_items.end());
  const std::set<std::string> in_committed(committed_items.begin(), committed_items.end());
  std::vector<std::string> missing, stale;
  for (const auto& item : generated_items)
    if (!in_committed.count(item)) missing.push_back(item);
  for (const auto& item : committed_items)
    if (!in_generated.count(item)) stale.push_back(item);
  EXPECT_TRUE(missing.empty()) << "docs/" << page << ".md lacks (or has another version of) " << missing.size()
                               << " item(s) that `rlzoo docs " << page << "` prints:" << listed(missing) << "\n"
                               << kRegenerate;
#ifdef RLZOO_DOCS_FULL_BUILD
  EXPECT_TRUE(stale.empty()) << "docs/" << page << ".md has " << stale.size()
                             << " item(s) that `rlzoo docs " << page << "` no longer prints:" << listed(stale) << "\n"
                             << kRegenerate;
  if (missing.empty() && stale.empty()) {
    EXPECT_TRUE(r.out == committed) << "docs/" << page << ".md differs from `rlzoo docs " << page
                                    << "` in its text or order. " << kRegenerate;
  }
#endif
}

TEST(Docs, CliReferenceIsUpToDateAndComplete) { expect_page_up_to_date("cli"); }

TEST(Docs, PresetReferenceIsUpToDateAndComplete) { expect_page_up_to_date("presets"); }

// The capability table is the registry's declarations (item 5 of issue #29).
TEST(Docs, CapabilityTableIsUpToDate) { expect_page_up_to_date("capabilities"); }

TEST(Docs, CliReferenceListsEveryCommand) {
  // The walk itself: commands of each group, nested ones, positionals with their defaults.
  const auto r = test::run_command(test::cli_quoted() + " docs cli");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* heading : {"## rlzoo list", "## rlzoo env info", "## rlzoo bench env", "## rlzoo dataset",
                              "## rlzoo docs cli", "## rlzoo docs presets"})
    EXPECT_THAT(r.out, ::testing::HasSubstr(std::string("\n") + heading + "\n")) << heading;
  EXPECT_THAT(r.out, ::testing::HasSubstr("| `what` | TEXT:{all,envs,algos,presets} | `all` |"));
  EXPECT_THAT(r.out, ::testing::HasSubstr("| `id` | TEXT |  | yes | Env id, e.g. CartPole-v1 |"));
  EXPECT_THAT(r.out, ::testing::Not(::testing::HasSubstr(test::source_dir() + "/")))
      << "a default holds this checkout's path";
}

// The key tables of docs/presets.md: section ("common", "algo ppo", "env CartPole-v1",
// "wrapper record_episodes") -> key -> type.
using KeyTables = std::map<std::string, std::map<std::string, std::string>>;

KeyTables key_tables(const std::string& page) {
  KeyTables tables;
  std::string part, section;
  for (const auto& line : lines_of(page)) {
    if (line.rfind("## ", 0) == 0) {
      part = line.substr(3);
      section = part == "Common keys" ? "common" : "";
    } else if (line.rfind("### ", 0) == 0) {
      const std::string name = line.substr(4);
      section = part == "Algorithm hyperparameters" ? "algo " + name
                : part == "Env keyword arguments"   ? "env " + name
                : part == "Wrappers"                ? "wrapper " + name
                                                    : "";
      if (!section.empty()) tables[section];  // a section without a table: takes no keys
    } else if (!section.empty() && line.rfind("| `", 0) == 0) {
      // | `key` | type | ...
      const auto key_end = line.find("` |", 3);
      const auto type_end = line.find(" |", key_end + 3);
      tables[section][line.substr(3, key_end - 3)] = line.substr(key_end + 4, type_end - key_end - 4);
    }
  }
  return tables;
}

struct KeyCheck {
  const KeyTables& tables;
  std::string file;
  std::vector<std::string> problems;

  // Every key of map (under prefix) must be in the table of section; nested structs recurse.
  void keys(const YAML::Node& map, const std::string& prefix, const std::string& section) {
    auto table = tables.find(section);
    if (table == tables.end()) {
      problems.push_back(fmt::format("{}:{}: docs/presets.md has no section for {}", file, map.Mark().line + 1, section));
      return;
    }
    if (!map.IsMap()) return;
    for (auto it = map.begin(); it != map.end(); ++it) {
      const std::string key = prefix + it->first.as<std::string>();
      const YAML::Node value = it->second;
      const int line = it->first.Mark().line + 1;
      if (section.rfind("env ", 0) == 0 && key == "wrappers") {
        wrappers(value);
        continue;
      }
      auto row = table->second.find(key);
      if (row == table->second.end()) {
        problems.push_back(fmt::format("{}:{}: {} is not documented for {}", file, line, key, section));
        continue;
      }
      if (row->second == "mapping" && value.IsMap()) keys(value, key + ".", section);
      if (row->second == "list of mapping" && value.IsSequence())
        for (const auto& item : value) keys(item, key + "[].", section);
    }
  }

  void wrappers(const YAML::Node& list) {
    if (!list.IsSequence()) return;
    for (const auto& item : list) {
      if (item.IsScalar()) keys(YAML::Node(YAML::NodeType::Map), "", "wrapper " + item.as<std::string>());
      else if (item.IsMap() && item.size() == 1) keys(item.begin()->second, "", "wrapper " + item.begin()->first.as<std::string>());
    }
  }
};

TEST(Docs, PresetFilesUseOnlyDocumentedKeys) {
  const fs::path root = fs::path(test::source_dir());
  const KeyTables tables = key_tables(read_file(root / "docs" / "presets.md"));
  ASSERT_TRUE(tables.count("common")) << "docs/presets.md has no \"## Common keys\" table. " << kRegenerate;
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(root / "configs"))
    if (e.is_regular_file() && e.path().extension() == ".yaml") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  ASSERT_GT(files.size(), 10u);
  std::vector<std::string> problems;
  for (const auto& path : files) {
    KeyCheck check{tables, fs::relative(path, root).string(), {}};
    const YAML::Node preset = YAML::LoadFile(path);
    for (auto it = preset.begin(); it != preset.end(); ++it) {
      const std::string key = it->first.as<std::string>();
      if (key == "hyperparams" && preset["algo"])
        check.keys(it->second, "", "algo " + preset["algo"].as<std::string>());
      if (key == "env_kwargs" && preset["env"]) check.keys(it->second, "", "env " + preset["env"].as<std::string>());
    }
    check.keys(preset, "", "common");
    problems.insert(problems.end(), check.problems.begin(), check.problems.end());
  }
  EXPECT_TRUE(problems.empty()) << "presets under configs/ use keys that docs/presets.md does not document (a typo "
                                << "in the preset, or a page to regenerate: " << kRegenerate << "):"
                                << listed(problems);
}

}  // namespace
}  // namespace rlzoo
