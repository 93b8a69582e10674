#include "core/vector/vector_env.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <typeinfo>
#include <fmt/format.h>

#include "core/registry/env_registry.h"

namespace rlzoo {

namespace {

// Runs write(); if it throws, runs back() and rethrows. The output sets: a reset, step or
// load_state that throws goes back to the set the last complete call wrote, so that with
// double buffering what that call returned stays as it was (a caller may hold it) and the
// next call writes the other set again.
template <class Write, class Back>
void back_on_throw(Write&& write, Back&& back) {
  try {
    write();
  } catch (...) {
    back();
    throw;
  }
}

}  // namespace

VectorEnv::VectorEnv(std::vector<std::unique_ptr<Env>> envs) : envs_(std::move(envs)) {
  if (envs_.empty()) throw UserError("a vector env needs at least one env");
  for (const auto& e : envs_) {
    RLZOO_CHECK(e != nullptr);
    if (!(e->observation_space() == envs_[0]->observation_space()) ||
        !(e->action_space() == envs_[0]->action_space()))
      throw UserError(fmt::format("vector env: env {} has spaces {} / {} but env {} has {} / {}", e->id(),
                                  e->observation_space().describe(), e->action_space().describe(), envs_[0]->id(),
                                  envs_[0]->observation_space().describe(), envs_[0]->action_space().describe()));
  }
  const auto n = envs_.size();
  obs_bytes_ = single_observation_space().byte_size();
  act_bytes_ = single_action_space().byte_size();
  mask_size_ = spec().has_action_mask ? static_cast<std::size_t>(single_action_space().n()) : 0;
  out_[0].obs.resize(n * obs_bytes_);
  out_[0].rewards.assign(n, 0.0);
  out_[0].terminated.assign(n, 0);
  out_[0].truncated.assign(n, 0);
  final_obs_.resize(n * obs_bytes_);
  episode_returns_.assign(n, 0.0);
  episode_lengths_.assign(n, 0);
  reset_next_.assign(n, 0);
  masks_.assign(n * mask_size_, 0);
  batch_finite_check_ = std::all_of(envs_.begin(), envs_.end(), [](const auto& e) { return e->checks_float32_observations(); });
  env_ptrs_.reserve(n);
  for (const auto& e : envs_) env_ptrs_.push_back(e.get());
  one_env_type_ = std::all_of(envs_.begin(), envs_.end(), [&](const auto& e) { return typeid(*e) == typeid(*envs_[0]); });
}

VectorEnv::~VectorEnv() = default;

void VectorEnv::enable_double_buffering() {
  if (double_buffered_) return;
  out_[1] = out_[0];
  double_buffered_ = true;
}

void VectorEnv::reset(std::optional<std::uint64_t> seed) {
  next_output_set();
  back_on_throw([&] { for_slices([&](std::int64_t b, std::int64_t e) { reset_range(b, e, seed); }); },
                [&] { next_output_set(); });
}

void VectorEnv::reset_range(std::int64_t begin, std::int64_t end, std::optional<std::uint64_t> seed) {
  OutputSet& o = out();
  for (std::int64_t i = begin; i < end; ++i) {
    const auto k = static_cast<std::size_t>(i);
    Env& env = *envs_[k];
    env.reset(seed ? std::optional<std::uint64_t>(*seed + k) : std::nullopt, Bytes(o.obs.data() + k * obs_bytes_, obs_bytes_));
    o.rewards[k] = 0.0;
    o.terminated[k] = o.truncated[k] = 0;
    reset_next_[k] = 0;
    write_mask_row(k);
  }
}

void VectorEnv::write_mask_row(std::size_t k) {
  if (!mask_size_) return;
  // A row that resets on the next step takes any action (it is ignored): all legal, so that
  // masked sampling never meets an all-illegal row.
  if (reset_next_[k]) std::memset(masks_.data() + k * mask_size_, 1, mask_size_);
  else std::memcpy(masks_.data() + k * mask_size_, envs_[k]->action_mask().data(), mask_size_);
}

void VectorEnv::set_autoreset_mode(AutoresetMode mode) {
  if (mode == autoreset_) return;
  if (std::find(reset_next_.begin(), reset_next_.end(), 1) != reset_next_.end())
    throw UserError(fmt::format("vector env {}: the autoreset mode cannot change while next-step resets are pending; "
                                "set it before stepping or right after reset()",
                                spec().id));
  autoreset_ = mode;
}

void VectorEnv::step(ConstBytes actions) {
  check_action_bytes(actions);
  next_output_set();
  back_on_throw([&] { for_slices([&](std::int64_t b, std::int64_t e) { step_range(b, e, actions); }); },
                [&] { next_output_set(); });
}

void VectorEnv::step(ConstBytes actions, const std::function<void(std::int64_t, std::int64_t)>& after_slice) {
  check_action_bytes(actions);
  next_output_set();
  back_on_throw(
      [&] {
        for_slices([&](std::int64_t b, std::int64_t e) {
          step_range(b, e, actions);
          after_slice(b, e);
        });
      },
      [&] { next_output_set(); });
}

void VectorEnv::check_action_bytes(ConstBytes actions) const {
  if (actions.size() != envs_.size() * act_bytes_)
    throw UserError(fmt::format("vector env {}: actions have {} bytes, expected {} envs x {} bytes", spec().id,
                                actions.size(), envs_.size(), act_bytes_));
}

void VectorEnv::step_range(std::int64_t begin, std::int64_t end, ConstBytes actions) {
  OutputSet& o = out();
  if (autoreset_ == AutoresetMode::next_step) [[unlikely]] {
    step_envs_next_step(o, begin, end, actions);
    return;
  }
  // The observations these envs wrote, checked for NaN/Inf in one pass over the rows, unless
  // every env checked its own before writing it (StepResult::checked_finite); envs that are not
  // checked as one float batch were checked row by row (step_envs).
  if (step_envs(o, begin, end, actions) || !batch_finite_check_) return;
  const auto b = static_cast<std::size_t>(begin), e = static_cast<std::size_t>(end);
  if (!float32s_are_finite(reinterpret_cast<const float*>(o.obs.data() + b * obs_bytes_), (e - b) * obs_bytes_ / 4))
    [[unlikely]]
    report_non_finite_row(begin, end);
}

bool VectorEnv::step_envs(OutputSet& o, std::int64_t begin, std::int64_t end, ConstBytes actions) {
  std::byte* const obs = o.obs.data();
  std::uint8_t *const terminated = o.terminated.data(), *const truncated = o.truncated.data();
  const std::size_t ob = obs_bytes_, ab = act_bytes_;
  // Envs are stepped a chunk at a time in one loop (Env::step_run: an env type can inline its
  // do_step there), then the chunk's ended episodes are seen to. Their envs are reset after the
  // whole chunk has stepped: the memory a reset reads (the env's Rng, prefetched when its
  // episode ended) then has time to arrive, where a reset at once waited for it (a 1024-env
  // batch does not fit in L2).
  constexpr std::size_t kChunk = 32;
  std::array<std::uint32_t, kChunk> ended;
  bool all_checked = true;
  for (auto c = static_cast<std::size_t>(begin); c < static_cast<std::size_t>(end); c += kChunk) {
    const std::size_t m = std::min(kChunk, static_cast<std::size_t>(end) - c);
    StepRun run{env_ptrs_.data() + c, m, actions.data() + c * ab, ab, obs + c * ob, ob,
                o.rewards.data() + c, terminated + c, truncated + c, ended.data()};
    try {
      if (one_env_type_) env_ptrs_[c]->step_run(run);
      else Env::step_run_virtual(run);
    } catch (...) {
      rethrow_naming_index(c + run.failed);
    }
    all_checked &= run.all_checked_finite;
    // When an env did not check its own observation: every row of envs that are not checked as
    // one float batch (step_range() checks the others), final observations of them all (the
    // reset overwrites them).
    if (!run.all_checked_finite && !batch_finite_check_) [[unlikely]] {
      for (std::size_t k = c; k < c + m; ++k) check_row(k);
    }
    if (mask_size_) {  // the rows of the envs reset below are written again after their reset
      for (std::size_t k = c; k < c + m; ++k) write_mask_row(k);
    }
    for (std::size_t j = 0; j < run.num_ended; ++j) {
      const std::size_t k = c + ended[j];
      if (!run.all_checked_finite && batch_finite_check_) check_row(k);
      std::memcpy(final_obs_.data() + k * ob, obs + k * ob, ob);
      const Info& info = env_ptrs_[k]->info();
      episode_returns_[k] = info.episode_return;
      episode_lengths_[k] = info.episode_length;
    }
    for (std::size_t j = 0; j < run.num_ended; ++j) {
      const std::size_t k = c + ended[j];
      try {
        env_ptrs_[k]->reset(std::nullopt, Bytes(obs + k * ob, ob));
      } catch (...) {
        rethrow_naming_index(k);
      }
      write_mask_row(k);
    }
  }
  return all_checked;
}

void VectorEnv::step_envs_next_step(OutputSet& o, std::int64_t begin, std::int64_t end, ConstBytes actions) {
  const std::size_t ob = obs_bytes_, ab = act_bytes_;
  for (std::int64_t i = begin; i < end; ++i) {
    const auto k = static_cast<std::size_t>(i);
    Env& env = *envs_[k];
    const Bytes row(o.obs.data() + k * ob, ob);
    try {
      if (reset_next_[k]) {  // the episode ended on the last step: this step starts the next one
        env.reset(std::nullopt, row);
        o.rewards[k] = 0.0;
        o.terminated[k] = o.truncated[k] = 0;
        reset_next_[k] = 0;
      } else {
        const StepResult r = env.step(ConstBytes(actions.data() + k * ab, ab), row);
        o.rewards[k] = r.reward;
        o.terminated[k] = r.terminated;
        o.truncated[k] = r.truncated;
        if (r.done()) {
          std::memcpy(final_obs_.data() + k * ob, row.data(), ob);
          const Info& info = env.info();
          episode_returns_[k] = info.episode_return;
          episode_lengths_[k] = info.episode_length;
          reset_next_[k] = 1;
        }
      }
    } catch (...) {
      rethrow_naming_index(k);
    }
    write_mask_row(k);
  }
}

void VectorEnv::check_row(std::size_t k) const {
  const Env& env = *env_ptrs_[k];
  if (!env.checks_observations()) return;
  try {
    env.check_observation(ConstBytes(out().obs.data() + k * obs_bytes_, obs_bytes_));
  } catch (...) {
    rethrow_naming_index(k);
  }
}

void VectorEnv::report_non_finite_row(std::int64_t begin, std::int64_t end) const {
  // check_row throws for the first row that holds a NaN or Inf.
  for (auto k = static_cast<std::size_t>(begin); k < static_cast<std::size_t>(end); ++k) check_row(k);
  RLZOO_CHECK(false, "the batch's NaN/Inf check failed, but no row holds a NaN or Inf");
}

void VectorEnv::rethrow_naming_index(std::size_t k) const {
  try {
    throw;
  } catch (const EnvError& e) {
    throw EnvError(fmt::format("{} (vector env index {} of {})", e.what(), k, envs_.size()));
  } catch (const EnvFailure& e) {
    throw EnvFailure(fmt::format("{} (vector env index {} of {})", e.what(), k, envs_.size()));
  }
}

nlohmann::json VectorEnv::save_state() const {
  nlohmann::json envs = nlohmann::json::array();
  for (const auto& e : envs_) envs.push_back(e->save_state());
  nlohmann::json state{{"envs", envs}};
  if (autoreset_ == AutoresetMode::next_step) state["resets_pending"] = reset_next_;
  return state;
}

void VectorEnv::load_state(const nlohmann::json& state) {
  const auto& envs = state.at("envs");
  if (!envs.is_array() || envs.size() != envs_.size())
    throw UserError(fmt::format("vector env {}: saved state has {} envs, this one {}", spec().id,
                                envs.is_array() ? envs.size() : 0, envs_.size()));
  // The pending next-step resets are checked before any env is touched.
  std::vector<std::uint8_t> pending(envs_.size(), 0);
  if (state.contains("resets_pending")) {
    pending = state.at("resets_pending").get<std::vector<std::uint8_t>>();
    if (pending.size() != envs_.size())
      throw UserError(fmt::format("vector env {}: saved resets_pending has {} entries, this one {} envs", spec().id,
                                  pending.size(), envs_.size()));
    if (autoreset_ != AutoresetMode::next_step && std::find(pending.begin(), pending.end(), 1) != pending.end())
      throw UserError(fmt::format("vector env {}: the saved state is of a next-step autoreset vector env with resets "
                                  "pending; set that mode before loading it",
                                  spec().id));
  }
  // Into the next output set, as a reset writes, with the rewards and flags of a reset.
  next_output_set();
  back_on_throw(
      [&] {
        OutputSet& o = out();
        for (std::size_t k = 0; k < envs_.size(); ++k)
          envs_[k]->load_state(envs[k], Bytes(o.obs.data() + k * obs_bytes_, obs_bytes_));
        std::fill(o.rewards.begin(), o.rewards.end(), 0.0);
        std::fill(o.terminated.begin(), o.terminated.end(), 0);
        std::fill(o.truncated.begin(), o.truncated.end(), 0);
      },
      [&] { next_output_set(); });
  reset_next_ = std::move(pending);
  for (std::size_t k = 0; k < envs_.size(); ++k) write_mask_row(k);
}

SyncVectorEnv::SyncVectorEnv(std::vector<std::unique_ptr<Env>> envs) : VectorEnv(std::move(envs)) {}

void SyncVectorEnv::for_slices(const std::function<void(std::int64_t, std::int64_t)>& fn) { fn(0, num_envs()); }

ThreadedVectorEnv::ThreadedVectorEnv(std::vector<std::unique_ptr<Env>> envs, int num_threads)
    : VectorEnv(std::move(envs)), pool_(num_threads), counters_(static_cast<std::size_t>(pool_.num_threads())) {}

void ThreadedVectorEnv::for_slices(const std::function<void(std::int64_t, std::int64_t)>& fn) {
  // Each thread steps its home slice of the envs, chunk by chunk, then takes the chunks the
  // other threads have not reached yet. Home slices keep an env on the same core step after
  // step (its state and its rows stay in that core's cache: where envs went to whichever
  // thread came first, two threads on two cores with private L2 caches ran 4096 CartPoles
  // only 1.36x faster than one); taking the others' chunks means a thread descheduled by
  // another process (machines are shared) delays only its current chunk. Each env is still
  // stepped exactly once, so results do not depend on which thread steps it.
  const std::int64_t n = num_envs(), t = pool_.num_threads();
  // About 8 chunks per thread: enough to balance, few enough that cheap envs do not pay for
  // the counters. Never one chunk for everything (a floor of 16 envs per chunk once left 16
  // MuJoCo envs on one thread).
  const std::int64_t chunk = std::max<std::int64_t>(1, n / (t * 8));
  const std::int64_t chunks = (n + chunk - 1) / chunk;
  const auto first_chunk = [&](std::int64_t k) { return k * chunks / t; };
  for (std::int64_t k = 0; k < t; ++k) counters_[static_cast<std::size_t>(k)].next.store(first_chunk(k), std::memory_order_relaxed);
  pool_.run([&](int self) {
    for (std::int64_t j = 0; j < t; ++j) {
      const std::int64_t k = (self + j) % t;  // home first, then the next threads' slices
      auto& next = counters_[static_cast<std::size_t>(k)].next;
      const std::int64_t last = first_chunk(k + 1);
      while (next.load(std::memory_order_relaxed) < last) {
        const std::int64_t c = next.fetch_add(1, std::memory_order_relaxed);
        if (c >= last) break;
        fn(c * chunk, std::min(n, (c + 1) * chunk));
      }
    }
  });
}

std::vector<std::unique_ptr<Env>> make_envs(const std::string& id, std::int64_t n, const YAML::Node& kwargs) {
  if (n < 1) throw UserError(fmt::format("number of envs must be >= 1, got {}", n));
  std::vector<std::unique_ptr<Env>> envs;
  envs.reserve(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) envs.push_back(make_env(id, kwargs));
  return envs;
}

std::unique_ptr<VectorEnv> make_vector_env(const std::string& id, std::int64_t n, int num_threads,
                                           const YAML::Node& kwargs) {
  if (num_threads <= 1) return std::make_unique<SyncVectorEnv>(make_envs(id, n, kwargs));
  return std::make_unique<ThreadedVectorEnv>(make_envs(id, n, kwargs), num_threads);
}

}  // namespace rlzoo
