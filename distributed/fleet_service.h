// Internal to distributed/: the gRPC handlers of a GrpcFleet (distributed/proto/fleet.proto):
// registration, parameters, uploads (checked, de-duplicated, queued with back-pressure) and
// heartbeats, each refusing calls without the fleet's token.
#pragma once

#include <memory>

#include "distributed/fleet_server_state.h"
#include "distributed/proto/fleet.grpc.pb.h"

namespace rlzoo {

std::unique_ptr<fleet::Fleet::Service> make_fleet_service(GrpcFleet::State& state);

}  // namespace rlzoo
