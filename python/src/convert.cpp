#include "convert.h"

#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "core/common/error.h"

namespace rlzoo::python {

namespace {

// "(1024, 4)"
std::string shape_text(const std::vector<py::ssize_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += fmt::format("{}{}", i ? ", " : "", shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

std::vector<py::ssize_t> element_shape(const Space& leaf, std::int64_t batch) {
  std::vector<py::ssize_t> shape;
  if (batch >= 0) shape.push_back(static_cast<py::ssize_t>(batch));
  for (auto d : leaf.shape()) shape.push_back(static_cast<py::ssize_t>(d));
  return shape;
}

// C-order strides of one element of `leaf`, after a leading row stride when batched.
std::vector<py::ssize_t> element_strides(const Space& leaf, std::int64_t batch, std::size_t row_stride) {
  const Shape& dims = leaf.shape();
  std::vector<py::ssize_t> strides(dims.size());
  auto s = static_cast<py::ssize_t>(dtype_size(leaf.dtype()));
  for (std::size_t i = dims.size(); i-- > 0;) {
    strides[i] = s;
    s *= static_cast<py::ssize_t>(dims[i]);
  }
  if (batch >= 0) strides.insert(strides.begin(), static_cast<py::ssize_t>(row_stride));
  return strides;
}

void make_read_only(py::array& a) { py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_; }

py::object views(const Space& space, const std::byte* data, std::int64_t batch, std::size_t row_stride, py::handle base) {
  if (space.kind() == SpaceKind::Dict) {
    py::dict d;
    for (const auto& f : space.fields()) d[py::str(f.name)] = views(*f.space, data + f.offset, batch, row_stride, base);
    return d;
  }
  py::array a(numpy_dtype(space.dtype()), element_shape(space, batch), element_strides(space, batch, row_stride), data,
              base);
  make_read_only(a);
  return a;
}

bool is_integer_kind(char k) { return k == 'b' || k == 'i' || k == 'u'; }

template <class T>
py::array narrow_integers(const py::array_t<std::int64_t>& wide, const Space& leaf, const std::string& what) {
  py::array_t<T> out(std::vector<py::ssize_t>(wide.shape(), wide.shape() + wide.ndim()));
  const std::int64_t* src = wide.data();
  T* dst = out.mutable_data();
  for (py::ssize_t i = 0; i < wide.size(); ++i) {
    if (src[i] < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
        src[i] > static_cast<std::int64_t>(std::numeric_limits<T>::max()))
      throw UserError(fmt::format("{}: value {} at flat index {} does not fit {} ({})", what, src[i], i,
                                  dtype_name(leaf.dtype()), leaf.describe()));
    dst[i] = static_cast<T>(src[i]);
  }
  return out;
}

}  // namespace

py::dtype numpy_dtype(DType t) {
  switch (t) {
    case DType::UInt8: return py::dtype::of<std::uint8_t>();
    case DType::Int32: return py::dtype::of<std::int32_t>();
    case DType::Int64: return py::dtype::of<std::int64_t>();
    case DType::Float32: return py::dtype::of<float>();
    case DType::Float64: return py::dtype::of<double>();
  }
  throw std::logic_error("unknown dtype");
}

py::object batch_views(const Space& space, const std::byte* data, std::int64_t batch, py::handle base) {
  return views(space, data, batch, space.byte_size(), base);
}

py::object element_copy(const Space& space, const std::byte* data) {
  switch (space.kind()) {
    case SpaceKind::Discrete: {
      std::int64_t v = 0;
      std::memcpy(&v, data, sizeof v);
      return py::int_(v);
    }
    case SpaceKind::Dict: {
      py::dict d;
      for (const auto& f : space.fields()) d[py::str(f.name)] = element_copy(*f.space, data + f.offset);
      return d;
    }
    default:
      // Without a base, numpy copies the data into an array it owns.
      return py::array(numpy_dtype(space.dtype()), element_shape(space, -1), element_strides(space, -1, 0), data);
  }
}

py::object copy_views(py::handle v) {
  if (py::isinstance<py::dict>(v)) {
    py::dict out;
    for (auto [k, x] : py::reinterpret_borrow<py::dict>(v)) out[k] = copy_views(x);
    return out;
  }
  // A new array over the same data and strides, then numpy's C-level copy (no Python call).
  const auto a = py::reinterpret_borrow<py::array>(v);
  return py::array(a.dtype(), std::vector<py::ssize_t>(a.shape(), a.shape() + a.ndim()),
                   std::vector<py::ssize_t>(a.strides(), a.strides() + a.ndim()), a.data());
}

namespace {

// NumPy's type number of a leaf's dtype: the one py::dtype::of<T>() (numpy_dtype) makes.
int numpy_type_num(DType t) {
  using py::detail::npy_format_descriptor;
  switch (t) {
    case DType::UInt8: return npy_format_descriptor<std::uint8_t>::value;
    case DType::Int32: return npy_format_descriptor<std::int32_t>::value;
    case DType::Int64: return npy_format_descriptor<std::int64_t>::value;
    case DType::Float32: return npy_format_descriptor<float>::value;
    case DType::Float64: return npy_format_descriptor<double>::value;
  }
  return -1;
}

// An ndarray that leaf_array would return as it is: exactly the leaf's dtype in native byte
// order, C-contiguous and aligned, of the expected shape. Checked on the array's header, with
// no conversion call and no allocation (the common case of every step).
bool usable_as_is(const Space& leaf, py::handle value, std::int64_t batch) {
  if (!py::isinstance<py::array>(value)) return false;
  const auto* a = py::detail::array_proxy(value.ptr());
  constexpr int kNeeded = py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_ | py::detail::npy_api::NPY_ARRAY_ALIGNED_;
  if ((a->flags & kNeeded) != kNeeded) return false;
  const auto* d = py::detail::array_descriptor_proxy(a->descr);
  if (d->type_num != numpy_type_num(leaf.dtype()) || d->byteorder == '>') return false;
  const Shape& dims = leaf.shape();
  const int offset = batch >= 0 ? 1 : 0;
  if (a->nd != static_cast<int>(dims.size()) + offset) return false;
  if (batch >= 0 && a->dimensions[0] != batch) return false;
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (a->dimensions[i + static_cast<std::size_t>(offset)] != static_cast<py::ssize_t>(dims[i])) return false;
  return true;
}

}  // namespace

py::array leaf_array(const Space& leaf, py::handle value, std::int64_t batch, const std::string& what) {
  if (usable_as_is(leaf, value, batch)) return py::reinterpret_borrow<py::array>(value);
  py::array arr = py::array::ensure(value);
  if (!arr) {
    PyErr_Clear();
    throw UserError(fmt::format("{}: expected numbers for {}, got a {}", what, leaf.describe(),
                                py::str(py::type::of(value).attr("__name__")).cast<std::string>()));
  }
  const char kind = arr.dtype().kind();
  const bool integer_space = leaf.kind() != SpaceKind::Box || !dtype_is_floating(leaf.dtype());
  if (!(is_integer_kind(kind) || (kind == 'f' && !integer_space)))
    throw UserError(fmt::format("{}: expected {} for {}, got an array of {}", what,
                                integer_space ? "integers" : "real numbers", leaf.describe(),
                                py::str(arr.dtype()).cast<std::string>()));
  const auto expected = element_shape(leaf, batch);
  const std::vector<py::ssize_t> given(arr.shape(), arr.shape() + arr.ndim());
  if (given != expected)
    throw UserError(fmt::format("{}: expected shape {} for {}{}, got shape {}", what, shape_text(expected),
                                leaf.describe(), batch >= 0 ? fmt::format(" x {} envs", batch) : "", shape_text(given)));
  constexpr int kFlags = py::array::c_style | py::array::forcecast;
  switch (leaf.dtype()) {
    case DType::Float32: return py::array_t<float, kFlags>::ensure(arr);
    case DType::Float64: return py::array_t<double, kFlags>::ensure(arr);
    case DType::Int64: return py::array_t<std::int64_t, kFlags>::ensure(arr);
    case DType::Int32: return narrow_integers<std::int32_t>(py::array_t<std::int64_t, kFlags>::ensure(arr), leaf, what);
    case DType::UInt8: return narrow_integers<std::uint8_t>(py::array_t<std::int64_t, kFlags>::ensure(arr), leaf, what);
  }
  throw std::logic_error("unknown dtype");
}

namespace {

void write_rows(const Space& space, py::handle value, std::int64_t batch, std::byte* out, std::size_t row_stride,
                const std::string& what) {
  if (space.kind() == SpaceKind::Dict) {
    if (!PyMapping_Check(value.ptr()) || py::isinstance<py::str>(value))
      throw UserError(fmt::format("{}: expected a dict with the fields of {}", what, space.describe()));
    const auto mapping = py::reinterpret_borrow<py::object>(value);
    for (const auto& f : space.fields()) {
      if (!mapping.contains(py::str(f.name)))
        throw UserError(fmt::format("{}: missing field '{}' of {}", what, f.name, space.describe()));
      write_rows(*f.space, mapping[py::str(f.name)], batch, out + f.offset, row_stride, what + "['" + f.name + "']");
    }
    return;
  }
  const py::array a = leaf_array(space, value, batch, what);
  const std::size_t element = space.byte_size();
  const auto* src = static_cast<const std::byte*>(a.data());
  const std::size_t rows = batch >= 0 ? static_cast<std::size_t>(batch) : 1;
  if (row_stride == element || rows == 1) {
    std::memcpy(out, src, rows * element);
  } else {
    for (std::size_t r = 0; r < rows; ++r) std::memcpy(out + r * row_stride, src + r * element, element);
  }
}

}  // namespace

void write_elements(const Space& space, py::handle value, std::int64_t batch, std::byte* out, const std::string& what) {
  write_rows(space, value, batch, out, space.byte_size(), what);
}

YAML::Node to_yaml(py::handle v, const std::string& where) {
  if (v.is_none()) return YAML::Node();
  if (PyBool_Check(v.ptr())) return YAML::Node(v.cast<bool>());
  if (PyLong_Check(v.ptr()) || (PyIndex_Check(v.ptr()) && !PyFloat_Check(v.ptr())))
    return YAML::Node(py::int_(py::reinterpret_borrow<py::object>(v)).cast<std::int64_t>());
  if (PyFloat_Check(v.ptr())) return YAML::Node(v.cast<double>());
  if (py::isinstance<py::str>(v)) return YAML::Node(v.cast<std::string>());
  if (py::isinstance<py::dict>(v)) {
    YAML::Node map(YAML::NodeType::Map);
    for (auto [k, x] : py::reinterpret_borrow<py::dict>(v)) {
      if (!py::isinstance<py::str>(k)) throw UserError(fmt::format("{}: keys must be strings, got {}", where, py::repr(k).cast<std::string>()));
      const auto key = k.cast<std::string>();
      map[key] = to_yaml(x, where + "." + key);
    }
    return map;
  }
  if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    YAML::Node seq(YAML::NodeType::Sequence);
    std::size_t i = 0;
    for (auto x : v) seq.push_back(to_yaml(x, fmt::format("{}[{}]", where, i++)));
    return seq;
  }
  throw UserError(fmt::format("{}: cannot pass a {} ({}); use None, bool, int, float, str, list or dict", where,
                              py::str(py::type::of(v).attr("__name__")).cast<std::string>(),
                              py::repr(v).cast<std::string>()));
}

YAML::Node kwargs_to_yaml(const py::dict& kwargs) {
  if (kwargs.empty()) return YAML::Node();
  return to_yaml(kwargs, "kwargs");
}

py::dict describe_space(const Space& s) {
  py::dict d;
  py::tuple shape(s.shape().size());
  for (std::size_t i = 0; i < s.shape().size(); ++i) shape[i] = s.shape()[i];
  switch (s.kind()) {
    case SpaceKind::Discrete:
      d["type"] = "Discrete";
      d["n"] = s.n();
      d["start"] = s.start();
      break;
    case SpaceKind::MultiDiscrete:
      d["type"] = "MultiDiscrete";
      d["nvec"] = py::array_t<std::int64_t>(static_cast<py::ssize_t>(s.nvec().size()), s.nvec().data());
      break;
    case SpaceKind::Box: {
      d["type"] = "Box";
      d["shape"] = shape;
      d["dtype"] = std::string(dtype_name(s.dtype()));
      const std::vector<py::ssize_t> dims(s.shape().begin(), s.shape().end());
      d["low"] = py::array_t<double>(dims, s.low().data());
      d["high"] = py::array_t<double>(dims, s.high().data());
      break;
    }
    case SpaceKind::MultiBinary:
      d["type"] = "MultiBinary";
      d["shape"] = shape;
      break;
    case SpaceKind::Dict: {
      d["type"] = "Dict";
      py::list fields;
      for (const auto& f : s.fields()) fields.append(py::make_tuple(f.name, describe_space(*f.space)));
      d["fields"] = fields;
      break;
    }
  }
  d["text"] = s.describe();
  return d;
}

py::dict describe_spec(const EnvSpec& s) {
  py::dict d;
  d["id"] = s.id;
  d["max_episode_steps"] = s.max_episode_steps > 0 ? py::object(py::int_(s.max_episode_steps)) : py::none();
  d["reward_threshold"] = s.reward_threshold ? py::object(py::float_(*s.reward_threshold)) : py::none();
  d["num_agents"] = s.num_agents;
  d["has_action_mask"] = s.has_action_mask;
  d["candidate_feature_dim"] = s.candidate_feature_dim;
  return d;
}

}  // namespace rlzoo::python
