// `rlzoo dataset`: offline episode datasets (docs/datasets.md).
//
//   rlzoo dataset collect --agent RUN_OR_AGENT_DIR (--episodes N | --steps N) --out D [--epsilon e] [--noise s]
//                         [--seed k] [--stochastic]
//   rlzoo dataset collect --env ENV --episodes N --out D [--seed k]      (uniform random policy)
//   rlzoo dataset info D [--json] [--check]
//   rlzoo dataset merge --out D IN1 IN2 ...
//   rlzoo dataset slice IN --out D (--first-steps N | --first-episodes N | --last-episodes N)
//   rlzoo dataset import FILE.hdf5 --out D [--env ENV]                   (D4RL or Minari layout)
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <yaml-cpp/yaml.h>

#include "datasets/collect.h"
#include "datasets/dataset_reader.h"
#include "datasets/hdf5_import.h"
#include "datasets/merge.h"
#include "datasets/slice.h"
#include "apps/cli_checks.h"
#include "apps/commands.h"
#include "core/checkpoint/manifest.h"
#include "core/env/env_purpose.h"
#include "core/registry/env_registry.h"
#include "core/spaces/space_json.h"
#ifdef RLZOO_WITH_TORCH
#include "rl/agent.h"
#include "rl/nets/observation.h"
#endif

namespace rlzoo::cli {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

struct CollectArgs {
  std::string agent, env, out;
  std::int64_t episodes = 0, steps = 0;
  double epsilon = 0.0, noise = 0.0;
  std::uint64_t seed = 0;
  bool stochastic = false, overwrite = false;
};

struct Summary {
  double mean = 0, std = 0, min = 0, max = 0;
};

template <class T>
Summary summarize(const std::vector<T>& v) {
  Summary s;
  if (v.empty()) return s;
  const double n = static_cast<double>(v.size());
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / n;
  double sq = 0;
  for (T x : v) sq += (static_cast<double>(x) - s.mean) * (static_cast<double>(x) - s.mean);
  s.std = std::sqrt(sq / n);
  s.min = static_cast<double>(*std::min_element(v.begin(), v.end()));
  s.max = static_cast<double>(*std::max_element(v.begin(), v.end()));
  return s;
}

std::string return_line(const data::DatasetInfo& info) {
  const Summary r = summarize(info.returns);
  return fmt::format("return {:.2f} +/- {:.2f} (min {:.2f}, max {:.2f})", r.mean, r.std, r.min, r.max);
}

#ifdef RLZOO_WITH_TORCH
std::string yaml_text(const YAML::Node& node) {
  if (!node || node.IsNull()) return "";
  YAML::Emitter e;
  e << YAML::Flow << node;
  return e.c_str();
}

// A saved agent as a collection policy: deterministic (or sampled) actions, a recurrent state
// carried through each episode and started afresh at its first observation.
class AgentPolicy : public data::CollectPolicy {
 public:
  AgentPolicy(Agent& agent, bool stochastic) : agent_(agent) { options_.deterministic = !stochastic; }

  void seed(std::uint64_t seed) override { torch::manual_seed(seed); }

  void act(const Env& env, ConstBytes observation, bool episode_start, Bytes action) override {
    if (episode_start) options_.recurrent_state = torch::Tensor();
    const auto mask = env.action_mask();
    if (!mask.empty())
      options_.action_mask = torch::from_blob(const_cast<std::uint8_t*>(mask.data()),
                                              {1, static_cast<std::int64_t>(mask.size())}, torch::kUInt8)
                                 .to(torch::kBool);
    ActResult out = agent_.act_with_state(
        observation_tensors(env.observation_space(), observation.data(), 1, /*copy=*/true), options_);
    options_.recurrent_state = std::move(out.recurrent_state);
    const Space& space = env.action_space();
    const torch::Tensor a = out.actions.reshape({-1}).to(torch_dtype(space.dtype())).contiguous();
    if (a.nbytes() != action.size())
      throw UserError(fmt::format("{} gave an action of {} values; the action space {} has {}", agent_.algorithm(),
                                  a.numel(), space.describe(), space.numel()));
    std::memcpy(action.data(), a.data_ptr(), action.size());
  }

