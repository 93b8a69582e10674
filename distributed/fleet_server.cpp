#include "distributed/fleet_server.h"

#include <fmt/format.h>
#include <grpcpp/grpcpp.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <chrono>
#include <condition_variable>
#include <random>
#include <optional>
#include <set>

#include "core/checkpoint/durable_io.h"
#include "core/common/error.h"
#include "core/runtime/bounded_queue.h"
#include "core/runtime/stop.h"
#include "distributed/fleet_auth.h"
#include "distributed/fleet_wire.h"
#include "distributed/proto/fleet.grpc.pb.h"

namespace rlzoo {

namespace {

using Clock = std::chrono::steady_clock;

struct Queued {
  Trajectory trajectory;
  std::uint64_t run = 0;
};

std::uint64_t random_u64() {
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

}  // namespace

struct GrpcFleet::State {
  FleetServerOptions options;
  std::uint64_t learner_run = random_u64();
  FleetSpec spec;
  const ModuleParameterStore* parameters = nullptr;
  std::atomic<std::int64_t> learner_timesteps{0};
  std::atomic<bool> finished{false};
  StopSource stop;
  std::unique_ptr<BoundedQueue<Queued>> queue;
  int port = 0;

  struct Run {
    int actor = 0;
    std::string host;
    Clock::time_point last_seen;
    bool ended = false;
    bool collecting = true;  // between a parameters reply and its next upload
    // Uploads are retried after a lost reply: a sequence number at or below the highest
    // accepted one, or one being received right now, is that retry, not new data.
    std::optional<std::uint64_t> highest_accepted;
    std::set<std::uint64_t> receiving;
  };
  mutable std::mutex mutex;  // runs, stats, the parameter cache
  std::map<std::uint64_t, Run> runs;
  FleetStats stats;
  std::uint64_t cached_version = 0;
  std::shared_ptr<const fleet::ParametersReply> cached;
  std::map<std::uint64_t, std::uint64_t> accepted_by_version;
  std::set<std::uint64_t> told_finished;  // runs that got a reply saying the learner finished
  std::condition_variable told_cv;

  // A reply to `run_id` says `finished`: remember that it was told.
  void telling_finished(std::uint64_t run_id) {
    if (!finished) return;
    {
      std::lock_guard lock(mutex);
      told_finished.insert(run_id);
    }
    told_cv.notify_all();
  }
  // After training: waits (up to `grace`) until every live run was told that it is over, so
  // that actors stop instead of retrying a learner that is gone.
  void wait_until_told(std::chrono::milliseconds grace) {
    std::unique_lock lock(mutex);
    told_cv.wait_for(lock, grace, [&] {
      for (const auto& [id, r] : runs)
        if (!r.ended && !told_finished.count(id)) return false;
      return true;
    });
  }

  // Under `mutex`.
  void end_run(std::uint64_t run_id, const std::string& why) {
    Run& r = runs.at(run_id);
    if (r.ended) return;
    r.ended = true;
    stats.ended_runs[run_id] = why;
    spdlog::warn("fleet: actor {} (run {:016x}, {}) ended: {}; its queued trajectories are discarded", r.actor,
                 run_id, r.host, why);
  }
  void reject(const std::string& kind, const std::string& detail, std::uint64_t run_id) {
    {
      std::lock_guard lock(mutex);
      ++stats.rejected[kind];
    }
    spdlog::warn("fleet: refused a message from run {:016x}: {}", run_id, detail);
    write_stats();
  }
  bool live(std::uint64_t run_id) const {  // under `mutex`
    const auto it = runs.find(run_id);
    return it != runs.end() && !it->second.ended;
  }
  void touch(std::uint64_t run_id) {
    std::lock_guard lock(mutex);
    const auto it = runs.find(run_id);
    if (it != runs.end()) it->second.last_seen = Clock::now();
  }
  // On-policy: whether the round at the newest version still needs trajectories that no other
  // live actor is collecting, so that a waiting actor should collect another one with the
  // parameters it holds (an actor died or is slow) rather than wait for a version that the
  // learner cannot make without it.
  bool round_needs_more(std::uint64_t run_id) {
    std::lock_guard lock(mutex);
    const std::uint64_t v = parameters->version();
    const auto it = accepted_by_version.find(v);
    std::int64_t need = spec.round_size - static_cast<std::int64_t>(it == accepted_by_version.end() ? 0 : it->second);
    for (const auto& [id, r] : runs)
      if (id != run_id && !r.ended && r.collecting) --need;
    return need > 0;
  }
  void set_collecting(std::uint64_t run_id, bool collecting) {
    std::lock_guard lock(mutex);
    const auto it = runs.find(run_id);
    if (it != runs.end()) it->second.collecting = collecting;
  }

