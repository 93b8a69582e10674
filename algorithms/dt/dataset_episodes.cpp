#include "algorithms/dt/dataset_episodes.h"

#include <fmt/format.h>

#include "datasets/as_floats.h"
#include "datasets/dataset_reader.h"
#include "core/common/error.h"

namespace rlzoo::dt {

namespace {

void check_fits(const data::DatasetInfo& info, const std::string& dir, const EnvSpec& spec) {
  const Space &obs = spec.observation_space, &act = spec.action_space;
  if (info.observation_space.numel() != obs.numel())
    throw UserError(fmt::format("dataset {}: observations {} do not fit {}'s {}", dir,
                                info.observation_space.describe(), spec.id, obs.describe()));
  if (act.is_discrete() ? !(info.action_space.is_discrete() && info.action_space.n() == act.n())
                        : info.action_space.numel() != act.numel())
    throw UserError(fmt::format("dataset {}: actions {} do not fit {}'s {}", dir, info.action_space.describe(),
                                spec.id, act.describe()));
  if (info.episodes < 1) throw UserError(fmt::format("dataset {}: no episodes", dir));
}

}  // namespace

void check_offline_dataset(const std::string& dir, const EnvSpec& spec) {
  check_fits(data::DatasetReader(dir).info(), dir, spec);
}

std::vector<OfflineEpisode> read_offline_episodes(const std::string& dir, const EnvSpec& spec) {
  data::DatasetReader reader(dir);
  const auto& info = reader.info();
  check_fits(info, dir, spec);
  const Space &obs = spec.observation_space, &act = spec.action_space;
  const bool discrete = act.is_discrete();
  torch::Tensor low, high;
  if (!discrete) {
    low = torch::tensor(act.low()).to(torch::kFloat32);
    high = torch::tensor(act.high()).to(torch::kFloat32);
  }
  std::vector<OfflineEpisode> out;
  out.reserve(static_cast<std::size_t>(info.episodes));
  reader.for_each([&](std::int64_t, data::EpisodeData&& e) {
    const auto T = e.length();
    OfflineEpisode o;
    o.states = torch::tensor(data::as_floats(info.observation_space, e.observations)).reshape({T, obs.numel()});
    auto a = torch::tensor(data::as_floats(info.action_space, e.actions));
    if (discrete) o.actions = (a - static_cast<double>(info.action_space.start())).round().to(torch::kInt64);
    else o.actions = ((a.reshape({T, act.numel()}) - low) / (high - low) * 2.0 - 1.0).clamp(-1.0, 1.0);
    o.rewards = torch::tensor(e.rewards);
    out.push_back(std::move(o));
  });
  return out;
}

}  // namespace rlzoo::dt