 private:
  Agent& agent_;
  ActOptions options_;
};
#endif

// Runs the collection into a writer; a failure leaves no dataset.json behind.
void collect_into(Env& env, data::CollectPolicy& policy, const CollectArgs& a, json source) {
  data::CollectOptions options;
  options.episodes = a.episodes;
  options.steps = a.steps;
  options.epsilon = a.epsilon;
  options.noise = a.noise;
  options.seed = a.seed;
  data::check_collect_options(env, options);  // before the output directory is made
  data::WriterOptions writer_options;
  writer_options.overwrite = a.overwrite;
  data::DatasetWriter writer(a.out, env.id(), env.observation_space(), env.action_space(), std::move(source),
                             writer_options);
  try {
    data::collect_episodes(env, policy, options, writer);
    writer.close();
  } catch (...) {
    writer.abandon();
    throw;
  }
  const data::DatasetInfo& info = writer.info();
  fmt::print("collected {} episodes ({} steps) on {} into {}: {}\n", info.episodes, info.steps, env.id(),
             a.out, return_line(info));
}

void run_collect(const CollectArgs& a, const std::string& command_line) {
  if (a.agent.empty() == a.env.empty())
    throw UserError("dataset collect: give either --agent RUN_OR_AGENT_DIR or --env ENV (random policy)");
  json source = {{"command", command_line},
                 {"created", checkpoint::utc_timestamp()},
                 {"rlzoo_version", RLZOO_VERSION},
                 {"seed", a.seed},
                 {"episodes", a.episodes},
                 {"steps", a.steps}};
  if (!a.env.empty()) {
    if (a.stochastic || a.epsilon > 0 || a.noise > 0)
      throw UserError("dataset collect --env uses a uniform random policy; --stochastic, --epsilon and --noise "
                      "apply to --agent");
    auto env = make_env(a.env);
    source["policy"] = "random";
    data::RandomPolicy random;
    collect_into(*env, random, a, std::move(source));
    return;
  }
#ifdef RLZOO_WITH_TORCH
  // The agent's env_kwargs may name record_episodes (it recorded its training): the envs made
  // here are not training envs, and the dataset they feed is --out.
  EnvPurposeScope not_training(EnvPurpose::evaluation);
  auto agent = load_agent(a.agent);
  agent->set_progress_bar(false);
  auto env = make_env(agent->preset().env, agent->preset().env_kwargs, ConfigContext("env_kwargs"));
  source["policy"] = "agent";
  source["agent"] = fs::absolute(a.agent).string();
  source["algorithm"] = agent->algorithm();
  source["agent_timesteps"] = agent->num_timesteps();
  source["env_kwargs"] = yaml_text(agent->preset().env_kwargs);
  source["deterministic"] = !a.stochastic;
  source["epsilon"] = a.epsilon;
  source["noise"] = a.noise;
  AgentPolicy policy(*agent, a.stochastic);
  collect_into(*env, policy, a, std::move(source));
#else
  throw UserError("dataset collect --agent: this rlzoo was built without LibTorch; --env ENV collects with a random policy");
#endif
}

json info_json(const data::DatasetInfo& info) {
  json j = {{"dir", info.dir.string()},
            {"env", info.env},
            {"observation_space", space_to_json(info.observation_space)},
            {"action_space", space_to_json(info.action_space)},
            {"source", info.source},
            {"episodes", info.episodes},
            {"steps", info.steps},
            {"chunks", info.chunks.size()},
            {"return", nullptr},
            {"length", nullptr}};
  if (info.episodes > 0) {
    const Summary r = summarize(info.returns), l = summarize(info.lengths);
    j["return"] = {{"mean", r.mean}, {"std", r.std}, {"min", r.min}, {"max", r.max}};
    j["length"] = {{"mean", l.mean}, {"min", l.min}, {"max", l.max}};
  }
  return j;
}

void run_info(const std::string& dir, bool as_json, bool check) {
  const data::DatasetInfo info = data::read_manifest(dir);
  // Reading every record checks the framing, the CRCs and the sizes; the first problem throws.
  if (check) data::DatasetReader(dir).for_each([](std::int64_t, data::EpisodeData&&) {});
  if (as_json) {
    fmt::print("{}\n", info_json(info).dump());
    return;
  }
  fmt::print("dataset:           {}\n", dir);
  fmt::print("env:               {}\n", info.env.empty() ? "(none)" : info.env);
  fmt::print("observation space: {}\n", info.observation_space.describe());
  fmt::print("action space:      {}\n", info.action_space.describe());
  fmt::print("episodes:          {}\n", info.episodes);
  fmt::print("steps:             {}\n", info.steps);
  fmt::print("chunks:            {}\n", info.chunks.size());
  if (info.episodes > 0) {
    const Summary r = summarize(info.returns), l = summarize(info.lengths);
    fmt::print("return:            mean {:.2f} +/- {:.2f}, min {:.2f}, max {:.2f}\n", r.mean, r.std, r.min, r.max);
    fmt::print("length:            mean {:.1f}, min {}, max {}\n", l.mean, static_cast<std::int64_t>(l.min),
               static_cast<std::int64_t>(l.max));
  }
  fmt::print("source:\n");
  for (const auto& [key, value] : info.source.items())
    fmt::print("  {}: {}\n", key, value.is_string() ? value.get<std::string>() : value.dump());
}

void run_merge(const std::string& out, const std::vector<std::string>& inputs, bool overwrite,
               const std::string& command_line) {
  data::MergeOptions options;
  options.overwrite = overwrite;
  options.source = {{"command", command_line}, {"rlzoo_version", RLZOO_VERSION}};
  data::merge_datasets(out, std::vector<fs::path>(inputs.begin(), inputs.end()), options);
  const data::DatasetInfo info = data::read_manifest(out);
  fmt::print("merged {} datasets ({} episodes, {} steps) into {}: {}\n", inputs.size(), info.episodes, info.steps,
             out, return_line(info));
}

struct SliceArgs {
  std::string in, out;
  std::optional<std::int64_t> first_steps, first_episodes, last_episodes;
  bool overwrite = false;
};

void run_slice(const SliceArgs& a, const std::string& command_line) {
  const int given = a.first_steps.has_value() + a.first_episodes.has_value() + a.last_episodes.has_value();
  if (given != 1)
    throw UserError("dataset slice: give exactly one of --first-steps N, --first-episodes N, --last-episodes N");
  data::SliceOptions options;
  options.by = a.first_steps ? data::SliceBy::first_steps
               : a.first_episodes ? data::SliceBy::first_episodes
                                  : data::SliceBy::last_episodes;
  options.n = a.first_steps ? *a.first_steps : a.first_episodes ? *a.first_episodes : *a.last_episodes;
  options.writer.overwrite = a.overwrite;
  options.source = {{"command", command_line}, {"rlzoo_version", RLZOO_VERSION}};
  const data::DatasetInfo info = data::slice_dataset(a.in, a.out, options);
  const std::int64_t first = info.source["slice"]["first_episode"].get<std::int64_t>();
  fmt::print("sliced episodes {} .. {} ({} episodes, {} steps) of {} into {}: {}\n", first,
             first + info.episodes - 1, info.episodes, info.steps, a.in, a.out, return_line(info));
}

void run_import(const std::string& file, const std::string& out, const std::string& env, bool overwrite,
                const std::string& command_line) {
  data::ImportOptions options;
  options.env_id = env;
  options.writer.overwrite = overwrite;
  options.source = {{"command", command_line}, {"rlzoo_version", RLZOO_VERSION}};
  const data::DatasetInfo info = data::import_hdf5(file, out, options);
  fmt::print("imported {} episodes ({} steps, {} layout) from {} into {}: {}\n", info.episodes, info.steps,
             info.source.value("layout", "?"), file, out, return_line(info));
}

}  // namespace

