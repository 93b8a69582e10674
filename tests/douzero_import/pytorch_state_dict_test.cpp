// read_pytorch_state_dict: DouZero's real checkpoints (shared data), hand-built checkpoints that
// exercise views, shared storages, dtypes and protocol 4 opcodes, and bad input that must be a
// UserError naming the file and the problem.
#include "algorithms/dmc/douzero_import/pytorch_state_dict.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "tests/douzero_import/zip_builder.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

using test::error_of;
using test::le;
using test::ZipBuilder;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
namespace pk = test::pickle;

std::string write_temp(const std::string& bytes, const std::string& name = "model.ckpt") {
  const std::string path = test::make_temp_dir("rlzoo-ptsd") + "/" + name;
  test::write_file(path, bytes);
  return path;
}

// A checkpoint laid out as torch.save writes one: <prefix>/data.pkl, <prefix>/data/<key>, version.
std::string checkpoint(const std::string& pickle, const std::vector<std::pair<std::string, std::string>>& storages,
                       const std::string& prefix = "ckpt/") {
  ZipBuilder zip;
  zip.add(prefix + "data.pkl", pickle);
  for (const auto& [key, bytes] : storages) zip.add(prefix + "data/" + key, bytes);
  zip.add(prefix + "version", "3\n");
  return zip.build({.zip64 = true});
}

// ---- DouZero's checkpoints ----

struct DouZeroFile {
  const char* name;
  std::int64_t dense1_in, parameters;
  // Spot values read with python3's zipfile + struct (not with this reader): storage 0 at
  // elements 0 and 511*162+161, dense1.weight[3][7], dense6.bias[0], then float64 sums of
  // dense6.weight and lstm.weight_ih_l0 in element order.
  float ih_first, ih_last, dense1_3_7, dense6_bias;
  double dense6_sum, ih_sum;
};

constexpr DouZeroFile kDouZeroFiles[] = {
    {"landlord", 501, 1457665, -0.5912610292434692f, 0.24971450865268707f, 0.022911502048373222f, -0.04101889207959175f,
     1.209941626584623, 120.88561851514442},
    {"landlord_up", 612, 1514497, -0.2877415120601654f, 0.6209114193916321f, 0.039326056838035583f,
     -0.0023886514827609062f, 0.019444028155703563, -0.9606368211898371},
    {"landlord_down", 612, 1514497, 0.03635856881737709f, 0.2619679570198059f, -0.04924982041120529f,
     0.02668052539229393f, -0.0041664557793410495, 165.7056756596296},
};

