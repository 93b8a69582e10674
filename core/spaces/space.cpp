#include "core/spaces/space.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <limits>

#include "core/common/strings.h"

namespace rlzoo {

std::int64_t shape_numel(const Shape& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

std::string shape_to_string(const Shape& s) {
  if (s.empty()) return "()";
  std::string out = "(";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

namespace {
void check_shape(const Shape& shape, const char* what) {
  for (auto d : shape)
    if (d <= 0) throw UserError(fmt::format("{}: every dimension of shape {} must be positive", what, shape_to_string(shape)));
}

std::string number(double x) {
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return fmt::format("{}", x);
}

// Reads element i of a Box buffer as double.
double read_as_double(const std::byte* p, DType t, std::size_t i) {
  switch (t) {
    case DType::UInt8: return reinterpret_cast<const std::uint8_t*>(p)[i];
    case DType::Int32: return reinterpret_cast<const std::int32_t*>(p)[i];
    case DType::Int64: return static_cast<double>(reinterpret_cast<const std::int64_t*>(p)[i]);
    case DType::Float32: return reinterpret_cast<const float*>(p)[i];
    case DType::Float64: return reinterpret_cast<const double*>(p)[i];
  }
  return 0;
}

void write_from_double(std::byte* p, DType t, std::size_t i, double v) {
  switch (t) {
    case DType::UInt8: reinterpret_cast<std::uint8_t*>(p)[i] = static_cast<std::uint8_t>(v); break;
    case DType::Int32: reinterpret_cast<std::int32_t*>(p)[i] = static_cast<std::int32_t>(v); break;
    case DType::Int64: reinterpret_cast<std::int64_t*>(p)[i] = static_cast<std::int64_t>(v); break;
    case DType::Float32: reinterpret_cast<float*>(p)[i] = static_cast<float>(v); break;
    case DType::Float64: reinterpret_cast<double*>(p)[i] = v; break;
  }
}

std::size_t round_up8(std::size_t x) { return (x + 7) / 8 * 8; }
}  // namespace

Space::Space() = default;

Space Space::discrete(std::int64_t n, std::int64_t start) {
  if (n <= 0) throw UserError(fmt::format("Discrete space needs n > 0, got {}", n));
  Space s;
  s.kind_ = SpaceKind::Discrete;
  s.n_ = n;
  s.start_ = start;
  return s;
}

std::string_view space_kind_name(SpaceKind kind) {
  switch (kind) {
    case SpaceKind::Discrete: return "Discrete";
    case SpaceKind::MultiDiscrete: return "MultiDiscrete";
    case SpaceKind::Box: return "Box";
    case SpaceKind::MultiBinary: return "MultiBinary";
    case SpaceKind::Dict: return "Dict";
  }
  return "?";
}

Space Space::multi_discrete(std::vector<std::int64_t> nvec) {
  if (nvec.empty()) throw UserError("MultiDiscrete space needs at least one dimension");
  for (auto n : nvec)
    if (n <= 0) throw UserError(fmt::format("MultiDiscrete space needs every nvec entry > 0, got {}", n));
  Space s;
  s.kind_ = SpaceKind::MultiDiscrete;
  s.shape_ = {static_cast<std::int64_t>(nvec.size())};
  s.numel_ = static_cast<std::int64_t>(nvec.size());
  s.byte_size_ = 8 * nvec.size();
  s.nvec_ = std::move(nvec);
  return s;
}

Space Space::box(double low, double high, Shape shape, DType dtype) {
  check_shape(shape, "Box");
  const auto n = static_cast<std::size_t>(shape_numel(shape));
  return box(std::vector<double>(n, low), std::vector<double>(n, high), std::move(shape), dtype);
}

Space Space::box(std::vector<double> low, std::vector<double> high, Shape shape, DType dtype) {
  check_shape(shape, "Box");
  const auto n = static_cast<std::size_t>(shape_numel(shape));
  if (low.size() != n || high.size() != n)
    throw UserError(fmt::format("Box bounds have {} and {} values but shape {} has {} elements", low.size(),
                                high.size(), shape_to_string(shape), n));
  for (std::size_t i = 0; i < n; ++i)
    if (std::isnan(low[i]) || std::isnan(high[i]) || low[i] > high[i])
      throw UserError(fmt::format("Box bound {} is invalid: low {} > high {}", i, number(low[i]), number(high[i])));
  Space s;
  s.kind_ = SpaceKind::Box;
  s.shape_ = std::move(shape);
  s.dtype_ = dtype;
  s.numel_ = static_cast<std::int64_t>(n);
  s.byte_size_ = n * dtype_size(dtype);
  s.low_ = std::move(low);
  s.high_ = std::move(high);
  return s;
}

Space Space::multi_binary(Shape shape) {
  check_shape(shape, "MultiBinary");
  Space s;
  s.kind_ = SpaceKind::MultiBinary;
  s.dtype_ = DType::UInt8;
  s.numel_ = shape_numel(shape);
  s.byte_size_ = static_cast<std::size_t>(s.numel_);
  s.shape_ = std::move(shape);
  return s;
}

Space Space::dict(std::vector<std::pair<std::string, Space>> fields) {
  if (fields.empty()) throw UserError("Dict space needs at least one field");
  Space s;
  s.kind_ = SpaceKind::Dict;
  s.numel_ = 0;
  std::size_t offset = 0;
  for (auto& [name, sub] : fields) {
    for (const auto& f : s.fields_)
      if (f.name == name) throw UserError("Dict space has field '" + name + "' twice");
    s.numel_ += sub.numel();
    const std::size_t size = sub.byte_size();
    s.fields_.push_back({name, std::make_shared<const Space>(std::move(sub)), offset});
    offset = round_up8(offset + size);
  }
  s.byte_size_ = offset;
  s.shape_ = {s.numel_};
  return s;
}

DType Space::dtype() const {
  if (kind_ == SpaceKind::Dict) throw UserError("a Dict space has no single dtype; use its fields");
  return dtype_;
}

std::int64_t Space::n() const {
  RLZOO_CHECK(kind_ == SpaceKind::Discrete, "n() of " + describe());
  return n_;
}
std::int64_t Space::start() const {
  RLZOO_CHECK(kind_ == SpaceKind::Discrete, "start() of " + describe());
  return start_;
}
const std::vector<std::int64_t>& Space::nvec() const {
  RLZOO_CHECK(kind_ == SpaceKind::MultiDiscrete, "nvec() of " + describe());
  return nvec_;
}
const std::vector<double>& Space::low() const {
  RLZOO_CHECK(kind_ == SpaceKind::Box, "low() of " + describe());
  return low_;
}
const std::vector<double>& Space::high() const {
  RLZOO_CHECK(kind_ == SpaceKind::Box, "high() of " + describe());
  return high_;
}
bool Space::is_bounded() const {
  for (std::size_t i = 0; i < low_.size(); ++i)
    if (!std::isfinite(low_[i]) || !std::isfinite(high_[i])) return false;
  return true;
}
const std::vector<DictField>& Space::fields() const {
  RLZOO_CHECK(kind_ == SpaceKind::Dict, "fields() of " + describe());
  return fields_;
}
const DictField& Space::field(const std::string& name) const {
  for (const auto& f : fields())
    if (f.name == name) return f;
  std::vector<std::string> names;
  for (const auto& f : fields_) names.push_back(f.name);
  throw UserError("Dict space has no field '" + name + "'" + did_you_mean(name, names) + "; fields: " + join(names));
}

void Space::sample(Rng& rng, Bytes out) const {
  RLZOO_CHECK(out.size() == byte_size_, fmt::format("sample buffer {} bytes, space needs {}", out.size(), byte_size_));
  switch (kind_) {
    case SpaceKind::Discrete:
      as_span<std::int64_t>(out)[0] = start_ + static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(n_)));
      return;
    case SpaceKind::MultiDiscrete: {
      auto v = as_span<std::int64_t>(out);
      for (std::size_t i = 0; i < nvec_.size(); ++i) v[i] = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(nvec_[i])));
      return;
    }
    case SpaceKind::MultiBinary: {
      auto v = as_span<std::uint8_t>(out);
      for (auto& x : v) x = static_cast<std::uint8_t>(rng.below(2));
      return;
    }
    case SpaceKind::Box: {
      const bool integral = !dtype_is_floating(dtype_);
      for (std::size_t i = 0; i < low_.size(); ++i) {
        const double lo = low_[i], hi = high_[i];
        double v;
        if (integral) {
          // Uniform over the integers in [lo, hi]; infinite bounds clamp to a wide range.
          const double l = std::ceil(std::isfinite(lo) ? lo : -1e9), h = std::floor(std::isfinite(hi) ? hi : 1e9);
          v = l + static_cast<double>(rng.below(static_cast<std::uint64_t>(h - l) + 1));
        } else if (std::isfinite(lo) && std::isfinite(hi)) {
          v = rng.uniform(lo, hi);
        } else if (std::isfinite(lo)) {
          v = lo - std::log1p(-rng.uniform());  // exponential above the lower bound
        } else if (std::isfinite(hi)) {
          v = hi + std::log1p(-rng.uniform());
        } else {
          v = rng.normal();
        }
        if (dtype_ == DType::Float32) {
          // Rounding to float32 may step past a bound; keep the sample inside.
          float f = static_cast<float>(v);
          if (f < lo) f = std::nextafter(static_cast<float>(lo), std::numeric_limits<float>::infinity());
          if (f > hi) f = std::nextafter(static_cast<float>(hi), -std::numeric_limits<float>::infinity());
          v = f;
        }
        write_from_double(out.data(), dtype_, i, v);
      }
      return;
    }
    case SpaceKind::Dict:
      for (const auto& f : fields_) f.space->sample(rng, out.subspan(f.offset, f.space->byte_size()));
      return;
  }
}

