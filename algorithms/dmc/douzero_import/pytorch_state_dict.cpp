#include "algorithms/dmc/douzero_import/pytorch_state_dict.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <string_view>

#include <fmt/format.h>

#include "algorithms/dmc/douzero_import/torch_pickle.h"
#include "core/common/error.h"
#include "algorithms/dmc/douzero_import/zip_reader.h"

namespace rlzoo {

static_assert(std::endian::native == std::endian::little, "storages are little-endian and read in place");

namespace {

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t{h & 0x8000u} << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  if (exp == 0) {  // zero or subnormal
    const float f = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -f : f;
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));  // inf, nan
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

template <class T>
T load(const std::byte* p) {
  T x;
  std::memcpy(&x, p, sizeof x);
  return x;
}
template <class T>
float load_as_float(const std::byte* p) {
  return static_cast<float>(load<T>(p));
}
float load_half(const std::byte* p) { return half_to_float(load<std::uint16_t>(p)); }
float load_bfloat16(const std::byte* p) { return std::bit_cast<float>(std::uint32_t{load<std::uint16_t>(p)} << 16); }
float load_bool(const std::byte* p) { return *p != std::byte{0} ? 1.0f : 0.0f; }

using Loader = float (*)(const std::byte*);
Loader loader_for(std::string_view dtype) {
  if (dtype == "float32") return load_as_float<float>;
  if (dtype == "float64") return load_as_float<double>;
  if (dtype == "float16") return load_half;
  if (dtype == "bfloat16") return load_bfloat16;
  if (dtype == "int64") return load_as_float<std::int64_t>;
  if (dtype == "int32") return load_as_float<std::int32_t>;
  if (dtype == "int16") return load_as_float<std::int16_t>;
  if (dtype == "int8") return load_as_float<std::int8_t>;
  if (dtype == "uint8") return load_as_float<std::uint8_t>;
  if (dtype == "bool") return load_bool;
  return nullptr;
}

ZipReader open_checkpoint(const std::string& path) {
  try {
    return ZipReader(path);
  } catch (const UserError& e) {
    // torch.save's legacy format is a bare pickle stream: it starts with PROTO (0x80).
    char first = 0;
    std::ifstream(path, std::ios::binary).read(&first, 1);
    if (static_cast<unsigned char>(first) != 0x80) throw;
    throw UserError(fmt::format("{}; it looks like torch.save's legacy format (torch < 1.6, or "
                                "_use_new_zipfile_serialization=False), which is not supported: load it with torch "
                                "and save it again with a newer version",
                                e.what()));
  }
}

}  // namespace

std::int64_t PickledTensor::numel() const { return torch_pickle::checked_numel(shape); }

std::vector<float> PickledTensor::to_floats() const {
  const Loader load = loader_for(dtype);
  if (load == nullptr) throw UserError(fmt::format("tensor '{}': cannot convert dtype '{}' to float", name, dtype));
  const std::int64_t element_size = torch_pickle::element_size(dtype);
  const std::int64_t n = numel(), extent = torch_pickle::view_extent(*this);
  RLZOO_CHECK(storage != nullptr && n >= 0 && extent >= 0 &&
                  extent * element_size <= static_cast<std::int64_t>(storage->size()),
              fmt::format("tensor '{}' does not fit its storage", name));
  std::vector<float> out(static_cast<std::size_t>(n));
  if (n == 0) return out;
  const std::byte* base = storage->data();
  // Walk the multi-index in row-major order, moving the storage offset by the strides.
  std::vector<std::int64_t> index(shape.size(), 0);
  std::int64_t offset = storage_offset;
  for (std::int64_t i = 0; i < n; ++i) {
    out[static_cast<std::size_t>(i)] = load(base + offset * element_size);
    for (std::size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) {
        offset += strides[d];
        break;
      }
      offset -= (shape[d] - 1) * strides[d];
      index[d] = 0;
    }
  }
  return out;
}

std::vector<PickledTensor> read_pytorch_state_dict(const std::string& path) {
  const ZipReader zip = open_checkpoint(path);
  // Entries live under a folder named after the file torch.save wrote ("landlord/data.pkl").
  const ZipReader::Entry* pkl = nullptr;
  for (const auto& e : zip.entries()) {
    if (e.name == "data.pkl" || e.name.ends_with("/data.pkl")) {
      pkl = &e;
      break;
    }
  }
  if (pkl == nullptr)
    throw UserError(fmt::format("{}: no */data.pkl in the zip archive, so it is not a torch.save checkpoint", path));
  const std::string prefix = pkl->name.substr(0, pkl->name.size() - std::string_view("data.pkl").size());
  if (const auto* order = zip.find(prefix + "byteorder")) {  // written by torch >= 2.1
    const auto bytes = zip.read(*order);
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    if (text != "little")
      throw UserError(fmt::format("{}: storages are in '{}' byte order; only little-endian is supported", path, text));
  }

  auto entries = torch_pickle::unpickle_state_dict(zip.read(*pkl), path, pkl->name);
  std::map<std::string, std::shared_ptr<const std::vector<std::byte>>> storages;  // by key: views share them
  std::vector<PickledTensor> out;
  out.reserve(entries.size());
  for (auto& [t, storage_numel] : entries) {
    auto& storage = storages[t.storage_key];
    const std::string entry = prefix + "data/" + t.storage_key;
    if (storage == nullptr) {
      const ZipReader::Entry* e = zip.find(entry);
      if (e == nullptr)
        throw UserError(fmt::format("{}: missing storage entry '{}' (for tensor '{}')", path, entry, t.name));
      storage = std::make_shared<const std::vector<std::byte>>(zip.read(*e));
    }
    const std::int64_t expected = storage_numel * torch_pickle::element_size(t.dtype);
    if (static_cast<std::int64_t>(storage->size()) != expected)
      throw UserError(fmt::format("{}: storage entry '{}' has {} bytes, but tensor '{}' declares {} {} elements ({} "
                                  "bytes)",
                                  path, entry, storage->size(), t.name, storage_numel, t.dtype, expected));
    t.storage = storage;
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace rlzoo
