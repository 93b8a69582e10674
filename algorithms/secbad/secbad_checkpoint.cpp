// SecbadAgent's checkpoints: networks, optimisers, normalisers and envs, and the mid-episode
// state that makes resume exact (the episodes in progress, the VAE's episode buffer and the
// belief tracker).
#include <fmt/format.h>

#include "rl/agent_checkpoint.h"
#include "algorithms/secbad/secbad_agent.h"
#include "core/torch/tensor_io.h"

namespace rlzoo::secbad {

CheckpointWriter SecbadAgent::checkpoint() const {
  CheckpointWriter w = agent_checkpoint_writer(*this);
  w.add("policy.pt", save_module(*policy_));
  w.add("optimizer.pt", save_optimizer(*optimizer_));
  if (uses_vae()) {
    w.add("encoder.pt", save_module(*encoder_));
    w.add("reward_decoder.pt", save_module(*reward_decoder_));
    if (task_decoder_) w.add("task_decoder.pt", save_module(*task_decoder_));
    w.add("vae_optimizer.pt", save_optimizer(*vae_optimizer_));
  }
  nlohmann::json state{{"num_timesteps", num_timesteps_},
                       {"n_updates", n_updates_},
                       {"vae_updates", vae_updates_},
                       {"rng", rng_.state()}};
  if (state_norm_) state["state_normalizer"] = state_norm_->state();
  if (belief_norm_) state["belief_normalizer"] = belief_norm_->state();
  if (reward_norm_) state["reward_normalizer"] = reward_norm_->state();
  w.add_json("state.json", state);
  add_training_envs(w, venv_.get());
  // Mid-episode state, so that training resumes exactly: the episodes in progress and the VAE's
  // buffer, and the beliefs the training envs act on.
  if (!open_.empty()) w.add("episodes.pt", save_tensors(episode_state()));
  if (tracker_ && !open_.empty()) w.add("belief_tracker.pt", save_tensors(tracker_->state()));
  return w;
}

TensorMap SecbadAgent::episode_state() const {
  TensorMap out;
  auto put = [&](const std::string& name, const torch::Tensor& t) {
    if (t.defined()) out[name] = t;
  };
  for (std::size_t i = 0; i < open_.size(); ++i) {
    const OpenEpisode& o = open_[i];
    const std::string p = "open" + std::to_string(i) + ".";
    put(p + "states", torch::stack(o.states));
    if (!o.actions.empty()) put(p + "actions", torch::stack(o.actions));
    if (!o.contexts.empty()) put(p + "contexts", torch::stack(o.contexts));
    put(p + "rewards", torch::tensor(o.rewards, torch::kFloat64));
    put(p + "starts", torch::tensor(std::vector<std::int64_t>(o.starts.begin(), o.starts.end()), torch::kInt64));
    put(p + "next_start", torch::tensor(std::vector<std::int64_t>{o.next_start ? 1 : 0}, torch::kInt64));
  }
  std::size_t j = 0;
  for (const Episode& e : episodes_.episodes()) {
    const std::string p = "vae" + std::to_string(j++) + ".";
    put(p + "states", e.states);
    put(p + "actions", e.actions);
    put(p + "rewards", e.rewards);
    put(p + "segment_start", e.segment_start);
    put(p + "contexts", e.contexts);
  }
  return out;
}

void SecbadAgent::load_episode_state(const TensorMap& state, const std::string& where, bool open_episodes) {
  auto at = [&](const std::string& name) {
    const auto it = state.find(name);
    if (it == state.end()) throw UserError(fmt::format("{}: episodes.pt has no tensor '{}'", where, name));
    return it->second;
  };
  auto maybe = [&](const std::string& name) {
    const auto it = state.find(name);
    return it == state.end() ? torch::Tensor() : it->second;
  };
  auto rows = [](const torch::Tensor& t) { return t.defined() ? t.unbind(0) : std::vector<torch::Tensor>{}; };
  if (open_episodes) open_.assign(static_cast<std::size_t>(venv_->num_envs()), OpenEpisode{});
  for (std::size_t i = 0; open_episodes && i < open_.size(); ++i) {
    OpenEpisode& o = open_[i];
    const std::string p = "open" + std::to_string(i) + ".";
    o.states = rows(at(p + "states"));
    o.actions = rows(maybe(p + "actions"));
    o.contexts = rows(maybe(p + "contexts"));
    const auto r = at(p + "rewards").to(torch::kFloat64).contiguous();
    o.rewards.assign(r.data_ptr<double>(), r.data_ptr<double>() + r.numel());
    const auto s = at(p + "starts").to(torch::kInt64).contiguous();
    for (std::int64_t k = 0; k < s.numel(); ++k) o.starts.push_back(static_cast<std::uint8_t>(s.data_ptr<std::int64_t>()[k]));
    o.next_start = at(p + "next_start").item<std::int64_t>() != 0;
  }
  episodes_ = EpisodeBuffer(cfg_.vae.buffer_episodes);
  for (std::size_t j = 0; state.count("vae" + std::to_string(j) + ".states"); ++j) {
    const std::string p = "vae" + std::to_string(j) + ".";
    Episode e;
    e.states = at(p + "states");
    e.actions = at(p + "actions");
    e.rewards = at(p + "rewards");
    e.segment_start = at(p + "segment_start");
    e.contexts = maybe(p + "contexts");
    episodes_.add(std::move(e));
  }
}

void SecbadAgent::restore(const CheckpointReader& reader) {
  load_module(*policy_, reader, "policy.pt");
  load_optimizer(*optimizer_, reader, "optimizer.pt");
  if (uses_vae()) {
    load_module(*encoder_, reader, "encoder.pt");
    load_module(*reward_decoder_, reader, "reward_decoder.pt");
    if (task_decoder_) load_module(*task_decoder_, reader, "task_decoder.pt");
    load_optimizer(*vae_optimizer_, reader, "vae_optimizer.pt");
  }
  load_generator_state(reader, "torch_rng");
  const auto state = reader.read_json("state.json");
  num_timesteps_ = state.at("num_timesteps").get<std::int64_t>();
  n_updates_ = state.at("n_updates").get<std::int64_t>();
  vae_updates_ = state.at("vae_updates").get<std::int64_t>();
  rng_.set_state(state.at("rng").get<std::string>());
  if (state_norm_) state_norm_->load_state(state.at("state_normalizer"));
  if (belief_norm_) belief_norm_->load_state(state.at("belief_normalizer"));
  if (reward_norm_) reward_norm_->load_state(state.at("reward_normalizer"));
  create_envs();
  restore_training_envs(*venv_, reader,
                        static_cast<std::uint64_t>(setup().preset.seed) + static_cast<std::uint64_t>(num_timesteps_));
  // The episodes in progress and their beliefs continue only where the envs did (envs.json;
  // envs that cannot be saved restart their episodes). A checkpoint written before episodes
  // were saved restarts them too, with the VAE's buffer empty.
  const bool envs_continue = reader.has("envs.json") && reader.has("episodes.pt");
  if (reader.has("episodes.pt"))
    load_episode_state(load_tensors(reader, "episodes.pt"), reader.dir().string(), envs_continue);
  if (!envs_continue) {
    start_episodes();
  } else if (tracker_) {
    tracker_->load_state(load_tensors(reader, "belief_tracker.pt"));
  }
}

}  // namespace rlzoo::secbad
