// The learner's gRPC end in-process (distributed/fleet_server.h), driven by a raw client: what
// it accepts, what it refuses and counts, and who may call it.
#include <gtest/gtest.h>
#include <grpcpp/grpcpp.h>

#include <cmath>
#include <csignal>
#include <future>
#include <cstring>
#include <fmt/format.h>
#include <limits>

#include "core/runtime/stop.h"
#include "distributed/fleet_auth.h"
#include "distributed/fleet_server.h"
#include "distributed/fleet_wire.h"
#include "distributed/proto/fleet.grpc.pb.h"
#include "tests/support/child_process.h"
#include "tests/support/fleet_messages.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

constexpr std::uint64_t kRun = 0x1234;

FleetSpec small_spec() { return test::small_fleet_spec(); }

struct Fixture {
  explicit Fixture(FleetServerOptions o = {}) {
    o.listen = "127.0.0.1:0";
    o.max_message_bytes = 4096;
    o.finish_grace_ms = 100;  // the raw client never asks whether training is over
    fleet = std::make_shared<GrpcFleet>(o);
    ParameterSnapshot s;
    s.tensors.push_back(torch::ones({2}));
    params.publish(s);
    source = fleet->open(small_spec(), params);
    stub = fleet::Fleet::NewStub(
        grpc::CreateChannel(fmt::format("127.0.0.1:{}", fleet->port()), grpc::InsecureChannelCredentials()));
  }
  grpc::Status call_register(const std::string& token, std::uint32_t protocol, const std::string& hash,
                             fleet::RegisterReply& reply) {
    grpc::ClientContext ctx;
    add_token(ctx, token);
    fleet::RegisterRequest req;
    req.set_protocol(protocol);
    req.set_actor_id(-1);
    req.set_run_id(kRun);
    req.set_spec_hash(hash);
    return stub->Register(&ctx, req, &reply);
  }
  fleet::UploadReply upload(fleet::TrajectoryUpload m, const std::string& token = "") {
    grpc::ClientContext ctx;
    add_token(ctx, token);
    m.set_run_id(kRun);
    m.set_learner_run(learner_run);
    fleet::UploadReply reply;
    EXPECT_TRUE(stub->Upload(&ctx, m, &reply).ok());
    return reply;
  }

  ModuleParameterStore params;  // outlives the source that serves it
  std::shared_ptr<GrpcFleet> fleet;
  std::unique_ptr<TrajectorySource> source;
  std::unique_ptr<fleet::Fleet::Stub> stub;
  std::uint64_t learner_run = 0;
};

fleet::TrajectoryUpload good_upload(std::uint64_t version) { return test::fleet_upload(small_spec(), version); }

