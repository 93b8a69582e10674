// Golden numerics: fingerprints of what an agent saves, recorded per OpenBLAS kernel, for the
// tests that freeze the algorithms' arithmetic (golden_numerics_test.cpp, dmc_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <torch/serialize/input-archive.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "rl/agent.h"
#include "core/platform/blas.h"
#include "core/torch/compat.h"
#include "tests/support/sha256.h"
#include "tests/support/test_paths.h"

namespace rlzoo::test {

// The digest of every tensor (dtype, shape, values) in a saved archive and its sub-archives.
// Names are left out: LibTorch keys an optimizer's per-parameter state by the parameter's
// address, which differs from run to run; the caller sorts the digests instead.
inline void tensor_digests(torch::serialize::InputArchive& archive, std::vector<std::string>& out) {
  for (const auto& key : archive.keys()) {
    torch::Tensor t;
    torch::serialize::InputArchive sub;
    if (archive.try_read(key, t)) {
      const auto c = t.contiguous().cpu();
      std::string bytes = std::string(c.dtype().name()) + "|";
      for (const auto s : c.sizes()) bytes += std::to_string(s) + ",";
      bytes.append(static_cast<const char*>(c.data_ptr()), c.numel() * c.element_size());
      out.push_back(sha256_hex(bytes));
    } else if (archive.try_read(key, sub)) {
      tensor_digests(sub, out);
    }
  }
}

// .pt files added to checkpoints after the values were recorded: SeCBAD's mid-episode state
// (episodes in progress, the VAE's episode buffer, the belief tracker) for exact resume. They
// hold no new arithmetic, and leaving them out keeps comparing like with like.
inline bool recorded_after_the_values(const std::string& file) {
  return file == "episodes.pt" || file == "belief_tracker.pt";
}

// A SHA-256 over the sorted digests of every tensor in the agent's saved .pt files.
inline std::string fingerprint(const Agent& agent) {
  namespace fs = std::filesystem;
  const std::string dir = make_temp_dir("rlzoo-golden") + "/agent";
  agent.save(dir);
  std::vector<std::string> digests;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".pt" || recorded_after_the_values(e.path().filename().string())) continue;
    torch::serialize::InputArchive archive;
    archive.load_from(e.path().string());
    tensor_digests(archive, digests);
  }
  fs::remove_all(fs::path(dir).parent_path());
  std::sort(digests.begin(), digests.end());
  std::string all;
  for (const auto& d : digests) all += d;
  return sha256_hex(all);
}

// One fingerprint per OpenBLAS kernel family.
struct KernelValues {
  std::string avx2;        // Haswell, Zen
  std::string skylakex;    // SkylakeX
  std::string cooperlake;  // Cooperlake
};

// The values of each LibTorch build rlzoo supports. Debian's LibTorch 1.13 multiplies with the
// system OpenBLAS, as rlzoo's hand-written paths do. PyPI's CUDA LibTorch 2.11 (scripts/
// cuda-build) does its CPU products with its own MKL and oneDNN, at ATen's best vector level
// for the CPU, so the same run gives other bits: it has its own records, still keyed by the
// OpenBLAS kernel (its hand-written paths use OpenBLAS, and the kernel stands for the CPU's
// vector level). Its values: issue #68, recorded with `scripts/cuda-build --test`.
struct Golden {
  std::string avx2;        // Debian's LibTorch 1.13: Haswell, Zen
  std::string skylakex;    // SkylakeX
  std::string cooperlake;  // Cooperlake
  KernelValues pypi_libtorch_2_11 = {};
};

// The recorded value for this LibTorch and the kernel OpenBLAS runs here, or "" with what was
// looked for in `kernel`.
inline std::string expected_for_this_kernel(const Golden& golden, std::string& kernel) {
  kernel = detect_blas().name;
  if (std::getenv("ATEN_CPU_CAPABILITY") != nullptr) return "";  // values are for ATen's default level
  KernelValues values{golden.avx2, golden.skylakex, golden.cooperlake};
  if (kTorchVersion == 211) {
    values = golden.pypi_libtorch_2_11;
    kernel = "LibTorch 2.11 (PyPI) with " + kernel;
  } else if (kTorchVersion != 113) {
    kernel = "LibTorch " + std::to_string(kTorchVersion / 100) + "." + std::to_string(kTorchVersion % 100) +
             ", which has no records, with " + kernel;
    return "";
  }
  const std::string& blas = detect_blas().name;
  for (const char* k : {"Haswell", "Zen"})
    if (blas.find(k) != std::string::npos) return values.avx2;
  if (blas.find("SkylakeX") != std::string::npos) return values.skylakex;
  if (blas.find("Cooperlake") != std::string::npos) return values.cooperlake;
  return "";
}

// Expects `got` to be the value recorded for this process's kernel; skips, naming the kernel,
// where none is recorded.
inline void expect_fingerprint(const std::string& got, const Golden& golden, const std::string& what) {
  std::string kernel;
  const std::string expected = expected_for_this_kernel(golden, kernel);
  if (expected.empty()) GTEST_SKIP() << "no fingerprint recorded for this BLAS (" << kernel << "); got " << got;
  EXPECT_EQ(got, expected) << what << " under " << kernel
                           << ".\nA change of arithmetic or random-draw order must say which and why and update the "
                              "values for every kernel (OPENBLAS_CORETYPE=Haswell, SkylakeX, Cooperlake) and each "
                              "LibTorch build (Debian's; scripts/cuda-build's).";
}

}  // namespace rlzoo::test
