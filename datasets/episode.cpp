#include "datasets/episode.h"

#include <cmath>
#include <fmt/format.h>
#include <limits>

#include "datasets/proto/episode.pb.h"

namespace rlzoo::data {

double EpisodeData::episode_return() const {
  double sum = 0;
  for (float r : rewards) sum += r;
  return sum;
}

namespace {

void check_size(const std::vector<std::byte>& field, const char* name, std::int64_t steps, const Space& space,
                const std::string& context) {
  const std::size_t need = static_cast<std::size_t>(steps) * space.byte_size();
  if (field.size() != need)
    throw UserError(fmt::format("{}: field '{}' has {} bytes; {} steps of {} ({} bytes each) need {}", context, name,
                                field.size(), steps, space.describe(), space.byte_size(), need));
}

}  // namespace

void check_episode(const EpisodeData& e, const Space& observation_space, const Space& action_space,
                   const std::string& context) {
  if (e.rewards.empty())
    throw UserError(fmt::format("{}: field 'rewards' is empty; an episode needs at least one step", context));
  for (std::size_t t = 0; t < e.rewards.size(); ++t)
    if (!std::isfinite(e.rewards[t]))
      throw UserError(fmt::format("{}: field 'rewards': the reward of step {} is {}; rewards must be finite", context, t,
                                  e.rewards[t]));
  check_size(e.observations, "observations", e.length(), observation_space, context);
  check_size(e.actions, "actions", e.length(), action_space, context);
  if (!e.final_observation.empty() && e.final_observation.size() != observation_space.byte_size())
    throw UserError(fmt::format("{}: field 'final_observation' has {} bytes; it is empty or one observation of {} ({} bytes)",
                                context, e.final_observation.size(), observation_space.describe(),
                                observation_space.byte_size()));
}

std::string encode_episode(const EpisodeData& e) {
  Episode msg;
  msg.set_observations(e.observations.data(), e.observations.size());
  msg.set_actions(e.actions.data(), e.actions.size());
  msg.mutable_rewards()->Add(e.rewards.begin(), e.rewards.end());
  msg.set_terminated(e.terminated);
  msg.set_truncated(e.truncated);
  msg.set_final_observation(e.final_observation.data(), e.final_observation.size());
  msg.set_episode_return(e.episode_return());
  // Protobuf refuses messages of 2 GiB or more.
  const std::size_t size = msg.ByteSizeLong();
  if (size > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw UserError(fmt::format("an episode of {} steps serializes to {} bytes, over protobuf's 2 GiB message limit",
                                e.length(), size));
  return msg.SerializeAsString();
}

EpisodeData decode_episode(std::string_view payload, const std::string& context) {
  Episode msg;
  if (!msg.ParseFromArray(payload.data(), static_cast<int>(payload.size())))
    throw UserError(fmt::format("{}: the record does not parse as an rlzoo.data.Episode", context));
  auto bytes = [](const std::string& s) {
    const auto* p = reinterpret_cast<const std::byte*>(s.data());
    return std::vector<std::byte>(p, p + s.size());
  };
  EpisodeData e;
  e.observations = bytes(msg.observations());
  e.actions = bytes(msg.actions());
  e.final_observation = bytes(msg.final_observation());
  e.rewards.assign(msg.rewards().begin(), msg.rewards().end());
  e.terminated = msg.terminated();
  e.truncated = msg.truncated();
  return e;
}

}  // namespace rlzoo::data
