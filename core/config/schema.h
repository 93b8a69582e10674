// Typed configuration structs validated from YAML. The struct's member initialisers are the
// one place where defaults live; a static describe() lists the fields with a one-line doc and
// constraints:
//
//   struct PendulumKwargs {
//     double g = 10.0;
//     static void describe(Fields<PendulumKwargs>& f) {
//       f("g", &PendulumKwargs::g, "gravity (m/s^2)", Bound::positive());
//     }
//   };
//   auto kw = parse_config<PendulumKwargs>(node, ctx);   // validated
//   YAML::Node resolved = to_yaml(kw);                   // every field, defaults included
//
// Errors (ConfigError) name file:line:col and the key path: unknown key (with "did you mean"
// and the valid keys), wrong type, out-of-range value, non-finite float, duplicate key,
// missing required key (at the parent map), a failed cross-field check.
// document_config<T>(defaults) lists every field, nested structs' fields included, with its
// type, default, constraint and doc: the source of docs/presets.md (`rlzoo docs presets`).
// Supported field types: bool, int, std::int64_t, double, std::string, std::vector<T>,
// std::optional<T>, YAML::Node (kept as is), nested structs with describe(), and value types
// with their own YAML form (YamlValue: SB3's train_freq as 4 or [1, "episode"], say).
#pragma once

#include <charconv>
#include <concepts>
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>
#include <yaml-cpp/yaml.h>

#include "core/common/strings.h"
#include "core/config/config_doc.h"
#include "core/config/context.h"

namespace rlzoo {

// Numeric range constraint (also applies to each element of a vector of numbers).
struct Bound {
  std::optional<double> lo, hi;
  bool lo_open = false, hi_open = false;
  static Bound at_least(double v) { return {v, std::nullopt, false, false}; }
  static Bound greater_than(double v) { return {v, std::nullopt, true, false}; }
  static Bound at_most(double v) { return {std::nullopt, v, false, false}; }
  static Bound positive() { return greater_than(0.0); }
  static Bound non_negative() { return at_least(0.0); }
  static Bound closed(double a, double b) { return {a, b, false, false}; }
  static Bound unit() { return closed(0.0, 1.0); }  // [0, 1]
  std::optional<std::string> violated_by(double v) const;
};

// String choice constraint.
struct OneOf {
  std::vector<std::string> choices;
};

struct Required {};

// Constraint text for documentation: ">= 0", "in [0, 1]", "one of: a, b".
std::string describe_constraint(const Bound& b);
std::string describe_constraint(const OneOf& c);
inline std::string describe_constraint(const Required&) { return ""; }

template <class T>
class Fields;

template <class T>
concept Described = requires(Fields<T>& f) { T::describe(f); };

// A value type that reads and writes its own YAML form: parse_yaml fails through ctx on bad
// input, emit_yaml writes what parse_yaml reads back, yaml_type names the form in the docs.
template <class T>
concept YamlValue = requires(T& v, const T& cv, const YAML::Node& n, const ConfigContext& ctx) {
  v.parse_yaml(n, ctx);
  { cv.emit_yaml() } -> std::same_as<YAML::Node>;
  { T::yaml_type() } -> std::convertible_to<std::string>;
};

namespace config_detail {

template <class T> struct is_vector : std::false_type {};
template <class T> struct is_vector<std::vector<T>> : std::true_type { using value_type = T; };
template <class T> struct is_optional : std::false_type {};
template <class T> struct is_optional<std::optional<T>> : std::true_type { using value_type = T; };

std::string scalar_text(const YAML::Node& n);
bool parse_bool(const YAML::Node& n, const ConfigContext& ctx);
std::int64_t parse_int(const YAML::Node& n, const ConfigContext& ctx, std::int64_t lo, std::int64_t hi);
double parse_double(const YAML::Node& n, const ConfigContext& ctx);
std::string parse_string(const YAML::Node& n, const ConfigContext& ctx);
void expect_kind(const YAML::Node& n, YAML::NodeType::value kind, const char* what, const ConfigContext& ctx);

template <class F>
std::string type_name() {
  if constexpr (std::is_same_v<F, bool>) return "bool";
  else if constexpr (std::is_integral_v<F>) return "integer";
  else if constexpr (std::is_floating_point_v<F>) return "number";
  else if constexpr (std::is_same_v<F, std::string>) return "string";
  else if constexpr (std::is_same_v<F, YAML::Node>) return "any";
  else if constexpr (is_vector<F>::value) return "list of " + type_name<typename is_vector<F>::value_type>();
  else if constexpr (is_optional<F>::value) return type_name<typename is_optional<F>::value_type>() + " or null";
  else if constexpr (YamlValue<F>) return F::yaml_type();
  else return "mapping";
}

}  // namespace config_detail

template <class F>
void parse_value(F& out, const YAML::Node& n, const ConfigContext& ctx);
template <class F>
YAML::Node emit_value(const F& v);
template <Described T>
void document_config_into(const T& defaults, const std::string& prefix, ConfigDoc& out);

// The field table of a config struct (built once from T::describe()).
template <class T>
class Fields {
 public:
  struct Field {
    std::string key, doc, type;
    std::string constraint;  // for documentation (describe_constraint)
    bool required = false;
    std::function<void(T&, const YAML::Node&, const ConfigContext&)> parse;
    std::function<YAML::Node(const T&)> emit;
    // Set for a nested struct (or a list or optional of one): appends its fields' docs, keys
    // prefixed "key." ("key[]." for a list), defaults taken from the given object.
    std::function<void(const T&, const std::string& prefix, ConfigDoc&)> document_nested;
  };
  // A check across fields: returns an error message (reported at `key`) or nothing.
  struct Check {
    std::string key;
    std::function<std::optional<std::string>(const T&)> fn;
  };

