// `rlzoo train`, `rlzoo eval`, `rlzoo enjoy`: the high-level API from the command line.
//
//   rlzoo train ppo CartPole-v1 [--set hyperparams.n_envs=4] [--seed 3] [--run-dir D]
//   rlzoo train --preset configs/ppo/CartPole-v1.yaml [--set k=v ...]
//   rlzoo train --resume D
//   rlzoo eval D [--episodes 20] [--stochastic] [--set key=value ...]
//   rlzoo enjoy D [--episodes 5] [--record FRAMES_DIR [--size 640 480]] [--render]
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <optional>
#include <spdlog/spdlog.h>

#include "rl/agent.h"
#include "rl/agent_checkpoint.h"
#include "rl/algorithm_registry.h"
#include "apps/app_paths.h"
#include "apps/cli_checks.h"
#include "apps/commands.h"
#include "apps/train_command.h"
#include "core/checkpoint/manager.h"
#include "core/common/strings.h"
#include "core/config/yaml_io.h"
#include "core/common/png_writer.h"
#include "core/env/env_purpose.h"
#include "core/runtime/stop.h"
#ifdef RLZOO_WITH_MUJOCO
#include "envs/mujoco/mujoco_env.h"
#include "envs/mujoco/offscreen_renderer.h"
#endif

#include <csignal>

namespace rlzoo::cli {

namespace {

namespace fs = std::filesystem;


void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw UserError(fmt::format("{}: cannot be written", path.string()));
}

void train_with_callbacks(Agent& agent, const std::string& run_dir, std::int64_t remaining) {
  const PresetConfig& preset = agent.preset();
  CallbackList callbacks;
  const std::int64_t eval_every = preset.eval.every;
  if (eval_every > 0)
    callbacks.add(std::make_unique<EvalCallback>(eval_every, preset.eval.episodes,
                                                 (fs::path(run_dir) / "best").string()));
  const std::int64_t ckpt_every = preset.checkpoint.every;
  if (ckpt_every > 0)
    callbacks.add(std::make_unique<CheckpointCallback>((fs::path(run_dir) / "checkpoints").string(), ckpt_every,
                                                       preset.checkpoint.keep));
  agent.set_log_dir((fs::path(run_dir) / "logs").string());
  {
    // SIGINT/SIGTERM: learn() stops after the current step (actors after theirs), callbacks
    // see on_training_end (the CheckpointCallback saves), logs are flushed.
    SignalStop signals;
    if (remaining > 0) agent.learn(remaining, &callbacks);
  }
  if (const int sig = stop_signal()) {
    const fs::path ckpts = fs::path(run_dir) / "checkpoints";
    if (ckpt_every <= 0)
      CheckpointManager(ckpts, preset.checkpoint.keep).save(agent.num_timesteps(), agent.checkpoint());
    spdlog::warn("{} at {} steps; checkpoint saved in {}; continue with: rlzoo train --resume {}",
                 sig == SIGINT ? "interrupted (SIGINT)" : "terminated (SIGTERM)", agent.num_timesteps(), ckpts.string(),
                 run_dir);
    throw Interrupted{sig};
  }
  agent.save((fs::path(run_dir) / "final").string());
  spdlog::info("trained {} steps; final agent saved in {}", agent.num_timesteps(), (fs::path(run_dir) / "final").string());
}

}  // namespace

std::string next_run_dir(const std::string& algo, const std::string& env) {
  const fs::path base = fs::path("runs") / algo;
  int n = 0;
  if (fs::is_directory(base))
    for (const auto& e : fs::directory_iterator(base)) {
      const std::string name = e.path().filename().string();
      if (name.rfind(env + "_", 0) == 0) {
        try {
          n = std::max(n, std::stoi(name.substr(env.size() + 1)));
        } catch (...) {
        }
      }
    }
  return (base / fmt::format("{}_{}", env, n + 1)).string();
}

namespace {

// --preset's file: the path as given, else a shipped preset by name (ppo/CartPole-v1, with or
// without .yaml, or configs/ppo/CartPole-v1.yaml as the docs write it), found from any folder.
std::string preset_file(const std::string& given) {
  if (fs::is_regular_file(given)) return given;
  // configs/ppo/CartPole-v1.yaml as the docs write it, given from outside the checkout.
  const std::string name = given.rfind("configs/", 0) == 0 ? given.substr(8) : given;
  for (const fs::path candidate : {presets_dir() / name, presets_dir() / (name + ".yaml")})
    if (fs::is_regular_file(candidate)) return candidate.string();
  throw UserError(fmt::format("--preset {}: no such file, and no shipped preset of that name in {} (names look like "
                              "ppo/CartPole-v1; rlzoo list presets)",
                              given, presets_dir().string()));
}

}  // namespace

