#include "core/config/schema.h"

#include <algorithm>

namespace rlzoo {

std::optional<std::string> Bound::violated_by(double v) const {
  const bool below = lo && (lo_open ? v <= *lo : v < *lo);
  const bool above = hi && (hi_open ? v >= *hi : v > *hi);
  if (!below && !above) return std::nullopt;
  return fmt::format("value {} is out of range: must be {}", v, describe_constraint(*this));
}

std::string describe_constraint(const Bound& b) {
  if (b.lo && b.hi) return fmt::format("in {}{}, {}{}", b.lo_open ? "(" : "[", *b.lo, *b.hi, b.hi_open ? ")" : "]");
  if (b.lo) return fmt::format("{} {}", b.lo_open ? ">" : ">=", *b.lo);
  if (b.hi) return fmt::format("{} {}", b.hi_open ? "<" : "<=", *b.hi);
  return "";
}

std::string describe_constraint(const OneOf& c) { return "one of: " + join(c.choices); }

namespace config_detail {

namespace {
const char* kind_name(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Null: return "null";
    case YAML::NodeType::Scalar: return "a scalar";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a mapping";
    default: return "nothing";
  }
}
}  // namespace

std::string scalar_text(const YAML::Node& n) { return n.IsScalar() ? n.Scalar() : std::string(kind_name(n)); }

void expect_kind(const YAML::Node& n, YAML::NodeType::value kind, const char* what, const ConfigContext& ctx) {
  if (n.Type() != kind) ctx.fail(n, fmt::format("expected {}, got {}", what, kind_name(n)));
}

bool parse_bool(const YAML::Node& n, const ConfigContext& ctx) {
  if (n.IsScalar()) {
    const std::string& s = n.Scalar();
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
  }
  ctx.fail(n, fmt::format("expected true or false, got '{}'", scalar_text(n)));
}

std::int64_t parse_int(const YAML::Node& n, const ConfigContext& ctx, std::int64_t lo, std::int64_t hi) {
  if (n.IsScalar() && n.Tag() != "!") {  // quoted scalars ("!" tag) are strings
    std::string s = n.Scalar();
    s.erase(std::remove(s.begin(), s.end(), '_'), s.end());  // 1_000_000
    std::int64_t v = 0;
    const char* b = s.data();
    const char* e = s.data() + s.size();
    if (!s.empty() && *b == '+') ++b;
    auto [p, ec] = std::from_chars(b, e, v);
    if (ec == std::errc() && p == e) {
      if (v < lo || v > hi) ctx.fail(n, fmt::format("integer {} does not fit (range {}..{})", v, lo, hi));
      return v;
    }
    if (ec == std::errc::result_out_of_range) ctx.fail(n, fmt::format("integer '{}' is too large", n.Scalar()));
    // Accept "1e6" style numbers that are whole.
    double d = 0;
    auto [p2, ec2] = std::from_chars(b, e, d);
    if (ec2 == std::errc() && p2 == e && std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15) {
      const auto iv = static_cast<std::int64_t>(d);
      if (iv < lo || iv > hi) ctx.fail(n, fmt::format("integer {} does not fit (range {}..{})", iv, lo, hi));
      return iv;
    }
  }
  ctx.fail(n, fmt::format("expected an integer, got '{}'", scalar_text(n)));
}

double parse_double(const YAML::Node& n, const ConfigContext& ctx) {
  if (n.IsScalar() && n.Tag() != "!") {
    const std::string& s = n.Scalar();
    if (s == ".nan" || s == ".NaN" || s == ".NAN" || s == ".inf" || s == ".Inf" || s == ".INF" || s == "-.inf" ||
        s == "+.inf" || s == "-.Inf" || s == "nan" || s == "inf" || s == "-inf")
      ctx.fail(n, fmt::format("expected a finite number, got '{}'", s));
    double v = 0;
    const char* b = s.data();
    const char* e = s.data() + s.size();
    if (!s.empty() && *b == '+') ++b;
    auto [p, ec] = std::from_chars(b, e, v);
    if (ec == std::errc() && p == e) {
      if (!std::isfinite(v)) ctx.fail(n, fmt::format("expected a finite number, got '{}'", s));
      return v;
    }
  }
  ctx.fail(n, fmt::format("expected a number, got '{}'", scalar_text(n)));
}

std::string parse_string(const YAML::Node& n, const ConfigContext& ctx) {
  if (!n.IsScalar()) ctx.fail(n, fmt::format("expected a string, got {}", kind_name(n)));
  return n.Scalar();
}

}  // namespace config_detail
}  // namespace rlzoo
