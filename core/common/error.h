// Two tiers of errors (see docs/architecture.md):
//  * UserError: bad input from a user (YAML, files, actions, ids). The message names what was
//    wrong and where; the CLI prints it as one line and exits non-zero.
//  * RLZOO_CHECK: a broken internal invariant. Always on; prints the expression and location.
#pragma once

#include <stdexcept>
#include <string>

namespace rlzoo {

class UserError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void check_failed(const char* expr, const char* file, int line, const std::string& msg);

}  // namespace rlzoo

#define RLZOO_CHECK(cond, ...)                                                          \
  do {                                                                                  \
    if (!(cond)) ::rlzoo::check_failed(#cond, __FILE__, __LINE__, std::string{__VA_ARGS__}); \
  } while (0)
