// The fleet's shared state (distributed/fleet_server_state.h) under concurrent use, without
// gRPC: actor threads call the service's handlers directly while the learner takes rounds from
// its source. The handlers and the source are the code the gRPC server runs; leaving the
// transport out lets ThreadSanitizer check rlzoo's own locking (scripts/test-tsan --all runs
// these), which it cannot do through Debian's uninstrumented gRPC (docs/reliability.md).
#include <gtest/gtest.h>
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <fstream>
#include <latch>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "distributed/fleet_server_state.h"
#include "distributed/fleet_service.h"
#include "distributed/fleet_wire.h"
#include "tests/support/fleet_messages.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

void publish_version(ModuleParameterStore& params, float value) {
  ParameterSnapshot s;
  s.tensors.push_back(torch::full({2}, value));
  params.publish(std::move(s));
}

// One in-process fleet: its state, the service's handlers and the learner's source.
struct InProcessFleet {
  InProcessFleet(FleetServerOptions options, FleetSpec spec) : spec(std::move(spec)) {
    publish_version(params, 1);
    state = make_fleet_state(options, this->spec, params, 0);
    service = make_fleet_service(*state);
    // The test keeps the service: its threads may still be in a handler when the source goes
    // (a gRPC server waits for those calls in its Shutdown).
    source = make_fleet_source(state, nullptr, nullptr);
  }

  // Registers `run` (actor -1: any free slot); the reply, or nothing once the learner finished.
  std::optional<fleet::RegisterReply> register_run(std::uint64_t run, int actor) {
    grpc::ServerContext ctx;
    fleet::RegisterRequest req;
    req.set_protocol(kFleetProtocolVersion);
    req.set_actor_id(actor);
    req.set_run_id(run);
    req.set_spec_hash(spec.spec_hash);
    fleet::RegisterReply reply;
    const grpc::Status st = service->Register(&ctx, &req, &reply);
    if (st.error_code() == grpc::StatusCode::UNAVAILABLE && state->finished) return std::nullopt;
    EXPECT_TRUE(st.ok()) << st.error_message();
    return reply;
  }
  fleet::ParametersReply get_parameters(std::uint64_t run, std::uint64_t have, std::int64_t wait_ms) {
    grpc::ServerContext ctx;
    fleet::ParametersRequest req;
    req.set_run_id(run);
    req.set_learner_run(state->learner_run);
    req.set_have_version(have);
    req.set_wait_ms(wait_ms);
    fleet::ParametersReply reply;
    EXPECT_TRUE(service->GetParameters(&ctx, &req, &reply).ok());
    return reply;
  }
  fleet::UploadReply upload(std::uint64_t run, std::uint64_t sequence, fleet::TrajectoryUpload m) {
    grpc::ServerContext ctx;
    m.set_run_id(run);
    m.set_learner_run(state->learner_run);
    m.set_sequence(sequence);
    fleet::UploadReply reply;
    EXPECT_TRUE(service->Upload(&ctx, &m, &reply).ok());
    return reply;
  }
  fleet::HeartbeatReply heartbeat(std::uint64_t run) {
    grpc::ServerContext ctx;
    fleet::HeartbeatRequest req;
    req.set_run_id(run);
    req.set_learner_run(state->learner_run);
    fleet::HeartbeatReply reply;
    EXPECT_TRUE(service->Heartbeat(&ctx, &req, &reply).ok());
    return reply;
  }
  FleetStats stats() const {
    std::lock_guard lock(state->mutex);
    return state->stats;
  }

  // Ends training as the learner does (the source goes, telling actors so), then joins the
  // test's threads. Also run on destruction, so that a failed ASSERT in the test body returns
  // without leaving threads running.
  void finish() {
    done = true;
    source.reset();
    for (auto& t : threads)
      if (t.joinable()) t.join();
  }
  ~InProcessFleet() { finish(); }

  FleetSpec spec;
  ModuleParameterStore params;  // outlives the source that serves it
  std::shared_ptr<GrpcFleet::State> state;
  std::unique_ptr<fleet::Fleet::Service> service;  // outlives the threads that call it
  std::unique_ptr<TrajectorySource> source;
  std::vector<std::thread> threads;  // the test's actors; they stop on `done` or `finished`
  std::atomic<bool> done{false};
};

