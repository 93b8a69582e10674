#include "algorithms/dmc/douzero_import/torch_pickle.h"

#include <bit>
#include <memory>
#include <unordered_map>
#include <utility>
#include <variant>

#include <fmt/format.h>

#include "core/common/error.h"

namespace rlzoo::torch_pickle {

namespace {

// torch.<X>Storage classes a state dict may name, and what their elements are.
struct StorageType {
  std::string_view storage_class, dtype;
  std::int64_t element_size;
};
constexpr StorageType kStorageTypes[] = {
    {"FloatStorage", "float32", 4}, {"DoubleStorage", "float64", 8}, {"HalfStorage", "float16", 2},
    {"BFloat16Storage", "bfloat16", 2}, {"LongStorage", "int64", 8},  {"IntStorage", "int32", 4},
    {"ShortStorage", "int16", 2},   {"CharStorage", "int8", 1},      {"ByteStorage", "uint8", 1},
    {"BoolStorage", "bool", 1},
};

const StorageType* storage_type(std::string_view storage_class) {
  for (const auto& t : kStorageTypes)
    if (t.storage_class == storage_class) return &t;
  return nullptr;
}

// The opcodes we interpret, named as in CPython's Lib/pickle.py.
enum class Op : std::uint8_t {
  kMark = '(', kStop = '.', kPop = '0', kPopMark = '1', kBinFloat = 'G', kBinInt = 'J', kBinInt1 = 'K',
  kBinInt2 = 'M', kNone = 'N', kBinPersId = 'Q', kReduce = 'R', kBinUnicode = 'X', kEmptyList = ']',
  kAppend = 'a', kBuild = 'b', kGlobal = 'c', kAppends = 'e', kBinGet = 'h', kLongBinGet = 'j', kBinPut = 'q',
  kLongBinPut = 'r', kSetItem = 's', kTuple = 't', kSetItems = 'u', kEmptyDict = '}', kEmptyTuple = ')',
  kProto = 0x80, kTuple1 = 0x85, kTuple2 = 0x86, kTuple3 = 0x87, kNewTrue = 0x88, kNewFalse = 0x89,
  kLong1 = 0x8a, kShortBinUnicode = 0x8c, kBinUnicode8 = 0x8d, kStackGlobal = 0x93, kMemoize = 0x94,
  kFrame = 0x95,
};

struct Value;
using Ref = std::shared_ptr<Value>;  // shared: the memo and containers hold the same objects

struct None {};
struct Global {
  std::string module, name;
};
struct Sequence {  // a tuple or a list
  bool is_list = false;
  std::vector<Ref> items;
};
struct Dict {  // dict or collections.OrderedDict, in insertion order
  std::vector<std::pair<Ref, Ref>> items;
};
struct StorageRef {
  const StorageType* type = nullptr;
  std::string key, location;
  std::int64_t numel = 0;
};
struct Value {
  std::variant<None, bool, std::int64_t, double, std::string, Global, Sequence, Dict, StorageRef, StateDictEntry> v;
};

// "an int", "a list", ... for messages.
std::string_view kind_of(const Value& value) {
  constexpr std::string_view kNames[] = {"None",     "a bool",  "an int", "a float",   "a str",
                                         "a global", "a tuple", "a dict", "a storage", "a tensor"};
  if (const auto* s = std::get_if<Sequence>(&value.v); s && s->is_list) return "a list";
  return kNames[value.v.index()];
}

template <class T>
Ref make(T x) {
  return std::make_shared<Value>(Value{std::move(x)});
}

class Unpickler {
 public:
  Unpickler(std::span<const std::byte> data, const std::string& path, const std::string& entry)
      : data_(data), path_(path), entry_(entry) {}

