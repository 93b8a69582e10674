#include "distributed/fleet_server.h"

#include <fmt/format.h>
#include <grpcpp/grpcpp.h>
#include <spdlog/spdlog.h>

#include "core/checkpoint/durable_io.h"
#include "core/common/error.h"
#include "distributed/fleet_auth.h"
#include "distributed/fleet_rounds.h"
#include "distributed/fleet_server_state.h"
#include "distributed/fleet_service.h"

namespace rlzoo {

namespace {

// Rounds of spec.round_size trajectories from live runs (and, on-policy, made with the newest
// parameters), in arrival order.
class FleetSource : public TrajectorySource {
 public:
  FleetSource(std::shared_ptr<GrpcFleet::State> state, std::unique_ptr<grpc::Server> server,
              std::unique_ptr<FleetServiceBase> service, std::unique_ptr<grpc::ServerCompletionQueue> rounds_cq)
      : s_(std::move(state)), service_(std::move(service)), server_(std::move(server)) {
    if (rounds_cq) rounds_ = std::make_unique<FleetRounds>(*s_, *service_, std::move(rounds_cq));
  }

  ~FleetSource() override {
    // Tell actors the run is over (their next call sees `finished`), then stop serving.
    s_->finished = true;
    s_->stop.request_stop();
    s_->parameters->wake();
    s_->queue->close();
    const auto grace = std::chrono::milliseconds(s_->options.finish_grace_ms);
    if (rounds_) {  // this thread answers the streams: keep answering while actors are told
      const auto until = FleetClock::now() + grace;
      while (!s_->all_told() && FleetClock::now() < until)
        rounds_->poll(std::min(until, FleetClock::now() + std::chrono::milliseconds(20)), [](FleetQueued&&) {});
      rounds_->end_streams(std::chrono::seconds(1));
    } else {
      s_->wait_until_told(grace);
    }
    if (server_) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
    if (rounds_) rounds_->close();
    s_->write_stats();
  }

  std::optional<Trajectory> next_round() override {
    auto quiet_since = FleetClock::now();
    while (!s_->stop.stop_requested() && !signal_stop_requested()) {
      s_->expire_silent_runs();
      warn_while_no_actor(quiet_since);
      // Several may arrive at once (take_arrivals drains what is there): a round takes the
      // oldest round_size of them, the rest wait for the next one.
      const auto round_size = static_cast<std::size_t>(s_->spec.round_size);
      if (pending_.size() < round_size && !take_arrivals()) continue;
      std::vector<Trajectory> parts;
      {
        // Pruning and taking the round under one lock: a run that ends in between would
        // otherwise have its trajectories used after its end.
        const std::uint64_t newest = s_->parameters->version();
        std::lock_guard lock(s_->mutex);
        prune(newest);
        if (pending_.size() < round_size) continue;
        for (std::size_t i = 0; i < round_size; ++i) {
          FleetQueued& q = pending_[i];
          ++s_->stats.used;
          ++s_->stats.used_by_run[q.run];
          if (!s_->live(q.run)) ++s_->stats.used_after_end;  // a guard: pruned just above, so 0
          parts.push_back(std::move(q.trajectory));
        }
      }
      pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(round_size));
      // At most twice a second from here: the file is written with an fsync, and rounds can
      // come hundreds of times a second. Events (registrations, refusals, the end) write at once.
      if (FleetClock::now() - last_stats_write_ > std::chrono::milliseconds(500)) {
        s_->write_stats();
        last_stats_write_ = FleetClock::now();
      }
      return merge_envs(parts);
    }
    return std::nullopt;
  }

 private:
  // Waits up to 20 ms for trajectories: from the Rounds streams (this thread serves them) and
  // the queue (the unary Upload). False when none came.
  bool take_arrivals() {
    const auto window = std::chrono::milliseconds(20);
    if (!rounds_) {
      auto item = s_->queue->pop_for(window);
      if (item) pending_.push_back(std::move(*item));
      return item.has_value();
    }
    const std::size_t before = pending_.size();
    const auto from_queue = [&] {
      while (auto item = s_->queue->try_pop()) pending_.push_back(std::move(*item));
    };
    from_queue();
    if (pending_.size() == before)
      rounds_->poll(FleetClock::now() + window, [&](FleetQueued&& q) { pending_.push_back(std::move(q)); });
    from_queue();
    return pending_.size() > before;
  }

  // The learner can only wait for actors to (re)connect; say so, every no_actor_warning_ms, so
  // that a fleet that died or never started is noticed.
  void warn_while_no_actor(FleetClock::time_point& quiet_since) {
    if (s_->options.no_actor_warning_ms <= 0) return;
    if (s_->live_runs() > 0) {
      quiet_since = FleetClock::now();
      return;
    }
    const auto quiet = FleetClock::now() - quiet_since;
    if (quiet < std::chrono::milliseconds(s_->options.no_actor_warning_ms)) return;
    {
      std::lock_guard lock(s_->mutex);
      ++s_->stats.no_actor_warnings;
    }
    spdlog::warn("fleet: no actor has been connected for {:.0f} s; the learner waits for actors (rlzoo actor --connect "
                 "<this host>:{}) to join",
                 std::chrono::duration<double>(quiet).count(), s_->port);
    s_->write_stats();
    quiet_since = FleetClock::now();
  }