  template <class F, class... C>
  Fields& operator()(const char* key, F T::*member, const char* doc, C... constraints) {
    Field f;
    f.key = key;
    f.doc = doc;
    f.type = config_detail::type_name<F>();
    f.required = (std::is_same_v<C, Required> || ...);
    for (const std::string& c : {std::string(), describe_constraint(constraints)...})
      if (!c.empty()) f.constraint += (f.constraint.empty() ? "" : "; ") + c;
    f.document_nested = nested_documenter<F>(member, key);
    f.parse = [member, constraints...](T& obj, const YAML::Node& n, const ConfigContext& ctx) {
      parse_value(obj.*member, n, ctx);
      (apply_constraint(obj.*member, constraints, n, ctx), ...);
    };
    f.emit = [member](const T& obj) { return emit_value(obj.*member); };
    fields_.push_back(std::move(f));
    return *this;
  }

  Fields& check(std::string key, std::function<std::optional<std::string>(const T&)> fn) {
    checks_.push_back({std::move(key), std::move(fn)});
    return *this;
  }

  const std::vector<Field>& fields() const { return fields_; }
  const std::vector<Check>& checks() const { return checks_; }
  std::vector<std::string> keys() const {
    std::vector<std::string> k;
    for (const auto& f : fields_) k.push_back(f.key);
    return k;
  }

 private:
  template <class F>
  static void apply_constraint(const F& v, const Bound& b, const YAML::Node& n, const ConfigContext& ctx) {
    if constexpr (std::is_arithmetic_v<F> && !std::is_same_v<F, bool>) {
      if (auto msg = b.violated_by(static_cast<double>(v))) ctx.fail(n, *msg);
    } else if constexpr (config_detail::is_vector<F>::value) {
      for (std::size_t i = 0; i < v.size(); ++i)
        apply_constraint(v[i], b, n.IsSequence() && i < n.size() ? n[i] : n, ctx.item(i));
    } else if constexpr (config_detail::is_optional<F>::value) {
      if (v) apply_constraint(*v, b, n, ctx);
    } else {
      static_assert(sizeof(F) == 0, "Bound applies to numbers (or lists/optionals of numbers)");
    }
  }
  template <class F>
  static void apply_constraint(const F& v, const OneOf& c, const YAML::Node& n, const ConfigContext& ctx) {
    if constexpr (std::is_same_v<F, std::string>) {
      for (const auto& s : c.choices)
        if (s == v) return;
      ctx.fail(n, fmt::format("'{}' is not one of: {}{}", v, join(c.choices), did_you_mean(v, c.choices)));
    } else {
      static_assert(sizeof(F) == 0, "OneOf applies to strings");
    }
  }
  template <class F>
  static void apply_constraint(const F&, const Required&, const YAML::Node&, const ConfigContext&) {}

