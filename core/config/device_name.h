// The names a preset's `device` key takes: "cpu", "cuda" (the current CUDA device), "cuda:N",
// or "auto" (cuda where LibTorch has a usable GPU, else cpu, as Stable-Baselines3's default).
// Torch-free: presets are validated without LibTorch; core/torch/device.h turns a name into a
// torch::Device and checks that the machine has it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rlzoo {

struct DeviceName {
  enum class Kind { cpu, cuda, automatic } kind = Kind::cpu;
  int index = -1;  // cuda:N; -1: the current CUDA device
};

// The parsed name, or nothing when `name` is not one of the forms above.
std::optional<DeviceName> parse_device_name(std::string_view name);
// The error text for a malformed name ("'gpu' is not a device: use cpu, cuda, cuda:N or auto"),
// or nothing when it parses.
std::optional<std::string> device_name_problem(std::string_view name);

}  // namespace rlzoo