  void expire_silent_runs() {
    std::lock_guard lock(mutex);
    const auto limit = Clock::now() - std::chrono::milliseconds(options.heartbeat_timeout_ms);
    for (auto& [id, r] : runs)
      if (!r.ended && r.last_seen < limit)
        end_run(id, fmt::format("silent for more than {} ms", options.heartbeat_timeout_ms));
  }
  std::shared_ptr<const fleet::ParametersReply> parameters_reply() {
    const auto snapshot = parameters->get();
    std::lock_guard lock(mutex);
    if (cached_version != snapshot.version) {
      auto reply = std::make_shared<fleet::ParametersReply>();
      reply->set_learner_run(learner_run);
      reply->set_version(snapshot.version);
      if (snapshot.value) encode_parameters(*snapshot.value, *reply);
      cached = std::move(reply);
      cached_version = snapshot.version;
    }
    return cached;
  }
  void write_stats() const {
    if (options.stats_file.empty()) return;
    nlohmann::json j;
    {
      std::lock_guard lock(mutex);
      const FleetStats& s = stats;
      j = {{"registrations", s.registrations}, {"accepted", s.accepted},   {"used", s.used},
           {"bytes_accepted", s.bytes_accepted},
           {"stale", s.stale},                 {"discarded_ended", s.discarded_ended},
           {"duplicates", s.duplicates},
           {"unauthenticated", s.unauthenticated}, {"rejected", s.rejected}, {"used_after_end", s.used_after_end}};
      nlohmann::json runs_json = nlohmann::json::object();
      for (const auto& [id, r] : runs)
        runs_json[fmt::format("{:016x}", id)] = {{"actor", r.actor},
                                                 {"host", r.host},
                                                 {"used", s.used_by_run.count(id) ? s.used_by_run.at(id) : 0},
                                                 {"ended", r.ended ? s.ended_runs.at(id) : ""}};
      j["runs"] = runs_json;
      j["learner_run"] = fmt::format("{:016x}", learner_run);
    }
    try {
      durable::replace_file(options.stats_file, j.dump(1) + "\n");
    } catch (const std::exception& e) {
      spdlog::warn("fleet: {}", e.what());
    }
  }
};

namespace {

class FleetService final : public fleet::Fleet::Service {
 public:
  explicit FleetService(GrpcFleet::State& s) : s_(s) {}

  grpc::Status GetConfig(grpc::ServerContext* ctx, const fleet::ConfigRequest* req, fleet::ConfigReply* out) override {
    if (auto st = authenticate(*ctx); !st.ok()) return st;
    if (req->protocol() != kFleetProtocolVersion) return protocol_mismatch(req->protocol(), 0);
    out->set_protocol(kFleetProtocolVersion);
    out->set_learner_run(s_.learner_run);
    out->set_preset_yaml(s_.spec.preset_yaml);
    out->set_spec_hash(s_.spec.spec_hash);
    return grpc::Status::OK;
  }

