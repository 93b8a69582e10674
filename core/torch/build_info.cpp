#include "core/torch/build_info.h"
#include "core/torch/device.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <ATen/Version.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <torch/version.h>

#include <sstream>

namespace rlzoo {

namespace {

// "BLAS_INFO=mkl" in LibTorch's build settings; "" where it names none.
std::string setting(const std::string& config, const std::string& key) {
  const auto at = config.find(key + "=");
  if (at == std::string::npos) return "";
  const auto begin = at + key.size() + 1;
  const auto end = config.find_first_of(", \n", begin);
  return config.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

std::string first_line_containing(const std::string& text, const std::string& needle) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.find(needle) == std::string::npos) continue;
    const auto first = line.find_first_not_of(" -");
    return first == std::string::npos ? line : line.substr(first);
  }
  return "";
}

// The CUDA driver API, from the driver's library: no header, and no link dependency, so a build
// without CUDA or a machine without a driver answers with the reason.
void find_gpus(TorchBuildInfo& info) {
  void* driver = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (driver == nullptr) {
    info.gpu_problem = "no NVIDIA driver: libcuda.so.1 is not installed";
    return;
  }
  using InitFn = int (*)(unsigned);
  using CountFn = int (*)(int*);
  using GetFn = int (*)(int*, int);
  using NameFn = int (*)(char*, int, int);
  const auto init = reinterpret_cast<InitFn>(::dlsym(driver, "cuInit"));
  const auto count = reinterpret_cast<CountFn>(::dlsym(driver, "cuDeviceGetCount"));
  const auto get = reinterpret_cast<GetFn>(::dlsym(driver, "cuDeviceGet"));
  const auto name = reinterpret_cast<NameFn>(::dlsym(driver, "cuDeviceGetName"));
  if (init == nullptr || count == nullptr || get == nullptr || name == nullptr) {
    info.gpu_problem = "libcuda.so.1 lacks the driver API (cuInit, cuDeviceGetCount)";
    return;
  }
  if (const int rc = init(0); rc != 0) {
    // 100: CUDA_ERROR_NO_DEVICE; others: a driver that cannot start (version, permissions).
    info.gpu_problem = rc == 100 ? "the driver finds no CUDA device" : fmt::format("cuInit failed (CUresult {})", rc);
    return;
  }
  int n = 0;
  if (count(&n) != 0 || n == 0) {
    info.gpu_problem = "the driver finds no CUDA device";
    return;
  }
  for (int i = 0; i < n; ++i) {
    int device = 0;
    char buffer[256] = {};
    if (get(&device, i) == 0 && name(buffer, sizeof buffer, device) == 0)
      info.gpus.emplace_back(buffer);
    else
      info.gpus.push_back(fmt::format("GPU {} (name unavailable)", i));
  }
}

}  // namespace

TorchBuildInfo torch_build_info() {
  TorchBuildInfo info;
  info.libtorch_version = TORCH_VERSION;
  const auto& hooks = at::detail::getCUDAHooks();
  info.cuda = hooks.hasCUDART();
  if (info.cuda) {
    const long rt = hooks.versionCUDART();  // CUDART_VERSION: 13000 for 13.0
    info.cuda_version = fmt::format("{}.{}", rt / 1000, rt % 1000 / 10);
    if (hooks.compiledWithCuDNN()) {
      const long v = hooks.versionCuDNN();  // CUDNN_VERSION: 91900 for 9.19.0 (8xxx before 9)
      const long major_unit = v >= 90000 ? 10000 : 1000;
      info.cudnn_version = fmt::format("{}.{}.{}", v / major_unit, v % major_unit / 100, v % 100);
    }
  }
  info.nccl = nccl_compiled();
  using NcclVersionFn = int (*)(int*);
  if (const auto nccl_version = reinterpret_cast<NcclVersionFn>(::dlsym(RTLD_DEFAULT, "ncclGetVersion"))) {
    int code = 0;
    if (nccl_version(&code) == 0 && code > 0)  // major * 10000 + minor * 100 + patch since 2.9
      info.nccl_version = fmt::format("{}.{}.{}", code / 10000, code % 10000 / 100, code % 100);
  }
  if (info.cuda)
    find_gpus(info);
  else
    info.gpu_problem = "this LibTorch has no CUDA";

  const std::string config = at::show_config();
  info.libtorch_blas = setting(config, "BLAS_INFO");
  info.libtorch_blas_detail = first_line_containing(config, "Math Kernel Library");
  if (void* sgemm = ::dlsym(RTLD_DEFAULT, "sgemm_")) {
    Dl_info where{};
    if (::dladdr(sgemm, &where) != 0 && where.dli_fname != nullptr) info.sgemm_library = where.dli_fname;
  }
  return info;
}

}  // namespace rlzoo
