#include "rl/export/torchscript_export.h"

#include <fmt/format.h>
#include <torch/script.h>

#include <algorithm>
#include <filesystem>

#include "rl/algorithm_registry.h"
#include "rl/nets/observation.h"
#include "core/common/rng.h"
#include "core/common/strings.h"
#include "core/spaces/space_json.h"
#include "core/torch/version.h"

namespace rlzoo {

namespace fs = std::filesystem;

namespace {

nlohmann::json export_metadata(const Agent& agent, const PolicyExport& p, const TorchScriptPolicy& g) {
  nlohmann::json methods = nlohmann::json::array();
  for (const auto& m : g.methods) methods.push_back({{"signature", m.signature}, {"doc", m.doc}});
  nlohmann::json j{{"format", "rlzoo-torchscript-policy"},
                   {"format_version", 1},
                   {"rlzoo_version", RLZOO_VERSION},
                   {"torch_version", torch_version()},
                   {"algorithm", agent.algorithm()},
                   {"env", agent.env_spec().id},
                   {"num_timesteps", agent.num_timesteps()},
                   {"observation_space", space_to_json(p.observation_space)},
                   {"action_space", space_to_json(p.action_space)},
                   {"observation_normalization", p.observation_normalization.has_value()},
                   {"recurrent", g.recurrent},
                   {"methods", methods}};
  if (g.dict_observations) {
    nlohmann::json names = nlohmann::json::array();
    for (const auto& f : p.observation_space.fields()) names.push_back(f.name);
    j["observation_fields"] = names;  // the order of forward()'s list of tensors
  }
  return j;
}

torch::jit::Module build_module(const TorchScriptPolicy& g, const std::string& metadata) {
  torch::jit::Module m(c10::QualifiedName("__torch__.rlzoo.ExportedPolicy"));
  m.register_attribute("training", c10::BoolType::get(), false);
  for (const auto& [name, t] : g.parameters) m.register_parameter(name, t.detach().clone().contiguous(), false);
  for (const auto& [name, t] : g.buffers) m.register_buffer(name, t.detach().clone().contiguous());
  m.register_attribute("rlzoo_metadata", c10::StringType::get(), metadata);
  m.define(g.source);
  return m;
}

}  // namespace

std::vector<std::string> exportable_algorithms() {
  std::vector<std::string> out;
  for (const auto& name : algorithm_registry().names())
    if (algorithm_registry().get(name).capabilities.exportable) out.push_back(name);
  return out;
}

TorchScriptExport export_torchscript(const Agent& agent, const std::string& path) {
  const std::optional<PolicyExport> policy = agent.export_policy();
  if (!policy)
    throw UserError(fmt::format("a {} agent cannot be exported; algorithms that can: {}", agent.algorithm(),
                                join(exportable_algorithms())));
  const TorchScriptPolicy g = generate_torchscript_policy(*policy);
  TorchScriptExport out{path, g.methods, export_metadata(agent, *policy, g)};
  const torch::jit::Module module = build_module(g, out.metadata.dump());

  const fs::path target(path);
  if (target.has_parent_path()) {
    std::error_code ec;
    fs::create_directories(target.parent_path(), ec);
    if (ec) throw UserError(fmt::format("{}: cannot create the directory: {}", path, ec.message()));
  }
  if (fs::is_directory(target)) throw UserError(fmt::format("{}: is a directory; give the file to write", path));
  const fs::path partial = target.string() + ".partial";
  try {
    module.save(partial.string(), {{"rlzoo.json", out.metadata.dump(2) + "\n"}});
  } catch (const c10::Error& e) {
    fs::remove(partial);
    throw UserError(fmt::format("{}: cannot write: {}", path, e.what_without_backtrace()));
  }
  std::error_code ec;
  fs::rename(partial, target, ec);
  if (ec) throw UserError(fmt::format("{}: cannot write: {}", path, ec.message()));
  return out;
}

// ---- comparison with act() ---------------------------------------------------------------

namespace {

// `count` observations sampled from `space`, as act() takes them.
std::vector<torch::Tensor> sample_observations(const Space& space, std::int64_t count, Rng& rng) {
  const std::size_t row = space.byte_size();
  std::vector<std::uint64_t> storage((row * static_cast<std::size_t>(count) + 7) / 8 + 1);  // 8-byte aligned
  auto* base = reinterpret_cast<std::byte*>(storage.data());
  for (std::int64_t i = 0; i < count; ++i) space.sample(rng, Bytes(base + static_cast<std::size_t>(i) * row, row));
  return observation_tensors(space, base, count, /*copy=*/true);
}

// Random legal-action masks [count, n] with at least one legal action per row.
torch::Tensor sample_masks(std::int64_t count, std::int64_t n, Rng& rng) {
  auto mask = torch::zeros({count, n}, torch::kBool);
  auto m = mask.accessor<bool, 2>();
  for (std::int64_t i = 0; i < count; ++i) {
    for (std::int64_t a = 0; a < n; ++a) m[i][a] = rng.uniform() < 0.5;
    m[i][static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(n)))] = true;
  }
  return mask;
}

c10::IValue observation_value(const Space& space, const std::vector<torch::Tensor>& obs) {
  if (space.kind() != SpaceKind::Dict) return obs.at(0);
  return c10::List<torch::Tensor>(obs);
}

