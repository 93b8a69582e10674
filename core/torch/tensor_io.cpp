#include "core/torch/tensor_io.h"

#include <mutex>
#include <set>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/common/error.h"
#include "core/torch/compat.h"
#include "core/torch/device.h"

namespace rlzoo {

namespace {

// LibTorch messages end in newlines and, via what(), a C++ backtrace; keep the message only.
std::string torch_message(const std::exception& e) {
  const auto* c10 = dynamic_cast<const c10::Error*>(&e);
  std::string msg = c10 != nullptr ? c10->what_without_backtrace() : e.what();
  while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
  return msg;
}

std::string to_bytes(torch::serialize::OutputArchive& archive) {
  std::ostringstream out;
  archive.save_to(out);
  return std::move(out).str();
}

// Tensors are mapped onto `device` as they are read: a checkpoint written on a GPU loads on a
// CPU-only machine, and one written on the CPU loads straight into a learner on a GPU.
torch::serialize::InputArchive open_archive(std::string_view bytes, std::string_view blob,
                                            const torch::Device& device = torch::kCPU) {
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(bytes.data(), bytes.size(), device);
  } catch (const std::exception& e) {
    throw UserError(fmt::format("{}: not a LibTorch archive ({})", blob, torch_message(e)));
  }
  return archive;
}

std::string label(const CheckpointReader& reader, std::string_view name) {
  return (reader.dir() / name).string();
}

std::string shape(const torch::Tensor& t) { return fmt::format("[{}]", fmt::join(t.sizes(), ", ")); }

// ---- module checks ----

void compare_tensor(const std::string& what, const torch::Tensor& saved, const torch::Tensor& current,
                    std::vector<std::string>& problems) {
  if (!saved.sizes().equals(current.sizes()))
    problems.push_back(fmt::format("{} has shape {} in the checkpoint but {} in the module", what, shape(saved),
                                   shape(current)));
  else if (saved.scalar_type() != current.scalar_type())
    problems.push_back(fmt::format("{} has dtype {} in the checkpoint but {} in the module", what,
                                   c10::toString(saved.scalar_type()), c10::toString(current.scalar_type())));
}

// Walks the module tree the way Module::save writes it (parameters, buffers, then one nested
// archive per serialisable child) and lists every difference, without changing the module.
void collect_module_problems(const torch::nn::Module& module, torch::serialize::InputArchive& archive,
                             const std::string& prefix, std::vector<std::string>& problems) {
  std::set<std::string> expected;
  for (const auto& p : module.named_parameters(/*recurse=*/false)) {
    expected.insert(p.key());
    torch::Tensor saved;
    if (!archive.try_read(p.key(), saved))
      problems.push_back(fmt::format("parameter '{}{}' is missing", prefix, p.key()));
    else
      compare_tensor(fmt::format("parameter '{}{}'", prefix, p.key()), saved, p.value(), problems);
  }
  for (const auto& b : module.named_buffers(/*recurse=*/false)) {
    expected.insert(b.key());
    torch::Tensor saved;
    if (!archive.try_read(b.key(), saved, /*is_buffer=*/true))
      problems.push_back(fmt::format("buffer '{}{}' is missing", prefix, b.key()));
    else
      compare_tensor(fmt::format("buffer '{}{}'", prefix, b.key()), saved, b.value(), problems);
  }
  for (const auto& c : module.named_children()) {
    if (!c.value()->is_serializable()) continue;
    expected.insert(c.key());
    torch::serialize::InputArchive child;
    if (!archive.try_read(c.key(), child))
      problems.push_back(fmt::format("submodule '{}{}' is missing", prefix, c.key()));
    else
      collect_module_problems(*c.value(), child, prefix + c.key() + ".", problems);
  }
  for (const std::string& key : archive.keys())
    if (expected.count(key) == 0)
      problems.push_back(fmt::format("'{}{}' is in the checkpoint but not in the module", prefix, key));
}

std::string summarize(const std::vector<std::string>& problems) {
  constexpr std::size_t kShown = 5;
  std::string out;
  for (std::size_t i = 0; i < problems.size() && i < kShown; ++i) out += (i ? "; " : "") + problems[i];
  if (problems.size() > kShown) out += fmt::format("; and {} more", problems.size() - kShown);
  return out;
}

// ---- optimizer checks ----

void expect_like(const torch::Tensor& state, const torch::Tensor& param, const char* field, std::size_t group,
                 std::size_t index, std::vector<std::string>& problems) {
  if (state.defined() && !state.sizes().equals(param.sizes()))
    problems.push_back(fmt::format("state '{}' of parameter {} in group {} has shape {} but the parameter is {}",
                                   field, index, group, shape(state), shape(param)));
}

// torch's Optimizer::load maps saved state to parameters by position without looking at
// shapes; a mismatch would only fail (or silently broadcast) at the next step().
std::vector<std::string> optimizer_problems(const torch::optim::Optimizer& optimizer) {
  namespace o = torch::optim;
  std::vector<std::string> problems;
  const auto& groups = optimizer.param_groups();
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto& params = groups[g].params();
    for (std::size_t i = 0; i < params.size(); ++i) {
      const torch::Tensor& p = params[i];
      const o::OptimizerParamState* s = optimizer_param_state(optimizer, p);
      if (s == nullptr) continue;
      if (const auto* a = dynamic_cast<const o::AdamParamState*>(s)) {
        expect_like(a->exp_avg(), p, "exp_avg", g, i, problems);
        expect_like(a->exp_avg_sq(), p, "exp_avg_sq", g, i, problems);
        expect_like(a->max_exp_avg_sq(), p, "max_exp_avg_sq", g, i, problems);
      } else if (const auto* w = dynamic_cast<const o::AdamWParamState*>(s)) {
        expect_like(w->exp_avg(), p, "exp_avg", g, i, problems);
        expect_like(w->exp_avg_sq(), p, "exp_avg_sq", g, i, problems);
        expect_like(w->max_exp_avg_sq(), p, "max_exp_avg_sq", g, i, problems);
      } else if (const auto* sgd = dynamic_cast<const o::SGDParamState*>(s)) {
        expect_like(sgd->momentum_buffer(), p, "momentum_buffer", g, i, problems);
      } else if (const auto* r = dynamic_cast<const o::RMSpropParamState*>(s)) {
        expect_like(r->square_avg(), p, "square_avg", g, i, problems);
        expect_like(r->momentum_buffer(), p, "momentum_buffer", g, i, problems);
        expect_like(r->grad_avg(), p, "grad_avg", g, i, problems);
      } else if (const auto* ada = dynamic_cast<const o::AdagradParamState*>(s)) {
        expect_like(ada->sum(), p, "sum", g, i, problems);
      }
    }
  }
  return problems;
}

}  // namespace

