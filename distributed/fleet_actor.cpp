#include "distributed/fleet_actor.h"

#include <fmt/format.h>
#include <grpcpp/grpcpp.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <optional>
#include <random>
#include <thread>

#include "rl/agent.h"
#include "core/common/error.h"
#include "core/runtime/actor_loop.h"
#include "core/runtime/stop.h"
#include "core/torch/threads.h"
#include "core/vector/vector_env.h"
#include "distributed/fleet_auth.h"
#include "distributed/fleet_wire.h"
#include "distributed/proto/fleet.grpc.pb.h"

namespace rlzoo {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

struct GaveUp {};  // the learner stayed unreachable

class FleetClient {
 public:
  explicit FleetClient(const FleetActorOptions& o) : o_(o), rng_(std::random_device{}()) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(static_cast<int>(o.max_message_bytes));
    args.SetMaxSendMessageSize(static_cast<int>(o.max_message_bytes));
    if (!o.security.tls_server_name.empty()) args.SetSslTargetNameOverride(o.security.tls_server_name);
    // call() retries with its own back-off. The channel's own, between connection attempts,
    // starts at 1 s and grows to 2 minutes: keep it short, so that an actor started before its
    // learner connects soon after the learner listens.
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
    // The Rounds stream has no deadline: pings find a connection that died under it (a cut
    // link) as a call's deadline would, after about twice the per-call deadline. The learner
    // accepts them (fleet_server.cpp).
    const int keepalive_ms = static_cast<int>(std::clamp<std::int64_t>(o.deadline_ms, 1000, 60'000));
    args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, keepalive_ms);
    args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, keepalive_ms);
    args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
    channel_ = grpc::CreateCustomChannel(o.connect, channel_credentials(o.security), args);
    stub_ = fleet::Fleet::NewStub(channel_);
    run_id_ = (static_cast<std::uint64_t>(rng_()) << 32) ^ rng_();
    last_contact_ = Clock::now();
  }

  // Calls fn(context) until it succeeds, retrying transport failures with back-off. Throws
  // UserError for refusals and GaveUp after max_idle_ms without contact.
  template <class Fn>
  void call(const char* what, Fn&& fn, std::int64_t extra_ms = 0) {
    std::int64_t backoff_ms = 100;
    for (;;) {
      grpc::ClientContext ctx;
      add_token(ctx, o_.security.token);
      ctx.set_deadline(std::chrono::system_clock::now() + milliseconds(o_.deadline_ms + extra_ms));
      const grpc::Status st = fn(ctx);
      if (st.ok()) {
        last_contact_ = Clock::now();
        return;
      }
      switch (st.error_code()) {
        case grpc::StatusCode::UNAUTHENTICATED:
        case grpc::StatusCode::PERMISSION_DENIED:
        case grpc::StatusCode::FAILED_PRECONDITION:
        case grpc::StatusCode::INVALID_ARGUMENT:
        case grpc::StatusCode::RESOURCE_EXHAUSTED:
        case grpc::StatusCode::UNIMPLEMENTED:
          throw UserError(fmt::format("the learner at {} refused {}: {}", o_.connect, what, st.error_message()));
        default:
          break;
      }
      if (Clock::now() - last_contact_ > milliseconds(o_.max_idle_ms)) throw GaveUp{};
      if (signal_stop_requested()) throw GaveUp{};
      spdlog::info("actor: {} failed ({}); retrying in {} ms", what, st.error_message(), backoff_ms);
      std::uniform_int_distribution<std::int64_t> jitter(backoff_ms / 2, backoff_ms);
      const auto until = Clock::now() + milliseconds(jitter(rng_));
      // Without a connection, a call fails at once with the last connection error, and the
      // channel learns how its next attempt went only while someone waits on it (otherwise at
      // gRPC's backup poll, every 5 s): wait on its state, and retry as soon as it connects.
      // (Before, an actor started before its learner listened kept failing for 5-12 s after.)
      const bool was_connected = channel_->GetState(false) == GRPC_CHANNEL_READY;
      while (Clock::now() < until && !signal_stop_requested()) {
        const auto slice = std::min(until, Clock::now() + milliseconds(20));
        if (was_connected) {
          std::this_thread::sleep_until(slice);
          continue;
        }
        const grpc_connectivity_state state = channel_->GetState(/*try_to_connect=*/true);
        if (state == GRPC_CHANNEL_READY) break;
        channel_->WaitForStateChange(state, std::chrono::system_clock::now() + (slice - Clock::now()));
      }
      backoff_ms = std::min<std::int64_t>(backoff_ms * 2, 5000);
    }
  }

