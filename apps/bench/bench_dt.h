// The synthetic offline dataset `rlzoo bench dt` and `rlzoo bench gpu` train on.
#pragma once

#include <string>

namespace rlzoo::cli {

// 20 episodes of 1000 random in-bounds steps with `env_id`'s spaces, written (once per env) to
// a directory under the system temp dir, whose path is returned. Timing does not depend on the
// values.
std::string synthetic_dt_dataset(const std::string& env_id);

}  // namespace rlzoo::cli
