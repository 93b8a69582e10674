// Internal to distributed/: the gRPC handlers of a GrpcFleet (distributed/proto/fleet.proto):
// registration, parameters, uploads (checked, de-duplicated, queued with back-pressure) and
// heartbeats, each refusing calls without the fleet's token. The Rounds stream is not handled
// here but by the learner's own thread (fleet_rounds.h), with the same checks (below).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "distributed/fleet_server_state.h"
#include "distributed/proto/fleet.grpc.pb.h"

namespace rlzoo {

std::unique_ptr<FleetServiceBase> make_fleet_service(GrpcFleet::State& state);

// OK, or UNAUTHENTICATED (counted and logged) when the call lacks the fleet's token.
grpc::Status authenticate(GrpcFleet::State& s, const grpc::ServerContext& ctx);

// What Upload does with a trajectory, for the Rounds streams too: checks it, and when it is new,
// sound and (on-policy) current, hands it to `deliver`, which returns "" or why it could not
// take it. `out` says whether it was accepted, and why not.
using DeliverUpload = std::function<std::string(FleetQueued&)>;
void receive_upload(GrpcFleet::State& s, const fleet::TrajectoryUpload& req, fleet::UploadReply* out,
                    const DeliverUpload& deliver);

// Whether a request for parameters can be answered at once: a newer version is out, the learner
// finished or restarted, or the round cannot be made without this actor (round_needs_more).
bool parameters_ready(GrpcFleet::State& s, const fleet::ParametersRequest& req);

// Fills a reply to `req` but for the parameters themselves: the learner's run, whether training
// is over and, to an actor of this learner, the learner's timesteps and its newest version when
// that is not newer than the actor's; the run then counts as collecting with the version it
// will hold (round_needs_more). Returns the newest parameters when the actor should take them
// (GetParameters merges them into the reply, Rounds sends their shared bytes), else null.
std::shared_ptr<const fleet::ParametersReply> answer_parameters(GrpcFleet::State& s,
                                                               const fleet::ParametersRequest& req,
                                                               fleet::ParametersReply* out);

}  // namespace rlzoo
