#include "datasets/hdf5_import.h"

#include <fmt/format.h>

#ifdef RLZOO_WITH_HDF5
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <optional>

#include "core/checkpoint/manifest.h"
#include "core/common/strings.h"
#include "core/registry/env_registry.h"
#endif

namespace rlzoo::data {

namespace fs = std::filesystem;

#ifndef RLZOO_WITH_HDF5

bool hdf5_import_available() { return false; }

DatasetInfo import_hdf5(const fs::path& file, const fs::path&, const ImportOptions&) {
  throw UserError(fmt::format("{}: this rlzoo was built without HDF5 support; install libhdf5-dev (scripts/setup) "
                              "and configure with -DRLZOO_WITH_HDF5=ON",
                              file.string()));
}

#else

bool hdf5_import_available() { return true; }

namespace {

// An HDF5 id closed on scope exit.
class Handle {
 public:
  using Close = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Close close) : id_(id), close_(close) {}
  Handle(Handle&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = -1; }
  Handle& operator=(Handle&& o) noexcept {
    std::swap(id_, o.id_);
    std::swap(close_, o.close_);
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() {
    if (id_ >= 0 && close_) close_(id_);
  }
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }

 private:
  hid_t id_ = -1;
  Close close_ = nullptr;
};

// HDF5 prints its error stack to stderr by default; we report errors ourselves.
class QuietHdf5Errors {
 public:
  QuietHdf5Errors() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietHdf5Errors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
  QuietHdf5Errors(const QuietHdf5Errors&) = delete;
  QuietHdf5Errors& operator=(const QuietHdf5Errors&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

[[noreturn]] void fail(const std::string& where, const std::string& what) { throw UserError(where + ": " + what); }

// Names of the links in a group, in name order.
std::vector<std::string> member_names(hid_t group, const std::string& where) {
  H5G_info_t info;
  if (H5Gget_info(group, &info) < 0) fail(where, "cannot list the group's members");
  std::vector<std::string> names;
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    const ssize_t size = H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
    if (size < 0) fail(where, "cannot list the group's members");
    std::string name(static_cast<std::size_t>(size) + 1, '\0');
    H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(), name.size(), H5P_DEFAULT);
    name.resize(static_cast<std::size_t>(size));
    names.push_back(std::move(name));
  }
  return names;
}

bool has_member(hid_t group, const std::string& name) { return H5Lexists(group, name.c_str(), H5P_DEFAULT) > 0; }

bool is_group(hid_t loc, const std::string& name) {
  Handle obj(H5Oopen(loc, name.c_str(), H5P_DEFAULT), H5Oclose);
  return obj.valid() && H5Iget_type(obj.get()) == H5I_GROUP;
}

// A numeric dataset [rows, ...] read as doubles, a block of rows at a time (reads go front to
// back, so each block is read from the file once).
class Column {
 public:
  Column(hid_t loc, const std::string& name, const std::string& where) : where_(where) {
    if (!has_member(loc, name)) fail(where_, "missing");
    if (is_group(loc, name))
      fail(where_, "is a group, not a dataset (Dict observations and actions are not supported)");
    dataset_ = Handle(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), H5Dclose);
    if (!dataset_.valid()) fail(where_, "cannot be opened as a dataset");
    Handle space(H5Dget_space(dataset_.get()), H5Sclose);
    const int rank = H5Sget_simple_extent_ndims(space.get());
    if (rank < 1) fail(where_, "is a scalar; expected an array with one row per step");
    std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
    H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
    rows_ = static_cast<std::int64_t>(dims[0]);
    for (int i = 1; i < rank; ++i) row_shape_.push_back(static_cast<std::int64_t>(dims[static_cast<std::size_t>(i)]));
    row_numel_ = shape_numel(row_shape_);
    if (row_numel_ == 0) fail(where_, fmt::format("has empty rows (shape {})", shape_to_string(row_shape_)));