  grpc::Status Register(grpc::ServerContext* ctx, const fleet::RegisterRequest* req,
                        fleet::RegisterReply* out) override {
    if (auto st = authenticate(*ctx); !st.ok()) return st;
    if (req->protocol() != kFleetProtocolVersion) return protocol_mismatch(req->protocol(), req->run_id());
    if (req->spec_hash() != s_.spec.spec_hash) {
      const std::string why = fmt::format(
          "spec hash {} differs from the learner's {}: the actor's env, spaces, algorithm, policy or trajectory "
          "shape differ from the learner's preset",
          req->spec_hash(), s_.spec.spec_hash);
      s_.reject("spec", why, req->run_id());
      return {grpc::StatusCode::FAILED_PRECONDITION, why};
    }
    if (s_.finished) return {grpc::StatusCode::UNAVAILABLE, "the learner has finished"};
    int actor = req->actor_id();
    {
      std::lock_guard lock(s_.mutex);
      if (s_.live(req->run_id()))  // registering again (after a lost reply): keep the slot
        actor = s_.runs.at(req->run_id()).actor;
      else if (actor >= 0) {
        for (auto& [id, r] : s_.runs)
          if (!r.ended && r.actor == actor && id != req->run_id())
            s_.end_run(id, fmt::format("actor {} registered again as run {:016x}", actor, req->run_id()));
      } else {
        for (actor = 0;; ++actor) {
          bool taken = false;
          for (const auto& [id, r] : s_.runs) taken = taken || (!r.ended && r.actor == actor);
          if (!taken) break;
        }
      }
      auto& run = s_.runs[req->run_id()];
      run = {actor, req->host(), Clock::now(), false};
      ++s_.stats.registrations;
    }
    spdlog::info("fleet: actor {} registered (run {:016x}, {})", actor, req->run_id(), req->host());
    s_.write_stats();
    out->set_learner_run(s_.learner_run);
    out->set_actor_id(actor);
    out->set_env_offset(static_cast<std::int64_t>(actor) * s_.spec.shape.num_envs);
    out->set_reset_seed(static_cast<std::uint64_t>(s_.learner_timesteps.load()) + random_u64() % 1'000'000'007ULL);
    out->set_heartbeat_timeout_ms(s_.options.heartbeat_timeout_ms);
    return grpc::Status::OK;
  }

  grpc::Status GetParameters(grpc::ServerContext* ctx, const fleet::ParametersRequest* req,
                             fleet::ParametersReply* out) override {
    if (auto st = authenticate(*ctx); !st.ok()) return st;
    out->set_learner_run(s_.learner_run);
    out->set_finished(s_.finished);
    s_.telling_finished(req->run_id());
    if (req->learner_run() != s_.learner_run || s_.finished) return grpc::Status::OK;
    s_.touch(req->run_id());
    const std::int64_t wait = std::clamp<std::int64_t>(req->wait_ms(), 0, s_.options.max_wait_ms);
    if (wait > 0) {
      // Wait for a newer version, but not for one that cannot come without this actor.
      s_.set_collecting(req->run_id(), false);
      const auto deadline = Clock::now() + std::chrono::milliseconds(wait);
      while (s_.parameters->version() <= req->have_version() && Clock::now() < deadline && !s_.stop.stop_requested() &&
             !ctx->IsCancelled() && !s_.round_needs_more(req->run_id()))
        s_.parameters->wait_until(req->have_version() + 1, s_.stop,
                                  std::min(deadline, Clock::now() + std::chrono::milliseconds(50)));
    }
    s_.set_collecting(req->run_id(), true);
    const auto reply = s_.parameters_reply();
    if (reply->version() > req->have_version()) {
      *out = *reply;
    } else {
      out->set_version(reply->version());
    }
    out->set_learner_timesteps(s_.learner_timesteps.load());
    out->set_finished(s_.finished);
    s_.telling_finished(req->run_id());
    return grpc::Status::OK;
  }

  grpc::Status Upload(grpc::ServerContext* ctx, const fleet::TrajectoryUpload* req, fleet::UploadReply* out) override {
    if (auto st = authenticate(*ctx); !st.ok()) return st;
    out->set_learner_run(s_.learner_run);
    out->set_version(s_.parameters->version());
    out->set_finished(s_.finished);
    s_.telling_finished(req->run_id());
    if (s_.finished) return refuse(out, "the learner has finished");
    if (req->learner_run() != s_.learner_run) return refuse(out, "the learner restarted: register again");
    int actor = 0;
    {
      std::lock_guard lock(s_.mutex);
      if (!s_.live(req->run_id())) {
        out->set_reason("unknown or ended run: register again");
        return grpc::Status::OK;
      }
      auto& run = s_.runs.at(req->run_id());
      run.last_seen = Clock::now();
      run.collecting = false;
      actor = run.actor;
      if (run.highest_accepted && req->sequence() <= *run.highest_accepted) {
        ++s_.stats.duplicates;
        out->set_accepted(true);  // it was, the first time
        out->set_reason("duplicate: this trajectory was already accepted");
        return grpc::Status::OK;
      }
      if (!run.receiving.insert(req->sequence()).second) {
        ++s_.stats.duplicates;
        out->set_reason("duplicate: this trajectory is being received");
        return grpc::Status::OK;
      }
    }
    // Whatever happens below, this sequence is no longer being received afterwards.
    const auto done_receiving = [&](bool accepted) {
      std::lock_guard lock(s_.mutex);
      const auto it = s_.runs.find(req->run_id());
      if (it == s_.runs.end()) return;
      it->second.receiving.erase(req->sequence());
      if (accepted && (!it->second.highest_accepted || *it->second.highest_accepted < req->sequence()))
        it->second.highest_accepted = req->sequence();
    };
    struct Finish {
      const decltype(done_receiving)& f;
      bool accepted = false;
      ~Finish() { f(accepted); }
    } finish{done_receiving};
    Queued q;
    if (req->ByteSizeLong() > static_cast<std::size_t>(s_.options.max_message_bytes)) {
      const std::string why = fmt::format("a trajectory of {} bytes is over the limit of {} (actor {}; the learner's "
                                          "--max-message-mb raises it)",
                                          req->ByteSizeLong(), s_.options.max_message_bytes, actor);
      s_.reject("oversized", why, req->run_id());
      return refuse(out, why);
    }
    if (auto error = decode_trajectory(*req, s_.spec.shape, s_.spec.observation_space, q.trajectory)) {
      s_.reject(error->kind, fmt::format("{} (actor {})", error->detail, actor), req->run_id());
      return refuse(out, error->detail);
    }
    if (s_.spec.on_policy && q.trajectory.policy_version < s_.parameters->version()) {
      std::lock_guard lock(s_.mutex);
      ++s_.stats.stale;
      out->set_reason("stale: made with older parameters than the learner's newest");
      return grpc::Status::OK;
    }
    const std::uint64_t version = q.trajectory.policy_version;
    q.trajectory.actor = actor;
    q.trajectory.env_offset = static_cast<std::int64_t>(actor) * s_.spec.shape.num_envs;
    q.run = req->run_id();
    // Back-pressure: wait for room while the call's deadline and the fleet allow.
    while (!s_.queue->push_for(q, std::chrono::milliseconds(100))) {
      if (s_.queue->closed() || s_.stop.stop_requested()) return refuse(out, "the learner has finished");
      if (ctx->IsCancelled() || std::chrono::system_clock::now() + std::chrono::milliseconds(100) > ctx->deadline())
        return refuse(out, "busy: the learner's queue stayed full");
    }
    {
      std::lock_guard lock(s_.mutex);
      ++s_.stats.accepted;
      s_.stats.bytes_accepted += req->ByteSizeLong();
      ++s_.accepted_by_version[version];
      s_.accepted_by_version.erase(s_.accepted_by_version.begin(), s_.accepted_by_version.lower_bound(version));
    }
    finish.accepted = true;
    out->set_accepted(true);
    return grpc::Status::OK;
  }

  grpc::Status Heartbeat(grpc::ServerContext* ctx, const fleet::HeartbeatRequest* req,
                         fleet::HeartbeatReply* out) override {
    if (auto st = authenticate(*ctx); !st.ok()) return st;
    out->set_learner_run(s_.learner_run);
    out->set_version(s_.parameters->version());
    out->set_finished(s_.finished);
    s_.telling_finished(req->run_id());
    if (req->learner_run() != s_.learner_run) return grpc::Status::OK;
    std::lock_guard lock(s_.mutex);
    out->set_known(s_.live(req->run_id()));
    if (out->known()) s_.runs.at(req->run_id()).last_seen = Clock::now();
    return grpc::Status::OK;
  }

 private:
  grpc::Status authenticate(const grpc::ServerContext& ctx) {
    grpc::Status st = check_token(ctx, s_.options.security.token);
    if (!st.ok()) {
      {
        std::lock_guard lock(s_.mutex);
        ++s_.stats.unauthenticated;
      }
      spdlog::warn("fleet: refused a call from {}: {}", ctx.peer(), st.error_message());
      s_.write_stats();
    }
    return st;
  }
  grpc::Status protocol_mismatch(std::uint32_t theirs, std::uint64_t run) {
    const std::string why =
        fmt::format("protocol version {}; this learner speaks version {}", theirs, kFleetProtocolVersion);
    s_.reject("protocol", why, run);
    return {grpc::StatusCode::FAILED_PRECONDITION, why};
  }
  static grpc::Status refuse(fleet::UploadReply* out, const std::string& why) {
    out->set_accepted(false);
    out->set_reason(why);
    return grpc::Status::OK;
  }

  GrpcFleet::State& s_;
};

// Rounds of spec.round_size trajectories from live runs (and, on-policy, made with the newest
// parameters), in arrival order.
class FleetSource : public TrajectorySource {
 public:
  FleetSource(std::shared_ptr<GrpcFleet::State> state, std::unique_ptr<grpc::Server> server,
              std::unique_ptr<FleetService> service)
      : s_(std::move(state)), service_(std::move(service)), server_(std::move(server)) {}

