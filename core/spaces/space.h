// Gymnasium-style spaces: Discrete, MultiDiscrete, Box, MultiBinary and Dict.
//
// Memory layout of one element (what an env writes as an observation or reads as an action):
//   Discrete       one int64 (the value itself, in [start, start + n))
//   MultiDiscrete  nvec.size() int64 values, each in [0, nvec[i])
//   Box            shape-many values of dtype (row-major)
//   MultiBinary    shape-many uint8 values, each 0 or 1
//   Dict           the fields one after another, in declaration order, each starting at a
//                  multiple of 8 bytes (field(i).offset)
// byte_size() is the size of that element; a batch of N elements is N * byte_size() bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/bytes.h"
#include "core/common/dtype.h"
#include "core/common/rng.h"

namespace rlzoo {

using Shape = std::vector<std::int64_t>;

enum class SpaceKind { Discrete, MultiDiscrete, Box, MultiBinary, Dict };
// Gymnasium's name of the kind: "Discrete", "MultiDiscrete", "Box", "MultiBinary", "Dict".
std::string_view space_kind_name(SpaceKind kind);

class Space;

struct DictField {
  std::string name;
  std::shared_ptr<const Space> space;
  std::size_t offset = 0;  // byte offset of the field inside the Dict element
};

class Space {
 public:
  Space();  // Discrete(1): only so that Space is regular; real code uses the factories.

  static Space discrete(std::int64_t n, std::int64_t start = 0);
  static Space multi_discrete(std::vector<std::int64_t> nvec);
  // Scalar bounds broadcast over the shape. Bounds may be +-infinity.
  static Space box(double low, double high, Shape shape, DType dtype = DType::Float32);
  static Space box(std::vector<double> low, std::vector<double> high, Shape shape,
                   DType dtype = DType::Float32);
  static Space multi_binary(Shape shape);
  static Space dict(std::vector<std::pair<std::string, Space>> fields);

  SpaceKind kind() const { return kind_; }
  bool is_discrete() const { return kind_ == SpaceKind::Discrete; }
  bool is_box() const { return kind_ == SpaceKind::Box; }
  // Element shape: {} for Discrete, {k} for MultiDiscrete, the given shape otherwise;
  // {numel()} for Dict (its flat size).
  const Shape& shape() const { return shape_; }
  // Element dtype: int64 for (Multi)Discrete, uint8 for MultiBinary, the Box's dtype.
  // Dict has none (throws).
  DType dtype() const;
  // Number of scalar values in one element (Dict: sum over fields).
  std::int64_t numel() const { return numel_; }
  std::size_t byte_size() const { return byte_size_; }

  // Discrete
  std::int64_t n() const;
  std::int64_t start() const;
  // MultiDiscrete
  const std::vector<std::int64_t>& nvec() const;
  // Box: per-element bounds (numel() values each).
  const std::vector<double>& low() const;
  const std::vector<double>& high() const;
  bool is_bounded() const;  // all bounds finite
  // Dict
  const std::vector<DictField>& fields() const;
  const DictField& field(const std::string& name) const;

  // Writes a uniformly sampled element (Box: uniform where bounded, normal/exponential where
  // unbounded as Gymnasium does) into out, which must hold byte_size() bytes.
  void sample(Rng& rng, Bytes out) const;
  // True when x (byte_size() bytes) is an element: in range, finite, inside the bounds.
  bool contains(ConstBytes x) const;
  // Readable form, e.g. "Box(-4.8, 4.8, (4,), float32)" or "Discrete(2)".
  std::string describe() const;

  bool operator==(const Space& o) const;

 private:
  SpaceKind kind_ = SpaceKind::Discrete;
  Shape shape_;
  DType dtype_ = DType::Int64;
  std::int64_t numel_ = 1;
  std::size_t byte_size_ = 8;
  std::int64_t n_ = 1, start_ = 0;
  std::vector<std::int64_t> nvec_;
  std::vector<double> low_, high_;
  std::vector<DictField> fields_;
};

std::string shape_to_string(const Shape& s);  // "(4,)", "(84, 84, 3)", "()"
std::int64_t shape_numel(const Shape& s);

}  // namespace rlzoo