void add_dataset_commands(CLI::App& app, const std::string& command_line) {
  auto* dataset = app.add_subcommand("dataset", "Offline episode datasets: collect, inspect, merge, slice, import");
  dataset->require_subcommand(1);

  auto c = std::make_shared<CollectArgs>();
  auto* collect = dataset->add_subcommand("collect", "Record episodes of a saved agent (or a random policy) into a dataset");
  collect->add_option("--agent", c->agent, "Agent or run directory (as for rlzoo eval)");
  collect->add_option("--env", c->env, "Collect with a uniform random policy on this env instead of an agent");
  collect->add_option("--episodes,-n", c->episodes, "Episodes (at most, with --steps)")->check(positive());
  collect->add_option("--steps", c->steps, "Whole episodes until at least this many steps")->check(positive());
  collect->add_option("--out,-o", c->out, "Dataset directory to create")->required();
  collect->add_option("--epsilon", c->epsilon, "Probability of a uniform random action instead of the agent's")
      ->check(CLI::Range(0.0, 1.0));
  collect->add_option("--noise", c->noise, "Std of Gaussian noise added to Box actions (then clipped)")
      ->check(non_negative());
  collect->add_option("--seed", c->seed, "Seed of the env resets, the agent's sampling and epsilon/noise");
  collect->add_flag("--stochastic", c->stochastic, "Sample the agent's actions instead of taking the most likely");
  collect->add_flag("--overwrite", c->overwrite, "Replace a dataset already in --out");
  collect->callback([c, command_line] { run_collect(*c, command_line); });

  auto info_dir = std::make_shared<std::string>();
  auto info_json_flag = std::make_shared<bool>(false);
  auto* info = dataset->add_subcommand("info", "Show a dataset's env, spaces, source and return/length statistics");
  info->add_option("dir", *info_dir, "Dataset directory")->required();
  info->add_flag("--json", *info_json_flag, "One JSON object instead of text");
  auto info_check = std::make_shared<bool>(false);
  info->add_flag("--check", *info_check, "Read every episode first: framing, CRCs and sizes (fails on the first problem)");
  info->callback([=] { run_info(*info_dir, *info_json_flag, *info_check); });

  auto merge_out = std::make_shared<std::string>();
  auto merge_inputs = std::make_shared<std::vector<std::string>>();
  auto merge_overwrite = std::make_shared<bool>(false);
  auto* merge = dataset->add_subcommand("merge", "Concatenate datasets of the same spaces (chunk files are copied as they are)");
  merge->add_option("--out,-o", *merge_out, "Dataset directory to create")->required();
  merge->add_option("inputs", *merge_inputs, "Input dataset directories, in order")->required();
  merge->add_flag("--overwrite", *merge_overwrite, "Replace a dataset already in --out");
  merge->callback([=] { run_merge(*merge_out, *merge_inputs, *merge_overwrite, command_line); });

  auto sl = std::make_shared<SliceArgs>();
  auto* slice = dataset->add_subcommand(
      "slice", "Copy a prefix or suffix of a dataset's episodes into a new dataset (e.g. a recording up to step N)");
  slice->add_option("in", sl->in, "Input dataset directory")->required();
  slice->add_option("--out,-o", sl->out, "Dataset directory to create")->required();
  auto* first_steps = slice->add_option("--first-steps", sl->first_steps,
                                        "The first episodes whose lengths sum to at most N steps")
                          ->check(positive());
  auto* first_episodes =
      slice->add_option("--first-episodes", sl->first_episodes, "The first N episodes")->check(positive());
  auto* last_episodes =
      slice->add_option("--last-episodes", sl->last_episodes, "The last N episodes")->check(positive());
  first_steps->excludes(first_episodes)->excludes(last_episodes);
  first_episodes->excludes(last_episodes);
  slice->add_flag("--overwrite", sl->overwrite, "Replace a dataset already in --out");
  slice->callback([sl, command_line] { run_slice(*sl, command_line); });

  auto import_file = std::make_shared<std::string>();
  auto import_out = std::make_shared<std::string>();
  auto import_env = std::make_shared<std::string>();
  auto import_overwrite = std::make_shared<bool>(false);
  auto* import = dataset->add_subcommand("import", "Convert an HDF5 file (D4RL or Minari layout) into a dataset");
  import->add_option("file", *import_file, "HDF5 file")->required();
  import->add_option("--out,-o", *import_out, "Dataset directory to create")->required();
  import->add_option("--env", *import_env, "Env whose spaces the data has (default: float32 Boxes of the data's shapes)");
  import->add_flag("--overwrite", *import_overwrite, "Replace a dataset already in --out");
  import->callback([=] { run_import(*import_file, *import_out, *import_env, *import_overwrite, command_line); });
}

}  // namespace rlzoo::cli
