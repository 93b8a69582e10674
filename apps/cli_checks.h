// What several commands' options share. Bounds for numbers, in place of CLI11's PositiveNumber
// and NonNegativeNumber: those compare as doubles and print their open end as 1.8e308 written
// out in full; these say "--episodes: must be greater than 0, got 0" (the help text keeps
// CLI11's words, INT:POSITIVE). And repeatable options that take one value per use (--set).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace rlzoo::cli {

inline CLI::Validator positive() {
  return CLI::Validator(
      [](std::string& in) -> std::string {
        long double v = 0;
        if (!CLI::detail::lexical_cast(in, v)) return "'" + in + "' is not a number";
        return v > 0 ? std::string() : "must be greater than 0, got " + in;
      },
      "POSITIVE");
}

inline CLI::Validator non_negative() {
  return CLI::Validator(
      [](std::string& in) -> std::string {
        long double v = 0;
        if (!CLI::detail::lexical_cast(in, v)) return "'" + in + "' is not a number";
        return v >= 0 ? std::string() : "must be 0 or more, got " + in;
      },
      "NONNEGATIVE");
}

// `--set a=1 --set b=2`: one value each time, all kept. A vector option otherwise takes every
// word after it, the command's positional arguments too (`train --set x=1 ppo CartPole-v1`).
inline CLI::Option* one_value_per_use(CLI::Option* option) {
  return option->expected(1)->allow_extra_args(false)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

}  // namespace rlzoo::cli