TEST(PytorchStateDictTest, ReadsDouZeroCheckpoints) {
  const auto shared = test::shared_dir();
  if (!shared) GTEST_SKIP() << "../shared is absent: DouZero's checkpoints are not available";
  for (const auto& f : kDouZeroFiles) {
    SCOPED_TRACE(f.name);
    const auto tensors = read_pytorch_state_dict(*shared + "/data/douzero/q_sample/" + f.name + ".ckpt");
    std::vector<std::string> names;
    std::vector<std::vector<std::int64_t>> shapes;
    std::int64_t parameters = 0;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
      const auto& t = tensors[i];
      names.push_back(t.name);
      shapes.push_back(t.shape);
      parameters += t.numel();
      EXPECT_EQ(t.dtype, "float32");
      EXPECT_EQ(t.location, "cpu");
      EXPECT_EQ(t.storage_key, std::to_string(i));
      EXPECT_EQ(t.storage_offset, 0);
      const std::vector<std::int64_t> row_major =
          t.shape.size() == 2 ? std::vector<std::int64_t>{t.shape[1], 1} : std::vector<std::int64_t>{1};
      EXPECT_EQ(t.strides, row_major);
      EXPECT_EQ(static_cast<std::int64_t>(t.storage->size()), t.numel() * 4);
    }
    EXPECT_THAT(names, ElementsAre("lstm.weight_ih_l0", "lstm.weight_hh_l0", "lstm.bias_ih_l0", "lstm.bias_hh_l0",
                                   "dense1.weight", "dense1.bias", "dense2.weight", "dense2.bias", "dense3.weight",
                                   "dense3.bias", "dense4.weight", "dense4.bias", "dense5.weight", "dense5.bias",
                                   "dense6.weight", "dense6.bias"));
    using S = std::vector<std::int64_t>;
    EXPECT_THAT(shapes,
                ElementsAre(S{512, 162}, S{512, 128}, S{512}, S{512}, S{512, f.dense1_in}, S{512}, S{512, 512}, S{512},
                            S{512, 512}, S{512}, S{512, 512}, S{512}, S{512, 512}, S{512}, S{1, 512}, S{1}));
    EXPECT_EQ(parameters, f.parameters);
    if (tensors.size() != 16) continue;

    const auto ih = tensors[0].to_floats();
    ASSERT_EQ(ih.size(), 512u * 162u);
    EXPECT_EQ(ih[0], f.ih_first);
    EXPECT_EQ(ih[511 * 162 + 161], f.ih_last);
    EXPECT_NEAR(std::accumulate(ih.begin(), ih.end(), 0.0), f.ih_sum, 1e-9);
    EXPECT_EQ(tensors[4].to_floats()[3 * f.dense1_in + 7], f.dense1_3_7);
    EXPECT_THAT(tensors[15].to_floats(), ElementsAre(f.dense6_bias));
    const auto w6 = tensors[14].to_floats();
    EXPECT_NEAR(std::accumulate(w6.begin(), w6.end(), 0.0), f.dense6_sum, 1e-12);
  }
}

// ---- Hand-built checkpoints ----

template <class T>
std::string raw_bytes(std::initializer_list<T> values) {
  std::string s;
  for (const T v : values) s.append(reinterpret_cast<const char*>(&v), sizeof v);
  return s;
}