bool Space::contains(ConstBytes x) const {
  if (x.size() != byte_size_) return false;
  switch (kind_) {
    case SpaceKind::Discrete: {
      const auto v = as_span<std::int64_t>(x)[0];
      return v >= start_ && v < start_ + n_;
    }
    case SpaceKind::MultiDiscrete: {
      const auto v = as_span<std::int64_t>(x);
      for (std::size_t i = 0; i < nvec_.size(); ++i)
        if (v[i] < 0 || v[i] >= nvec_[i]) return false;
      return true;
    }
    case SpaceKind::MultiBinary:
      for (auto b : as_span<std::uint8_t>(x))
        if (b > 1) return false;
      return true;
    case SpaceKind::Box:
      for (std::size_t i = 0; i < low_.size(); ++i) {
        const double v = read_as_double(x.data(), dtype_, i);
        if (std::isnan(v) || v < low_[i] || v > high_[i]) return false;
        if (dtype_is_floating(dtype_) && std::isinf(v) && std::isfinite(v < 0 ? low_[i] : high_[i])) return false;
      }
      return true;
    case SpaceKind::Dict:
      for (const auto& f : fields_)
        if (!f.space->contains(x.subspan(f.offset, f.space->byte_size()))) return false;
      return true;
  }
  return false;
}