  ~FleetSource() override {
    // Tell actors the run is over (their next call sees `finished`), then stop serving.
    s_->finished = true;
    s_->stop.request_stop();
    s_->parameters->wake();
    s_->queue->close();
    s_->wait_until_told(std::chrono::milliseconds(s_->options.finish_grace_ms));
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
    s_->write_stats();
  }

  std::optional<Trajectory> next_round() override {
    while (!s_->stop.stop_requested() && !signal_stop_requested()) {
      s_->expire_silent_runs();
      auto item = s_->queue->pop_for(std::chrono::milliseconds(20));
      if (!item) continue;
      pending_.push_back(std::move(*item));
      prune();
      if (static_cast<int>(pending_.size()) < s_->spec.round_size) continue;
      std::vector<Trajectory> parts;
      {
        std::lock_guard lock(s_->mutex);
        for (auto& q : pending_) {
          ++s_->stats.used;
          ++s_->stats.used_by_run[q.run];
          if (!s_->live(q.run)) ++s_->stats.used_after_end;
          parts.push_back(std::move(q.trajectory));
        }
      }
      pending_.clear();
      // At most twice a second from here: the file is written with an fsync, and rounds can
      // come hundreds of times a second. Events (registrations, refusals, the end) write at once.
      if (Clock::now() - last_stats_write_ > std::chrono::milliseconds(500)) {
        s_->write_stats();
        last_stats_write_ = Clock::now();
      }
      return merge_envs(parts);
    }
    return std::nullopt;
  }

