#include "rl/train_frequency.h"

#include <fmt/format.h>
#include <limits>

#include "core/config/schema.h"

namespace rlzoo {

void TrainFrequency::parse_yaml(const YAML::Node& node, const ConfigContext& ctx) {
  constexpr std::int64_t kMax = std::int64_t{1} << 40;
  auto count_at = [&](const YAML::Node& at, const ConfigContext& c) {
    const std::int64_t v = config_detail::parse_int(at, c, std::numeric_limits<std::int64_t>::min(), kMax);
    if (v < 1) c.fail(at, fmt::format("{} is not a train_freq: must be >= 1", v));
    return v;
  };
  if (node.IsScalar()) {
    n = count_at(node, ctx);
    episodes = false;
    return;
  }
  if (!node.IsSequence() || node.size() != 2)
    ctx.fail(node, "expected a number of steps or a pair [n, \"step\" or \"episode\"]");
  const std::int64_t count = count_at(node[0], ctx.item(0));
  const std::string unit = config_detail::parse_string(node[1], ctx.item(1));
  if (unit != "step" && unit != "episode")
    ctx.item(1).fail(node[1], fmt::format("'{}' is not a train_freq unit: step or episode", unit));
  n = count;
  episodes = unit == "episode";
}

YAML::Node TrainFrequency::emit_yaml() const {
  if (!episodes) return YAML::Node(n);
  YAML::Node pair(YAML::NodeType::Sequence);
  pair.push_back(n);
  pair.push_back("episode");
  pair.SetStyle(YAML::EmitterStyle::Flow);
  return pair;
}

std::string TrainFrequency::text() const {
  return fmt::format("{} {}{}", n, episodes ? "episode" : "step", n == 1 ? "" : "s");
}

}  // namespace rlzoo
