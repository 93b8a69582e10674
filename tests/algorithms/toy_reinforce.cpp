#include "tests/algorithms/toy_reinforce.h"

#include <fmt/format.h>

#include "rl/agent_checkpoint.h"
#include "rl/nets/observation.h"
#include "rl/training_run.h"
#include "core/torch/tensor_io.h"

namespace rlzoo::toy {

ReinforceAgent::ReinforceAgent(const AgentSetup& setup, Flaw flaw)
    : Agent(setup),
      flaw_(flaw),
      cfg_(parse_config<ReinforceConfig>(setup.preset.hyperparams, setup.ctx.child("hyperparams"))),
      spec_(preset_env_spec(setup)) {
  const Space& obs = spec_.observation_space;
  if (!obs.is_box() || !spec_.action_space.is_discrete() || spec_.action_space.start() != 0)
    throw UserError(fmt::format("{}: needs a Box observation and Discrete actions from 0, {} has {} and {}",
                                algorithm(), spec_.id, obs.describe(), spec_.action_space.describe()));
  torch::manual_seed(static_cast<std::uint64_t>(setup.preset.seed));
  policy_ = torch::nn::Sequential(torch::nn::Linear(obs.numel(), cfg_.hidden), torch::nn::Tanh(),
                                  torch::nn::Linear(cfg_.hidden, spec_.action_space.n()));
  optimizer_ = std::make_unique<torch::optim::Adam>(policy_->parameters(), torch::optim::AdamOptions(cfg_.learning_rate));
}

std::string ReinforceAgent::algorithm() const {
  switch (flaw_) {
    case Flaw::none: return "toy_reinforce";
    case Flaw::forgets_optimizer: return "toy_reinforce_forgets_optimizer";
    case Flaw::inline_on_threads: return "toy_reinforce_inline_on_threads";
    case Flaw::random_deterministic_act: return "toy_reinforce_random_act";
  }
  return "?";
}

torch::Tensor ReinforceAgent::act(const std::vector<torch::Tensor>& obs, const ActOptions& options) {
  torch::NoGradGuard no_grad;
  const auto l = logits(obs.at(0));
  if (options.deterministic && flaw_ != Flaw::random_deterministic_act) return l.argmax(1);
  return torch::multinomial(torch::softmax(l, 1), 1).squeeze(1);
}

// The inline backend only (the broken variant declares threads as well but runs this too):
// batch_steps steps of one env, then one gradient step on the batch's returns-to-go.
void ReinforceAgent::run_training(TrainingRun& run) {
  if (!venv_) {
    venv_ = make_vector_env(preset().env, 1, 1, preset().env_kwargs);
    venv_->reset(static_cast<std::uint64_t>(preset().seed));
  }
  bool stop = false;
  while (!run.reached(num_timesteps_) && !stop) {
    std::vector<torch::Tensor> log_probs;
    std::vector<double> rewards;
    std::vector<bool> ends;
    for (std::int64_t t = 0; t < cfg_.batch_steps && !stop; ++t) {
      const auto obs = observation_tensors(spec_.observation_space, venv_->observation_bytes().data(), 1, true)[0];
      const auto lp = torch::log_softmax(logits(obs), 1);
      const auto action = torch::multinomial(lp.detach().exp(), 1).squeeze(1).contiguous();
      log_probs.push_back(lp.gather(1, action.unsqueeze(1)).squeeze());
      venv_->step(ConstBytes(static_cast<const std::byte*>(action.data_ptr()), action.nbytes()));
      rewards.push_back(venv_->rewards()[0]);
      ends.push_back(venv_->terminated()[0] || venv_->truncated()[0]);
      ++num_timesteps_;
      const StepEpisodes episodes{venv_->terminated(), venv_->truncated(), venv_->episode_returns(),
                                  venv_->episode_lengths()};
      if (!run.after_step(episodes, num_timesteps_)) stop = true;
    }
    std::vector<double> returns(rewards.size());
    double g = 0;
    for (std::size_t i = rewards.size(); i-- > 0;) returns[i] = g = rewards[i] + (ends[i] ? 0.0 : cfg_.gamma * g);
    auto g_t = torch::tensor(returns, torch::kFloat64).to(torch::kFloat32);
    g_t = (g_t - g_t.mean()) / (g_t.std(/*unbiased=*/false) + 1e-8);
    const auto loss = -(torch::stack(log_probs) * g_t).mean();
    optimizer_->zero_grad();
    loss.backward();
    gradient_reducer().reduce(policy_->parameters());
    optimizer_->step();
    run.end_cycle(num_timesteps_);
  }
}

CheckpointWriter ReinforceAgent::checkpoint() const {
  CheckpointWriter w = agent_checkpoint_writer(*this);
  w.add("policy.pt", save_module(*policy_));
  if (flaw_ != Flaw::forgets_optimizer) w.add("optimizer.pt", save_optimizer(*optimizer_));
  w.add_json("state.json", nlohmann::json{{"num_timesteps", num_timesteps_}});
  add_training_envs(w, venv_.get());
  return w;
}

void ReinforceAgent::restore(const CheckpointReader& reader) {
  load_module(*policy_, reader, "policy.pt");
  if (reader.has("optimizer.pt")) load_optimizer(*optimizer_, reader, "optimizer.pt");
  load_generator_state(reader, "torch_rng");
  num_timesteps_ = reader.read_json("state.json").at("num_timesteps").get<std::int64_t>();
  venv_ = make_vector_env(preset().env, 1, 1, preset().env_kwargs);
  restore_training_envs(*venv_, reader,
                        static_cast<std::uint64_t>(preset().seed) + static_cast<std::uint64_t>(num_timesteps_));
}

void register_toy_algorithms() {
  if (algorithm_registry().contains("toy_reinforce")) return;
  AlgorithmCapabilities caps;
  caps.learning = LearningKind::on_policy;
  caps.backends = {Backend::inline_loop};
  caps.several_learners = true;  // it averages its gradient through gradient_reducer()
  auto entry = [&](Flaw flaw, AlgorithmCapabilities c) {
    return algorithm_entry<ReinforceAgent, ReinforceConfig>("REINFORCE (a toy compiled into the tests)", c, flaw);
  };
  register_algorithm("toy_reinforce", entry(Flaw::none, caps));
  register_algorithm("toy_reinforce_forgets_optimizer", entry(Flaw::forgets_optimizer, caps));
  AlgorithmCapabilities claims_threads = caps;
  claims_threads.backends = {Backend::inline_loop, Backend::threads};
  register_algorithm("toy_reinforce_inline_on_threads", entry(Flaw::inline_on_threads, claims_threads));
  register_algorithm("toy_reinforce_random_act", entry(Flaw::random_deterministic_act, caps));
}

}  // namespace rlzoo::toy
