// `rlzoo info [--json]`: what this build is and what it finds here: LibTorch's version, the
// CUDA, cuDNN and NCCL compiled into it, the GPUs found, and which BLAS each path multiplies
// with (LibTorch's own CPU operations; rlzoo's hand-written paths, rl/nets/gemm.h). For bug
// reports and for the GPU check's log (docs/gpu.md). `--version` stays the cheap question.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "apps/commands.h"
#include "core/platform/blas.h"
#ifdef RLZOO_WITH_TORCH
#include "core/torch/build_info.h"
#endif

namespace rlzoo::cli {

namespace {

nlohmann::json components() {
  nlohmann::json c;
#ifdef RLZOO_WITH_TORCH
  c["libtorch"] = true;
#else
  c["libtorch"] = false;
#endif
#ifdef RLZOO_WITH_MUJOCO
  c["mujoco"] = true;
#else
  c["mujoco"] = false;
#endif
#ifdef RLZOO_WITH_BOX2D
  c["box2d"] = true;
#else
  c["box2d"] = false;
#endif
#ifdef RLZOO_WITH_GRPC
  c["grpc"] = true;
#else
  c["grpc"] = false;
#endif
  return c;
}

nlohmann::json collect() {
  nlohmann::json j;
  j["rlzoo"] = RLZOO_VERSION;
  j["components"] = components();
  const BlasInfo hand = detect_blas();
  j["blas_hand_written"] = hand.name;
  j["sgemm_library"] = "";
#ifdef RLZOO_WITH_TORCH
  const TorchBuildInfo t = torch_build_info();
  j["libtorch"] = t.libtorch_version;
  j["cuda"] = t.cuda ? nlohmann::json(t.cuda_version) : nlohmann::json(nullptr);
  j["cudnn"] = t.cudnn_version.empty() ? nlohmann::json(nullptr) : nlohmann::json(t.cudnn_version);
  j["nccl"] = t.nccl;
  j["nccl_library"] = t.nccl_version.empty() ? nlohmann::json(nullptr) : nlohmann::json(t.nccl_version);
  j["gpus"] = t.gpus;
  if (t.gpus.empty()) j["gpu_problem"] = t.gpu_problem;
  j["blas_libtorch"] = t.libtorch_blas;
  j["blas_libtorch_detail"] = t.libtorch_blas_detail;
  j["sgemm_library"] = t.sgemm_library;
#endif
  return j;
}

std::string or_text(const nlohmann::json& v, const std::string& otherwise) {
  return v.is_null() ? otherwise : v.get<std::string>();
}

void print_text(const nlohmann::json& j) {
  fmt::print("rlzoo     {}\n", j["rlzoo"].get<std::string>());
  std::string parts;
  for (const auto& [name, on] : j["components"].items()) parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", name, on.get<bool>() ? "on" : "off");
  fmt::print("parts     {}\n", parts);
  if (!j.contains("libtorch")) {
    fmt::print("LibTorch  not built in (RLZOO_WITH_TORCH=OFF)\n");
  } else {
    fmt::print("LibTorch  {}\n", j["libtorch"].get<std::string>());
    fmt::print("CUDA      {}\n", or_text(j["cuda"], "not compiled in (a CPU LibTorch, such as Debian's)"));
    fmt::print("cuDNN     {}\n", or_text(j["cudnn"], "not compiled in"));
    fmt::print("NCCL      {}\n",
               j["nccl"].get<bool>()
                   ? fmt::format("compiled in (c10d's NCCL backend; learners on CUDA use it), library {}",
                                 or_text(j["nccl_library"], "not loaded"))
                   : std::string("not compiled in (learner groups use Gloo, on the CPU only)"));
    const auto& gpus = j["gpus"];
    if (gpus.empty()) {
      fmt::print("GPUs      no GPU found ({})\n", j["gpu_problem"].get<std::string>());
    } else {
      for (std::size_t i = 0; i < gpus.size(); ++i)
        fmt::print("{}cuda:{}  {}\n", i == 0 ? "GPUs      " : "          ", i, gpus[i].get<std::string>());
    }
    // "generic": LibTorch calls the Fortran sgemm_ of whatever BLAS the process has (Debian's
    // libblas.so.3, which its alternatives point at OpenBLAS); "mkl": its own, linked in.
    const std::string blas = j["blas_libtorch"].get<std::string>();
    const std::string detail = j["blas_libtorch_detail"].get<std::string>();
    const std::string sgemm = j["sgemm_library"].get<std::string>();
    std::string where = detail.empty() ? "" : " (" + detail + ")";
    if (blas == "generic" || blas == "open")
      where = fmt::format(" (the process's sgemm_, from {})", sgemm.empty() ? "no library" : sgemm);
    fmt::print("BLAS      LibTorch's CPU operations: {}{}\n", blas, where);
    if (blas != "generic" && blas != "open" && !sgemm.empty())
      fmt::print("          its sgemm_ calls go to the process's first sgemm_, from {}\n", sgemm);
  }
  fmt::print("BLAS      rlzoo's hand-written paths (rl/nets/gemm.h, cblas_sgemm): {}\n",
             j["blas_hand_written"].get<std::string>());
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "Show the build: LibTorch, CUDA, cuDNN, NCCL, the GPUs found and each path's BLAS");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "One JSON object instead of lines");
  cmd->callback([json] {
    const auto j = collect();
    if (*json)
      fmt::print("{}\n", j.dump());
    else
      print_text(j);
  });
}

}  // namespace rlzoo::cli