TEST(FleetServer, RefusesAndCountsEachKindOfBadMessageAndUsesOnlyGoodOnes) {
  Fixture f;
  fleet::RegisterReply reg;
  // Protocol and spec mismatches are refused before anything else.
  grpc::Status st = f.call_register("", 99, "feedfacefeedface", reg);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(st.error_message().find("protocol version 99"), std::string::npos);
  st = f.call_register("", kFleetProtocolVersion, "0000000000000000", reg);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(st.error_message().find("differs from the learner's feedfacefeedface"), std::string::npos);
  ASSERT_TRUE(f.call_register("", kFleetProtocolVersion, "feedfacefeedface", reg).ok());
  f.learner_run = reg.learner_run();
  EXPECT_EQ(reg.actor_id(), 0);

  auto bad = good_upload(1);
  bad.set_num_envs(3);
  EXPECT_FALSE(f.upload(bad).accepted());
  bad = good_upload(1);
  bad.mutable_terminated()->set_dtype(fleet::Tensor::INT64);
  EXPECT_FALSE(f.upload(bad).accepted());
  bad = good_upload(1);
  bad.mutable_actions()->mutable_data()->pop_back();
  EXPECT_FALSE(f.upload(bad).accepted());
  bad = good_upload(1);
  {
    std::string r = bad.rewards().data();
    const double inf = std::numeric_limits<double>::infinity();
    std::memcpy(r.data(), &inf, 8);
    bad.mutable_rewards()->set_data(r);
  }
  const auto reply = f.upload(bad);
  EXPECT_FALSE(reply.accepted());
  EXPECT_NE(reply.reason().find("rewards: value 0 is inf"), std::string::npos) << reply.reason();
  bad = good_upload(1);
  bad.mutable_obs()->mutable_data()->append(8000, 'x');  // over the 4096-byte limit
  const std::string oversized = f.upload(bad).reason();
  EXPECT_NE(oversized.find("over the limit of 4096"), std::string::npos) << oversized;
  EXPECT_NE(oversized.find("--max-message-mb raises it"), std::string::npos) << oversized;
  // On-policy: a trajectory made with older parameters than the newest is not used.
  EXPECT_FALSE(f.upload(good_upload(0)).accepted());
  // A good one is used, and is the round.
  EXPECT_TRUE(f.upload(good_upload(1)).accepted());
  const auto round = f.source->next_round();
  ASSERT_TRUE(round);
  EXPECT_EQ(round->rewards, std::vector<double>(6, 1.0));

  const FleetStats s = f.fleet->stats();
  EXPECT_EQ(s.rejected.at("protocol"), 1u);
  EXPECT_EQ(s.rejected.at("spec"), 1u);
  EXPECT_EQ(s.rejected.at("shape"), 1u);
  EXPECT_EQ(s.rejected.at("dtype"), 1u);
  EXPECT_EQ(s.rejected.at("size"), 1u);
  EXPECT_EQ(s.rejected.at("non_finite"), 1u);
  EXPECT_EQ(s.rejected.at("oversized"), 1u);
  EXPECT_EQ(s.stale, 1u);
  EXPECT_EQ(s.accepted, 1u);
  EXPECT_EQ(s.used, 1u);
}

// An actor retries an upload whose reply it did not get (UNAVAILABLE, a deadline): the learner
// already has it, so the copy is acknowledged and ignored, never used twice.
TEST(FleetServer, AnUploadRetriedAfterALostReplyIsUsedOnce) {
  Fixture f;
  fleet::RegisterReply reg;
  ASSERT_TRUE(f.call_register("", kFleetProtocolVersion, "feedfacefeedface", reg).ok());
  f.learner_run = reg.learner_run();
  fleet::TrajectoryUpload first = good_upload(1);
  first.set_sequence(0);
  ASSERT_TRUE(f.upload(first).accepted());
  const auto retry = f.upload(first);
  EXPECT_TRUE(retry.accepted());
  EXPECT_NE(retry.reason().find("duplicate"), std::string::npos) << retry.reason();
  fleet::TrajectoryUpload second = good_upload(1);
  second.set_sequence(1);
  second.mutable_rewards()->set_data(std::string(6 * sizeof(double), '\0'));
  ASSERT_TRUE(f.upload(second).accepted());
  // Two rounds: the first trajectory once, then the second.
  const auto a = f.source->next_round();
  ASSERT_TRUE(a);
  EXPECT_EQ(a->rewards, std::vector<double>(6, 1.0));
  const auto b = f.source->next_round();
  ASSERT_TRUE(b);
  EXPECT_EQ(b->rewards, std::vector<double>(6, 0.0));
  const FleetStats s = f.fleet->stats();
  EXPECT_EQ(s.duplicates, 1u);
  EXPECT_EQ(s.accepted, 2u);
  EXPECT_EQ(s.used, 2u);
}

TEST(FleetServer, CallsWithoutTheTokenAreRefused) {
  FleetServerOptions o;
  o.security.token = "correct horse";
  Fixture f(o);
  fleet::RegisterReply reg;
  grpc::Status st = f.call_register("", kFleetProtocolVersion, "feedfacefeedface", reg);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  st = f.call_register("correct horsf", kFleetProtocolVersion, "feedfacefeedface", reg);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(st.error_message(), "wrong token");
  EXPECT_EQ(f.fleet->stats().unauthenticated, 2u);
  EXPECT_EQ(f.fleet->stats().registrations, 0u);
  EXPECT_TRUE(f.call_register("correct horse", kFleetProtocolVersion, "feedfacefeedface", reg).ok());
  EXPECT_EQ(f.fleet->stats().registrations, 1u);
}