TEST(FleetStateThreads, OnPolicyActorsUploadWhileTheLearnerTakesRounds) {
  constexpr int kActors = 3;
  constexpr int kRounds = 25;
  const std::string dir = test::make_temp_dir("rlzoo-fleet-state");
  FleetServerOptions options;
  options.stats_file = dir + "/stats.json";  // written from every thread
  options.max_wait_ms = 200;
  InProcessFleet f(options, test::small_fleet_spec(/*on_policy=*/true, kActors));

  std::atomic<std::uint64_t> first_accepted{0}, retries{0};
  std::vector<int> actor_ids(kActors, -1);
  std::latch registered(kActors);
  for (int a = 0; a < kActors; ++a)
    f.threads.emplace_back([&, a] {
      const std::uint64_t run = 0x100 + a;
      const auto reg = f.register_run(run, -1);
      registered.count_down();
      if (!reg) {
        ADD_FAILURE() << "registration refused";
        return;
      }
      actor_ids[a] = reg->actor_id();
      std::uint64_t have = 0, sequence = 0;
      while (true) {
        const auto p = f.get_parameters(run, have, 100);
        if (p.finished()) break;
        if (p.version() > have) {
          EXPECT_EQ(p.tensors_size(), 1);
          have = p.version();
        }
        const auto m = test::fleet_upload(f.spec, have, static_cast<double>(have));
        const auto u = f.upload(run, ++sequence, m);
        if (u.accepted()) {
          ++first_accepted;
          // A retry after a lost reply: accepted again, used once (unless training ended since).
          const auto again = f.upload(run, sequence, m);
          if (!again.finished()) {
            EXPECT_TRUE(again.accepted());
            EXPECT_NE(again.reason().find("duplicate"), std::string::npos) << again.reason();
            ++retries;
          }
        }
        EXPECT_TRUE(f.heartbeat(run).known());
      }
    });

  // A reader of the stats and live runs, as the learner's logging does: it is there for TSan
  // to check those reads against the writers. The pause only keeps it from taking a core.
  f.threads.emplace_back([&] {
    while (!f.done) {
      f.stats();
      f.state->live_runs();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });

  // Every actor has registered (or been refused) before the first round: under load (a -j2 run
  // beside the learning tests) an actor thread could otherwise start only after the learner had
  // taken all its rounds, and be refused as too late.
  registered.wait();
  for (int r = 0; r < kRounds; ++r) {
    const std::uint64_t version = f.params.version();
    const auto round = f.source->next_round();
    ASSERT_TRUE(round);
    // On-policy: every trajectory of the round was made with the newest parameters.
    EXPECT_EQ(round->policy_version, version);
    EXPECT_EQ(round->rewards, std::vector<double>(round->rewards.size(), static_cast<double>(version)));
    EXPECT_EQ(round->rewards.size(), static_cast<std::size_t>(3 * 2 * kActors));
    publish_version(f.params, static_cast<float>(version + 1));
  }
  f.finish();

  const FleetStats s = f.stats();
  EXPECT_EQ(s.registrations, static_cast<std::uint64_t>(kActors));
  EXPECT_EQ(s.used, static_cast<std::uint64_t>(kRounds * kActors));
  EXPECT_EQ(s.accepted, first_accepted.load());
  EXPECT_EQ(s.duplicates, retries.load());
  EXPECT_EQ(s.used_after_end, 0u);
  EXPECT_TRUE(s.rejected.empty());
  EXPECT_EQ(std::set<int>(actor_ids.begin(), actor_ids.end()), (std::set<int>{0, 1, 2}));
  // Each actor stopped on a reply saying training had finished, and the learner recorded it.
  for (int a = 0; a < kActors; ++a) EXPECT_EQ(f.state->told_finished.count(0x100 + a), 1u) << "run " << a;
  // The stats file's last write is the final count.
  std::ifstream in(options.stats_file);
  const auto json = nlohmann::json::parse(in);
  EXPECT_EQ(json.at("used").get<std::uint64_t>(), s.used);
}

// On-policy, a waiting actor collects again only when no other live actor will deliver the
// round's missing trajectory. An actor that uploaded for an older version and has not yet asked
// for the newest still counts: it collects with the newest next. (Not counting it made a fast
// actor collect a second trajectory, and the learner dropped one of the two as stale.)
TEST(FleetStateThreads, AWaitingActorCollectsAgainOnlyWhenNoOtherActorWillDeliver) {
  FleetServerOptions options;
  options.finish_grace_ms = 0;  // no actor will be told that training ended: do not wait for them
  InProcessFleet f(options, test::small_fleet_spec(/*on_policy=*/true, 2));
  const std::uint64_t a = 0x201, b = 0x202;
  ASSERT_TRUE(f.register_run(a, 0));
  ASSERT_TRUE(f.register_run(b, 1));
  EXPECT_TRUE(f.state->round_needs_more(a)) << "nothing accepted yet and b holds no parameters: b counts";
  ASSERT_EQ(f.get_parameters(a, 0, 0).version(), 1u);
  ASSERT_EQ(f.get_parameters(b, 0, 0).version(), 1u);
  ASSERT_TRUE(f.upload(a, 1, test::fleet_upload(f.spec, 1, 1.0)).accepted());
  EXPECT_FALSE(f.state->round_needs_more(a)) << "b is collecting with version 1";
  ASSERT_TRUE(f.upload(b, 1, test::fleet_upload(f.spec, 1, 1.0)).accepted());
  ASSERT_TRUE(f.source->next_round());
  publish_version(f.params, 2);

  // a takes version 2 and uploads; b has uploaded for version 1 and not yet asked again.
  ASSERT_EQ(f.get_parameters(a, 1, 0).version(), 2u);
  ASSERT_TRUE(f.upload(a, 2, test::fleet_upload(f.spec, 2, 2.0)).accepted());
  EXPECT_FALSE(f.state->round_needs_more(a)) << "b holds version 1: it collects with version 2 next";
  const auto again = f.get_parameters(a, 2, 30);  // waits its 30 ms for version 3
  EXPECT_EQ(again.version(), 2u);
  EXPECT_EQ(again.tensors_size(), 0);

  // b ends (re-registered as another run): now the round needs a trajectory from a.
  ASSERT_TRUE(f.register_run(0x203, 1));
  EXPECT_FALSE(f.state->round_needs_more(a)) << "the new run holds nothing yet: it will deliver";
  {
    std::lock_guard lock(f.state->mutex);
    f.state->end_run(0x203, "the test ends it");
  }
  EXPECT_TRUE(f.state->round_needs_more(a));
  EXPECT_EQ(f.stats().stale, 0u);
}

TEST(FleetStateThreads, RunsEndingByReRegistrationOrSilenceNeverFeedTheLearner) {
  constexpr int kRounds = 40;
  FleetServerOptions options;
  options.heartbeat_timeout_ms = 500;
  options.queue_capacity = 3;  // uploads wait for room (back-pressure)
  options.finish_grace_ms = 200;  // the threads stop on `done`, not on being told
  InProcessFleet f(options, test::small_fleet_spec(/*on_policy=*/false, 2));

  std::atomic<std::uint64_t> registrations{0};
  // Registers `run` in `slot` and uploads up to `uploads` trajectories (-1: until told to
  // register again or that training is over); false once the learner has finished.
  const auto act = [&](std::uint64_t run, int slot, int uploads, double marker) {
    const auto reg = f.register_run(run, slot);
    if (!reg) return false;
    EXPECT_EQ(reg->actor_id(), slot);
    ++registrations;
    for (std::uint64_t seq = 1; uploads < 0 || seq <= static_cast<std::uint64_t>(uploads); ++seq) {
      const auto u = f.upload(run, seq, test::fleet_upload(f.spec, 1, marker));
      if (u.finished()) return false;
      if (u.accepted()) continue;
      // Replaced by a newer run in its slot, or (when starved past the heartbeat timeout) ended.
      EXPECT_NE(u.reason().find("register again"), std::string::npos) << u.reason();
      break;
    }
    return true;
  };
  // Actor 0 uploads steadily. Slot 1 is taken again and again by new runs of two processes
  // racing for it, each ending the run before it while that run's uploads may still be queued
  // or in flight.
  // Each thread draws its run ids from a range of its own.
  f.threads.emplace_back([&] {
    for (std::uint64_t run = 1ULL << 40; !f.done && act(run, 0, -1, 0.0); ++run) {
    }
  });
  for (int k = 0; k < 2; ++k)
    f.threads.emplace_back([&, k] {
      for (std::uint64_t run = (2ULL + k) << 40; !f.done && act(run, 1, 3, 1.0); ++run) {
      }
    });
  // A run that uploads once and falls silent: the learner's heartbeat check ends it.
  f.threads.emplace_back([&] { act(0x400, 2, 1, 2.0); });

  for (int r = 0; r < kRounds; ++r) {
    const auto round = f.source->next_round();
    ASSERT_TRUE(round);
    EXPECT_EQ(round->rewards.size(), static_cast<std::size_t>(3 * 2 * 2));
  }
  // Rounds go on (the steady actor) until the silent run is noticed.
  const auto deadline = FleetClock::now() + std::chrono::seconds(30);
  while (!f.stats().ended_runs.count(0x400) && FleetClock::now() < deadline) ASSERT_TRUE(f.source->next_round());
  f.finish();

  const FleetStats s = f.stats();
  EXPECT_EQ(s.registrations, registrations.load());
  EXPECT_EQ(s.used_after_end, 0u);
  EXPECT_GE(s.used, static_cast<std::uint64_t>(2 * kRounds));
  ASSERT_TRUE(s.ended_runs.count(0x400));
  EXPECT_NE(s.ended_runs.at(0x400).find("silent for more than 500 ms"), std::string::npos);
  EXPECT_GE(s.ended_runs.size(), 2u);  // the silent run and at least one replaced run of slot 1
  // No two live runs hold one slot.
  std::lock_guard lock(f.state->mutex);
  std::set<int> slots;
  for (const auto& [id, r] : f.state->runs) {
    if (r.ended) continue;
    EXPECT_TRUE(slots.insert(r.actor).second) << "slot " << r.actor << " held twice";
  }
}

}  // namespace
}  // namespace rlzoo