std::string save_module(const torch::nn::Module& module) {
  // A diverged model is not worth keeping: saving it would replace the last good checkpoint.
  for (const auto& p : module.named_parameters(/*recurse=*/true))
    if (!torch::isfinite(p.value()).all().item<bool>())
      throw UserError(fmt::format("the parameter '{}' of {} holds NaN or Inf (training diverged)", p.key(), module.name()));
  torch::serialize::OutputArchive archive;
  module.save(archive);
  return to_bytes(archive);
}

void load_module(torch::nn::Module& module, std::string_view bytes, std::string_view blob) {
  torch::serialize::InputArchive archive = open_archive(bytes, blob, module_device(module));
  std::vector<std::string> problems;
  try {
    collect_module_problems(module, archive, "", problems);
  } catch (const std::exception& e) {
    throw UserError(fmt::format("{}: cannot read the module ({})", blob, torch_message(e)));
  }
  if (!problems.empty())
    throw UserError(fmt::format("{}: cannot load into the module {}: {}", blob, module.name(), summarize(problems)));
  try {
    module.load(archive);
  } catch (const std::exception& e) {
    throw UserError(fmt::format("{}: cannot load into the module {} ({})", blob, module.name(), torch_message(e)));
  }
}

void load_module(torch::nn::Module& module, const CheckpointReader& reader, std::string_view name) {
  load_module(module, reader.read(name), label(reader, name));
}