YAML::Node resolved_train_preset(const TrainOptions& o, ConfigContext& ctx) {
  YAML::Node root;
  if (!o.preset.empty()) {
    if (!o.algo.empty() || !o.env.empty())
      throw UserError("give either a preset (--preset) or ALGO ENV, not both (override keys with --set)");
    if (o.no_preset) throw UserError("give either --preset or --no-preset, not both");
    const std::string file = preset_file(o.preset);
    root = load_yaml_file(file);
    ctx = ConfigContext(file);
  } else {
    if (o.algo.empty() || o.env.empty()) throw UserError("train needs ALGO ENV or --preset FILE (or --resume DIR)");
    const fs::path shipped = presets_dir() / o.algo / (o.env + ".yaml");
    if (!o.no_preset && fs::is_regular_file(shipped)) {
      root = load_yaml_file(shipped.string());
      ctx = ConfigContext(shipped.string());
      if (!root["algo"] || root["algo"].as<std::string>() != o.algo || !root["env"] ||
          root["env"].as<std::string>() != o.env)
        throw UserError(fmt::format("{}: the shipped preset for {} {} names another algo or env", shipped.string(),
                                    o.algo, o.env));
      spdlog::info("using the shipped preset {} (tuned; --no-preset for {}'s defaults)", shipped.string(), o.algo);
    } else {
      root = YAML::Node(YAML::NodeType::Map);
      root["algo"] = o.algo;
      root["env"] = o.env;
      ctx = ConfigContext(fmt::format("rlzoo train {} {}", o.algo, o.env));
    }
  }
  for (const auto& s : o.sets) apply_override(root, s, ctx);
  if (o.seed) apply_override(root, fmt::format("seed={}", *o.seed), ctx);
  if (o.seed_offset != 0) {
    const std::int64_t seed = root["seed"] ? root["seed"].as<std::int64_t>() : 0;
    apply_override(root, fmt::format("seed={}", seed + o.seed_offset), ctx);
  }
  return root;
}

namespace {

// N of `--resume D --set n_timesteps=N`, the one key a resumed run takes; nullopt without --set.
std::optional<std::int64_t> extended_timesteps(const std::vector<std::string>& sets) {
  std::optional<std::int64_t> n;
  for (const auto& s : sets) {
    const std::string key = s.substr(0, s.find('='));
    if (key != "n_timesteps" || s.size() == key.size())
      throw UserError(fmt::format("--resume continues a run as it was configured; --set {}: only n_timesteps=N (a "
                                  "larger budget, to train longer) is taken",
                                  s));
    const auto v = parse_int64(s.substr(key.size() + 1));
    if (!v || *v < 1) throw UserError(fmt::format("--set {}: n_timesteps must be a whole number >= 1", s));
    n = v;
  }
  return n;
}

void resume_train(TrainOptions& o) {
  if (!o.preset.empty() || !o.algo.empty() || o.no_preset)
    throw UserError("--resume continues a run as it was configured; it takes no preset, algorithm or env (only --set "
                    "n_timesteps=N, to train longer)");
  const std::optional<std::int64_t> extend = extended_timesteps(o.sets);
  const std::string dir = resolve_agent_dir(o.resume);
  check_resume_config(o.resume, CheckpointReader::open(dir));
  // The run's budget is its preset.yaml's (an extended run's is larger than its checkpoints').
  const fs::path run_preset = fs::path(o.resume) / "preset.yaml";
  std::vector<std::string> overrides;
  if (extend)
    overrides.push_back(fmt::format("n_timesteps={}", *extend));
  else if (fs::exists(run_preset))
    if (const YAML::Node n = load_yaml_file(run_preset.string())["n_timesteps"]) overrides.push_back("n_timesteps=" + n.Scalar());
  auto agent = load_agent(dir, overrides);
  if (extend) {
    if (*extend < agent->num_timesteps())
      throw UserError(fmt::format("--set n_timesteps={}: the run is at {} steps already; give a larger budget", *extend,
                                  agent->num_timesteps()));
    if (fs::exists(run_preset)) {  // later resumes go on to the new budget
      YAML::Node preset = load_yaml_file(run_preset.string());
      preset["n_timesteps"] = *extend;
      YAML::Emitter e;
      e << preset;
      write_text(run_preset, std::string(e.c_str()) + "\n");
    }
  }
  if (o.prepare) o.prepare(*agent);
  const auto total = agent->preset_timesteps();
  spdlog::info("{} {} at {} of {} steps", extend ? "extending" : "resuming", o.resume, agent->num_timesteps(), total);
  agent->set_progress_bar(!o.quiet);
  train_with_callbacks(*agent, o.resume, total - agent->num_timesteps());
}

}  // namespace