  template <class F>
  static std::function<void(const T&, const std::string&, ConfigDoc&)> nested_documenter(F T::*member,
                                                                                           const std::string& key) {
    using namespace config_detail;
    if constexpr (Described<F>) {
      return [member, key](const T& obj, const std::string& prefix, ConfigDoc& out) {
        document_config_into(obj.*member, prefix + key + ".", out);
      };
    } else if constexpr (is_vector<F>::value) {
      if constexpr (Described<typename is_vector<F>::value_type>)
        return [key](const T&, const std::string& prefix, ConfigDoc& out) {
          document_config_into(typename is_vector<F>::value_type{}, prefix + key + "[].", out);
        };
      else
        return nullptr;
    } else if constexpr (is_optional<F>::value) {
      if constexpr (Described<typename is_optional<F>::value_type>)
        return [member, key](const T& obj, const std::string& prefix, ConfigDoc& out) {
          const auto& v = obj.*member;
          document_config_into(v ? *v : typename is_optional<F>::value_type{}, prefix + key + ".", out);
        };
      else
        return nullptr;
    } else {
      return nullptr;
    }
  }

  std::vector<Field> fields_;
  std::vector<Check> checks_;
};

template <Described T>
const Fields<T>& fields_of() {
  static const Fields<T> fields = [] {
    Fields<T> f;
    T::describe(f);
    return f;
  }();
  return fields;
}

// Parses node (a mapping, or null for "all defaults") into out, whose current values are the
// defaults. Keys not given keep their value.
template <Described T>
void parse_into(T& out, const YAML::Node& node, const ConfigContext& ctx) {
  const Fields<T>& fields = fields_of<T>();
  std::set<std::string> given;
  if (node.IsDefined() && !node.IsNull()) {
    config_detail::expect_kind(node, YAML::NodeType::Map, "a mapping", ctx);
    std::map<std::string, int> seen_line;
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (!it->first.IsScalar()) ctx.fail(it->first, "keys must be plain strings");
      const std::string key = it->first.Scalar();
      const ConfigContext c = ctx.child(key);
      auto [pos, inserted] = seen_line.emplace(key, it->first.Mark().line + 1);
      if (!inserted) c.fail(it->first, fmt::format("duplicate key (first defined at line {})", pos->second));
      const typename Fields<T>::Field* field = nullptr;
      for (const auto& f : fields.fields())
        if (f.key == key) field = &f;
      if (!field) {
        const auto keys = fields.keys();
        c.fail(it->first, fmt::format("unknown key{}; valid keys: {}", did_you_mean(key, keys), join(keys)));
      }
      field->parse(out, it->second, c);
      given.insert(key);
    }
  }
  for (const auto& f : fields.fields())
    if (f.required && !given.count(f.key))
      ctx.fail(node, fmt::format("missing required key '{}' ({})", f.key, f.doc));
  for (const auto& chk : fields.checks())
    if (auto msg = chk.fn(out)) {
      const YAML::Node at = node.IsDefined() && node.IsMap() && node[chk.key] ? node[chk.key] : node;
      ctx.child(chk.key).fail(at, *msg);
    }
}

template <Described T>
T parse_config(const YAML::Node& node, const ConfigContext& ctx) {
  T out{};
  parse_into(out, node, ctx);
  return out;
}

template <Described T>
YAML::Node to_yaml(const T& value) {
  YAML::Node n(YAML::NodeType::Map);
  for (const auto& f : fields_of<T>().fields()) n[f.key] = f.emit(value);
  return n;
}

// "key (type, default d): doc" lines, for documentation and `rlzoo list --hyperparams`.
// `defaults`: where a registration's defaults differ from the struct's member initialisers.
template <Described T>
std::vector<std::string> describe_config(const T& defaults, const std::string& prefix = "") {
  std::vector<std::string> out;
  for (const auto& f : fields_of<T>().fields()) {
    YAML::Emitter e;
    e << YAML::Flow << f.emit(defaults);
    out.push_back(fmt::format("{}{} ({}, default {}): {}", prefix, f.key, f.type, e.c_str(), f.doc));
  }
  return out;
}
template <Described T>
std::vector<std::string> describe_config(const std::string& prefix = "") {
  return describe_config(T{}, prefix);
}