    Handle type(H5Dget_type(dataset_.get()), H5Tclose);
    switch (H5Tget_class(type.get())) {
      case H5T_INTEGER:
      case H5T_FLOAT:
        break;  // HDF5 converts to double while reading
      case H5T_ENUM: {
        // h5py stores numpy bools as an enum over int8; HDF5 will not convert an enum to a
        // number, so read its integer values as they are.
        Handle base(H5Tget_super(type.get()), H5Tclose);
        if (H5Tget_class(base.get()) != H5T_INTEGER) fail(where_, "is an enum over a non-integer type");
        enum_size_ = H5Tget_size(base.get());
        enum_signed_ = H5Tget_sign(base.get()) == H5T_SGN_2;
        if (enum_size_ != 1 && enum_size_ != 2 && enum_size_ != 4 && enum_size_ != 8)
          fail(where_, fmt::format("is an enum of {}-byte integers", enum_size_));
        enum_type_ = Handle(H5Tget_native_type(type.get(), H5T_DIR_ASCEND), H5Tclose);
        break;
      }
      default:
        fail(where_, "has a type that is not a number or a bool (expected float32/float64, an integer type or bool)");
    }
    block_rows_ = std::max<std::int64_t>(1, (std::int64_t{1} << 22) / row_numel_);
  }

  const std::string& where() const { return where_; }
  std::int64_t rows() const { return rows_; }
  const Shape& row_shape() const { return row_shape_; }
  std::int64_t row_numel() const { return row_numel_; }

  // Rows [start, start + count) as count * row_numel() doubles; valid until the next call.
  const double* read(std::int64_t start, std::int64_t count) {
    RLZOO_CHECK(start >= 0 && count >= 1 && start + count <= rows_, fmt::format("{} rows {} + {}", where_, start, count));
    if (start < block_start_ || start + count > block_start_ + block_count_)
      load(start, std::min(rows_ - start, std::max(count, block_rows_)));
    return block_.data() + (start - block_start_) * row_numel_;
  }
  double value(std::int64_t row) { return *read(row, 1); }

 private:
  void load(std::int64_t start, std::int64_t count) {
    Handle file_space(H5Dget_space(dataset_.get()), H5Sclose);
    std::vector<hsize_t> offset(row_shape_.size() + 1, 0), counts(row_shape_.size() + 1);
    offset[0] = static_cast<hsize_t>(start);
    counts[0] = static_cast<hsize_t>(count);
    for (std::size_t i = 0; i < row_shape_.size(); ++i) counts[i + 1] = static_cast<hsize_t>(row_shape_[i]);
    if (H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, offset.data(), nullptr, counts.data(), nullptr) < 0)
      fail(where_, fmt::format("cannot select rows {}..{}", start, start + count));
    Handle memory_space(H5Screate_simple(static_cast<int>(counts.size()), counts.data(), nullptr), H5Sclose);
    const auto n = static_cast<std::size_t>(count * row_numel_);
    block_.resize(n);
    if (!enum_type_.valid()) {
      if (H5Dread(dataset_.get(), H5T_NATIVE_DOUBLE, memory_space.get(), file_space.get(), H5P_DEFAULT, block_.data()) < 0)
        fail(where_, fmt::format("cannot read rows {}..{}", start, start + count));
    } else {
      raw_.resize(n * enum_size_);
      if (H5Dread(dataset_.get(), enum_type_.get(), memory_space.get(), file_space.get(), H5P_DEFAULT, raw_.data()) < 0)
        fail(where_, fmt::format("cannot read rows {}..{}", start, start + count));
      for (std::size_t i = 0; i < n; ++i) block_[i] = enum_value(raw_.data() + i * enum_size_);
    }
    block_start_ = start;
    block_count_ = count;
  }

  double enum_value(const unsigned char* p) const {
    auto load = [p]<class T>(T) {
      T v;
      std::memcpy(&v, p, sizeof v);
      return static_cast<double>(v);
    };
    switch (enum_size_) {
      case 1: return enum_signed_ ? load(std::int8_t{}) : load(std::uint8_t{});
      case 2: return enum_signed_ ? load(std::int16_t{}) : load(std::uint16_t{});
      case 4: return enum_signed_ ? load(std::int32_t{}) : load(std::uint32_t{});
      default: return enum_signed_ ? load(std::int64_t{}) : load(std::uint64_t{});
    }
  }

  std::string where_;
  Handle dataset_;
  Handle enum_type_;
  std::size_t enum_size_ = 0;
  bool enum_signed_ = false;
  std::int64_t rows_ = 0;
  Shape row_shape_;
  std::int64_t row_numel_ = 1;
  std::int64_t block_rows_ = 1;
  std::int64_t block_start_ = 0, block_count_ = 0;
  std::vector<double> block_;
  std::vector<unsigned char> raw_;
};