void run_train(TrainOptions& o) {
  if (!o.resume.empty()) return resume_train(o);
  ConfigContext ctx("<command line>");
  const YAML::Node root = resolved_train_preset(o, ctx);
  // Validate everything before anything is written.
  auto agent = make_agent_from_yaml(root, ctx);
  if (o.prepare) o.prepare(*agent);
  agent->set_progress_bar(!o.quiet);
  const std::string run_dir = o.run_dir.empty() ? next_run_dir(agent->preset().algo, agent->preset().env) : o.run_dir;
  if (fs::exists(fs::path(run_dir) / "preset.yaml"))
    throw UserError(fmt::format("{} already holds a run; use --resume {} or another --run-dir", run_dir, run_dir));
  fs::create_directories(run_dir);
  YAML::Emitter e;
  e << agent->config();
  write_text(fs::path(run_dir) / "preset.yaml", std::string(e.c_str()) + "\n");
  write_text(fs::path(run_dir) / "command.txt", o.command_line + "\n");
  spdlog::info("run directory: {}", run_dir);
  train_with_callbacks(*agent, run_dir, agent->preset_timesteps());
}

// Writes every frame of the episodes as <record_dir>/ep<episode>_<step>.png (MuJoCo envs).
namespace {

Agent::EvalObserver frame_recorder(const std::string& record_dir, int width, int height) {
#ifdef RLZOO_WITH_MUJOCO
  if (auto why = OffscreenRenderer::unavailable_reason())
    throw UserError("--record: offscreen rendering is not available here: " + *why);
  fs::create_directories(record_dir);
  auto renderer = std::make_shared<std::unique_ptr<OffscreenRenderer>>();
  auto rgb = std::make_shared<std::vector<std::uint8_t>>();
  return [=](const Env& env, int episode, std::int64_t step) {
    const auto* mj = dynamic_cast<const MujocoEnv*>(&env);
    if (!mj) throw UserError(fmt::format("--record: {} is not a MuJoCo env; frames can be recorded for MuJoCo envs", env.id()));
    if (!*renderer) {
      *renderer = std::make_unique<OffscreenRenderer>(mj->model(), width, height);
      spdlog::info("recording frames to {} ({}x{}, {})", record_dir, width, height, (*renderer)->description());
    }
    rgb->resize(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3);
    (*renderer)->render(mj->data(), *rgb);
    write_png((fs::path(record_dir) / fmt::format("ep{:03}_{:05}.png", episode, step)).string(), width, height, *rgb);
  };
#else
  (void)width, (void)height;
  throw UserError("--record " + record_dir + ": this build has no MuJoCo (frames are recorded for MuJoCo envs)");
#endif
}

// Prints every step of the episodes as text (envs that draw themselves as text: grid worlds).
Agent::EvalObserver text_renderer() {
  return [](const Env& env, int episode, std::int64_t step) {
    const auto* t = dynamic_cast<const TextRender*>(&env);
    if (!t) throw UserError(fmt::format("--render: {} cannot draw itself as text (grid worlds can)", env.id()));
    fmt::print("episode {} step {}:\n{}\n", episode + 1, step, t->render_text());
  };
}

void run_eval(const std::string& dir, int episodes, bool stochastic, bool per_episode,
              const std::string& record_dir = "", int width = 640, int height = 480, bool render = false,
              const std::vector<std::string>& sets = {}, std::optional<double> target_return = std::nullopt) {
  if (render && !record_dir.empty()) throw UserError("give either --render or --record, not both");
  // Every env made here is an evaluation env, the training envs an agent restores included: a
  // run recorded with record_episodes is evaluated without touching its recording.
  const EnvPurposeScope evaluation(EnvPurpose::evaluation);
  auto agent = load_agent(dir, sets);
  if (target_return) {
    if (agent->algorithm() != "dt")
      throw UserError(fmt::format("--target-return: {} is a {} agent; only return-conditioned agents (dt) take a "
                                  "target return",
                                  dir, agent->algorithm()));
    auto with_target = sets;
    with_target.push_back(fmt::format("hyperparams.target_return={}", *target_return));
    agent = load_agent(dir, with_target);
  }
  agent->set_progress_bar(false);
  const Agent::EvalObserver observer = render                ? text_renderer()
                                       : record_dir.empty() ? Agent::EvalObserver{}
                                                            : frame_recorder(record_dir, width, height);
  const EvalResult r = agent->evaluate(episodes, !stochastic, 1'000'000, observer);
  if (per_episode)
    for (std::size_t i = 0; i < r.returns.size(); ++i)
      fmt::print("episode {}: return {:.2f}, length {}\n", i + 1, r.returns[i], r.lengths[i]);
  fmt::print("{} {} on {}: mean return {:.2f} +/- {:.2f} over {} episodes (mean length {:.1f})\n", agent->algorithm(),
             dir, agent->env_spec().id, r.mean_return(), r.std_return(), episodes, r.mean_length());
  for (const auto& [name, value] : agent->eval_metrics()) fmt::print("  {}: {:.4f}\n", name, value);
}

}  // namespace