  fleet::Fleet::Stub& stub() { return *stub_; }
  std::uint64_t run_id() const { return run_id_; }

 private:
  const FleetActorOptions& o_;
  std::mt19937_64 rng_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<fleet::Fleet::Stub> stub_;
  std::uint64_t run_id_ = 0;
  Clock::time_point last_contact_;
};

std::string host_name() {
  char buf[256] = {};
  gethostname(buf, sizeof(buf) - 1);
  return fmt::format("{} pid {}", buf, getpid());
}

// The actor's session with one learner: registration, parameters, uploads.
class ActorSession : public ActorPolicy, public TrajectorySink {
 public:
  ActorSession(const FleetActorOptions& o, FleetClient& client, const std::string& spec_hash, const ActorRole& role,
               StopSource& stop, FleetActorResult& result)
      : o_(o), client_(client), spec_hash_(spec_hash), role_(role), stop_(stop), result_(result), actor_id_(o.actor_id) {}

  void register_actor() {
    close_stream();
    pending_.reset();  // made for the run that registers again: the learner would refuse it
    fleet::RegisterRequest req;
    req.set_protocol(kFleetProtocolVersion);
    req.set_actor_id(actor_id_);
    req.set_run_id(client_.run_id());
    req.set_spec_hash(spec_hash_);
    req.set_host(host_name());
    fleet::RegisterReply reply;
    client_.call("registration", [&](grpc::ClientContext& c) { return client_.stub().Register(&c, req, &reply); });
    learner_run_ = reply.learner_run();
    actor_id_ = reply.actor_id();
    env_offset_ = reply.env_offset();
    reset_seed_ = reply.reset_seed();
    heartbeat_ms_ = std::max<std::int64_t>(reply.heartbeat_timeout_ms() / 3, 100);
    held_ = 0;
    must_register_ = false;
    spdlog::info("actor {}: registered with learner {:016x} (run {:016x})", actor_id_, learner_run_, client_.run_id());
    fetch_parameters(0);
  }

  // The inner policy, once registered (its actor index is known then).
  void set_policy(std::unique_ptr<ActorPolicy> policy) { policy_ = std::move(policy); }

  ModuleParameterStore& store() { return store_; }
  int actor_id() const { return actor_id_; }
  std::int64_t env_offset() const { return env_offset_; }
  std::uint64_t reset_seed() const { return reset_seed_; }
  std::int64_t heartbeat_ms() const { return heartbeat_ms_; }
  std::uint64_t learner_run() const { return learner_run_; }
  void need_register() { must_register_ = true; }

  // ActorPolicy
  std::size_t num_extras() const override { return policy_->num_extras(); }
  std::uint64_t begin_trajectory(std::uint64_t sequence, const StopSource& stop) override {
    if (must_register_) register_actor();
    if (role_.on_policy && used_ == held_) {
      // A new version, or after the wait the same one again; with the trajectory made last.
      if (!round_trip(o_.on_policy_wait_ms)) {
        send_pending_by_upload();
        if (!must_register_) fetch_parameters(o_.on_policy_wait_ms);
      }
      if (must_register_ && !result_.learner_finished) register_actor();  // the upload's reply said so
    } else if (learner_version_ > held_) {
      fetch_parameters(0);
    }
    while (held_ == 0 && !stop_.stop_requested()) fetch_parameters(o_.on_policy_wait_ms);
    policy_->begin_trajectory(sequence, stop);
    return held_;
  }
  bool act(const ActBatch& batch) override {
    if (signal_stop_requested()) {
      result_.interrupted = true;
      stop_.request_stop();
    }
    return policy_->act(batch);
  }

  // TrajectorySink
  bool push(Trajectory t) override {
    if (must_register_) return !stop_.stop_requested();  // made for a learner that is gone: drop it
    pending_.emplace();
    fleet::TrajectoryUpload& msg = *pending_->mutable_upload();
    encode_trajectory(t, msg);
    msg.set_run_id(client_.run_id());
    msg.set_learner_run(learner_run_);
    msg.set_actor_id(actor_id_);
    used_ = t.policy_version;
    // On-policy over the stream, the trajectory goes with the next request for parameters
    // (begin_trajectory), unless this is the last one.
    const bool last = stop_.stop_requested() ||
                      (o_.max_trajectories >= 0 && result_.trajectories + 1 >= o_.max_trajectories);
    if (!role_.on_policy || stream_unsupported_ || last) send_pending_by_upload();
    if (result_.learner_finished) return false;
    if (o_.max_trajectories >= 0 && result_.trajectories >= o_.max_trajectories) return false;
    return !stop_.stop_requested();
  }