// Rows of one value each (rewards, flags): [rows] or [rows, 1].
void require_scalar_rows(const Column& c) {
  if (c.row_numel() != 1)
    fail(c.where(), fmt::format("has rows of shape {}; expected one value per step", shape_to_string(c.row_shape())));
}

void require_rows(const Column& c, std::int64_t rows, const std::string& why) {
  if (c.rows() != rows) fail(c.where(), fmt::format("has {} rows; expected {} ({})", c.rows(), rows, why));
}

bool shapes_fit(const Space& space, const Shape& data) {
  return space.shape() == data || (space.numel() == 1 && shape_numel(data) == 1);
}

// The spaces the data is stored in: the env's, or unbounded float32 Boxes of the row shapes.
std::pair<Space, Space> import_spaces(const std::string& env_id, const Column& observations, const Column& actions) {
  if (env_id.empty())
    return {Space::box(-std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
                       observations.row_shape()),
            Space::box(-std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
                       actions.row_shape())};
  const auto env = make_env(env_id);
  auto check = [&](const Space& space, const Column& c, const char* what) {
    if (space.kind() == SpaceKind::Dict)
      fail(c.where(), fmt::format("{} has a Dict {} space; only flat arrays can be imported", env_id, what));
    if (!shapes_fit(space, c.row_shape()))
      fail(c.where(), fmt::format("has rows of shape {}, but the {} space of {} is {} (shape {})",
                                  shape_to_string(c.row_shape()), what, env_id, space.describe(),
                                  shape_to_string(space.shape())));
  };
  check(env->observation_space(), observations, "observation");
  check(env->action_space(), actions, "action");
  return {env->observation_space(), env->action_space()};
}

// `count` rows of `c` from `start`, converted to elements of `space` and appended to `out`.
void append_elements(const Space& space, Column& c, std::int64_t start, std::int64_t count,
                     std::vector<std::byte>& out) {
  const double* v = c.read(start, count);
  const std::size_t before = out.size();
  out.resize(before + static_cast<std::size_t>(count) * space.byte_size());
  std::byte* dst = out.data() + before;
  const auto numel = static_cast<std::size_t>(space.numel());
  auto bad = [&](std::size_t i, const std::string& why) {
    fail(c.where(), fmt::format("row {}: value {} {}", start + static_cast<std::int64_t>(i / numel), v[i], why));
  };
  auto integral = [&](std::size_t i, double lo, double hi) {
    if (!(v[i] == std::floor(v[i]) && v[i] >= lo && v[i] <= hi))
      bad(i, fmt::format("is not an integer in [{}, {}] ({})", lo, hi, space.describe()));
    return static_cast<std::int64_t>(v[i]);
  };
  auto store = [&dst]<class T>(std::size_t i, T x) { std::memcpy(dst + i * sizeof(T), &x, sizeof(T)); };
  const std::size_t total = static_cast<std::size_t>(count) * numel;
  switch (space.kind()) {
    case SpaceKind::Discrete:
      for (std::size_t i = 0; i < total; ++i)
        store(i, integral(i, static_cast<double>(space.start()), static_cast<double>(space.start() + space.n() - 1)));
      return;
    case SpaceKind::MultiDiscrete:
      for (std::size_t i = 0; i < total; ++i)
        store(i, integral(i, 0, static_cast<double>(space.nvec()[i % numel] - 1)));
      return;
    case SpaceKind::MultiBinary:
      for (std::size_t i = 0; i < total; ++i) store(i, static_cast<std::uint8_t>(integral(i, 0, 1)));
      return;
    case SpaceKind::Box:
      switch (space.dtype()) {
        case DType::Float32:
          for (std::size_t i = 0; i < total; ++i) store(i, static_cast<float>(v[i]));
          return;
        case DType::Float64:
          std::memcpy(dst, v, total * sizeof(double));
          return;
        case DType::UInt8:
          for (std::size_t i = 0; i < total; ++i) store(i, static_cast<std::uint8_t>(integral(i, 0, 255)));
          return;
        case DType::Int32:
          for (std::size_t i = 0; i < total; ++i)
            store(i, static_cast<std::int32_t>(integral(i, std::numeric_limits<std::int32_t>::min(),
                                                        std::numeric_limits<std::int32_t>::max())));
          return;
        case DType::Int64:
          for (std::size_t i = 0; i < total; ++i) store(i, integral(i, -0x1p63, 0x1p63 - 1024));
          return;
      }
      return;
    case SpaceKind::Dict:
      break;
  }
  RLZOO_CHECK(false, "Dict spaces are rejected before the import");
}