std::string Space::describe() const {
  switch (kind_) {
    case SpaceKind::Discrete:
      return start_ == 0 ? fmt::format("Discrete({})", n_) : fmt::format("Discrete({}, start={})", n_, start_);
    case SpaceKind::MultiDiscrete: {
      std::vector<std::string> parts;
      for (auto n : nvec_) parts.push_back(std::to_string(n));
      return "MultiDiscrete([" + join(parts) + "])";
    }
    case SpaceKind::MultiBinary:
      return "MultiBinary(" + shape_to_string(shape_) + ")";
    case SpaceKind::Box: {
      const bool uniform = std::all_of(low_.begin(), low_.end(), [&](double v) { return v == low_[0]; }) &&
                           std::all_of(high_.begin(), high_.end(), [&](double v) { return v == high_[0]; });
      auto list = [](const std::vector<double>& v) {
        std::vector<std::string> parts;
        for (double x : v) parts.push_back(number(x));
        return fmt::format("[{}]", join(parts));  // not "[" + string&&: GCC 12 -Wrestrict false positive
      };
      const std::string lo = uniform ? number(low_[0]) : list(low_);
      const std::string hi = uniform ? number(high_[0]) : list(high_);
      return fmt::format("Box({}, {}, {}, {})", lo, hi, shape_to_string(shape_), dtype_name(dtype_));
    }
    case SpaceKind::Dict: {
      std::vector<std::string> parts;
      for (const auto& f : fields_) parts.push_back("'" + f.name + "': " + f.space->describe());
      return "Dict(" + join(parts) + ")";
    }
  }
  return "?";
}

bool Space::operator==(const Space& o) const {
  if (kind_ != o.kind_ || shape_ != o.shape_ || dtype_ != o.dtype_ || n_ != o.n_ || start_ != o.start_ ||
      nvec_ != o.nvec_ || low_ != o.low_ || high_ != o.high_ || fields_.size() != o.fields_.size())
    return false;
  for (std::size_t i = 0; i < fields_.size(); ++i)
    if (fields_[i].name != o.fields_[i].name || !(*fields_[i].space == *o.fields_[i].space)) return false;
  return true;
}

}  // namespace rlzoo