TEST(FleetServer, ARunRegisteredAgainEndsTheOldOneAndItsQueuedTrajectoriesAreDropped) {
  Fixture f;
  fleet::RegisterReply reg;
  ASSERT_TRUE(f.call_register("", kFleetProtocolVersion, "feedfacefeedface", reg).ok());
  f.learner_run = reg.learner_run();
  ASSERT_TRUE(f.upload(good_upload(1)).accepted());  // queued, not yet taken
  // The same actor slot registers as a new run (the process was restarted).
  grpc::ClientContext ctx;
  fleet::RegisterRequest req;
  req.set_protocol(kFleetProtocolVersion);
  req.set_actor_id(0);
  req.set_run_id(0x9999);
  req.set_spec_hash("feedfacefeedface");
  ASSERT_TRUE(f.stub->Register(&ctx, req, &reg).ok());
  // The old run's uploads are refused from now on; its queued trajectory is never used.
  EXPECT_NE(f.upload(good_upload(1)).reason().find("register again"), std::string::npos);
  fleet::TrajectoryUpload fresh = good_upload(1);
  {
    grpc::ClientContext c2;
    fresh.set_run_id(0x9999);
    fresh.set_learner_run(f.learner_run);
    fleet::UploadReply r;
    ASSERT_TRUE(f.stub->Upload(&c2, fresh, &r).ok());
    EXPECT_TRUE(r.accepted());
  }
  ASSERT_TRUE(f.source->next_round());
  const FleetStats s = f.fleet->stats();
  EXPECT_EQ(s.discarded_ended, 1u);
  EXPECT_EQ(s.used_by_run.count(kRun), 0u);
  EXPECT_EQ(s.used_by_run.at(0x9999), 1u);
  EXPECT_EQ(s.used_after_end, 0u);
  EXPECT_NE(s.ended_runs.at(kRun).find("registered again"), std::string::npos);
}

// Ends a next_round() still waiting when a test stops early (a failed ASSERT): the future's
// destructor would otherwise wait for it until ctest's timeout. The round sees SIGINT as a stop.
struct EndWaitingRound {
  std::future<std::optional<Trajectory>>& round;
  ~EndWaitingRound() {
    if (!round.valid() || round.wait_for(std::chrono::seconds(0)) == std::future_status::ready) return;
    SignalStop handlers;
    std::raise(SIGINT);
    round.wait();
    clear_signal_stop();
  }
};

// D3 (docs/reliability.md): while no actor is connected the learner can only wait; it says so
// again and again, and takes the round as soon as an actor brings it.
TEST(FleetServer, TheLearnerWarnsWhileNoActorIsConnected) {
  FleetServerOptions o;
  o.no_actor_warning_ms = 100;
  Fixture f(o);
  auto round = std::async(std::launch::async, [&] { return f.source->next_round(); });
  EndWaitingRound end_round{round};
  ASSERT_TRUE(test::wait_until([&] { return f.fleet->stats().no_actor_warnings >= 2; }, std::chrono::seconds(10)));
  fleet::RegisterReply reg;
  ASSERT_TRUE(f.call_register("", kFleetProtocolVersion, "feedfacefeedface", reg).ok());
  f.learner_run = reg.learner_run();
  ASSERT_TRUE(f.upload(good_upload(1)).accepted());
  ASSERT_TRUE(round.get().has_value());
  // With an actor connected, waiting for the next round does not warn.
  const auto warnings = f.fleet->stats().no_actor_warnings;
  auto next = std::async(std::launch::async, [&] { return f.source->next_round(); });
  EndWaitingRound end_next{next};
  ASSERT_TRUE(f.upload([] {
                 auto m = good_upload(1);
                 m.set_sequence(1);
                 return m;
               }())
                  .accepted());
  ASSERT_TRUE(next.get().has_value());
  EXPECT_EQ(f.fleet->stats().no_actor_warnings, warnings);
}

