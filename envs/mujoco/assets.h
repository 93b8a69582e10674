// The robot models shipped with rlzoo (envs/mujoco/assets/*.xml), compiled into the library.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace rlzoo {

struct EmbeddedFile {
  const char* name;       // file name, e.g. "hopper.xml"
  std::string_view text;  // its contents
};

// Every shipped model (generated at build time by cmake/embed_files.cmake).
std::span<const EmbeddedFile> mujoco_assets();

// The shipped model `name`, if there is one.
std::optional<std::string_view> mujoco_asset(std::string_view name);

}  // namespace rlzoo
