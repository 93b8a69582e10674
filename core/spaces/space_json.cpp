#include "core/spaces/space_json.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <optional>

namespace rlzoo {

namespace {

using json = nlohmann::json;

constexpr DType kAllDTypes[] = {DType::UInt8, DType::Int32, DType::Int64, DType::Float32, DType::Float64};

json bound_to_json(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

json bounds_to_json(const std::vector<double>& v) {
  if (std::all_of(v.begin(), v.end(), [&](double x) { return x == v[0]; })) return bound_to_json(v[0]);
  json out = json::array();
  for (double x : v) out.push_back(bound_to_json(x));
  return out;
}

[[noreturn]] void fail(const std::string& where, const std::string& what) { throw UserError(where + ": " + what); }

const json& member(const json& j, const char* key, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end()) fail(where, fmt::format("missing key '{}'", key));
  return *it;
}

std::int64_t integer(const json& j, const char* key, const std::string& where) {
  const json& v = member(j, key, where);
  if (!v.is_number_integer()) fail(where, fmt::format("key '{}': expected an integer, got {}", key, v.dump()));
  return v.get<std::int64_t>();
}

std::vector<std::int64_t> integers(const json& j, const char* key, const std::string& where) {
  const json& v = member(j, key, where);
  if (!v.is_array()) fail(where, fmt::format("key '{}': expected a list of integers, got {}", key, v.dump()));
  std::vector<std::int64_t> out;
  for (const auto& x : v) {
    if (!x.is_number_integer()) fail(where, fmt::format("key '{}': expected a list of integers, got {}", key, v.dump()));
    out.push_back(x.get<std::int64_t>());
  }
  return out;
}

double bound(const json& v, const char* key, const std::string& where) {
  if (v.is_number()) return v.get<double>();
  if (v == "inf") return std::numeric_limits<double>::infinity();
  if (v == "-inf") return -std::numeric_limits<double>::infinity();
  fail(where, fmt::format("key '{}': expected a number, \"inf\" or \"-inf\", got {}", key, v.dump()));
}

std::vector<double> bounds(const json& j, const char* key, std::size_t numel, const std::string& where) {
  const json& v = member(j, key, where);
  if (!v.is_array()) return std::vector<double>(numel, bound(v, key, where));
  if (v.size() != numel)
    fail(where, fmt::format("key '{}': {} values for a shape with {} elements (give one value or one per element)",
                            key, v.size(), numel));
  std::vector<double> out;
  out.reserve(numel);
  for (const auto& x : v) out.push_back(bound(x, key, where));
  return out;
}

}  // namespace

std::optional<DType> dtype_from_name(std::string_view name) {
  for (DType t : kAllDTypes)
    if (dtype_name(t) == name) return t;
  return std::nullopt;
}

json space_to_json(const Space& space) {
  switch (space.kind()) {
    case SpaceKind::Discrete:
      return {{"type", "Discrete"}, {"n", space.n()}, {"start", space.start()}};
    case SpaceKind::MultiDiscrete:
      return {{"type", "MultiDiscrete"}, {"nvec", space.nvec()}};
    case SpaceKind::Box:
      return {{"type", "Box"},
              {"shape", space.shape()},
              {"dtype", std::string(dtype_name(space.dtype()))},
              {"low", bounds_to_json(space.low())},
              {"high", bounds_to_json(space.high())}};
    case SpaceKind::MultiBinary:
      return {{"type", "MultiBinary"}, {"shape", space.shape()}};
    case SpaceKind::Dict: {
      json fields = json::array();
      for (const auto& f : space.fields()) fields.push_back({{"name", f.name}, {"space", space_to_json(*f.space)}});
      return {{"type", "Dict"}, {"fields", fields}};
    }
  }
  RLZOO_CHECK(false, "unknown space kind");
}

Space space_from_json(const json& j, const std::string& where) {
  if (!j.is_object()) fail(where, "expected a space (an object with a \"type\"), got " + j.dump());
  const json& type = member(j, "type", where);
  const std::string kind = type.is_string() ? type.get<std::string>() : type.dump();
  // The factories validate values (n > 0, low <= high, ...); their messages get `where` too.
  try {
    if (kind == "Discrete") {
      const std::int64_t start = j.contains("start") ? integer(j, "start", where) : 0;
      return Space::discrete(integer(j, "n", where), start);
    }
    if (kind == "MultiDiscrete") return Space::multi_discrete(integers(j, "nvec", where));
    if (kind == "MultiBinary") return Space::multi_binary(integers(j, "shape", where));
    if (kind == "Box") {
      Shape shape = integers(j, "shape", where);
      for (auto d : shape)
        if (d <= 0) fail(where, fmt::format("key 'shape': every dimension must be positive, got {}", member(j, "shape", where).dump()));
      const json& dt = member(j, "dtype", where);
      const auto dtype = dt.is_string() ? dtype_from_name(dt.get<std::string>()) : std::nullopt;
      if (!dtype) fail(where, "key 'dtype': expected one of uint8, int32, int64, float32, float64, got " + dt.dump());
      const auto n = static_cast<std::size_t>(shape_numel(shape));
      auto low = bounds(j, "low", n, where);
      auto high = bounds(j, "high", n, where);
      return Space::box(std::move(low), std::move(high), std::move(shape), *dtype);
    }
    if (kind == "Dict") {
      const json& fields = member(j, "fields", where);
      if (!fields.is_array()) fail(where, "key 'fields': expected a list of {\"name\", \"space\"}, got " + fields.dump());
      std::vector<std::pair<std::string, Space>> out;
      for (std::size_t i = 0; i < fields.size(); ++i) {
        const std::string at = fmt::format("{}: fields[{}]", where, i);
        const json& f = fields[i];
        if (!f.is_object()) fail(at, "expected {\"name\", \"space\"}, got " + f.dump());
        const json& name = member(f, "name", at);
        if (!name.is_string()) fail(at, "key 'name': expected a string, got " + name.dump());
        out.emplace_back(name.get<std::string>(), space_from_json(member(f, "space", at), at + " ('" + name.get<std::string>() + "')"));
      }
      return Space::dict(std::move(out));
    }
  } catch (const UserError& e) {
    const std::string msg = e.what();
    if (msg.rfind(where, 0) == 0) throw;
    fail(where, msg);
  }
  fail(where, "key 'type': expected one of Discrete, MultiDiscrete, Box, MultiBinary, Dict, got " + type.dump());
}

}  // namespace rlzoo