// Appends the docs of T's fields (keys prefixed by `prefix`), then those of its nested structs
// after each nested struct's own row; defaults come from `defaults`.
template <Described T>
void document_config_into(const T& defaults, const std::string& prefix, ConfigDoc& out) {
  for (const auto& f : fields_of<T>().fields()) {
    FieldDoc d;
    d.key = prefix + f.key;
    d.type = f.type;
    d.constraint = f.constraint;
    d.doc = f.doc;
    d.required = f.required;
    const YAML::Node value = f.emit(defaults);
    if (!f.required && !value.IsMap()) {  // a nested struct's defaults are its fields' rows
      YAML::Emitter e;
      e << YAML::Flow << value;
      d.default_value = std::string(e.c_str()) == "~" ? "null" : e.c_str();
    }
    out.push_back(std::move(d));
    if (f.document_nested) f.document_nested(defaults, prefix, out);
  }
}

// Every field of T, nested structs' fields included (see FieldDoc). defaults: the values to
// report as defaults, for types whose registered defaults differ from the member initialisers.
template <Described T>
ConfigDoc document_config(const T& defaults = T{}) {
  ConfigDoc out;
  document_config_into(defaults, "", out);
  return out;
}

// ---- value codecs ------------------------------------------------------------------------

template <class F>
void parse_value(F& out, const YAML::Node& n, const ConfigContext& ctx) {
  using namespace config_detail;
  if constexpr (std::is_same_v<F, bool>) {
    out = parse_bool(n, ctx);
  } else if constexpr (std::is_integral_v<F>) {
    out = static_cast<F>(parse_int(n, ctx, std::numeric_limits<F>::min(), std::numeric_limits<F>::max()));
  } else if constexpr (std::is_floating_point_v<F>) {
    out = static_cast<F>(parse_double(n, ctx));
  } else if constexpr (std::is_same_v<F, std::string>) {
    out = parse_string(n, ctx);
  } else if constexpr (std::is_same_v<F, YAML::Node>) {
    // Kept as the same node (not a clone) so that its line/column marks survive for the
    // errors of whoever validates it later (an algorithm's hyperparams, an env's kwargs).
    out = n;
  } else if constexpr (is_optional<F>::value) {
    if (!n.IsDefined() || n.IsNull()) {
      out.reset();
    } else {
      typename is_optional<F>::value_type v{};
      if (out) v = *out;
      parse_value(v, n, ctx);
      out = std::move(v);
    }
  } else if constexpr (is_vector<F>::value) {
    expect_kind(n, YAML::NodeType::Sequence, "a list", ctx);
    F v(n.size());
    for (std::size_t i = 0; i < n.size(); ++i) parse_value(v[i], n[i], ctx.item(i));
    out = std::move(v);
  } else if constexpr (Described<F>) {
    parse_into(out, n, ctx);
  } else if constexpr (YamlValue<F>) {
    out.parse_yaml(n, ctx);
  } else {
    static_assert(sizeof(F) == 0, "unsupported config field type");
  }
}

template <class F>
YAML::Node emit_value(const F& v) {
  using namespace config_detail;
  if constexpr (std::is_same_v<F, YAML::Node>) {
    return YAML::Clone(v);
  } else if constexpr (is_optional<F>::value) {
    return v ? emit_value(*v) : YAML::Node(YAML::NodeType::Null);
  } else if constexpr (is_vector<F>::value) {
    YAML::Node n(YAML::NodeType::Sequence);
    for (const auto& x : v) n.push_back(emit_value(x));
    return n;
  } else if constexpr (Described<F>) {
    return to_yaml(v);
  } else if constexpr (YamlValue<F>) {
    return v.emit_yaml();
  } else if constexpr (std::is_floating_point_v<F>) {
    // Shortest text that round-trips, so a resolved config reloads to the same values.
    return YAML::Node(fmt::format("{}", v));
  } else {
    return YAML::Node(v);
  }
}

}  // namespace rlzoo
