// The three DouZero Q-networks of a DouDizhu agent, by seat (landlord, landlord_down,
// landlord_up), and DouZero's checkpoint files for them.
#pragma once

#include <array>
#include <string>

#include "algorithms/dmc/douzero_net.h"
#include "envs/doudizhu/game.h"

namespace rlzoo::dmc {

struct SeatNets {
  std::array<DouZeroNet, 3> nets{nullptr, nullptr, nullptr};  // by doudizhu::seat_index

  SeatNets();  // freshly initialised (LibTorch's default initialisation, as DouZero's)
  DouZeroNetImpl& operator[](doudizhu::Seat s) { return *nets[static_cast<std::size_t>(doudizhu::seat_index(s))]; }
  // Deep copy (for actor replicas).
  SeatNets clone() const;
  void copy_from(const SeatNets& other);
};

// DouZero's file name for a seat's checkpoint: "landlord.ckpt", "landlord_down.ckpt", "landlord_up.ckpt".
std::string douzero_checkpoint_name(doudizhu::Seat s);
// Loads torch.save(model.state_dict()) files written by DouZero into `net`: every key
// (lstm.*, dense1..6.*) must be present with its shape. Throws UserError naming the file and
// the key otherwise; the net is left unchanged on error.
void load_douzero_checkpoint(DouZeroNetImpl& net, const std::string& path);
// The three files of a DouZero checkpoint folder (douzero_checkpoint_name in `dir`).
void load_douzero_folder(SeatNets& nets, const std::string& dir);

}  // namespace rlzoo::dmc