  // After the actor loop: sends the trajectory still held, if the learner still wants it, and
  // closes the stream.
  void flush() {
    if (!result_.learner_finished && !must_register_) send_pending_by_upload();
    close_stream();
  }

  // Sends a trajectory still held (the last one, or when the stream failed).
  void send_pending_by_upload() {
    if (!pending_) return;
    fleet::TrajectoryUpload& msg = *pending_->mutable_upload();
    fleet::UploadReply reply;
    client_.call("a trajectory", [&](grpc::ClientContext& c) { return client_.stub().Upload(&c, msg, &reply); });
    const std::uint64_t sequence = msg.sequence();
    pending_.reset();
    take_upload_reply(reply, sequence);
  }

  bool finish() {
    result_.learner_finished = true;
    stop_.request_stop();
    return false;
  }

 private:
  void fetch_parameters(std::int64_t wait_ms) {
    const fleet::ParametersRequest req = parameters_request(wait_ms);
    fleet::ParametersReply reply;
    client_.call("parameters", [&](grpc::ClientContext& c) { return client_.stub().GetParameters(&c, req, &reply); },
                 wait_ms);
    take_parameters(reply);
  }

  // Parameters newer than those held, waiting up to wait_ms for them.
  fleet::ParametersRequest parameters_request(std::int64_t wait_ms) const {
    fleet::ParametersRequest req;
    req.set_run_id(client_.run_id());
    req.set_learner_run(learner_run_);
    req.set_have_version(held_);
    req.set_wait_ms(wait_ms);
    return req;
  }

  void take_parameters(const fleet::ParametersReply& reply) {
    if (reply.finished()) {
      finish();
      return;
    }
    if (reply.learner_run() != learner_run_) {  // the learner restarted
      spdlog::warn("actor {}: the learner restarted; registering again", actor_id_);
      register_actor();
      return;
    }
    learner_version_ = reply.version();
    if (reply.version() > held_ && reply.tensors_size() > 0) {
      store_.publish(decode_parameters(reply));
      held_ = reply.version();
    }
  }

  void take_upload_reply(const fleet::UploadReply& reply, std::uint64_t sequence) {
    learner_version_ = reply.version();
    if (reply.finished()) {
      finish();
      return;
    }
    if (reply.accepted()) {
      ++result_.trajectories;
    } else {
      ++result_.refused;
      spdlog::info("actor {}: trajectory {} not taken: {}", actor_id_, sequence, reply.reason());
      if (reply.learner_run() != learner_run_ || reply.reason().find("register again") != std::string::npos)
        must_register_ = true;
    }
  }

  // On-policy: the held trajectory (if any) and the request for parameters newer than those
  // held, as one message on the Rounds stream, and its reply. False when the stream is not
  // there (a learner without it) or broke: the caller then uses Upload and GetParameters,
  // which retry, and the next round opens the stream again.
  bool round_trip(std::int64_t wait_ms) {
    if (stream_unsupported_ || result_.learner_finished) return false;
    if (!stream_) {
      stream_context_ = std::make_unique<grpc::ClientContext>();
      add_token(*stream_context_, o_.security.token);
      stream_ = client_.stub().Rounds(stream_context_.get());
    }
    fleet::RoundsRequest req;
    if (pending_) req.Swap(&*pending_);
    *req.mutable_parameters() = parameters_request(wait_ms);
    fleet::RoundsReply reply;
    if (!stream_->Write(req) || !stream_->Read(&reply)) {
      if (req.has_upload()) pending_.emplace().Swap(&req);  // sent again by Upload: a duplicate is used once
      close_stream();
      return false;
    }
    if (req.has_upload()) take_upload_reply(reply.upload(), req.upload().sequence());
    if (!result_.learner_finished && !must_register_) take_parameters(reply.parameters());
    if (result_.learner_finished || must_register_) close_stream();
    return true;
  }

