#include "core/common/error.h"

#include <fmt/format.h>

namespace rlzoo {

void check_failed(const char* expr, const char* file, int line, const std::string& msg) {
  throw std::logic_error(fmt::format("internal check failed: {} at {}:{}{}{}", expr, file, line,
                                     msg.empty() ? "" : ": ", msg));
}

}  // namespace rlzoo
