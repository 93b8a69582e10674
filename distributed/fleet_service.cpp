#include "distributed/fleet_service.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "distributed/fleet_auth.h"
#include "distributed/fleet_wire.h"

namespace rlzoo {

namespace {

class FleetService final : public FleetServiceBase {
 public:
  explicit FleetService(GrpcFleet::State& s) : s_(s) {}

  grpc::Status GetConfig(grpc::ServerContext* ctx, const fleet::ConfigRequest* req, fleet::ConfigReply* out) override {
    if (auto st = authenticate(s_, *ctx); !st.ok()) return st;
    if (req->protocol() != kFleetProtocolVersion) return protocol_mismatch(req->protocol(), 0);
    out->set_protocol(kFleetProtocolVersion);
    out->set_learner_run(s_.learner_run);
    out->set_preset_yaml(s_.spec.preset_yaml);
    out->set_spec_hash(s_.spec.spec_hash);
    return grpc::Status::OK;
  }

  grpc::Status Register(grpc::ServerContext* ctx, const fleet::RegisterRequest* req,
                        fleet::RegisterReply* out) override {
    if (auto st = authenticate(s_, *ctx); !st.ok()) return st;
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
      run = {};  // a run id registering again starts afresh
      run.actor = actor;
      run.host = req->host();
      run.last_seen = FleetClock::now();
      ++s_.stats.registrations;
    }
    spdlog::info("fleet: actor {} registered (run {:016x}, {})", actor, req->run_id(), req->host());
    s_.write_stats();
    out->set_learner_run(s_.learner_run);
    out->set_actor_id(actor);
    out->set_env_offset(static_cast<std::int64_t>(actor) * s_.spec.shape.num_envs);
    out->set_reset_seed(static_cast<std::uint64_t>(s_.learner_timesteps.load()) + fleet_random_u64() % 1'000'000'007ULL);
    out->set_heartbeat_timeout_ms(s_.options.heartbeat_timeout_ms);
    return grpc::Status::OK;
  }

  grpc::Status GetParameters(grpc::ServerContext* ctx, const fleet::ParametersRequest* req,
                             fleet::ParametersReply* out) override {
    if (auto st = authenticate(s_, *ctx); !st.ok()) return st;
    if (req->learner_run() == s_.learner_run && !s_.finished) {
      s_.touch(req->run_id());
      const std::int64_t wait = std::clamp<std::int64_t>(req->wait_ms(), 0, s_.options.max_wait_ms);
      if (wait > 0) {
        // Wait for a newer version, but not for one that cannot come without this actor.
        s_.set_collecting(req->run_id(), false);
        const auto deadline = FleetClock::now() + std::chrono::milliseconds(wait);
        while (FleetClock::now() < deadline && !ctx->IsCancelled() && !parameters_ready(s_, *req))
          s_.parameters->wait_until(req->have_version() + 1, s_.stop,
                                    std::min(deadline, FleetClock::now() + std::chrono::milliseconds(50)));
      }
    }
    if (const auto newest = answer_parameters(s_, *req, out)) out->MergeFrom(*newest);
    return grpc::Status::OK;
  }

  grpc::Status Upload(grpc::ServerContext* ctx, const fleet::TrajectoryUpload* req, fleet::UploadReply* out) override {
    if (auto st = authenticate(s_, *ctx); !st.ok()) return st;
    // Back-pressure: wait for room while the call's deadline and the fleet allow.
    receive_upload(s_, *req, out, [&](FleetQueued& q) -> std::string {
      while (!s_.queue->push_for(q, std::chrono::milliseconds(100))) {
        if (s_.queue->closed() || s_.stop.stop_requested()) return "the learner has finished";
        if (ctx->IsCancelled() || std::chrono::system_clock::now() + std::chrono::milliseconds(100) > ctx->deadline())
          return "busy: the learner's queue stayed full";
      }
      s_.queued();
      return "";
    });
    return grpc::Status::OK;
  }

  grpc::Status Heartbeat(grpc::ServerContext* ctx, const fleet::HeartbeatRequest* req,
                         fleet::HeartbeatReply* out) override {
    if (auto st = authenticate(s_, *ctx); !st.ok()) return st;
    out->set_learner_run(s_.learner_run);
    out->set_version(s_.parameters->version());
    out->set_finished(s_.tell_finished(req->run_id()));
    if (req->learner_run() != s_.learner_run) return grpc::Status::OK;
    std::lock_guard lock(s_.mutex);
    out->set_known(s_.live(req->run_id()));
    if (out->known()) s_.runs.at(req->run_id()).last_seen = FleetClock::now();
    return grpc::Status::OK;
  }