// A 2x3 transposed view (strides (1,2), offset 1) and a flat view of one 7-float storage on
// "cuda:0", the storage memoized as cuDNN-flattened LSTM checkpoints do; then one tensor of each
// other kind: float64, a 0-d int64 whose offset is a LONG1, float16 with a subnormal, and empty.
std::string views_checkpoint() {
  const std::string pickle = pk::state_dict({
      {"view",
       pk::tensor(pk::storage("FloatStorage", "0", "cuda:0", 7) + "q\x40", 1, pk::ints({2, 3}), pk::ints({1, 2}))},
      {"flat", pk::tensor("h\x40", 0, pk::ints({7}), pk::ints({1}))},
      {"double", pk::tensor(pk::storage("DoubleStorage", "1", "cpu", 2), 0, pk::ints({2}), pk::ints({1}))},
      {"long", pk::tensor_at(pk::storage("LongStorage", "2", "cpu", 1), std::string("\x8a\x01\x00", 3), ")", ")")},
      {"half", pk::tensor(pk::storage("HalfStorage", "3", "cpu", 4), 0, pk::ints({2, 2}), pk::ints({2, 1}))},
      {"empty", pk::tensor(pk::storage("FloatStorage", "4", "cpu", 0), 0, pk::ints({0, 3}), pk::ints({3, 1}))},
  });
  return checkpoint(pickle, {{"0", raw_bytes<float>({10, 11, 12, 13, 14, 15, 16})},
                             {"1", raw_bytes<double>({1.5, -2.25})},
                             {"2", raw_bytes<std::int64_t>({-5'000'000'000})},
                             {"3", raw_bytes<std::uint16_t>({0x3c00, 0xc000, 0x7bff, 0x0001})},
                             {"4", ""}});
}

TEST(PytorchStateDictTest, HonoursOffsetsStridesAndSharedStorages) {
  const auto t = read_pytorch_state_dict(write_temp(views_checkpoint()));
  ASSERT_EQ(t.size(), 6u);
  EXPECT_EQ(t[0].name, "view");
  EXPECT_EQ(t[0].location, "cuda:0");
  EXPECT_EQ(t[0].storage_offset, 1);
  EXPECT_THAT(t[0].shape, ElementsAre(2, 3));
  EXPECT_THAT(t[0].strides, ElementsAre(1, 2));
  EXPECT_THAT(t[0].to_floats(), ElementsAre(11, 13, 15, 12, 14, 16));
  EXPECT_EQ(t[1].name, "flat");
  EXPECT_THAT(t[1].to_floats(), ElementsAre(10, 11, 12, 13, 14, 15, 16));
  EXPECT_EQ(t[0].storage, t[1].storage) << "views of one storage must share its bytes";
  EXPECT_EQ(t[0].storage_key, "0");
  EXPECT_EQ(t[1].storage_key, "0");

  EXPECT_EQ(t[2].dtype, "float64");
  EXPECT_THAT(t[2].to_floats(), ElementsAre(1.5f, -2.25f));
  EXPECT_EQ(t[3].dtype, "int64");
  EXPECT_THAT(t[3].shape, IsEmpty());
  EXPECT_EQ(t[3].numel(), 1);
  EXPECT_THAT(t[3].to_floats(), ElementsAre(-5e9f));
  EXPECT_EQ(t[4].dtype, "float16");
  EXPECT_THAT(t[4].to_floats(), ElementsAre(1.0f, -2.0f, 65504.0f, 5.9604645e-8f));
  EXPECT_EQ(t[5].numel(), 0);
  EXPECT_THAT(t[5].to_floats(), IsEmpty());
  EXPECT_NE(t[2].storage, t[3].storage);
}

// Protocol 4 as torch.save(..., pickle_protocol=4) would write it: FRAME, SHORT_BINUNICODE,
// MEMOIZE, STACK_GLOBAL, a plain dict, LONG_BINPUT/LONG_BINGET; plus opcodes a reader must
// step over (lists, BINFLOAT, NONE, POP, TUPLE3, NEWTRUE).
TEST(PytorchStateDictTest, ReadsProtocol4Opcodes) {
  const std::string memoize = "\x94", tuple1 = "\x85", newtrue = "\x88", newfalse = "\x89";
  const auto short_str = [&](const std::string& s) { return std::string("\x8c") + le(s.size(), 1) + s + memoize; };
  const std::string long_binput = std::string("r") + le(70000, 4), long_binget = std::string("j") + le(70000, 4);
  // {} (memo 0), MARK for SETITEMS, the key "w" (memo 1), STACK_GLOBAL _rebuild_tensor_v2 (memo 4).
  std::string body = std::string("}") + memoize + "(" + short_str("w");
  body += short_str("torch._utils") + short_str("_rebuild_tensor_v2") + std::string("\x93") + memoize;
  body += std::string("(") + pk::storage("FloatStorage", "0", "cpu", 2) + long_binput;
  body += pk::integer(0) + pk::integer(2) + tuple1 + pk::integer(1) + tuple1 + newfalse + "NtR";
  // "v": the global and the storage again, from the memo.
  body += short_str("v") + "h\x04(" + long_binget;
  body += pk::integer(1) + pk::integer(1) + tuple1 + pk::integer(1) + tuple1 + newtrue + "NtR";
  // Dropped with POP: a list, BINFLOAT 1.5, the TUPLE3 (None, 1, 2).
  body += std::string("]") + pk::integer(1) + "a(" + pk::integer(2) + pk::integer(3) + "e0";
  body += std::string("G") + std::string("\x3f\xf8\0\0\0\0\0\0", 8) + "0";
  body += std::string("N") + pk::integer(1) + pk::integer(2) + "\x87" + "0";
  body += "u.";
  const std::string pickle = std::string("\x80\x04\x95") + le(body.size(), 8) + body;  // PROTO 4, FRAME
  const auto t = read_pytorch_state_dict(write_temp(checkpoint(pickle, {{"0", raw_bytes<float>({3.5f, -1.25f})}})));
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].name, "w");
  EXPECT_THAT(t[0].to_floats(), ElementsAre(3.5f, -1.25f));
  EXPECT_EQ(t[1].name, "v");
  EXPECT_THAT(t[1].to_floats(), ElementsAre(-1.25f));
  EXPECT_EQ(t[0].storage, t[1].storage);
}

TEST(PytorchStateDictTest, FindsDataPklUnderAnyPrefix) {
  const std::string pickle =
      pk::state_dict({{"b", pk::tensor(pk::storage("FloatStorage", "0", "cpu", 1), 0, pk::ints({1}), pk::ints({1}))}});
  const auto t = read_pytorch_state_dict(
      write_temp(checkpoint(pickle, {{"0", raw_bytes<float>({7})}}, "landlord_weights_123/"), "w.ckpt"));
  ASSERT_EQ(t.size(), 1u);
  EXPECT_THAT(t[0].to_floats(), ElementsAre(7.0f));
}

// ---- Bad input ----

TEST(PytorchStateDictTest, NotAZip) {
  const std::string path = write_temp("this is not a checkpoint at all, just some text");
  EXPECT_THAT(error_of([&] { read_pytorch_state_dict(path); }), AllOf(HasSubstr(path), HasSubstr("not a zip archive")));
  const std::string legacy = write_temp(std::string("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19.", 15));
  EXPECT_THAT(error_of([&] { read_pytorch_state_dict(legacy); }),
              AllOf(HasSubstr(legacy), HasSubstr("not a zip archive"), HasSubstr("legacy format")));
}

TEST(PytorchStateDictTest, ZipWithoutDataPkl) {
  ZipBuilder zip;
  zip.add("ckpt/version", "3\n").add("ckpt/data/0", "1234");
  const std::string path = write_temp(zip.build());
  EXPECT_THAT(error_of([&] { read_pytorch_state_dict(path); }), AllOf(HasSubstr(path), HasSubstr("no */data.pkl")));
}

TEST(PytorchStateDictTest, TruncatedFile) {
  const std::string bytes = views_checkpoint();
  const std::string path = write_temp(bytes.substr(0, bytes.size() / 2));
  EXPECT_THAT(error_of([&] { read_pytorch_state_dict(path); }), AllOf(HasSubstr(path), HasSubstr("truncated")));
  // Every cut is a UserError naming the file.
  for (std::size_t len = 0; len < bytes.size(); ++len) {
    test::write_file(path, bytes.substr(0, len));
    ASSERT_THAT(error_of([&] { read_pytorch_state_dict(path); }), HasSubstr(path)) << "cut at " << len;
  }
}

TEST(PytorchStateDictTest, UnsupportedOpcodeNamesOpcodeAndOffset) {
  const std::string path = write_temp(checkpoint("\x80\x02I1\n.", {}));
  EXPECT_THAT(error_of([&] { read_pytorch_state_dict(path); }),
              AllOf(HasSubstr(path), HasSubstr("unsupported pickle opcode 0x49 ('I') at offset 2 of ckpt/data.pkl")));
}

TEST(PytorchStateDictTest, UnknownGlobalIsRefused) {
  const std::string path =
      write_temp(checkpoint(std::string("\x80\x02") + pk::global("os", "system") + pk::str("ls") + "\x85R.", {}));
  EXPECT_THAT(error_of([&] { read_pytorch_state_dict(path); }),
              AllOf(HasSubstr(path), HasSubstr("unsupported global 'os.system'"), HasSubstr("at offset 2")));
}

TEST(PytorchStateDictTest, TopLevelMustBeADictOfTensors) {
  const std::string list = write_temp(checkpoint("\x80\x02].", {}));
  EXPECT_THAT(error_of([&] { read_pytorch_state_dict(list); }),
              AllOf(HasSubstr(list), HasSubstr("holds a list, not a state dict")));
  const std::string with_int = write_temp(checkpoint(pk::state_dict({{"epoch", pk::integer(3)}}), {}));
  EXPECT_THAT(error_of([&] { read_pytorch_state_dict(with_int); }),
              AllOf(HasSubstr(with_int), HasSubstr("'epoch' is an int, not a tensor")));
}

TEST(PytorchStateDictTest, MissingOrShortStorage) {
  const std::string pickle =
      pk::state_dict({{"w", pk::tensor(pk::storage("FloatStorage", "3", "cpu", 7), 0, pk::ints({7}), pk::ints({1}))}});
  const std::string missing = write_temp(checkpoint(pickle, {{"0", raw_bytes<float>({1})}}));
  EXPECT_THAT(error_of([&] { read_pytorch_state_dict(missing); }),
              AllOf(HasSubstr(missing), HasSubstr("missing storage entry 'ckpt/data/3' (for tensor 'w')")));
  const std::string shorter = write_temp(checkpoint(pickle, {{"3", raw_bytes<float>({1, 2, 3, 4, 5, 6})}}));
  EXPECT_THAT(error_of([&] { read_pytorch_state_dict(shorter); }),
              AllOf(HasSubstr(shorter), HasSubstr("'ckpt/data/3' has 24 bytes"), HasSubstr("7 float32 elements")));
}

TEST(PytorchStateDictTest, ViewOutsideItsStorage) {
  const std::string pickle = pk::state_dict(
      {{"w", pk::tensor(pk::storage("FloatStorage", "0", "cpu", 7), 2, pk::ints({2, 3}), pk::ints({3, 1}))}});
  const std::string path = write_temp(checkpoint(pickle, {{"0", raw_bytes<float>({1, 2, 3, 4, 5, 6, 7})}}));
  EXPECT_THAT(error_of([&] { read_pytorch_state_dict(path); }),
              AllOf(HasSubstr(path), HasSubstr("needs 8 elements of storage '0', which has 7")));
}

TEST(PytorchStateDictTest, CompressedEntry) {
  ZipBuilder zip;
  zip.add("ckpt/data.pkl", pk::state_dict({}), 8);
  const std::string path = write_temp(zip.build());
  EXPECT_THAT(error_of([&] { read_pytorch_state_dict(path); }),
              AllOf(HasSubstr(path), HasSubstr("compression method 8")));
}

// Any corruption of the pickle gives a result or a UserError: never a crash, a hang or an
// internal error. (Corruption of the zip's stored data is caught by its CRC instead.)
TEST(PytorchStateDictTest, CorruptedPickleIsAUserErrorOrHarmless) {
  const std::string pickle = pk::state_dict({
      {"view", pk::tensor(pk::storage("FloatStorage", "0", "cpu", 7) + "q\x40", 1, pk::ints({2, 3}), pk::ints({1, 2}))},
      {"flat", pk::tensor("h\x40", 0, pk::ints({7}), pk::ints({1}))},
  });
  const std::string dir = test::make_temp_dir("rlzoo-ptsd-fuzz");
  const std::string path = dir + "/fuzz.ckpt";
  int errors = 0;
  for (std::size_t i = 0; i < pickle.size(); ++i) {
    for (const unsigned char x : {0x01, 0x80, 0xff}) {
      std::string bad = pickle;
      bad[i] = static_cast<char>(bad[i] ^ x);
      test::write_file(path, checkpoint(bad, {{"0", raw_bytes<float>({1, 2, 3, 4, 5, 6, 7})}}));
      try {
        for (const auto& t : read_pytorch_state_dict(path)) t.to_floats();
      } catch (const UserError& e) {
        ASSERT_THAT(e.what(), HasSubstr(path));
        ++errors;
      }
    }
  }
  EXPECT_GT(errors, 0);
}

}  // namespace
}  // namespace rlzoo
