// `rlzoo learner` and `rlzoo actor`: training with a fleet of actor processes over gRPC
// (docs/distributed.md).
//
//   rlzoo learner --preset configs/ppo/CartPole-v1-fleet.yaml --listen 127.0.0.1:50051
//   rlzoo actor --connect 127.0.0.1:50051            # as many as you like, on any host
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <memory>

#include "rl/agent.h"
#include "rl/algorithm_registry.h"
#include "apps/cli_checks.h"
#include "apps/app_paths.h"
#include "apps/commands.h"
#include "apps/train_command.h"
#include "core/common/error.h"
#include "core/config/yaml_io.h"
#include "core/torch/device.h"
#include "distributed/c10d_reducer.h"
#include "distributed/fleet_actor.h"
#include "distributed/fleet_auth.h"
#include "distributed/fleet_server.h"
#include "distributed/launcher.h"

namespace rlzoo::cli {

namespace {

// --learners/--rank/--rendezvous: several learners averaging gradients over c10d.
struct LearnerGroupCli {
  int learners = 1;
  int rank = 0;
  std::string rendezvous = "127.0.0.1:29500";
};

void add_group_options(CLI::App* cmd, LearnerGroupCli& g) {
  cmd->add_option("--learners", g.learners, "Learner processes averaging gradients (c10d: Gloo on the CPU, NCCL on CUDA)")
      ->check(positive());
  cmd->add_option("--rank", g.rank, "This learner's index, 0..learners-1 (rank 0 hosts the rendezvous)")
      ->check(non_negative());
  cmd->add_option("--rendezvous", g.rendezvous, "host:port where the learners meet (a TCPStore on rank 0)")
      ->default_val(g.rendezvous);
}

// Rank r trains on its own episodes (seed + r); gradients are averaged over the group.
void use_group(const LearnerGroupCli& g, TrainOptions& train) {
  if (g.learners <= 1) return;
  if (g.rank >= g.learners)
    throw UserError(fmt::format("--rank {}: must be below --learners {}", g.rank, g.learners));
  train.seed_offset = g.rank;
  auto previous = train.prepare;
  train.prepare = [g, previous](Agent& agent) {
    if (previous) previous(agent);
    // Refused before the rendezvous (and before the run directory is written).
    if (!agent.capabilities().several_learners)
      throw UserError(fmt::format("--learners {}: algorithm '{}' trains as one learner only (several learners: {})",
                                  g.learners, agent.algorithm(), algorithms_that([](const AlgorithmCapabilities& c) {
                                    return c.several_learners;
                                  })));
    // The backend follows the learners' device: NCCL on CUDA, Gloo on the CPU (c10d_reducer.h).
    C10dOptions options{g.rendezvous, g.rank, g.learners};
    options.device = resolve_device(agent.preset().device);
    agent.set_gradient_reducer(std::make_shared<C10dGradientReducer>(options));
  };
}

struct LearnerCli {
  TrainOptions train;
  LearnerGroupCli group;
  FleetServerOptions server;
  std::string token_file;
  double max_message_mb = 64;
};

struct ActorCli {
  FleetActorOptions actor;
  std::string token_file;
  double max_idle_s = 60;
  double max_message_mb = 64;
};

void add_tls_options(CLI::App* cmd, FleetSecurity& s, bool learner) {
  cmd->add_option("--tls-cert", s.tls_cert,
                  learner ? "PEM certificate chain of the learner (enables TLS)" : "PEM client certificate (mutual TLS)");
  cmd->add_option("--tls-key", s.tls_key, "PEM private key of --tls-cert");
  if (learner)
    cmd->add_option("--tls-client-ca", s.tls_ca, "PEM CA that actors' client certificates must chain to (mutual TLS)");
  else {
    cmd->add_option("--tls-ca", s.tls_ca, "PEM CA that the learner's certificate must chain to (enables TLS)");
    cmd->add_option("--tls-server-name", s.tls_server_name, "Name to verify in the learner's certificate");
  }
}

void run_learner_command(LearnerCli& o) {
  if (!o.token_file.empty()) o.server.security.token = read_token_file(o.token_file);
  o.server.max_message_bytes = static_cast<std::int64_t>(o.max_message_mb * 1024 * 1024);
  auto fleet = std::make_shared<GrpcFleet>(o.server);  // checks address, token and TLS files first
  o.train.prepare = [&](Agent& agent) {
    if (!agent.capabilities().supports(Backend::processes) || !agent.actor_role())
      throw UserError(fmt::format("algorithm '{}' cannot learn from actor processes (these can: {})", agent.algorithm(),
                                  algorithms_that([](const AlgorithmCapabilities& c) {
                                    return c.supports(Backend::processes);
                                  })));
    if (const std::string& b = agent.preset().runtime.backend; b != "auto" && b != "processes")
      throw UserError(fmt::format("rlzoo learner takes its experience from actor processes, but the preset asks for "
                                  "runtime.backend {} (set processes or auto, or train with rlzoo train)",
                                  b));
    if (agent.preset().runtime.actors < 1)
      throw UserError("the learner takes rounds of runtime.actors trajectories: set runtime.actors >= 1 in the preset "
                      "or with --set runtime.actors=N");
    agent.set_remote_fleet(fleet);
  };
  use_group(o.group, o.train);
  run_train(o.train);
}

void run_actor_command(ActorCli& o) {
  if (!o.token_file.empty()) o.actor.security.token = read_token_file(o.token_file);
  o.actor.max_idle_ms = static_cast<std::int64_t>(o.max_idle_s * 1000);
  o.actor.max_message_bytes = static_cast<std::int64_t>(o.max_message_mb * 1024 * 1024);
  const FleetActorResult r = run_fleet_actor(o.actor);
  spdlog::info("actor: {} trajectories taken by the learner, {} not taken", r.trajectories, r.refused);
  if (r.interrupted) throw Interrupted{SIGTERM};
  if (r.gave_up)
    throw UserError(fmt::format("the learner at {} was unreachable for {} s; giving up", o.actor.connect, o.max_idle_s));
}

// `rlzoo train` of a preset with runtime.backend: processes: the run goes to `rlzoo launch`'s
// supervisor (a learner process, or a group with --learners, and runtime.actors actor processes
// on loopback) with the same run directory; the resolved preset and every process's log go to
// <run_dir>/launch/. False when the run does not ask for actor processes.
bool train_with_actor_processes(const TrainOptions& o, const LearnerGroupCli& g) {
  namespace fs = std::filesystem;
  LaunchOptions launch;
  launch.executable = executable_path().string();
  launch.learners = g.learners;
  if (!o.resume.empty()) {
    if (fs::exists(fs::path(o.resume) / "learner0" / "preset.yaml"))
      throw UserError(fmt::format("{} is a run of several learners with actor processes; resume each learner with "
                                  "`rlzoo learner --resume {}/learner<r>` and start its actors with `rlzoo actor`",
                                  o.resume, o.resume));
    const fs::path preset = fs::path(o.resume) / "preset.yaml";
    if (!fs::exists(preset)) return false;  // run_train says what is missing
    const AgentSetup saved = parse_preset(load_yaml_file(preset.string()), ConfigContext(preset.string()));
    if (saved.preset.runtime.backend != "processes") return false;
    if (!o.preset.empty() || !o.algo.empty() || !o.sets.empty() || o.seed)
      throw UserError("--resume continues a run as it was configured; it takes no preset, algorithm, env, --set or --seed");
    launch.resume = true;
    launch.run_dir = o.resume;
    launch.actors = saved.preset.runtime.actors;
  } else {
    ConfigContext ctx("<command line>");
    const YAML::Node root = resolved_train_preset(o, ctx);
    if (parse_preset(root, ctx).preset.runtime.backend != "processes") return false;
    auto agent = make_agent_from_yaml(root, ctx);  // everything validated before a process starts
    launch.actors = agent->preset().runtime.actors;
    launch.run_dir = o.run_dir.empty() ? next_run_dir(agent->preset().algo, agent->preset().env) : o.run_dir;
    for (const fs::path& held : {fs::path(launch.run_dir) / "preset.yaml", fs::path(launch.run_dir) / "learner0" / "preset.yaml"})
      if (fs::exists(held))
        throw UserError(fmt::format("{} already holds a run; use --resume {} or another --run-dir", launch.run_dir,
                                    launch.run_dir));
    const fs::path preset = fs::path(launch.run_dir) / "launch" / "preset.yaml";
    fs::create_directories(preset.parent_path());
    YAML::Emitter e;
    e << root;
    std::ofstream(preset) << e.c_str() << "\n";
    launch.learner_args = {"--preset", preset.string()};
  }
  launch.log_dir = (fs::path(launch.run_dir) / "launch").string();
  spdlog::info("runtime.backend processes: {} learner(s) and {} actor processes on loopback; their logs in {}",
               launch.learners, launch.actors, launch.log_dir);
  if (const int status = run_launch(launch); status != 0) throw ExitWith{status};
  return true;
}

}  // namespace

void add_distributed_commands(CLI::App& app, const std::string& command_line, std::shared_ptr<TrainOptions> train) {
  auto group = std::make_shared<LearnerGroupCli>();
  CLI::App* train_cmd = app.get_subcommand("train");
  add_group_options(train_cmd, *group);
  train_cmd->callback([train, group] {
    if (train_with_actor_processes(*train, *group)) return;
    use_group(*group, *train);
    run_train(*train);
  });

  auto l = std::make_shared<LearnerCli>();
  l->train.command_line = command_line;
  auto* learner = app.add_subcommand("learner", "Train with actor processes (rlzoo actor) sending trajectories over gRPC");
  learner->add_option("--preset,-p", l->train.preset, "Preset YAML file (its runtime.actors: trajectories per round)");
  one_value_per_use(learner->add_option("--set,-s", l->train.sets, "Override a preset key, one KEY=VALUE per --set (repeat it)"));
  learner->add_option("--seed", l->train.seed, "Seed (overrides the preset's)");
  learner->add_option("--run-dir", l->train.run_dir, "Run directory (default runs/<algo>/<env>_<N>)");
  learner->add_option("--resume", l->train.resume, "Continue the run in this directory from its latest checkpoint");
  learner->add_flag("--quiet,-q", l->train.quiet, "No progress bar");
  learner->add_option("--listen", l->server.listen, "host:port to serve actors on (port 0: any free one)")
      ->default_val(l->server.listen);
  learner->add_option("--token-file", l->token_file, "File holding the shared token actors must present")
      ->check(CLI::ExistingFile);
  add_tls_options(learner, l->server.security, true);
  learner->add_option("--port-file", l->server.port_file, "Write the port listened on into this file");
  learner->add_option("--stats-file", l->server.stats_file, "Keep the fleet's counters (JSON) in this file");
  learner->add_option("--heartbeat-timeout-ms", l->server.heartbeat_timeout_ms,
                      "Forget an actor silent for this long (its queued trajectories are discarded)")
      ->check(positive());
  learner->add_option("--max-message-mb", l->max_message_mb, "Largest message accepted or sent")
      ->check(positive());
  add_group_options(learner, l->group);
  learner->callback([l] { run_learner_command(*l); });

  auto a = std::make_shared<ActorCli>();
  auto* actor = app.add_subcommand("actor", "Act for a learner (rlzoo learner): its preset, envs here, trajectories there");
  actor->add_option("--connect", a->actor.connect, "The learner's host:port")->default_val(a->actor.connect);
  actor->add_option("--token-file", a->token_file, "File holding the learner's token")->check(CLI::ExistingFile);
  add_tls_options(actor, a->actor.security, false);
  actor->add_option("--actor-id", a->actor.actor_id, "Slot to take (its envs' seeds); -1: any free one");
  actor->add_option("--max-trajectories", a->actor.max_trajectories, "Stop after this many (-1: until the learner ends)");
  actor->add_option("--max-idle-s", a->max_idle_s, "Give up after this long without reaching the learner")
      ->check(positive());
  actor->add_option("--deadline-ms", a->actor.deadline_ms, "Deadline of each call")->check(positive());
  actor->add_option("--max-message-mb", a->max_message_mb, "Largest message accepted or sent")
      ->check(positive());
  actor->callback([a] { run_actor_command(*a); });

  auto launch_opts = std::make_shared<LaunchOptions>();
  auto launch_preset = std::make_shared<std::string>();
  auto launch_sets = std::make_shared<std::vector<std::string>>();
  auto* launch = app.add_subcommand("launch", "Run a local fleet as processes: learner(s) and actors, crashed actors restarted");
  launch->add_option("--preset,-p", *launch_preset, "The learner's preset")->required();
  one_value_per_use(launch->add_option("--set,-s", *launch_sets, "Override a preset key, one KEY=VALUE per --set (repeat it)"));
  launch->add_option("--actors", launch_opts->actors, "Actor processes")->check(positive());
  launch->add_option("--learners", launch_opts->learners, "Learner processes (a c10d group when > 1)")
      ->check(positive());
  launch->add_option("--run-dir", launch_opts->run_dir, "Run directory")->required();
  launch->add_option("--log-dir", launch_opts->log_dir, "One log file per process here (default: this terminal)");
  launch->add_option("--max-backoff-s", launch_opts->max_backoff_s, "Longest wait before restarting a crashed actor")
      ->check(positive());
  launch->callback([=] {
    LaunchOptions o = *launch_opts;
    o.executable = executable_path().string();
    o.learner_args = {"--preset", *launch_preset};
    for (const auto& s : *launch_sets) {
      o.learner_args.push_back("--set");
      o.learner_args.push_back(s);
    }
    if (const int status = run_launch(o); status != 0) throw ExitWith{status};
  });
}

}  // namespace rlzoo::cli