// Nested lists for dimensions [dim, end) of a contiguous tensor's values from `data`.
template <class T>
nlohmann::json nested_json(const T*& data, c10::IntArrayRef sizes, std::size_t dim) {
  if (dim == sizes.size()) return *data++;
  nlohmann::json out = nlohmann::json::array();
  for (std::int64_t i = 0; i < sizes[dim]; ++i) out.push_back(nested_json(data, sizes, dim + 1));
  return out;
}

// A tensor as nested JSON lists (integers for integer and bool tensors).
nlohmann::json tensor_json(const torch::Tensor& t) {
  if (t.is_floating_point()) {
    const auto v = t.to(torch::kFloat64).contiguous();
    const double* data = v.data_ptr<double>();
    return nested_json(data, v.sizes(), 0);
  }
  const auto v = t.to(torch::kInt64).contiguous();
  const std::int64_t* data = v.data_ptr<std::int64_t>();
  return nested_json(data, v.sizes(), 0);
}

nlohmann::json observations_json(const std::vector<torch::Tensor>& obs) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& o : obs) out.push_back(tensor_json(o));
  return out;
}

void compare(TorchScriptCheck& c, const torch::Tensor& expected, const torch::Tensor& got) {
  if (expected.sizes() != got.sizes()) {  // counts as wrong everywhere
    c.action_mismatches += expected.numel();
    return;
  }
  if (expected.is_floating_point()) {
    if (expected.numel() > 0)
      c.max_abs_diff = std::max(c.max_abs_diff, (expected.to(torch::kFloat64) - got.to(torch::kFloat64)).abs().max().item<double>());
  } else {
    c.action_mismatches += expected.ne(got).sum().item<std::int64_t>();
  }
}

}  // namespace

TorchScriptCheck check_torchscript_export(Agent& agent, const std::string& path, std::int64_t count,
                                          std::uint64_t seed) {
  torch::jit::Module module = torch::jit::load(path);
  torch::NoGradGuard no_grad;
  const EnvSpec& spec = agent.env_spec();
  const Space& space = spec.observation_space;
  const bool masked = module.find_method("forward_masked").has_value();
  Rng rng(seed);
  TorchScriptCheck c;
  c.observations = count;
  if (!agent.recurrent()) {
    const auto obs = sample_observations(space, count, rng);
    const torch::Tensor actions = agent.act(obs);
    compare(c, actions, module.forward({observation_value(space, obs)}).toTensor());
    c.compared.push_back("forward");
    c.samples = {{"recurrent", false}, {"observations", observations_json(obs)}, {"actions", tensor_json(actions)}};
    if (masked) {
      ActOptions o;
      o.action_mask = sample_masks(count, spec.action_space.n(), rng);
      const torch::Tensor masked_actions = agent.act(obs, o);
      compare(c, masked_actions,
              module.get_method("forward_masked")({observation_value(space, obs), o.action_mask}).toTensor());
      c.compared.push_back("forward_masked");
      c.samples["masks"] = tensor_json(o.action_mask);
      c.samples["masked_actions"] = tensor_json(masked_actions);
    }
    return c;
  }
  // Recurrent: `batch` sequences over enough steps for `count` observations, each step's
  // episode starts random (all at the first step), the state carried on both sides.
  const std::int64_t batch = std::min<std::int64_t>(count, 10);
  const std::int64_t steps = (count + batch - 1) / batch;
  c.observations = steps * batch;
  torch::Tensor state = module.get_method("initial_state")({batch}).toTensor();
  torch::Tensor agent_state;  // undefined: act_with_state starts afresh
  c.samples = {{"recurrent", true}, {"batch", batch}, {"steps", nlohmann::json::array()}};
  for (std::int64_t t = 0; t < steps; ++t) {
    const auto obs = sample_observations(space, batch, rng);
    ActOptions o;
    o.episode_start = torch::ones({batch}, torch::kBool);
    if (t > 0)
      for (std::int64_t b = 0; b < batch; ++b) o.episode_start[b] = rng.uniform() < 0.2;
    o.recurrent_state = agent_state;
    if (masked && t % 2 == 1) o.action_mask = sample_masks(batch, spec.action_space.n(), rng);
    const ActResult expected = agent.act_with_state(obs, o);
    auto out = o.action_mask.defined() ? module.get_method("forward_masked")({observation_value(space, obs), state,
                                                                               o.episode_start, o.action_mask})
                                       : module.forward({observation_value(space, obs), state, o.episode_start});
    const auto elements = out.toTuple()->elements();
    compare(c, expected.actions, elements.at(0).toTensor());
    compare(c, expected.recurrent_state, elements.at(1).toTensor());
    state = elements.at(1).toTensor();
    agent_state = expected.recurrent_state;
    nlohmann::json step{{"observations", observations_json(obs)},
                        {"episode_start", tensor_json(o.episode_start)},
                        {"actions", tensor_json(expected.actions)}};
    if (o.action_mask.defined()) step["mask"] = tensor_json(o.action_mask);
    c.samples["steps"].push_back(std::move(step));
  }
  c.compared.push_back("forward");
  if (masked) c.compared.push_back("forward_masked");
  return c;
}

}  // namespace rlzoo
