#include "core/common/strings.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace rlzoo {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::vector<std::string> close_matches(std::string_view word, const std::vector<std::string>& candidates,
                                       std::size_t max_results) {
  std::vector<std::pair<std::size_t, std::string>> scored;
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    // A case-insensitive prefix also counts as close ("cartpole" -> "CartPole-v1").
    const bool prefix = c.size() >= word.size() && edit_distance(word, c.substr(0, word.size())) == 0;
    if (d <= limit || prefix) scored.emplace_back(prefix ? 0 : d, c);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < max_results; ++i) out.push_back(scored[i].second);
  return out;
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  const auto m = close_matches(word, candidates);
  if (m.empty()) return "";
  std::string out = " (did you mean ";
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (i) out += i + 1 == m.size() ? " or " : ", ";
    out += "'" + m[i] + "'";
  }
  return out + "?)";
}

std::optional<std::int64_t> parse_int64(const std::string& text) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != text.size() || text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return std::nullopt;
  return v;
}

}  // namespace rlzoo
