// Opens a checkpoint directory written by CheckpointWriter and validates it completely (every
// file's presence, size and CRC-32C against manifest.json) before anything is loaded from it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace rlzoo {

class CheckpointReader {
 public:
  // Validates `dir`. Throws UserError naming the checkpoint directory, the file and what is
  // wrong: the directory or manifest.json is missing, the manifest is not valid JSON or lacks a
  // field, it was written by a newer format, a listed file is missing, truncated ("model.pt is
  // truncated: expected 1234 bytes, found 1000"), longer than recorded, or fails its CRC.
  // Reads every file once (streamed) to check the CRC; keeps only the manifest in memory.
  static CheckpointReader open(const std::filesystem::path& dir);

  const std::filesystem::path& dir() const { return dir_; }
  bool has(std::string_view name) const;
  // File names listed in the manifest, sorted.
  std::vector<std::string> names() const;
  std::uint64_t size(std::string_view name) const;

  // A file's bytes, checked again against size and CRC (the directory may have changed since
  // open()). Throws UserError if the name is not in the checkpoint (listing the names) or the
  // check fails.
  std::string read(std::string_view name) const;
  // read() parsed as JSON; a parse error is a UserError naming the file.
  nlohmann::json read_json(std::string_view name) const;

  // The caller's metadata object given to CheckpointWriter.
  const nlohmann::json& metadata() const { return manifest_.at("metadata"); }
  const nlohmann::json& manifest() const { return manifest_; }
  std::string rlzoo_version() const { return manifest_.at("rlzoo_version").get<std::string>(); }
  std::string created_at() const { return manifest_.at("created_at").get<std::string>(); }

 private:
  struct Entry {
    std::uint64_t size;
    std::uint32_t crc;
  };
  CheckpointReader() = default;
  const Entry& entry(std::string_view name) const;

  std::filesystem::path dir_;
  nlohmann::json manifest_;
  std::vector<std::pair<std::string, Entry>> entries_;  // sorted by name
};

}  // namespace rlzoo
