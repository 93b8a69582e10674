#include "distributed/c10d_reducer.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef USE_C10D_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include "core/common/error.h"
#include "core/torch/compat.h"
#include "core/torch/device.h"

namespace rlzoo {

struct C10dGradientReducer::Group {
  c10::intrusive_ptr<c10d::TCPStore> store;
  c10::intrusive_ptr<C10dProcessGroupBase> pg;  // Gloo or NCCL
};

const char* to_string(C10dBackend backend) { return backend == C10dBackend::nccl ? "NCCL" : "Gloo"; }


C10dBackend choose_c10d_backend(const c10::Device& device, bool has_nccl, int learners) {
  if (!device.is_cuda()) return C10dBackend::gloo;
  if (!has_nccl)
    throw UserError(fmt::format("--learners {} with device '{}': learners on CUDA average gradients over NCCL, and this "
                                "LibTorch has no NCCL (c10d's ProcessGroupNCCL); use device: cpu (Gloo) or a CUDA "
                                "LibTorch built with NCCL",
                                learners, device.str()));
  return C10dBackend::nccl;
}

namespace {

std::pair<std::string, std::uint16_t> split_host_port(const std::string& address) {
  const auto colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0)
    throw UserError(fmt::format("--rendezvous '{}': expected host:port", address));
  int port = 0;
  try {
    port = std::stoi(address.substr(colon + 1));
  } catch (...) {
    port = -1;
  }
  if (port <= 0 || port > 65535) throw UserError(fmt::format("--rendezvous '{}': the port is not 1..65535", address));
  std::string host = address.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return {host, static_cast<std::uint16_t>(port)};
}

// The gradients as one flat buffer (one collective instead of one per tensor).
torch::Tensor flat_gradients(const std::vector<torch::Tensor>& parameters) {
  std::vector<torch::Tensor> grads;
  for (const auto& p : parameters)
    grads.push_back(p.grad().defined() ? p.grad().reshape(-1) : torch::zeros({p.numel()}, p.options()));
  return torch::cat(grads);
}

}  // namespace

C10dGradientReducer::C10dGradientReducer(const C10dOptions& o) : options_(o), group_(std::make_unique<Group>()) {
  if (o.world_size < 1) throw UserError(fmt::format("--learners {}: must be >= 1", o.world_size));
  if (o.rank < 0 || o.rank >= o.world_size)
    throw UserError(fmt::format("--rank {}: must be in 0..{} for {} learners", o.rank, o.world_size - 1, o.world_size));
  backend_ = choose_c10d_backend(o.device, nccl_compiled(), o.world_size);
  const auto [host, port] = split_host_port(o.rendezvous);
  c10d::TCPStoreOptions so;
  so.port = port;
  so.isServer = o.rank == 0;
  so.numWorkers = static_cast<std::size_t>(o.world_size);
  so.waitWorkers = true;
  so.timeout = std::chrono::seconds(o.timeout_s);
  try {
    group_->store = c10::make_intrusive<c10d::TCPStore>(host, so);
    if (backend_ == C10dBackend::nccl) {
#ifdef USE_C10D_NCCL
      auto pgo = c10d::ProcessGroupNCCL::Options::create();
      pgo->timeout = std::chrono::seconds(o.timeout_s);
      group_->pg = c10::make_intrusive<c10d::ProcessGroupNCCL>(group_->store, o.rank, o.world_size, pgo);
#endif
    } else {
      auto pgo = c10d::ProcessGroupGloo::Options::create();
      pgo->timeout = std::chrono::seconds(o.timeout_s);
      pgo->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(host));
      group_->pg = c10::make_intrusive<c10d::ProcessGroupGloo>(group_->store, o.rank, o.world_size, pgo);
    }
  } catch (const std::exception& e) {
    throw UserError(fmt::format("learner {} of {}: cannot join the group at {}: {}", o.rank, o.world_size,
                                o.rendezvous, e.what()));
  }
  spdlog::info("learner {} of {}: joined the group at {} (c10d, {} on {})", o.rank, o.world_size, o.rendezvous,
               to_string(backend_), o.device.str());
}

C10dGradientReducer::~C10dGradientReducer() = default;

// A group of one still runs its collectives (identities): `rlzoo train` forms a group only for
// two or more learners, and the GPU check exercises NCCL on a machine with one GPU this way.
void C10dGradientReducer::reduce(const std::vector<torch::Tensor>& parameters) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> buffer{flat_gradients(parameters)};
  group_->pg->allreduce(buffer)->wait();
  buffer[0].div_(static_cast<double>(options_.world_size));
  std::int64_t offset = 0;
  for (const auto& p : parameters) {
    const std::int64_t n = p.numel();
    if (p.grad().defined()) p.mutable_grad().copy_(buffer[0].slice(0, offset, offset + n).view_as(p));
    offset += n;
  }
}

std::vector<std::int64_t> C10dGradientReducer::minimum(std::vector<std::int64_t> values) {
  if (values.empty()) return values;
  // NCCL reduces tensors on the GPU only.
  std::vector<torch::Tensor> buffer{torch::tensor(values, torch::kInt64).to(options_.device)};
  c10d::AllreduceOptions ao;
  ao.reduceOp = c10d::ReduceOp::MIN;
  group_->pg->allreduce(buffer, ao)->wait();
  const auto t = buffer[0].cpu().contiguous();
  return {t.data_ptr<std::int64_t>(), t.data_ptr<std::int64_t>() + t.numel()};
}

void C10dGradientReducer::synchronize(const std::vector<torch::Tensor>& parameters) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> flat;
  for (const auto& p : parameters) flat.push_back(p.detach().reshape(-1));
  std::vector<torch::Tensor> buffer{torch::cat(flat)};
  c10d::BroadcastOptions bo;
  bo.rootRank = 0;
  group_->pg->broadcast(buffer, bo)->wait();
  std::int64_t offset = 0;
  for (const auto& p : parameters) {
    const std::int64_t n = p.numel();
    p.detach().copy_(buffer[0].slice(0, offset, offset + n).view_as(p));
    offset += n;
  }
}

}  // namespace rlzoo
