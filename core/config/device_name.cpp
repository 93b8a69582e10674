#include "core/config/device_name.h"

#include <charconv>

#include <fmt/format.h>

namespace rlzoo {

std::optional<DeviceName> parse_device_name(std::string_view name) {
  if (name == "cpu") return DeviceName{DeviceName::Kind::cpu, -1};
  if (name == "auto") return DeviceName{DeviceName::Kind::automatic, -1};
  if (name == "cuda") return DeviceName{DeviceName::Kind::cuda, -1};
  constexpr std::string_view prefix = "cuda:";
  if (!name.starts_with(prefix) || name.size() == prefix.size()) return std::nullopt;
  const std::string_view digits = name.substr(prefix.size());
  int index = -1;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (ec != std::errc() || end != digits.data() + digits.size() || index < 0) return std::nullopt;
  return DeviceName{DeviceName::Kind::cuda, index};
}

std::optional<std::string> device_name_problem(std::string_view name) {
  if (parse_device_name(name)) return std::nullopt;
  return fmt::format("'{}' is not a device: use cpu, cuda, cuda:N (N = 0, 1, ...) or auto", name);
}

}  // namespace rlzoo