std::shared_ptr<TrainOptions> add_train_commands(CLI::App& app, const std::string& command_line) {
  auto o = std::make_shared<TrainOptions>();
  o->command_line = command_line;
  auto* train = app.add_subcommand("train", "Train an agent: ALGO ENV, or --preset FILE, or --resume DIR");
  train->add_option("algo", o->algo, "Algorithm id (rlzoo list algos)");
  train->add_option("env", o->env, "Env id (rlzoo list envs)");
  train->add_option("--preset,-p", o->preset,
                    "Preset YAML file, or a shipped preset's name (ppo/CartPole-v1); ALGO ENV alone uses the shipped "
                    "preset for the pair when there is one");
  train->add_flag("--no-preset", o->no_preset, "With ALGO ENV: the algorithm's defaults, not the shipped preset");
  one_value_per_use(train->add_option("--set,-s", o->sets, "Override a preset key, one KEY=VALUE per --set (repeat it): --set hyperparams.learning_rate=0.001"));
  train->add_option("--seed", o->seed, "Seed (overrides the preset's)");
  train->add_option("--run-dir", o->run_dir, "Run directory (default runs/<algo>/<env>_<N>)");
  train->add_option("--resume", o->resume,
                    "Continue the run in this directory from its latest checkpoint (with --set n_timesteps=N: "
                    "train a finished run on to N steps)");
  train->add_flag("--quiet,-q", o->quiet, "No progress bar");
  train->callback([o] { run_train(*o); });

  auto dir = std::make_shared<std::string>();
  auto episodes = std::make_shared<int>(10);
  auto stochastic = std::make_shared<bool>(false);
  auto* eval = app.add_subcommand("eval", "Evaluate a saved agent or run: mean +/- std return");
  eval->add_option("dir", *dir, "Agent or run directory")->required();
  eval->add_option("--episodes,-n", *episodes, "Episodes")->check(positive());
  eval->add_flag("--stochastic", *stochastic, "Sample actions instead of taking the most likely");
  auto sets = std::make_shared<std::vector<std::string>>();
  one_value_per_use(eval->add_option("--set,-s", *sets,
                   "Override a saved setting for this evaluation, one KEY=VALUE per --set (repeat it): --set hyperparams.likelihood_std=0.3"));
  auto target = std::make_shared<std::optional<double>>();
  eval->add_option("--target-return", *target, "The return a return-conditioned agent (dt) is asked to achieve");
  eval->callback([=] { run_eval(*dir, *episodes, *stochastic, false, "", 640, 480, false, *sets, *target); });

  auto edir = std::make_shared<std::string>();
  auto eepisodes = std::make_shared<int>(5);
  auto* enjoy = app.add_subcommand("enjoy", "Run a saved agent and print each episode's return");
  enjoy->add_option("dir", *edir, "Agent or run directory")->required();
  enjoy->add_option("--episodes,-n", *eepisodes, "Episodes")->check(positive());
  auto record = std::make_shared<std::string>();
  auto size = std::make_shared<std::vector<int>>(std::vector<int>{640, 480});
  enjoy->add_option("--record", *record, "Write every frame as PNG into this directory (MuJoCo envs, offscreen)");
  enjoy->add_option("--size", *size, "Frame width and height for --record")->expected(2)->check(positive());
  auto render = std::make_shared<bool>(false);
  enjoy->add_flag("--render", *render, "Print every step as text (grid worlds)");
  auto etarget = std::make_shared<std::optional<double>>();
  enjoy->add_option("--target-return", *etarget, "The return a return-conditioned agent (dt) is asked to achieve");
  enjoy->callback(
      [=] { run_eval(*edir, *eepisodes, false, true, *record, (*size)[0], (*size)[1], *render, {}, *etarget); });
  return o;
}

}  // namespace rlzoo::cli