  // Drops pending trajectories of ended runs and, on-policy, those older than `newest`. Under
  // the state's mutex.
  void prune(std::uint64_t newest) {
    std::erase_if(pending_, [&](const FleetQueued& q) {
      if (!s_->live(q.run)) {
        ++s_->stats.discarded_ended;
        return true;
      }
      if (s_->spec.on_policy && q.trajectory.policy_version != newest) {
        ++s_->stats.stale;
        return true;
      }
      return false;
    });
  }

  std::shared_ptr<GrpcFleet::State> s_;
  std::unique_ptr<FleetServiceBase> service_;  // outlives the server
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<FleetRounds> rounds_;  // null without a server (tests)
  std::vector<FleetQueued> pending_;
  FleetClock::time_point last_stats_write_;
};

}  // namespace

std::shared_ptr<GrpcFleet::State> make_fleet_state(const FleetServerOptions& options, const FleetSpec& spec,
                                                   const ModuleParameterStore& parameters,
                                                   std::int64_t learner_timesteps) {
  auto s = std::make_shared<GrpcFleet::State>();
  s->options = options;
  s->spec = spec;
  s->parameters = &parameters;
  s->learner_timesteps = learner_timesteps;
  const int capacity = options.queue_capacity > 0 ? options.queue_capacity : 2 * spec.round_size;
  s->queue = std::make_unique<BoundedQueue<FleetQueued>>(static_cast<std::size_t>(capacity));
  return s;
}

std::unique_ptr<TrajectorySource> make_fleet_source(std::shared_ptr<GrpcFleet::State> state,
                                                    std::unique_ptr<grpc::Server> server,
                                                    std::unique_ptr<FleetServiceBase> service,
                                                    std::unique_ptr<grpc::ServerCompletionQueue> rounds_cq) {
  return std::make_unique<FleetSource>(std::move(state), std::move(server), std::move(service), std::move(rounds_cq));
}

GrpcFleet::GrpcFleet(FleetServerOptions options) : options_(std::move(options)) {
  check_server_security(options_);
}

GrpcFleet::~GrpcFleet() = default;

std::unique_ptr<TrajectorySource> GrpcFleet::open(const FleetSpec& spec, const ModuleParameterStore& parameters) {
  auto s = make_fleet_state(options_, spec, parameters, learner_timesteps_.load());
  auto service = make_fleet_service(*s);
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options_.listen, server_credentials(options_.security), &s->port);
  // The transport drops what is far over the limit; what is just over it reaches Upload, which
  // refuses and counts it.
  builder.SetMaxReceiveMessageSize(static_cast<int>(options_.max_message_bytes + (1 << 20)));
  builder.SetMaxSendMessageSize(static_cast<int>(options_.max_message_bytes));
  builder.RegisterService(service.get());
  std::unique_ptr<grpc::ServerCompletionQueue> rounds_cq = builder.AddCompletionQueue();
  // gRPC's sync server lets a thread that finishes a call exit when more than MAX_POLLERS
  // threads (default 2) wait for work, and starts one when fewer than MIN_POLLERS do. Each
  // actor holds a thread in its long-poll for parameters while its upload or heartbeat takes
  // another, so with the defaults threads were created and torn down every round (428 thread
  // starts in a 390-round run of 2 actors), on the round's critical path.
  builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MAX_POLLERS, 2 * spec.round_size + 2);
  // Actors ping their Rounds stream every second or more (fleet_actor.cpp), also while the
  // learner sends nothing (a long update, a checkpoint): accept those pings.
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 1000);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || s->port == 0)
    throw UserError(fmt::format("--listen {}: cannot listen there (address in use or not this machine's)",
                                options_.listen));
  spdlog::info("fleet: listening on {} (port {}){}{}; waiting for {} actor(s) per round", options_.listen, s->port,
               options_.security.token.empty() ? "" : ", token required",
               options_.security.tls_cert.empty() ? "" : ", TLS", spec.round_size);
  if (!options_.port_file.empty()) durable::replace_file(options_.port_file, fmt::format("{}\n", s->port));
  state_ = s;
  s->write_stats();
  return make_fleet_source(std::move(s), std::move(server), std::move(service), std::move(rounds_cq));
}

void GrpcFleet::set_learner_timesteps(std::int64_t steps) {
  learner_timesteps_ = steps;
  if (state_) state_->learner_timesteps = steps;
}

int GrpcFleet::port() const { return state_ ? state_->port : 0; }

FleetStats GrpcFleet::stats() const {
  if (!state_) return {};
  std::lock_guard lock(state_->mutex);
  return state_->stats;
}

}  // namespace rlzoo