  // Runs to STOP and returns the pickled object.
  Ref run() {
    for (;;) {
      op_pos_ = pos_;
      const auto op = static_cast<std::uint8_t>(read_uint(1));
      switch (static_cast<Op>(op)) {
        case Op::kProto: read_uint(1); break;
        case Op::kFrame: read_uint(8); break;  // only a read-ahead hint
        case Op::kStop: return pop();
        case Op::kGlobal: {  // "module\nname\n"
          std::string module = read_line();
          push_global(std::move(module), read_line());
          break;
        }
        case Op::kStackGlobal: {
          std::string name = as<std::string>(pop(), "STACK_GLOBAL's name");
          push_global(as<std::string>(pop(), "STACK_GLOBAL's module"), std::move(name));
          break;
        }
        case Op::kBinPut: memo_[read_uint(1)] = top(); break;
        case Op::kLongBinPut: memo_[read_uint(4)] = top(); break;
        case Op::kMemoize: memo_[memo_.size()] = top(); break;
        case Op::kBinGet: stack_.push_back(memo_get(read_uint(1))); break;
        case Op::kLongBinGet: stack_.push_back(memo_get(read_uint(4))); break;
        case Op::kMark: marks_.push_back(stack_.size()); break;
        case Op::kPop: pop(); break;
        case Op::kPopMark: pop_mark(); break;
        case Op::kEmptyTuple: stack_.push_back(make(Sequence{})); break;
        case Op::kTuple: stack_.push_back(make(Sequence{false, pop_mark()})); break;
        case Op::kTuple1: push_tuple(1); break;
        case Op::kTuple2: push_tuple(2); break;
        case Op::kTuple3: push_tuple(3); break;
        case Op::kEmptyList: stack_.push_back(make(Sequence{true, {}})); break;
        case Op::kEmptyDict: stack_.push_back(make(Dict{})); break;
        case Op::kAppend: {
          Ref item = pop();
          list_at_top().push_back(std::move(item));
          break;
        }
        case Op::kAppends: {
          std::vector<Ref> items = pop_mark();
          auto& list = list_at_top();
          list.insert(list.end(), items.begin(), items.end());
          break;
        }
        case Op::kSetItem: {
          Ref value = pop();
          Ref key = pop();
          dict_at_top().emplace_back(std::move(key), std::move(value));
          break;
        }
        case Op::kSetItems: {
          std::vector<Ref> kv = pop_mark();
          if (kv.size() % 2 != 0) fail("SETITEMS with an odd number of items");
          auto& dict = dict_at_top();
          for (std::size_t i = 0; i < kv.size(); i += 2) dict.emplace_back(kv[i], kv[i + 1]);
          break;
        }
        case Op::kShortBinUnicode: push(read_string(read_uint(1))); break;
        case Op::kBinUnicode: push(read_string(read_uint(4))); break;
        case Op::kBinUnicode8: push(read_string(read_uint(8))); break;
        case Op::kBinInt: push(std::int64_t{static_cast<std::int32_t>(read_uint(4))}); break;
        case Op::kBinInt1: push(static_cast<std::int64_t>(read_uint(1))); break;
        case Op::kBinInt2: push(static_cast<std::int64_t>(read_uint(2))); break;
        case Op::kLong1: {  // n-byte little-endian two's complement
          const std::size_t n = read_uint(1);
          if (n > 8) fail(fmt::format("LONG1 of {} bytes does not fit 64 bits", n));
          std::uint64_t v = n == 0 ? 0 : read_uint(n);
          if (n > 0 && n < 8 && (v >> (8 * n - 1)) & 1) v |= ~std::uint64_t{0} << (8 * n);
          push(static_cast<std::int64_t>(v));
          break;
        }
        case Op::kNewTrue: push(true); break;
        case Op::kNewFalse: push(false); break;
        case Op::kNone: push(None{}); break;
        case Op::kBinFloat: {  // big-endian
          std::uint64_t bits = 0;
          for (int i = 0; i < 8; ++i) bits = (bits << 8) | read_uint(1);
          push(std::bit_cast<double>(bits));
          break;
        }
        case Op::kBinPersId: stack_.push_back(persistent_load(pop())); break;
        case Op::kReduce: {
          Ref args = pop();
          Ref callable = pop();
          stack_.push_back(reduce(as<Global>(callable, "REDUCE's callable"), as<Sequence>(args, "REDUCE's arguments")));
          break;
        }
        case Op::kBuild:  // only the `_metadata` attribute of a state dict, which we ignore
          pop();
          if (!std::holds_alternative<Dict>(top()->v)) fail(fmt::format("BUILD on {}", kind_of(*top())));
          break;
        default: {
          const bool printable = op >= 0x20 && op < 0x7f;
          fail(fmt::format("unsupported pickle opcode 0x{:02x}{}", op,
                           printable ? fmt::format(" ('{}')", static_cast<char>(op)) : ""));
        }
      }
    }
  }

 private:
  [[noreturn]] void fail(std::string_view what) const {
    throw UserError(fmt::format("{}: {} at offset {} of {}", path_, what, op_pos_, entry_));
  }

