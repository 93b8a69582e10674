// A small fleet spec and trajectory uploads that match it, shared by the fleet's tests.
#pragma once

#include <cstdint>

#include "distributed/fleet_server.h"
#include "distributed/fleet_wire.h"
#include "distributed/proto/fleet.pb.h"

namespace rlzoo::test {

// 3 steps x 2 envs of a 4-float Box observation; spec hash "feedfacefeedface".
inline FleetSpec small_fleet_spec(bool on_policy = true, int round_size = 1) {
  const Space obs = Space::box(-10, 10, {4});
  FleetSpec spec;
  spec.shape = TrajectoryShape{3, 2, obs.byte_size(), 8, 3, 0};
  spec.observation_space = obs;
  spec.on_policy = on_policy;
  spec.round_size = round_size;
  spec.preset_yaml = "algo: ppo\n";
  spec.spec_hash = "feedfacefeedface";
  return spec;
}

// A valid upload of `spec`'s shape made with parameters `version`, every reward `reward`.
inline fleet::TrajectoryUpload fleet_upload(const FleetSpec& spec, std::uint64_t version, double reward = 1.0) {
  Trajectory t(spec.shape);
  for (auto& r : t.rewards) r = reward;
  t.policy_version = version;
  fleet::TrajectoryUpload m;
  encode_trajectory(t, m);
  return m;
}

}  // namespace rlzoo::test
