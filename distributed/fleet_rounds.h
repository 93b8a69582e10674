// Internal to distributed/: the learner's end of the Rounds streams (distributed/proto/fleet.proto,
// one per on-policy actor), served by the learner's own thread while it waits for a round
// (FleetSource::next_round) rather than by gRPC's server threads.
//
// Why: an on-policy round waits for the parameters to reach the actors and for their
// trajectories to come back, so every hand-over between threads is on its critical path. On
// the server threads, an upload went from the thread that read it through the queue to the
// learner, and new parameters from the learner through a condition variable to one waiting
// thread per actor, which copied and encoded them again. Here the learner's thread reads the
// upload itself and, right after it publishes, writes the parameters to every waiting actor:
// encoded once per version and shared by all replies without a copy (State::parameters_wire).
//
// The checks are Upload's and GetParameters' own (fleet_service.h); the unary calls stay on the
// server threads for off-policy actors and as on-policy actors' fallback.
#pragma once

#include <grpcpp/alarm.h>
#include <grpcpp/grpcpp.h>

#include <functional>
#include <memory>
#include <vector>

#include "distributed/fleet_server_state.h"
#include "distributed/fleet_service.h"

namespace rlzoo {

class FleetRounds {
 public:
  // Accepts streams on `cq` (the server's, added to its builder) from the started server.
  FleetRounds(GrpcFleet::State& state, FleetServiceBase& service, std::unique_ptr<grpc::ServerCompletionQueue> cq);
  ~FleetRounds();

  using Take = std::function<void(FleetQueued&&)>;
  // Answers the actors whose parameters are ready (after the learner published: all of them),
  // then waits until `until` for an event, and handles it and every other one already there. An
  // upload accepted goes to `take`. The unary Upload's queued() ends the wait early.
  void poll(FleetClock::time_point until, const Take& take);
  // Ends every stream (an actor still on one sees it break and falls back to the unary calls,
  // which the learner answers with `finished`), waiting up to `grace`. Before the server's
  // Shutdown, which waits for the streams' calls.
  void end_streams(std::chrono::milliseconds grace);
  // After the server's Shutdown: drains the completion queue.
  void close();

 private:
  struct Stream;
  enum class Op { accept, read, write, finish, wake };
  struct Tag {
    Stream* stream;
    Op op;
  };

  void accept_next();
  void handle(const Tag& tag, bool ok, const Take& take);
  void on_message(Stream& s, const Take& take);
  void answer(Stream& s);
  void finish(Stream& s, const grpc::Status& status);
  void answer_ready();
  bool next_event(gpr_timespec deadline, const Take& take);

  GrpcFleet::State& state_;
  FleetServiceBase& service_;
  std::unique_ptr<grpc::ServerCompletionQueue> cq_;
  std::vector<std::unique_ptr<Stream>> streams_;
  bool ending_ = false, closed_ = false;
  // The unary Upload wakes poll() with an alarm on cq_; one at a time (under state_.wake_mutex).
  std::unique_ptr<grpc::Alarm> alarm_;
  Tag wake_tag_{nullptr, Op::wake};
};

}  // namespace rlzoo