  std::uint64_t read_uint(std::size_t n) {
    if (data_.size() - pos_ < n)
      fail(fmt::format("truncated pickle: needs {} more bytes, {} left", n, data_.size() - pos_));
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < n; ++i) v |= std::uint64_t{static_cast<std::uint8_t>(data_[pos_ + i])} << (8 * i);
    pos_ += n;
    return v;
  }
  std::string read_string(std::uint64_t n) {
    if (data_.size() - pos_ < n)
      fail(fmt::format("truncated pickle: a {}-byte string, {} bytes left", n, data_.size() - pos_));
    std::string s(reinterpret_cast<const char*>(data_.data() + pos_), static_cast<std::size_t>(n));
    pos_ += static_cast<std::size_t>(n);
    return s;
  }
  std::string read_line() {
    std::size_t end = pos_;
    while (end < data_.size() && data_[end] != std::byte{'\n'}) ++end;
    if (end == data_.size()) fail("truncated pickle: GLOBAL without a newline");
    std::string s = read_string(end - pos_);
    ++pos_;
    return s;
  }

  template <class T>
  void push(T x) {
    stack_.push_back(make(std::move(x)));
  }
  Ref pop() {
    if (stack_.empty() || (!marks_.empty() && marks_.back() == stack_.size()))
      fail("malformed pickle: stack underflow");
    Ref r = std::move(stack_.back());
    stack_.pop_back();
    return r;
  }
  const Ref& top() {
    if (stack_.empty()) fail("malformed pickle: stack underflow");
    return stack_.back();
  }
  std::vector<Ref> pop_mark() {
    if (marks_.empty()) fail("malformed pickle: no MARK");
    std::vector<Ref> items(stack_.begin() + static_cast<std::ptrdiff_t>(marks_.back()), stack_.end());
    stack_.resize(marks_.back());
    marks_.pop_back();
    return items;
  }
  void push_tuple(std::size_t n) {
    if (stack_.size() < n + (marks_.empty() ? 0 : marks_.back())) fail("malformed pickle: stack underflow");
    Sequence t;
    t.items.assign(stack_.end() - static_cast<std::ptrdiff_t>(n), stack_.end());
    stack_.resize(stack_.size() - n);
    push(std::move(t));
  }
  Ref memo_get(std::uint64_t i) {
    const auto it = memo_.find(i);
    if (it == memo_.end()) fail(fmt::format("malformed pickle: memo entry {} was never stored", i));
    return it->second;
  }

  template <class T>
  const T& as(const Ref& r, std::string_view what) {
    if (const T* x = std::get_if<T>(&r->v)) return *x;
    fail(fmt::format("{} is {}, which a state dict does not use there", what, kind_of(*r)));
  }
  std::vector<std::int64_t> as_ints(const Ref& r, std::string_view what) {
    std::vector<std::int64_t> out;
    for (const Ref& item : as<Sequence>(r, what).items) out.push_back(as<std::int64_t>(item, what));
    return out;
  }
  std::vector<Ref>& list_at_top() {
    auto* s = std::get_if<Sequence>(&top()->v);
    if (s == nullptr || !s->is_list) fail(fmt::format("APPEND to {}", kind_of(*top())));
    return s->items;
  }
  std::vector<std::pair<Ref, Ref>>& dict_at_top() {
    auto* d = std::get_if<Dict>(&top()->v);
    if (d == nullptr) fail(fmt::format("SETITEM on {}", kind_of(*top())));
    return d->items;
  }

  void push_global(std::string module, std::string name) {
    const bool known = (module == "collections" && name == "OrderedDict") ||
                       (module == "torch._utils" && (name == "_rebuild_tensor_v2" || name == "_rebuild_tensor" ||
                                                     name == "_rebuild_parameter")) ||
                       (module == "torch" && storage_type(name) != nullptr);
    if (!known) {
      const bool torchscript = module.starts_with("__torch__");
      fail(fmt::format("unsupported global '{}.{}' (a state dict holds only tensors{})", module, name,
                       torchscript ? "; this looks like a TorchScript archive: save model.state_dict() instead" : ""));
    }
    push(Global{std::move(module), std::move(name)});
  }

  // ('storage', torch.<X>Storage, key, location, numel)
  Ref persistent_load(const Ref& pid) {
    const auto& f = as<Sequence>(pid, "the persistent id").items;
    if (f.size() != 5 || as<std::string>(f[0], "the persistent id's tag") != "storage")
      fail("persistent id is not ('storage', type, key, location, numel)");
    const Global& type = as<Global>(f[1], "the storage type");
    StorageRef s;
    s.type = storage_type(type.name);
    if (type.module != "torch" || s.type == nullptr)
      fail(fmt::format("unsupported storage type '{}.{}'", type.module, type.name));
    s.key = as<std::string>(f[2], "the storage key");
    s.location = as<std::string>(f[3], "the storage location");
    s.numel = as<std::int64_t>(f[4], "the storage size");
    if (s.numel < 0) fail("negative storage size");
    return make(std::move(s));
  }

