#include "distributed/fleet_server_state.h"

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <random>

#include "core/checkpoint/durable_io.h"
#include "distributed/fleet_wire.h"

namespace rlzoo {

std::uint64_t fleet_random_u64() {
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

void GrpcFleet::State::end_run(std::uint64_t run_id, const std::string& why) {
  Run& r = runs.at(run_id);
  if (r.ended) return;
  r.ended = true;
  stats.ended_runs[run_id] = why;
  spdlog::warn("fleet: actor {} (run {:016x}, {}) ended: {}; its queued trajectories are discarded", r.actor,
               run_id, r.host, why);
}

void GrpcFleet::State::reject(const std::string& kind, const std::string& detail, std::uint64_t run_id) {
  {
    std::lock_guard lock(mutex);
    ++stats.rejected[kind];
  }
  spdlog::warn("fleet: refused a message from run {:016x}: {}", run_id, detail);
  write_stats();
}

int GrpcFleet::State::live_runs() const {
  std::lock_guard lock(mutex);
  int n = 0;
  for (const auto& [id, r] : runs) n += r.ended ? 0 : 1;
  return n;
}

void GrpcFleet::State::expire_silent_runs() {
  std::lock_guard lock(mutex);
  const auto limit = FleetClock::now() - std::chrono::milliseconds(options.heartbeat_timeout_ms);
  for (auto& [id, r] : runs)
    if (!r.ended && r.last_seen < limit)
      end_run(id, fmt::format("silent for more than {} ms", options.heartbeat_timeout_ms));
}

std::shared_ptr<const fleet::ParametersReply> GrpcFleet::State::parameters_reply() {
  const auto snapshot = parameters->get();
  std::lock_guard lock(mutex);
  if (cached_version != snapshot.version) {
    auto reply = std::make_shared<fleet::ParametersReply>();
    reply->set_learner_run(learner_run);
    reply->set_version(snapshot.version);
    if (snapshot.value) encode_parameters(*snapshot.value, *reply);
    cached = std::move(reply);
    cached_wire.reset();
    cached_version = snapshot.version;
  }
  return cached;
}

std::shared_ptr<const std::string> GrpcFleet::State::parameters_wire(
    const std::shared_ptr<const fleet::ParametersReply>& reply) {
  std::lock_guard lock(mutex);
  if (reply == cached && cached_wire) return cached_wire;
  // A RoundsReply with only this field set: its tag, its length, the ParametersReply's bytes,
  // written straight from the reply (a RoundsReply holding a copy of it cost a second copy of
  // every tensor in the learner's wait, each version).
  const std::size_t body = reply->ByteSizeLong();
  constexpr std::uint32_t kLengthDelimited = 2;  // the wire type of a message field
  const std::uint32_t tag = (fleet::RoundsReply::kParametersFieldNumber << 3) | kLengthDelimited;
  const std::size_t head = google::protobuf::io::CodedOutputStream::VarintSize32(tag) +
                           google::protobuf::io::CodedOutputStream::VarintSize64(body);
  std::string bytes(head + body, '\0');
  auto* out = reinterpret_cast<std::uint8_t*>(bytes.data());
  out = google::protobuf::io::CodedOutputStream::WriteVarint32ToArray(tag, out);
  out = google::protobuf::io::CodedOutputStream::WriteVarint64ToArray(body, out);
  reply->SerializeWithCachedSizesToArray(out);
  auto wire = std::make_shared<const std::string>(std::move(bytes));
  if (reply == cached) cached_wire = wire;  // else a newer version came in between
  return wire;
}

void GrpcFleet::State::write_stats() const {
  if (options.stats_file.empty()) return;
  nlohmann::json j;
  {
    std::lock_guard lock(mutex);
    const FleetStats& s = stats;
    j = {{"registrations", s.registrations}, {"accepted", s.accepted},   {"used", s.used},
         {"bytes_accepted", s.bytes_accepted},
         {"stale", s.stale},                 {"discarded_ended", s.discarded_ended},
         {"duplicates", s.duplicates},      {"no_actor_warnings", s.no_actor_warnings},
         {"streams", s.streams},
         {"unauthenticated", s.unauthenticated}, {"rejected", s.rejected}, {"used_after_end", s.used_after_end}};
    nlohmann::json runs_json = nlohmann::json::object();
    for (const auto& [id, r] : runs)
      runs_json[fmt::format("{:016x}", id)] = {{"actor", r.actor},
                                               {"host", r.host},
                                               {"used", s.used_by_run.count(id) ? s.used_by_run.at(id) : 0},
                                               {"ended", r.ended ? s.ended_runs.at(id) : ""}};
    j["runs"] = runs_json;
    j["learner_run"] = fmt::format("{:016x}", learner_run);
  }
  try {
    durable::replace_file(options.stats_file, j.dump(1) + "\n");
  } catch (const std::exception& e) {
    spdlog::warn("fleet: {}", e.what());
  }
}

bool GrpcFleet::State::round_needs_more(std::uint64_t run_id) {
  std::lock_guard lock(mutex);
  const std::uint64_t v = parameters->version();
  const auto it = accepted_by_version.find(v);
  std::int64_t need = spec.round_size - static_cast<std::int64_t>(it == accepted_by_version.end() ? 0 : it->second);
  for (const auto& [id, r] : runs)
    if (id != run_id && !r.ended && (r.collecting || r.held < v)) --need;
  return need > 0;
}

namespace {
bool every_live_run_told(const std::map<std::uint64_t, GrpcFleet::State::Run>& runs,
                         const std::set<std::uint64_t>& told) {
  for (const auto& [id, r] : runs)
    if (!r.ended && !told.count(id)) return false;
  return true;
}
}  // namespace

void GrpcFleet::State::wait_until_told(std::chrono::milliseconds grace) {
  std::unique_lock lock(mutex);
  told_cv.wait_for(lock, grace, [&] { return every_live_run_told(runs, told_finished); });
}

bool GrpcFleet::State::all_told() const {
  std::lock_guard lock(mutex);
  return every_live_run_told(runs, told_finished);
}

}  // namespace rlzoo
