#include "distributed/c10d_reducer.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "core/common/error.h"

namespace rlzoo {

struct C10dGradientReducer::Group {
  c10::intrusive_ptr<c10d::TCPStore> store;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> pg;
};

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
  const auto [host, port] = split_host_port(o.rendezvous);
  c10d::TCPStoreOptions so;
  so.port = port;
  so.isServer = o.rank == 0;
  so.numWorkers = static_cast<std::size_t>(o.world_size);
  so.waitWorkers = true;
  so.timeout = std::chrono::seconds(o.timeout_s);
  try {
    group_->store = c10::make_intrusive<c10d::TCPStore>(host, so);
    auto pgo = c10d::ProcessGroupGloo::Options::create();
    pgo->timeout = std::chrono::seconds(o.timeout_s);
    pgo->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(host));
    group_->pg = c10::make_intrusive<c10d::ProcessGroupGloo>(group_->store, o.rank, o.world_size, pgo);
  } catch (const std::exception& e) {
    throw UserError(fmt::format("learner {} of {}: cannot join the group at {}: {}", o.rank, o.world_size,
                                o.rendezvous, e.what()));
  }
  spdlog::info("learner {} of {}: joined the group at {} (c10d, Gloo)", o.rank, o.world_size, o.rendezvous);
}

C10dGradientReducer::~C10dGradientReducer() = default;

void C10dGradientReducer::reduce(const std::vector<torch::Tensor>& parameters) {
  if (options_.world_size == 1) return;
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
  if (options_.world_size == 1 || values.empty()) return values;
  std::vector<torch::Tensor> buffer{torch::tensor(values, torch::kInt64)};
  c10d::AllreduceOptions ao;
  ao.reduceOp = c10d::ReduceOp::MIN;
  group_->pg->allreduce(buffer, ao)->wait();
  const auto t = buffer[0].contiguous();
  return {t.data_ptr<std::int64_t>(), t.data_ptr<std::int64_t>() + t.numel()};
}

void C10dGradientReducer::synchronize(const std::vector<torch::Tensor>& parameters) {
  if (options_.world_size == 1) return;
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
