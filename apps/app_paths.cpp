#include "apps/app_paths.h"

namespace rlzoo::cli {

namespace fs = std::filesystem;

fs::path executable_path() { return fs::read_symlink("/proc/self/exe"); }

fs::path presets_dir() {
  if (fs::is_directory("configs")) return "configs";
  std::error_code ec;
  const fs::path installed = executable_path().parent_path().parent_path() / "share" / "rlzoo" / "configs";
  if (fs::is_directory(installed, ec)) return installed;
  return fs::path(RLZOO_SOURCE_DIR) / "configs";
}

}  // namespace rlzoo::cli
