// libFuzzer target: the checkpoint manifest reader (CheckpointReader::open on a directory whose
// manifest.json is the input). Damaged or crafted manifests must be refused with a UserError
// naming the checkpoint; none may make the reader touch a file outside the directory (names
// are checked: see core/checkpoint/manifest.h) or crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/checkpoint/reader.h"
#include "core/common/error.h"

namespace {

namespace fs = std::filesystem;

// One directory for the whole run, with one real file the manifest may list ("model.pt").
const fs::path& checkpoint_dir() {
  static const fs::path dir = [] {
    std::string tmpl = (fs::temp_directory_path() / "rlzoo-fuzz-manifest-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) std::abort();
    std::ofstream(fs::path(tmpl) / "model.pt") << "weights";
    return fs::path(tmpl);
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fs::path& dir = checkpoint_dir();
  {
    std::ofstream out(dir / "manifest.json", std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    const auto reader = rlzoo::CheckpointReader::open(dir);
    // An accepted manifest lists only files that are there with the recorded size and CRC.
    for (const auto& name : reader.names())
      if (reader.read(name).size() != reader.size(name)) std::abort();
    (void)reader.metadata();
    (void)reader.rlzoo_version();
    (void)reader.created_at();
  } catch (const rlzoo::UserError&) {
  }
  return 0;
}