// D5 (docs/reliability.md): an actor that hangs (registered, then silent) is forgotten after the
// heartbeat timeout; what it sends later is refused until it registers again.
TEST(FleetServer, ASilentActorIsForgottenAfterTheHeartbeatTimeout) {
  FleetServerOptions o;
  o.heartbeat_timeout_ms = 3000;  // room for the second run's register and upload on a loaded machine
  Fixture f(o);
  fleet::RegisterReply reg;
  ASSERT_TRUE(f.call_register("", kFleetProtocolVersion, "feedfacefeedface", reg).ok());
  f.learner_run = reg.learner_run();
  auto round = std::async(std::launch::async, [&] { return f.source->next_round(); });
  EndWaitingRound end_round{round};
  ASSERT_TRUE(test::wait_until([&] { return f.fleet->stats().ended_runs.count(kRun) > 0; }, std::chrono::seconds(20)));
  EXPECT_EQ(f.fleet->stats().ended_runs.at(kRun), "silent for more than 3000 ms");
  const auto late = f.upload(good_upload(1));
  EXPECT_FALSE(late.accepted());
  EXPECT_NE(late.reason().find("register again"), std::string::npos) << late.reason();
  // Another actor (a new run) makes the round.
  grpc::ClientContext ctx;
  fleet::RegisterRequest req;
  req.set_protocol(kFleetProtocolVersion);
  req.set_actor_id(-1);
  req.set_run_id(0x777);
  req.set_spec_hash("feedfacefeedface");
  ASSERT_TRUE(f.stub->Register(&ctx, req, &reg).ok());
  fleet::TrajectoryUpload m = good_upload(1);
  m.set_run_id(0x777);
  m.set_learner_run(f.learner_run);
  grpc::ClientContext c2;
  fleet::UploadReply r;
  ASSERT_TRUE(f.stub->Upload(&c2, m, &r).ok());
  ASSERT_TRUE(r.accepted()) << r.reason();
  ASSERT_TRUE(round.get().has_value());
  EXPECT_EQ(f.fleet->stats().used_by_run.at(0x777), 1u);
}

// A CA, a learner certificate for localhost/127.0.0.1 and an actor certificate, made with the
// openssl command; false where it is missing.
bool make_certificates(const std::string& dir) {
  const std::string cmd = fmt::format(
      "cd '{}' && openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 1 -subj /CN=rlzoo-test-ca && "
      "openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj /CN=localhost && "
      "printf 'subjectAltName=DNS:localhost,IP:127.0.0.1' > san.ext && "
      "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 1 -extfile san.ext && "
      "openssl req -newkey rsa:2048 -nodes -keyout client.key -out client.csr -subj /CN=actor && "
      "openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out client.pem -days 1",
      dir);
  return test::run_command(cmd + " >/dev/null 2>&1").status == 0;
}

TEST(FleetServer, MutualTlsAdmitsOnlyActorsWithACertificateFromTheCa) {
  const std::string dir = test::make_temp_dir("rlzoo-tls");
  if (!make_certificates(dir)) GTEST_SKIP() << "the openssl command is not available; not run";
  FleetServerOptions o;
  o.listen = "127.0.0.1:0";
  o.finish_grace_ms = 100;
  o.security = {"tls token", dir + "/server.pem", dir + "/server.key", dir + "/ca.pem", ""};
  auto fleet = std::make_shared<GrpcFleet>(o);
  ModuleParameterStore params;
  params.publish(ParameterSnapshot{});
  auto source = fleet->open(small_spec(), params);
  auto try_register = [&](const FleetSecurity& client) {
    auto stub = fleet::Fleet::NewStub(
        grpc::CreateChannel(fmt::format("localhost:{}", fleet->port()), channel_credentials(client)));
    grpc::ClientContext ctx;
    add_token(ctx, "tls token");
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    fleet::RegisterRequest req;
    req.set_protocol(kFleetProtocolVersion);
    req.set_actor_id(-1);
    req.set_run_id(kRun);
    req.set_spec_hash("feedfacefeedface");
    fleet::RegisterReply reply;
    return stub->Register(&ctx, req, &reply);
  };
  // Plain text, and TLS without a client certificate, do not get through.
  EXPECT_FALSE(try_register(FleetSecurity{}).ok());
  EXPECT_FALSE(try_register(FleetSecurity{"", "", "", dir + "/ca.pem", ""}).ok());
  // The learner's CA and the actor's certificate: admitted.
  const grpc::Status st = try_register(FleetSecurity{"", dir + "/client.pem", dir + "/client.key", dir + "/ca.pem", ""});
  EXPECT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(fleet->stats().registrations, 1u);
}

}  // namespace
}  // namespace rlzoo
