// Small string helpers for user-facing messages.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rlzoo {

// Edit distance (insertions, deletions, substitutions), case-insensitive.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidates closest to `word` (at most `max_results`, only reasonably close ones),
// best first. Used for "did you mean ...?" hints.
std::vector<std::string> close_matches(std::string_view word, const std::vector<std::string>& candidates,
                                       std::size_t max_results = 3);

// The whole of `text` as a base-10 integer ("42", "-3"), or nullopt (empty, other characters,
// out of range).
std::optional<std::int64_t> parse_int64(const std::string& text);

// "a, b, c"
std::string join(const std::vector<std::string>& items, std::string_view sep = ", ");

// " (did you mean 'x' or 'y'?)" or "" when nothing is close.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace rlzoo