void append_rewards(Column& c, std::int64_t start, std::int64_t count, std::vector<float>& out) {
  const double* v = c.read(start, count);
  for (std::int64_t i = 0; i < count; ++i) {
    if (!std::isfinite(v[i])) fail(c.where(), fmt::format("row {}: reward {} is not finite", start + i, v[i]));
    out.push_back(static_cast<float>(v[i]));
  }
}

// A failed import leaves no dataset.json behind (the writer's destructor would write one).
class AbandonOnError {
 public:
  explicit AbandonOnError(DatasetWriter& writer) : writer_(writer) {}
  ~AbandonOnError() {
    if (std::uncaught_exceptions() > uncaught_) writer_.abandon();
  }
  AbandonOnError(const AbandonOnError&) = delete;
  AbandonOnError& operator=(const AbandonOnError&) = delete;

 private:
  DatasetWriter& writer_;
  int uncaught_ = std::uncaught_exceptions();
};

nlohmann::json import_source(const fs::path& file, const char* layout, const ImportOptions& o) {
  nlohmann::json source = o.source.is_object() ? o.source : nlohmann::json::object();
  std::error_code ec;
  const fs::path absolute = fs::absolute(file, ec);
  source["imported_from"] = (ec ? file : absolute).string();
  source["layout"] = layout;
  source["created"] = checkpoint::utc_timestamp();
  return source;
}

DatasetInfo import_d4rl(hid_t root, const fs::path& file, const fs::path& out, const ImportOptions& o) {
  auto where = [&](const char* name) { return fmt::format("{}: dataset '{}'", file.string(), name); };
  Column observations(root, "observations", where("observations"));
  Column actions(root, "actions", where("actions"));
  Column rewards(root, "rewards", where("rewards"));
  Column terminals(root, "terminals", where("terminals"));
  std::optional<Column> timeouts, next_observations;
  if (has_member(root, "timeouts")) timeouts.emplace(root, "timeouts", where("timeouts"));
  if (has_member(root, "next_observations")) next_observations.emplace(root, "next_observations", where("next_observations"));

  const std::int64_t n = observations.rows();
  const std::string why = fmt::format("one per row of 'observations'");
  for (Column* c : {&actions, &rewards, &terminals}) require_rows(*c, n, why);
  for (Column* c : {&rewards, &terminals}) require_scalar_rows(*c);
  if (timeouts) require_rows(*timeouts, n, why), require_scalar_rows(*timeouts);
  if (next_observations) {
    require_rows(*next_observations, n, why);
    if (next_observations->row_shape() != observations.row_shape())
      fail(next_observations->where(), fmt::format("has rows of shape {}, 'observations' {}",
                                                   shape_to_string(next_observations->row_shape()),
                                                   shape_to_string(observations.row_shape())));
  }
  if (n == 0) fail(observations.where(), "has no rows");

  auto [obs_space, act_space] = import_spaces(o.env_id, observations, actions);
  nlohmann::json source = import_source(file, "d4rl", o);
  source["rows"] = n;
  DatasetWriter writer(out, o.env_id, obs_space, act_space, std::move(source), o.writer);
  AbandonOnError guard(writer);
  std::int64_t start = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const bool terminal = terminals.value(i) != 0;
    const bool timeout = timeouts && timeouts->value(i) != 0;
    const bool last = i == n - 1;
    if (!terminal && !timeout && !last) continue;
    EpisodeData e;
    const std::int64_t count = i + 1 - start;
    append_elements(obs_space, observations, start, count, e.observations);
    append_elements(act_space, actions, start, count, e.actions);
    append_rewards(rewards, start, count, e.rewards);
    e.terminated = terminal;
    e.truncated = timeout || (!terminal && last);  // the data ends mid-episode: cut, as a time limit cuts
    if (next_observations) append_elements(obs_space, *next_observations, i, 1, e.final_observation);
    writer.add(e);
    start = i + 1;
  }
  writer.close();
  return writer.info();
}

// "episode_12" -> 12; nullopt for other names.
std::optional<std::int64_t> episode_number(const std::string& name) {
  constexpr std::string_view prefix = "episode_";
  if (name.rfind(prefix, 0) != 0 || name.size() == prefix.size()) return std::nullopt;
  std::int64_t k = 0;
  for (std::size_t i = prefix.size(); i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9' || k > (std::numeric_limits<std::int64_t>::max() - 9) / 10) return std::nullopt;
    k = k * 10 + (name[i] - '0');
  }
  return k;
}

