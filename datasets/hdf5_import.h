// Offline RL data from HDF5 files into an rlzoo dataset (`rlzoo dataset import`). Two layouts:
//
//  D4RL    root datasets observations [N, ...], actions [N, ...], rewards [N], terminals [N],
//          optional timeouts [N] and next_observations [N, ...]. An episode ends at a terminal
//          or a timeout (D4RL's replay data are split by their timeouts); rows after the last
//          end form a final episode marked truncated. final_observation is the episode's last
//          next_observations row, or empty without that dataset.
//  Minari  groups episode_<k> (in order of k) holding observations [T+1, ...], actions [T, ...],
//          rewards [T], terminations [T], truncations [T]; observation T is the final one and
//          the last step's flags say how the episode ended.
//
// Values may be float32/float64, any integer type or bool (h5py's enum), and are converted to
// the spaces' dtypes. With an env id the spaces are the registered env's (make_env(id)), and the
// data's row shapes must match them; without one, both are unbounded float32 Boxes of the data's
// row shapes.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "datasets/dataset_writer.h"

namespace rlzoo::data {

struct ImportOptions {
  // Registered env whose spaces the data has (registered envs must be registered already);
  // "" for plain float32 Boxes.
  std::string env_id;
  WriterOptions writer;
  // Extra entries for the dataset's "source"; the import adds "imported_from", "layout" and "created".
  nlohmann::json source = nlohmann::json::object();
};

// False when rlzoo was built without HDF5 (RLZOO_WITH_HDF5=OFF or libhdf5-dev missing).
bool hdf5_import_available();

// Converts `file` into a dataset in `out_dir` and returns its manifest. Throws UserError naming
// the file and the HDF5 object for anything missing, mis-shaped or of an unsupported type, and
// when this build has no HDF5.
DatasetInfo import_hdf5(const std::filesystem::path& file, const std::filesystem::path& out_dir,
                        const ImportOptions& options = {});

}  // namespace rlzoo::data
