// `rlzoo export RUN_DIR --format torchscript OUT.pt`: a saved agent's deterministic policy as a
// file that C++ (torch::jit::load) and Python (torch.jit.load) load without rlzoo. The written
// file is loaded back and compared with the agent's act() before the command reports success.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "rl/agent.h"
#include "rl/export/torchscript_export.h"
#include "apps/cli_checks.h"
#include "apps/commands.h"
#include "core/common/error.h"
#include "core/common/strings.h"
#include "core/env/env_purpose.h"

namespace rlzoo::cli {

namespace {

const std::vector<std::string>& export_formats() {
  static const std::vector<std::string> formats{"torchscript"};
  return formats;
}

void run_export(const std::string& dir, const std::string& format, const std::string& out, std::int64_t check,
                const std::string& samples) {
  const auto& formats = export_formats();
  if (std::find(formats.begin(), formats.end(), format) == formats.end())
    throw UserError(fmt::format("--format {}: unknown export format{}; formats: {}", format,
                                did_you_mean(format, formats), join(formats)));
  if (!samples.empty() && check == 0) throw UserError("--samples " + samples + ": needs --check > 0 (its observations)");
  // Loading an agent makes its training envs: they are marked as evaluation envs (no recording).
  const EnvPurposeScope evaluation(EnvPurpose::evaluation);
  auto agent = load_agent(dir);
  const TorchScriptExport e = export_torchscript(*agent, out);
  fmt::print("wrote {}: the {} policy for {} ({} steps) as TorchScript\nmethods:\n", e.path, agent->algorithm(),
             agent->env_spec().id, agent->num_timesteps());
  for (const auto& m : e.methods) fmt::print("  {}\n      {}\n", m.signature, m.doc);
  if (check > 0) {
    const TorchScriptCheck c = check_torchscript_export(*agent, e.path, check);
    if (!c.passed())
      throw std::runtime_error(fmt::format("the exported policy differs from the agent's act() on {} observations "
                                           "({}: {} actions differ, max abs difference {:g})",
                                           c.observations, join(c.compared), c.action_mismatches, c.max_abs_diff));
    fmt::print("checked: {} equal the agent's act() on {} sampled observations (max abs difference {:g})\n",
               join(c.compared), c.observations, c.max_abs_diff);
    if (!samples.empty()) {
      std::ofstream f(samples);
      f << c.samples.dump() << "\n";
      if (!f.flush()) throw UserError("--samples " + samples + ": cannot write the file");
      fmt::print("wrote {}: those observations with the agent's actions\n", samples);
    }
  }
  fmt::print("load it with torch::jit::load(\"{0}\") in C++ or torch.jit.load(\"{0}\") in Python (docs/export.md)\n",
             e.path);
}

}  // namespace

void add_export_command(CLI::App& app) {
  auto dir = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("torchscript");
  auto check = std::make_shared<std::int64_t>(100);
  auto* cmd = app.add_subcommand("export", "Write a saved agent's policy as a file that C++ and Python load without rlzoo");
  cmd->add_option("dir", *dir, "Agent or run directory (as for rlzoo eval)")->required();
  cmd->add_option("out", *out, "The file to write, e.g. policy.pt")->required();
  cmd->add_option("--format,-f", *format, "Export format: torchscript");
  cmd->add_option("--check", *check,
                  "Compare the written file with the agent's act() on this many sampled observations (0: skip)")
      ->check(non_negative());
  auto samples = std::make_shared<std::string>();
  cmd->add_option("--samples", *samples,
                  "Also write the checked observations and the agent's actions as JSON (to test a loader elsewhere)");
  cmd->callback([=] { run_export(*dir, *format, *out, *check, *samples); });
}

}  // namespace rlzoo::cli