  void close_stream() {
    if (!stream_) return;
    stream_context_->TryCancel();
    const grpc::Status st = stream_->Finish();
    if (st.error_code() == grpc::StatusCode::UNIMPLEMENTED) {
      stream_unsupported_ = true;
      spdlog::info("actor {}: the learner has no Rounds stream; using GetParameters and Upload", actor_id_);
    }
    stream_.reset();
    stream_context_.reset();
  }

  const FleetActorOptions& o_;
  FleetClient& client_;
  std::string spec_hash_;
  const ActorRole& role_;
  StopSource& stop_;
  FleetActorResult& result_;
  std::unique_ptr<ActorPolicy> policy_;
  ModuleParameterStore store_;
  std::optional<fleet::RoundsRequest> pending_;  // a trajectory not yet sent, in its upload
  std::unique_ptr<grpc::ClientContext> stream_context_;
  std::unique_ptr<grpc::ClientReaderWriter<fleet::RoundsRequest, fleet::RoundsReply>> stream_;
  bool stream_unsupported_ = false;
  // learner_run_, heartbeat_ms_ and must_register_ are shared with the heartbeat thread.
  std::atomic<std::uint64_t> learner_run_{0};
  std::uint64_t held_ = 0, learner_version_ = 0, reset_seed_ = 0;
  std::uint64_t used_ = 0;  // the version of the last trajectory sent
  int actor_id_ = -1;
  std::int64_t env_offset_ = 0;
  std::atomic<std::int64_t> heartbeat_ms_{5000};
  std::atomic<bool> must_register_{false};
};

// Sends heartbeats while the actor lives; flags a learner that forgot this run.
class Heartbeats {
 public:
  Heartbeats(FleetClient& client, ActorSession& session, const FleetActorOptions& o)
      : client_(client), session_(session), o_(o), thread_([this] { loop(); }) {}
  ~Heartbeats() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  void loop() {
    std::unique_lock lock(mutex_);
    while (!cv_.wait_for(lock, milliseconds(session_.heartbeat_ms()), [&] { return done_; })) {
      lock.unlock();
      fleet::HeartbeatRequest req;
      req.set_run_id(client_.run_id());
      req.set_learner_run(session_.learner_run());
      fleet::HeartbeatReply reply;
      grpc::ClientContext ctx;
      add_token(ctx, o_.security.token);
      ctx.set_deadline(std::chrono::system_clock::now() + milliseconds(o_.deadline_ms));
      if (client_.stub().Heartbeat(&ctx, req, &reply).ok() && !reply.known() && !reply.finished())
        session_.need_register();
      lock.lock();
    }
  }

  FleetClient& client_;
  ActorSession& session_;
  const FleetActorOptions& o_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace

FleetActorResult run_fleet_actor(const FleetActorOptions& options) {
  use_one_torch_thread();
  FleetActorResult result;
  SignalStop signals;
  FleetClient client(options);
  try {
    fleet::ConfigRequest creq;
    creq.set_protocol(kFleetProtocolVersion);
    fleet::ConfigReply config;
    client.call("the configuration", [&](grpc::ClientContext& c) { return client.stub().GetConfig(&c, creq, &config); });
    auto agent = make_agent_from_yaml(YAML::Load(config.preset_yaml()), ConfigContext("the learner's preset"));
    std::optional<ActorRole> role = agent->actor_role();
    if (!role) throw UserError(fmt::format("algorithm '{}' has no actor processes", agent->algorithm()));
    const FleetSpec spec = fleet_spec(*agent, *role);

    StopSource stop;
    ActorSession session(options, client, spec.spec_hash, *role, stop, result);
    session.register_actor();
    session.set_policy(role->make_policy(session.store(), session.actor_id()));
    auto envs = make_vector_env(agent->preset().env, role->shape.num_envs, 1, agent->preset().env_kwargs);
    Heartbeats heartbeats(client, session, options);
    ActorLoopOptions loop;
    loop.actor = session.actor_id();
    loop.env_offset = session.env_offset();
    loop.steps_per_trajectory = role->shape.num_steps;
    loop.reset_seed = session.reset_seed();
    run_actor_loop(*envs, session, session, loop, stop);
    session.flush();
  } catch (const GaveUp&) {
    if (signal_stop_requested())
      result.interrupted = true;
    else
      result.gave_up = true;
  }
  if (signal_stop_requested()) result.interrupted = true;
  return result;
}

}  // namespace rlzoo