DatasetInfo import_minari(hid_t root, const std::vector<std::pair<std::int64_t, std::string>>& episodes,
                          const fs::path& file, const fs::path& out, const ImportOptions& o) {
  std::optional<DatasetWriter> writer;
  std::optional<AbandonOnError> guard;
  Shape obs_shape, act_shape;
  for (const auto& [k, name] : episodes) {
    const std::string group_where = fmt::format("{}: group '{}'", file.string(), name);
    if (!is_group(root, name)) fail(group_where, "is not a group");
    Handle group(H5Gopen2(root, name.c_str(), H5P_DEFAULT), H5Gclose);
    if (!group.valid()) fail(group_where, "cannot be opened");
    auto where = [&](const char* member) { return fmt::format("{}: dataset '{}/{}'", file.string(), name, member); };
    Column observations(group.get(), "observations", where("observations"));
    Column actions(group.get(), "actions", where("actions"));
    Column rewards(group.get(), "rewards", where("rewards"));
    Column terminations(group.get(), "terminations", where("terminations"));
    Column truncations(group.get(), "truncations", where("truncations"));
    const std::int64_t t = actions.rows();
    if (t == 0) fail(actions.where(), "has no rows; an episode needs at least one step");
    require_rows(observations, t + 1, "one per step plus the final observation");
    for (Column* c : {&rewards, &terminations, &truncations}) require_rows(*c, t, "one per row of 'actions'"), require_scalar_rows(*c);
    if (!writer) {
      obs_shape = observations.row_shape();
      act_shape = actions.row_shape();
      auto [obs_space, act_space] = import_spaces(o.env_id, observations, actions);
      nlohmann::json source = import_source(file, "minari", o);
      writer.emplace(out, o.env_id, obs_space, act_space, std::move(source), o.writer);
      guard.emplace(*writer);
    } else if (observations.row_shape() != obs_shape || actions.row_shape() != act_shape) {
      fail(group_where, fmt::format("has observations of shape {} and actions of shape {}, the first episode {} and {}",
                                    shape_to_string(observations.row_shape()), shape_to_string(actions.row_shape()),
                                    shape_to_string(obs_shape), shape_to_string(act_shape)));
    }
    const Space& obs_space = writer->info().observation_space;
    EpisodeData e;
    append_elements(obs_space, observations, 0, t, e.observations);
    append_elements(obs_space, observations, t, 1, e.final_observation);
    append_elements(writer->info().action_space, actions, 0, t, e.actions);
    append_rewards(rewards, 0, t, e.rewards);
    e.terminated = terminations.value(t - 1) != 0;
    e.truncated = truncations.value(t - 1) != 0;
    writer->add(e);
  }
  writer->close();
  return writer->info();
}

}  // namespace

DatasetInfo import_hdf5(const fs::path& file, const fs::path& out_dir, const ImportOptions& options) {
  QuietHdf5Errors quiet;
  if (!fs::exists(file)) throw UserError(fmt::format("{}: no such file", file.string()));
  if (H5Fis_hdf5(file.c_str()) <= 0) throw UserError(fmt::format("{}: not an HDF5 file", file.string()));
  Handle h5(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!h5.valid()) throw UserError(fmt::format("{}: cannot be opened as an HDF5 file", file.string()));
  const hid_t root = h5.get();
  if (has_member(root, "observations")) return import_d4rl(root, file, out_dir, options);

  const std::vector<std::string> names = member_names(root, file.string());
  std::vector<std::pair<std::int64_t, std::string>> episodes;
  for (const auto& name : names)
    if (auto k = episode_number(name)) episodes.emplace_back(*k, name);
  if (episodes.empty()) {
    std::vector<std::string> shown(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(names.size(), 8)));
    if (names.size() > shown.size()) shown.push_back("...");
    throw UserError(fmt::format(
        "{}: neither D4RL's layout (root datasets observations, actions, rewards, terminals) nor Minari's (groups "
        "episode_<k>); the root holds: {}",
        file.string(), names.empty() ? "nothing" : join(shown)));
  }
  std::sort(episodes.begin(), episodes.end());
  return import_minari(root, episodes, file, out_dir, options);
}

#endif  // RLZOO_WITH_HDF5

}  // namespace rlzoo::data