  Ref reduce(const Global& callable, const Sequence& args) {
    const auto& a = args.items;
    const std::string name = callable.module + "." + callable.name;
    if (name == "collections.OrderedDict") {
      if (!a.empty()) fail("OrderedDict with constructor arguments is not supported");
      return make(Dict{});
    }
    if (name == "torch._utils._rebuild_parameter") {  // (data, requires_grad, backward_hooks)
      if (a.empty() || !std::holds_alternative<StateDictEntry>(a[0]->v)) fail("_rebuild_parameter without a tensor");
      return a[0];
    }
    if (name != "torch._utils._rebuild_tensor_v2" && name != "torch._utils._rebuild_tensor")
      fail(fmt::format("cannot call '{}'", name));
    // (storage, storage_offset, size, stride[, requires_grad, backward_hooks[, metadata]])
    if (a.size() < 4) fail(fmt::format("{} with {} arguments, expected at least 4", name, a.size()));
    const StorageRef& s = as<StorageRef>(a[0], "the tensor's storage");
    StateDictEntry e;
    PickledTensor& t = e.tensor;
    t.dtype = std::string(s.type->dtype);
    t.storage_key = s.key;
    t.location = s.location;
    t.storage_offset = as<std::int64_t>(a[1], "the storage offset");
    t.shape = as_ints(a[2], "the tensor's size");
    t.strides = as_ints(a[3], "the tensor's stride");
    e.storage_numel = s.numel;
    const std::int64_t extent = view_extent(t);
    if (extent < 0 || checked_numel(t.shape) < 0)
      fail("malformed tensor view (negative or mismatched sizes, strides or offset)");
    if (extent > s.numel)
      fail(fmt::format("tensor view needs {} elements of storage '{}', which has {}", extent, s.key, s.numel));
    return make(std::move(e));
  }

  std::span<const std::byte> data_;
  const std::string& path_;
  const std::string& entry_;
  std::size_t pos_ = 0, op_pos_ = 0;  // op_pos_: where the current opcode starts
  std::vector<Ref> stack_;
  std::vector<std::size_t> marks_;  // stack sizes at each MARK
  std::unordered_map<std::uint64_t, Ref> memo_;
};

}  // namespace

std::int64_t element_size(std::string_view dtype) {
  for (const auto& t : kStorageTypes)
    if (t.dtype == dtype) return t.element_size;
  return 0;
}

std::int64_t checked_numel(std::span<const std::int64_t> shape) {
  std::int64_t n = 1;
  for (const std::int64_t d : shape)
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return -1;
  return n;
}

std::int64_t view_extent(const PickledTensor& t) {
  if (t.shape.size() != t.strides.size() || t.storage_offset < 0) return -1;
  std::int64_t last = t.storage_offset;
  for (std::size_t d = 0; d < t.shape.size(); ++d) {
    if (t.shape[d] < 0 || t.strides[d] < 0) return -1;
    if (t.shape[d] == 0) return 0;
    std::int64_t step = 0;
    if (__builtin_mul_overflow(t.shape[d] - 1, t.strides[d], &step) || __builtin_add_overflow(last, step, &last))
      return -1;
  }
  return last + 1;
}

std::vector<StateDictEntry> unpickle_state_dict(std::span<const std::byte> pickle, const std::string& path,
                                                const std::string& entry) {
  const Ref root = Unpickler(pickle, path, entry).run();
  const auto* dict = std::get_if<Dict>(&root->v);
  if (dict == nullptr)
    throw UserError(fmt::format("{}: {} holds {}, not a state dict (a dict of tensors)", path, entry, kind_of(*root)));
  std::vector<StateDictEntry> out;
  out.reserve(dict->items.size());
  for (const auto& [key, value] : dict->items) {
    const auto* name = std::get_if<std::string>(&key->v);
    if (name == nullptr) throw UserError(fmt::format("{}: a state-dict key is {}, not a str", path, kind_of(*key)));
    const auto* tensor = std::get_if<StateDictEntry>(&value->v);
    if (tensor == nullptr)
      throw UserError(fmt::format("{}: state-dict entry '{}' is {}, not a tensor", path, *name, kind_of(*value)));
    out.push_back(*tensor);
    out.back().tensor.name = *name;
  }
  return out;
}

}  // namespace rlzoo::torch_pickle