std::string save_optimizer(const torch::optim::Optimizer& optimizer) {
  torch::serialize::OutputArchive archive;
  optimizer.save(archive);
  return to_bytes(archive);
}

namespace {
// Where the optimiser's parameters (and so its state) live.
torch::Device optimizer_device(const torch::optim::Optimizer& optimizer) {
  for (const auto& group : optimizer.param_groups())
    for (const auto& p : group.params()) return p.device();
  return torch::kCPU;
}
}  // namespace

void load_optimizer(torch::optim::Optimizer& optimizer, std::string_view bytes, std::string_view blob) {
  const torch::Device device = optimizer_device(optimizer);
  torch::serialize::InputArchive archive = open_archive(bytes, blob, device);
  // Optimizer::load can fail half-way; a copy of the current state makes the error harmless.
  const std::string backup = save_optimizer(optimizer);
  std::string problem;
  try {
    optimizer.load(archive);
    problem = summarize(optimizer_problems(optimizer));
  } catch (const std::exception& e) {
    problem = torch_message(e);
  }
  if (problem.empty()) return;
  try {
    torch::serialize::InputArchive previous = open_archive(backup, "the optimizer's previous state", device);
    optimizer.load(previous);
  } catch (const std::exception& e) {
    problem += fmt::format(" (and its previous state could not be restored: {})", torch_message(e));
  }
  throw UserError(fmt::format("{}: cannot load into the optimizer: {}", blob, problem));
}

void load_optimizer(torch::optim::Optimizer& optimizer, const CheckpointReader& reader, std::string_view name) {
  load_optimizer(optimizer, reader.read(name), label(reader, name));
}

std::string save_tensors(const TensorMap& tensors) {
  torch::serialize::OutputArchive archive;
  for (const auto& [key, tensor] : tensors) {
    if (key.empty()) throw UserError("save_tensors: a tensor has an empty name");
    try {
      archive.write(key, tensor.detach(), /*is_buffer=*/true);
    } catch (const std::exception& e) {
      throw UserError(fmt::format("save_tensors: cannot store tensor '{}' ({})", key, torch_message(e)));
    }
  }
  return to_bytes(archive);
}

TensorMap load_tensors(std::string_view bytes, std::string_view blob) {
  torch::serialize::InputArchive archive = open_archive(bytes, blob);
  TensorMap out;
  try {
    for (const std::string& key : archive.keys()) {
      torch::Tensor t;
      if (!archive.try_read(key, t, /*is_buffer=*/true))
        throw UserError(fmt::format("{}: entry '{}' is not a tensor", blob, key));
      out.emplace(key, std::move(t));
    }
  } catch (const UserError&) {
    throw;
  } catch (const std::exception& e) {
    throw UserError(fmt::format("{}: cannot read tensors ({})", blob, torch_message(e)));
  }
  return out;
}

TensorMap load_tensors(const CheckpointReader& reader, std::string_view name) {
  return load_tensors(reader.read(name), label(reader, name));
}

std::string save_generator_state(at::Generator generator) {
  torch::Tensor state;
  {
    std::lock_guard<std::mutex> lock(generator.mutex());
    state = generator.get_state();
  }
  torch::serialize::OutputArchive archive;
  archive.write("state", state, /*is_buffer=*/true);
  return to_bytes(archive);
}

void load_generator_state(std::string_view bytes, std::string_view blob, at::Generator generator) {
  torch::serialize::InputArchive archive = open_archive(bytes, blob);
  torch::Tensor state;
  try {
    if (!archive.try_read("state", state, /*is_buffer=*/true))
      throw UserError(fmt::format("{}: not a generator state (no 'state' tensor)", blob));
    std::lock_guard<std::mutex> lock(generator.mutex());
    generator.set_state(state);
  } catch (const UserError&) {
    throw;
  } catch (const std::exception& e) {
    throw UserError(fmt::format("{}: cannot restore the random generator ({})", blob, torch_message(e)));
  }
}

void load_generator_state(const CheckpointReader& reader, std::string_view name, at::Generator generator) {
  load_generator_state(reader.read(name), label(reader, name), std::move(generator));
}

}  // namespace rlzoo
