// Where the `rlzoo` executable finds its own files, installed or in a build tree.
#pragma once

#include <filesystem>

namespace rlzoo::cli {

// This executable (/proc/self/exe).
std::filesystem::path executable_path();

// The shipped presets: ./configs when the working directory has one, else the installed
// <prefix>/share/rlzoo/configs beside <prefix>/bin/rlzoo, else the source tree's configs/.
std::filesystem::path presets_dir();

}  // namespace rlzoo::cli