 private:
  grpc::Status protocol_mismatch(std::uint32_t theirs, std::uint64_t run) {
    const std::string why =
        fmt::format("protocol version {}; this learner speaks version {}", theirs, kFleetProtocolVersion);
    s_.reject("protocol", why, run);
    return {grpc::StatusCode::FAILED_PRECONDITION, why};
  }
  GrpcFleet::State& s_;
};

void refuse(fleet::UploadReply* out, const std::string& why) {
  out->set_accepted(false);
  out->set_reason(why);
}

}  // namespace

grpc::Status authenticate(GrpcFleet::State& s, const grpc::ServerContext& ctx) {
  grpc::Status st = check_token(ctx, s.options.security.token);
  if (!st.ok()) {
    {
      std::lock_guard lock(s.mutex);
      ++s.stats.unauthenticated;
    }
    spdlog::warn("fleet: refused a call from {}: {}", ctx.peer(), st.error_message());
    s.write_stats();
  }
  return st;
}

void receive_upload(GrpcFleet::State& s_, const fleet::TrajectoryUpload& req, fleet::UploadReply* out,
                    const DeliverUpload& deliver) {
  out->set_learner_run(s_.learner_run);
  out->set_version(s_.parameters->version());
  out->set_finished(s_.tell_finished(req.run_id()));
  if (out->finished()) return refuse(out, "the learner has finished");
  if (req.learner_run() != s_.learner_run) return refuse(out, "the learner restarted: register again");
  int actor = 0;
  {
    std::lock_guard lock(s_.mutex);
    if (!s_.live(req.run_id())) {
      out->set_reason("unknown or ended run: register again");
      return;
    }
    auto& run = s_.runs.at(req.run_id());
    run.last_seen = FleetClock::now();
    actor = run.actor;
    if (run.highest_accepted && req.sequence() <= *run.highest_accepted) {
      run.collecting = false;
      ++s_.stats.duplicates;
      out->set_accepted(true);  // it was, the first time
      out->set_reason("duplicate: this trajectory was already accepted");
      return;
    }
    if (!run.receiving.insert(req.sequence()).second) {
      ++s_.stats.duplicates;
      out->set_reason("duplicate: this trajectory is being received");
      return;
    }
  }
  // Whatever happens below, this sequence is no longer being received afterwards, and the
  // run no longer collects. Not before: while the trajectory is checked and queued, another
  // actor asking whether the round needs more must still count this one (round_needs_more).
  const auto done_receiving = [&](bool accepted) {
    std::lock_guard lock(s_.mutex);
    const auto it = s_.runs.find(req.run_id());
    if (it == s_.runs.end()) return;
    it->second.collecting = false;
    it->second.receiving.erase(req.sequence());
    if (accepted && (!it->second.highest_accepted || *it->second.highest_accepted < req.sequence()))
      it->second.highest_accepted = req.sequence();
  };
  struct Finish {
    const decltype(done_receiving)& f;
    bool accepted = false;
    ~Finish() { f(accepted); }
  } finish{done_receiving};
  FleetQueued q;
  const std::size_t bytes = req.ByteSizeLong();
  if (bytes > static_cast<std::size_t>(s_.options.max_message_bytes)) {
    const std::string why = fmt::format("a trajectory of {} bytes is over the limit of {} (actor {}; the learner's "
                                        "--max-message-mb raises it)",
                                        bytes, s_.options.max_message_bytes, actor);
    s_.reject("oversized", why, req.run_id());
    return refuse(out, why);
  }
  if (auto error = decode_trajectory(req, s_.spec.shape, s_.spec.observation_space, q.trajectory)) {
    s_.reject(error->kind, fmt::format("{} (actor {})", error->detail, actor), req.run_id());
    return refuse(out, error->detail);
  }
  if (s_.spec.on_policy && q.trajectory.policy_version < s_.parameters->version()) {
    std::lock_guard lock(s_.mutex);
    ++s_.stats.stale;
    out->set_reason("stale: made with older parameters than the learner's newest");
    return;
  }
  const std::uint64_t version = q.trajectory.policy_version;
  q.trajectory.actor = actor;
  q.trajectory.env_offset = static_cast<std::int64_t>(actor) * s_.spec.shape.num_envs;
  q.run = req.run_id();
  if (const std::string why = deliver(q); !why.empty()) {
    out->set_finished(s_.tell_finished(req.run_id()));
    return refuse(out, why);
  }
  {
    std::lock_guard lock(s_.mutex);
    ++s_.stats.accepted;
    s_.stats.bytes_accepted += bytes;
    ++s_.accepted_by_version[version];
    s_.accepted_by_version.erase(s_.accepted_by_version.begin(), s_.accepted_by_version.lower_bound(version));
  }
  finish.accepted = true;
  out->set_accepted(true);
}

bool parameters_ready(GrpcFleet::State& s, const fleet::ParametersRequest& req) {
  return s.parameters->version() > req.have_version() || s.finished || req.learner_run() != s.learner_run ||
         s.stop.stop_requested() || s.round_needs_more(req.run_id());
}

std::shared_ptr<const fleet::ParametersReply> answer_parameters(GrpcFleet::State& s,
                                                               const fleet::ParametersRequest& req,
                                                               fleet::ParametersReply* out) {
  out->set_learner_run(s.learner_run);
  out->set_finished(s.tell_finished(req.run_id()));
  if (req.learner_run() != s.learner_run || out->finished()) return nullptr;
  auto newest = s.parameters_reply();
  const bool newer = newest->version() > req.have_version();
  if (!newer) out->set_version(newest->version());
  s.set_collecting_with(req.run_id(), std::max(req.have_version(), newest->version()));
  out->set_learner_timesteps(s.learner_timesteps.load());
  out->set_finished(s.tell_finished(req.run_id()));
  return newer ? newest : nullptr;
}

std::unique_ptr<FleetServiceBase> make_fleet_service(GrpcFleet::State& state) {
  return std::make_unique<FleetService>(state);
}

}  // namespace rlzoo
