#include "core/checkpoint/manager.h"

#include <algorithm>
#include <charconv>
#include <system_error>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/checkpoint/durable_io.h"
#include "core/common/error.h"

namespace rlzoo {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kPrefix = "ckpt_";
constexpr std::string_view kPointerName = "latest";
constexpr int kStepDigits = 12;

// The step of a "ckpt_<12+ digits>" name, or nullopt for any other name.
std::optional<std::int64_t> parse_dir_name(std::string_view name) {
  if (!name.starts_with(kPrefix)) return std::nullopt;
  const std::string_view digits = name.substr(kPrefix.size());
  if (digits.size() < kStepDigits) return std::nullopt;
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
  std::int64_t step = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), step);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return step;
}

// Hidden names our saves create and a crash can leave behind (see durable::hidden_sibling_name).
bool is_crash_leftover(std::string_view name) {
  if (!name.starts_with(".ckpt_") && !name.starts_with(".latest.")) return false;
  for (std::string_view tag : {".tmp-", ".old-", ".del-"})
    if (name.find(tag) != std::string_view::npos) return true;
  return false;
}

}  // namespace

CheckpointManager::CheckpointManager(fs::path root, int keep_last) : root_(std::move(root)), keep_last_(keep_last) {
  if (keep_last_ < 1)
    throw UserError(fmt::format("checkpoint keep_last must be at least 1, got {} (for {})", keep_last_, root_.string()));
}

std::string CheckpointManager::dir_name(std::int64_t step) {
  RLZOO_CHECK(step >= 0, fmt::format("step {}", step));
  return fmt::format("{}{:0{}}", kPrefix, step, kStepDigits);
}

std::vector<std::int64_t> CheckpointManager::steps() const {
  std::vector<std::int64_t> out;
  std::error_code ec;
  for (fs::directory_iterator it(root_, ec), end; !ec && it != end; it.increment(ec)) {
    const auto step = parse_dir_name(it->path().filename().string());
    if (step && it->is_directory(ec)) out.push_back(*step);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::string> CheckpointManager::pointer() const {
  std::string text;
  try {
    text = durable::read_file(root_ / kPointerName);
  } catch (const UserError&) {
    return std::nullopt;
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  return text;
}

void CheckpointManager::remove_crash_leftovers() const {
  std::error_code ec;
  std::vector<fs::path> leftovers;
  for (fs::directory_iterator it(root_, ec), end; !ec && it != end; it.increment(ec))
    if (is_crash_leftover(it->path().filename().string())) leftovers.push_back(it->path());
  for (const fs::path& p : leftovers) {
    spdlog::info("checkpoint: removing {} (left by an interrupted save)", p.string());
    if (!durable::remove_all_quietly(p)) spdlog::warn("checkpoint: could not remove {}", p.string());
  }
}

void CheckpointManager::rotate(std::int64_t saved_step) const {
  std::vector<std::int64_t> older;
  for (std::int64_t s : steps()) {
    if (s < saved_step) older.push_back(s);
    if (s > saved_step)
      spdlog::warn("checkpoint: {} has a higher step than the one just saved ({}); it is from a rolled-back "
                   "run and is kept",
                   dir_for(s).string(), saved_step);
  }
  const std::size_t keep_older = static_cast<std::size_t>(keep_last_ - 1);
  if (older.size() <= keep_older) return;
  older.resize(older.size() - keep_older);  // the oldest ones, to delete
  for (std::int64_t s : older) {
    // Rename first, so that a crash mid-deletion leaves a hidden left-over, not a half-deleted
    // ckpt_ directory that latest() would have to reject.
    const fs::path doomed = root_ / durable::hidden_sibling_name(dir_name(s), "del");
    try {
      durable::rename_path(dir_for(s), doomed);
    } catch (const UserError& e) {
      spdlog::warn("checkpoint: could not remove an old checkpoint: {}", e.what());
      continue;
    }
    if (!durable::remove_all_quietly(doomed)) spdlog::warn("checkpoint: could not remove {}", doomed.string());
  }
}

fs::path CheckpointManager::save(std::int64_t step, const CheckpointWriter& writer) {
  if (step < 0) throw UserError(fmt::format("checkpoint step must be >= 0, got {} (for {})", step, root_.string()));
  durable::create_directories(root_);
  remove_crash_leftovers();
  const fs::path dir = dir_for(step);
  writer.commit(dir);
  durable::replace_file(root_ / kPointerName, dir_name(step) + "\n");
  rotate(step);
  return dir;
}

LatestCheckpoint CheckpointManager::latest() const {
  LatestCheckpoint out;
  const auto warn = [&out](std::string line) {
    spdlog::warn("checkpoint: {}", line);
    out.warnings.push_back(std::move(line));
  };
  std::vector<std::int64_t> order = steps();
  std::reverse(order.begin(), order.end());

  // The pointer names the last completed save; it goes first even if a higher step exists
  // (that one is from a rolled-back run).
  const fs::path pointer_path = root_ / kPointerName;
  if (const auto name = pointer()) {
    const auto step = parse_dir_name(*name);
    if (!step) {
      warn(fmt::format("{} holds '{}', not a checkpoint name; ignoring it", pointer_path.string(), *name));
    } else if (std::find(order.begin(), order.end(), *step) == order.end()) {
      warn(fmt::format("{} names {}, which does not exist", pointer_path.string(), *name));
    } else {
      order.erase(std::find(order.begin(), order.end(), *step));
      order.insert(order.begin(), *step);
    }
  } else if (!order.empty()) {
    warn(fmt::format("{} is missing; using the newest valid checkpoint", pointer_path.string()));
  }

  for (std::int64_t step : order) {
    try {
      out.reader = CheckpointReader::open(dir_for(step));
      out.step = step;
      break;
    } catch (const UserError& e) {
      warn(fmt::format("skipping an invalid checkpoint: {}", e.what()));
    }
  }
  if (!out.reader && !order.empty()) warn(fmt::format("no valid checkpoint in {}", root_.string()));
  return out;
}

}  // namespace rlzoo
