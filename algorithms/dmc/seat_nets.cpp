#include "algorithms/dmc/seat_nets.h"

#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "algorithms/dmc/douzero_import/pytorch_state_dict.h"
#include "core/common/error.h"
#include "envs/doudizhu/encoding.h"

namespace rlzoo::dmc {

using doudizhu::Seat;

SeatNets::SeatNets() {
  for (Seat s : doudizhu::kSeats)
    nets[static_cast<std::size_t>(doudizhu::seat_index(s))] = DouZeroNet(doudizhu::state_dim(s));
}

SeatNets SeatNets::clone() const {
  SeatNets c;
  c.copy_from(*this);
  return c;
}

void SeatNets::copy_from(const SeatNets& other) {
  torch::NoGradGuard no_grad;
  for (std::size_t i = 0; i < nets.size(); ++i) {
    auto dst = nets[i]->parameters();
    auto src = other.nets[i]->parameters();
    for (std::size_t k = 0; k < dst.size(); ++k) dst[k].copy_(src[k]);
  }
}

std::string douzero_checkpoint_name(Seat s) { return std::string(doudizhu::seat_name(s)) + ".ckpt"; }

void load_douzero_checkpoint(DouZeroNetImpl& net, const std::string& path) {
  const auto tensors = read_pytorch_state_dict(path);
  std::map<std::string, const PickledTensor*> by_name;
  for (const auto& t : tensors) by_name[t.name] = &t;
  // Check everything before writing anything.
  std::vector<std::pair<torch::Tensor, const PickledTensor*>> plan;
  for (const auto& item : net.named_parameters()) {
    const std::string& name = item.key();
    const torch::Tensor& param = item.value();
    const auto it = by_name.find(name);
    if (it == by_name.end())
      throw UserError(fmt::format("{}: no tensor '{}' (a DouZero model has lstm.* and dense1..dense6.*)", path, name));
    const auto& shape = it->second->shape;
    if (std::vector<std::int64_t>(param.sizes().begin(), param.sizes().end()) != shape)
      throw UserError(fmt::format("{}: '{}' has shape [{}], expected [{}] (is this the {}-feature {} model?)", path,
                                  name, fmt::join(shape, ","), fmt::join(param.sizes(), ","), net.state_dim(),
                                  net.state_dim() == doudizhu::kLandlordStateDim ? "landlord" : "peasant"));
    plan.emplace_back(param, it->second);
    by_name.erase(it);
  }
  if (!by_name.empty())
    throw UserError(fmt::format("{}: unexpected tensor '{}' (not part of DouZero's model)", path, by_name.begin()->first));
  torch::NoGradGuard no_grad;
  for (auto& [param, t] : plan) {
    auto values = t->to_floats();
    param.copy_(torch::from_blob(values.data(), param.sizes(), torch::kFloat32));
  }
}

void load_douzero_folder(SeatNets& nets, const std::string& dir) {
  for (Seat s : doudizhu::kSeats) {
    const auto path = (std::filesystem::path(dir) / douzero_checkpoint_name(s)).string();
    if (!std::filesystem::exists(path))
      throw UserError(fmt::format("{}: missing {} (a DouZero checkpoint folder holds landlord.ckpt, "
                                  "landlord_up.ckpt and landlord_down.ckpt)",
                                  dir, douzero_checkpoint_name(s)));
  }
  SeatNets loaded;  // load into a copy so that `nets` is unchanged if a file is bad
  for (Seat s : doudizhu::kSeats)
    load_douzero_checkpoint(loaded[s], (std::filesystem::path(dir) / douzero_checkpoint_name(s)).string());
  nets.copy_from(loaded);
}

}  // namespace rlzoo::dmc