 private:
  // Drops pending trajectories of ended runs and, on-policy, stale ones.
  void prune() {
    const std::uint64_t newest = s_->parameters->version();
    std::lock_guard lock(s_->mutex);
    std::erase_if(pending_, [&](const Queued& q) {
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
  std::unique_ptr<FleetService> service_;  // outlives the server
  std::unique_ptr<grpc::Server> server_;
  std::vector<Queued> pending_;
  Clock::time_point last_stats_write_;
};

}  // namespace

GrpcFleet::GrpcFleet(FleetServerOptions options) : options_(std::move(options)) {
  check_server_security(options_);
}

GrpcFleet::~GrpcFleet() = default;

std::unique_ptr<TrajectorySource> GrpcFleet::open(const FleetSpec& spec, const ModuleParameterStore& parameters) {
  auto s = std::make_shared<State>();
  s->options = options_;
  s->spec = spec;
  s->parameters = &parameters;
  s->learner_timesteps = learner_timesteps_.load();
  const int capacity = options_.queue_capacity > 0 ? options_.queue_capacity : 2 * spec.round_size;
  s->queue = std::make_unique<BoundedQueue<Queued>>(static_cast<std::size_t>(capacity));
  auto service = std::make_unique<FleetService>(*s);
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options_.listen, server_credentials(options_.security), &s->port);
  // The transport drops what is far over the limit; what is just over it reaches Upload, which
  // refuses and counts it.
  builder.SetMaxReceiveMessageSize(static_cast<int>(options_.max_message_bytes + (1 << 20)));
  builder.SetMaxSendMessageSize(static_cast<int>(options_.max_message_bytes));
  builder.RegisterService(service.get());
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
  return std::make_unique<FleetSource>(std::move(s), std::move(server), std::move(service));
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
