// What the LibTorch this binary was built against has compiled in, and what it finds on this
// machine: `rlzoo info` prints it, the GPU check's summary and bench lines record it.
//
//   const auto info = torch_build_info();
//   if (info.cuda && info.gpus.empty()) std::cout << "no GPU found: " << info.gpu_problem;
//
// Compiled-in facts come from LibTorch's CUDA hooks (present only in a CUDA build); the GPUs
// are counted through the NVIDIA driver's own library (libcuda.so.1), looked up at run time, so
// no CUDA header is needed and a machine without a driver answers "none" with the reason.
#pragma once

#include <string>
#include <vector>

namespace rlzoo {

struct TorchBuildInfo {
  std::string libtorch_version;  // TORCH_VERSION: "1.13.0" (Debian), "2.11.0" (PyPI's torch)
  bool cuda = false;             // LibTorch was compiled with CUDA
  std::string cuda_version;      // the CUDA runtime it was compiled against, "13.0"; "" without CUDA
  std::string cudnn_version;     // cuDNN it was compiled against, "9.19.0"; "" without
  bool nccl = false;             // c10d's NCCL backend is compiled in (USE_C10D_NCCL)
  std::string nccl_version;      // the loaded libnccl's own version, "2.28.9"; "" where none is loaded
  std::vector<std::string> gpus; // the CUDA GPUs found, by name; empty: none
  std::string gpu_problem;       // why there are none (no driver, no device, CUDA not compiled in)
  std::string libtorch_blas;     // LibTorch's CPU BLAS as its build settings name it: "mkl", "open", ...
  std::string libtorch_blas_detail;  // e.g. "Intel(R) oneAPI Math Kernel Library Version 2024.2 ..."; may be ""
  std::string sgemm_library;     // the shared object the process's sgemm_ symbol resolves to
};

// Reads it once per call; counting GPUs initialises the driver (a few ms; seconds on a GPU host).
TorchBuildInfo torch_build_info();

}  // namespace rlzoo
