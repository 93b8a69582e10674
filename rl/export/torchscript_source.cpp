#include "rl/export/torchscript_source.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>

#include "rl/nets/layers.h"
#include "rl/nets/observation.h"
#include "core/common/dtype.h"
#include "core/common/error.h"
#include "core/common/strings.h"

namespace rlzoo {

namespace {

// A float literal that TorchScript reads as a float with exactly this value.
std::string py_float(double v) {
  RLZOO_CHECK(std::isfinite(v), "non-finite literal");
  std::string s = fmt::format("{}", v);  // shortest text that reads back as v
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

// Dtype conversions. TorchScript compiled without Python has no names such as torch.float32
// (Python's resolver supplies them) and no Tensor.bool(); it takes the ScalarType's number.
std::string to(torch::ScalarType t) { return fmt::format(".to({})", static_cast<int>(t)); }
const std::string to_float = to(torch::kFloat32), to_double = to(torch::kFloat64), to_long = to(torch::kInt64),
                  to_bool = to(torch::kBool);

std::string attribute_name(const std::string& tensor_name) {
  std::string s = tensor_name;
  for (char& c : s)
    if (c == '.') c = '_';
  return s;
}

// The network's tensors by name; records which ones the generated code reads.
class TensorTable {
 public:
  explicit TensorTable(const std::vector<std::pair<std::string, torch::Tensor>>& tensors) {
    for (const auto& [name, t] : tensors) {
      RLZOO_CHECK(by_name_.emplace(name, t).second, "tensor '" + name + "' twice");
      order_.push_back(name);
    }
  }
  bool has(const std::string& name) const { return by_name_.count(name) > 0; }
  // "self.<attribute>" for the tensor `name`, which must exist.
  std::string ref(const std::string& name) {
    RLZOO_CHECK(has(name), fmt::format("the exported network has no tensor '{}' (it has: {})", name, join(order_)));
    used_.insert(name);
    return "self." + attribute_name(name);
  }
  // The tensors as attributes, in the network's order. All must have been read except `spare`
  // (kept for users, e.g. a Gaussian's log_std).
  std::vector<std::pair<std::string, torch::Tensor>> attributes(const std::set<std::string>& spare) const {
    std::vector<std::pair<std::string, torch::Tensor>> out;
    for (const auto& name : order_) {
      RLZOO_CHECK(used_.count(name) || spare.count(name),
                  fmt::format("tensor '{}' of the network is not used by the TorchScript generator: the network has a "
                              "part that rl/export/torchscript_source.cpp does not write out",
                              name));
      out.emplace_back(attribute_name(name), by_name_.at(name));
    }
    return out;
  }

 private:
  std::map<std::string, torch::Tensor> by_name_;
  std::vector<std::string> order_;
  std::set<std::string> used_;
};

// Source text, one method after another. Lines are written with their indentation.
class Code {
 public:
  void def(const std::string& signature) { text_ += "\ndef " + signature + ":\n"; }
  void line(const std::string& s, int depth = 1) { text_ += std::string(4 * depth, ' ') + s + "\n"; }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

// The activation modules of rl/nets/layers.cpp with their default arguments.
std::string activation(const std::string& name, const std::string& x) {
  if (name == "tanh") return "torch.tanh(" + x + ")";
  if (name == "relu") return "torch.relu(" + x + ")";
  if (name == "elu") return "torch.elu(" + x + ", 1.0, 1, 1)";
  if (name == "leaky_relu") return "torch.leaky_relu(" + x + ", 0.01)";
  if (name == "gelu") return "torch.gelu(" + x + ")";
  if (name == "silu") return "torch.silu(" + x + ")";
  throw UserError(fmt::format("cannot export activation '{}' (known: {})", name, join(activation_names())));
}

std::string linear(TensorTable& t, const std::string& prefix, const std::string& x) {
  return fmt::format("torch.linear({}, {}, {})", x, t.ref(prefix + "weight"), t.ref(prefix + "bias"));
}

// `def <name>(self, x)`: Mlp (rl/nets/layers.h), Linear layers at the even indices of
// "<prefix>layers", each followed by the activation.
void mlp_method(Code& code, TensorTable& t, const std::string& name, const std::string& prefix,
                const PolicyConfig& config) {
  code.def(name + "(self, x: Tensor) -> Tensor");
  for (std::size_t i = 0; i < config.hidden.size(); ++i)
    code.line("x = " + activation(config.activation, linear(t, fmt::format("{}layers.{}.", prefix, 2 * i), "x")));
  code.line("return x");
}

// Lines turning observation field `i` (variable `o`) into features `e<i>`, as
// ObservationEncoder::encode does.
void encode_field(Code& code, TensorTable& t, std::size_t i, const Space& s) {
  const std::string e = fmt::format("e{}", i);
  if (is_image_space(s)) {  // NatureCnn: uint8 images scaled by 1/255, HWC or CHW
    const std::string p = fmt::format("encoder.cnn{}.", i);
    code.line(e + " = o" + to_float + " / 255.0");
    if (s.shape()[2] <= 4) code.line(e + " = " + e + ".permute([0, 3, 1, 2])");
    const int strides[] = {4, 2, 1};
    for (int k = 0; k < 3; ++k)
      code.line(fmt::format("{0} = torch.relu(torch.conv2d({0}, {1}, {2}, [{3}, {3}], [0, 0], [1, 1], 1))", e,
                            t.ref(fmt::format("{}convs.{}.weight", p, 2 * k)),
                            t.ref(fmt::format("{}convs.{}.bias", p, 2 * k)), strides[k]));
    code.line(e + " = " + e + ".flatten(1, -1)");
    code.line(e + " = torch.relu(" + linear(t, p + "fc.", e) + ")");
    return;
  }
  switch (s.kind()) {
    case SpaceKind::Discrete:
      code.line(fmt::format("{} = torch.one_hot(o{} - {}, {}){}", e, to_long, s.start(), s.n(), to_float));
      return;
    case SpaceKind::MultiDiscrete: {
      std::vector<std::string> parts;
      for (std::size_t k = 0; k < s.nvec().size(); ++k)
        parts.push_back(fmt::format("torch.one_hot(o.select(1, {}){}, {})", k, to_long, s.nvec()[k]));
      code.line(fmt::format("{} = torch.cat([{}], 1){}", e, join(parts), to_float));
      return;
    }
    case SpaceKind::Box:
    case SpaceKind::MultiBinary: code.line(e + " = o.reshape([o.size(0), -1])" + to_float); return;
    case SpaceKind::Dict: break;
  }
  throw UserError("cannot export an observation field " + s.describe());
}

// `def _encode(self, obs)`: the observation normaliser (if any), then ObservationEncoder.
void encoder_method(Code& code, TensorTable& t, const PolicyExport& p, const std::string& obs_type) {
  code.def("_encode(self, obs: " + obs_type + ") -> Tensor");
  std::vector<Space> fields;
  if (p.observation_space.kind() == SpaceKind::Dict)
    for (const auto& f : p.observation_space.fields()) fields.push_back(*f.space);
  else
    fields.push_back(p.observation_space);
  for (std::size_t i = 0; i < fields.size(); ++i) {
    code.line(fields.size() == 1 && obs_type == "Tensor" ? "o = obs" : fmt::format("o = obs[{}]", i));
    if (i == 0 && p.observation_normalization) {  // ObservationNormalizer::normalize, in float64
      const auto& n = *p.observation_normalization;
      code.line("flat = o.reshape([o.size(0), -1])" + to_double);
      code.line("flat = (flat - self.obs_mean) / torch.sqrt(self.obs_var + " + py_float(n.epsilon) + ")");
      if (n.clip > 0) code.line(fmt::format("flat = flat.clamp({}, {})", py_float(-n.clip), py_float(n.clip)));
      code.line("o = flat" + to_float + ".reshape(o.size())");
    }
    encode_field(code, t, i, fields[i]);
  }
  if (fields.size() == 1) {
    code.line("return e0");
  } else {
    std::vector<std::string> parts;
    for (std::size_t i = 0; i < fields.size(); ++i) parts.push_back(fmt::format("e{}", i));
    code.line("return torch.cat([" + join(parts) + "], 1)");
  }
}

// Lines running one step of the RNN under `prefix` ("rnn." or "critic_rnn.") on `seq`
// [1, B, F] from state rows [first, first + rows) of `state`, giving <out> [1, B, H] and
// <out>_state (RecurrentEncoder::forward with T = 1).
void rnn_step(Code& code, TensorTable& t, const RecurrentConfig& r, const std::string& prefix, std::int64_t first,
              const std::string& out) {
  const bool lstm = r.cell == "lstm";
  const std::string module = prefix + (lstm ? "lstm." : "gru.");
  std::vector<std::string> params;
  for (std::int64_t l = 0; l < r.layers; ++l)
    for (const char* kind : {"weight_ih", "weight_hh", "bias_ih", "bias_hh"})
      params.push_back(t.ref(fmt::format("{}{}_l{}", module, kind, l)));
  const std::string s = out + "_s";
  code.line(fmt::format("{} = state.narrow(0, {}, {})", s, first, lstm ? 2 : 1));
  if (lstm) {
    code.line(fmt::format("{0}, {0}_h, {0}_c = torch.lstm(seq, [{1}[0], {1}[1]], [{2}], True, {3}, 0.0, False, False, "
                          "False)",
                          out, s, join(params), r.layers));
    code.line(fmt::format("{0}_state = torch.stack([{0}_h, {0}_c])", out));
  } else {
    code.line(fmt::format("{0}, {0}_h = torch.gru(seq, {1}[0], [{2}], True, {3}, 0.0, False, False, False)", out, s,
                          join(params), r.layers));
    code.line(fmt::format("{0}_state = {0}_h.unsqueeze(0)", out));
  }
}

// "[B, 4]": the shape of a batch of elements of `s`.
std::string shape_doc(const Space& s) {
  std::string d = "[B";
  for (auto x : s.shape()) d += fmt::format(", {}", x);
  return d + "]";
}
std::string tensor_doc(const Space& s) { return fmt::format("{} {}", dtype_name(s.dtype()), shape_doc(s)); }

struct Generator {
  const PolicyExport& p;
  TensorTable t;
  Code code;
  TorchScriptPolicy out;
  std::string obs_type;  // "Tensor" or "List[Tensor]"
  bool discrete;

  explicit Generator(const PolicyExport& policy)
      : p(policy), t(policy.tensors), discrete(policy.action_space.is_discrete()) {
    out.dict_observations = p.observation_space.kind() == SpaceKind::Dict;
    obs_type = out.dict_observations ? "List[Tensor]" : "Tensor";
    if (!discrete && !(p.action_space.is_box() && dtype_is_floating(p.action_space.dtype())))
      throw UserError("cannot export a policy for the action space " + p.action_space.describe() +
                      " (exported: Discrete, float Box)");
    if (!discrete) {  // act() clips Box actions to the bounds
      const Space& a = p.action_space;
      out.buffers.emplace_back("action_low", torch::tensor(a.low(), torch::kFloat64).to(torch::kFloat32).view(a.shape()));
      out.buffers.emplace_back("action_high",
                               torch::tensor(a.high(), torch::kFloat64).to(torch::kFloat32).view(a.shape()));
    }
    if (const auto& n = p.observation_normalization) {
      out.buffers.emplace_back("obs_mean", torch::tensor(n->mean, torch::kFloat64));
      out.buffers.emplace_back("obs_var", torch::tensor(n->var, torch::kFloat64));
    }
  }

  std::string obs_doc() const {
    if (!out.dict_observations) return "obs: " + tensor_doc(p.observation_space);
    std::vector<std::string> f;
    for (const auto& field : p.observation_space.fields()) f.push_back(field.name + ": " + tensor_doc(*field.space));
    return "obs: a list of one tensor per Dict field, in order: " + join(f);
  }
  std::string actions_doc() const {
    if (discrete) return fmt::format("int64 [B] in {}", p.action_space.describe());
    return fmt::format("float32 {} clipped to the bounds of {}", shape_doc(p.action_space),
                       p.action_space.describe());
  }
  std::string mask_doc() const { return fmt::format("mask: bool [B, {}], true = legal", p.action_space.n()); }
  void method(const std::string& signature, const std::string& doc) { out.methods.push_back({signature, doc}); }

  // `def _actions(self, features, mask)`: the policy head's mode, as act() returns it.
  void policy_head(const std::string& head) {
    code.def("_actions(self, features: Tensor, mask: Optional[Tensor]) -> Tensor");
    code.line("out = " + linear(t, head, "features"));
    if (discrete) {  // Categorical: masked logits -> log-softmax -> argmax
      code.line("if mask is not None:");
      code.line("out = out.masked_fill(mask" + to_bool + ".logical_not(), -100000000.0)", 2);
      code.line(fmt::format("return torch.log_softmax(out, -1).argmax(-1){}", offset()));
    } else {  // DiagGaussian's mode is its mean
      code.line("return torch.max(torch.min(out" + to_float + ", self.action_high), self.action_low)");
    }
  }
  std::string offset() const {
    return p.discrete_action_offset ? fmt::format(" + {}", p.discrete_action_offset) : std::string();
  }

  void actor_critic() {
    const PolicyConfig& c = p.policy;
    const bool recurrent = c.recurrent.enabled();
    out.recurrent = recurrent;
    encoder_method(code, t, p, obs_type);
    mlp_method(code, t, "_pi_trunk", "pi_trunk.", c);
    if (!c.shared_trunk) mlp_method(code, t, "_vf_trunk", "vf_trunk.", c);
    policy_head("pi_head.");
    const std::string vf_trunk = c.shared_trunk ? "self._pi_trunk" : "self._vf_trunk";
    code.def("_values(self, features: Tensor) -> Tensor");
    code.line("return " + linear(t, "vf_head.", "features") + ".squeeze(-1)");
    if (!recurrent) {
      code.def("forward(self, obs: " + obs_type + ") -> Tensor");
      code.line("return self._actions(self._pi_trunk(self._encode(obs)), None)");
      method("forward(obs) -> Tensor", obs_doc() + " -> actions: " + actions_doc());
      if (discrete) {
        code.def("forward_masked(self, obs: " + obs_type + ", mask: Tensor) -> Tensor");
        code.line("return self._actions(self._pi_trunk(self._encode(obs)), mask)");
        method("forward_masked(obs, mask) -> Tensor", "forward() among legal actions; " + mask_doc());
      }
      code.def("value(self, obs: " + obs_type + ") -> Tensor");
      code.line("return self._values(" + vf_trunk + "(self._encode(obs)))");
      method("value(obs) -> Tensor", "state values, float32 [B]");
      return;
    }
    // Recurrent: ActorCritic::forward_sequence with T = 1 and act_with_state()'s checks.
    const RecurrentConfig& r = c.recurrent;
    const std::int64_t rows = r.cell == "lstm" ? 2 : 1;
    const std::int64_t state_rows = r.shared ? rows : 2 * rows;
    code.def("initial_state(self, batch: int) -> Tensor");
    code.line(fmt::format("return torch.zeros([{}, {}, batch, {}])", state_rows, r.layers, r.hidden));
    code.def("_recurrent(self, obs: " + obs_type +
             ", state: Tensor, episode_start: Tensor) -> Tuple[Tensor, Tensor, Tensor]");
    code.line("x = self._encode(obs)");
    // `assert` is the exception TorchScript can raise without Python's names.
    code.line(fmt::format("assert state.dim() == 4 and state.size(0) == {0} and state.size(1) == {1} and state.size(2) "
                          "== x.size(0) and state.size(3) == {2}, \"state must be [{0}, {1}, B, {2}] for B "
                          "observations (initial_state(B), then the state the previous call returned)\"",
                          state_rows, r.layers, r.hidden));
    code.line("assert episode_start.numel() == x.size(0), \"episode_start must have one entry per observation\"");
    code.line("state = state" + to_float);
    code.line("starts = episode_start" + to_bool + ".reshape([1, -1])");
    code.line("if bool(starts.any()):");
    code.line("state = state * (1.0 - starts[0]" + to_float + ").view([1, 1, -1, 1])", 2);
    code.line("seq = x.view([1, x.size(0), x.size(1)])");
    rnn_step(code, t, r, "rnn.", 0, "pi");
    code.line("pi_in = pi.reshape([x.size(0), -1])");
    if (r.shared) {
      code.line("return pi_in, pi_in, pi_state");
    } else {
      rnn_step(code, t, r, "critic_rnn.", rows, "vf");
      code.line("return pi_in, vf.reshape([x.size(0), -1]), torch.cat([pi_state, vf_state])");
    }
    const std::string args = "obs: " + obs_type + ", state: Tensor, episode_start: Tensor";
    code.def("forward(self, " + args + ") -> Tuple[Tensor, Tensor]");
    code.line("pi_in, vf_in, new_state = self._recurrent(obs, state, episode_start)");
    code.line("return self._actions(self._pi_trunk(pi_in), None), new_state");
    const std::string state_doc =
        fmt::format("state: float32 [{}, {}, B, {}] (initial_state(B) at the start), episode_start: bool [B]",
                    state_rows, r.layers, r.hidden);
    method("forward(obs, state, episode_start) -> Tuple[Tensor, Tensor]",
           obs_doc() + "; " + state_doc + " -> (actions: " + actions_doc() + ", the state after these observations)");
    if (discrete) {
      code.def("forward_masked(self, " + args + ", mask: Tensor) -> Tuple[Tensor, Tensor]");
      code.line("pi_in, vf_in, new_state = self._recurrent(obs, state, episode_start)");
      code.line("return self._actions(self._pi_trunk(pi_in), mask), new_state");
      method("forward_masked(obs, state, episode_start, mask) -> Tuple[Tensor, Tensor]",
             "forward() among legal actions; " + mask_doc());
    }
    code.def("value(self, " + args + ") -> Tensor");
    code.line("pi_in, vf_in, new_state = self._recurrent(obs, state, episode_start)");
    code.line("return self._values(" + vf_trunk + "(vf_in))");
    method("value(obs, state, episode_start) -> Tensor", "state values, float32 [B], from the same state as forward()");
    method("initial_state(batch: int) -> Tensor", "the state at an episode start (zeros)");
  }

  void q_network() {
    const PolicyConfig& c = p.policy;
    encoder_method(code, t, p, obs_type);
    mlp_method(code, t, "_trunk", "trunk.", c);
    code.def("q_values(self, obs: " + obs_type + ") -> Tensor");
    code.line("h = self._trunk(self._encode(obs))");
    code.line("a = " + linear(t, "q_head.", "h"));
    if (c.dueling)
      code.line("return " + linear(t, "v_head.", "h") + " + a - a.mean(-1, True)");
    else
      code.line("return a");
    code.def("forward(self, obs: " + obs_type + ") -> Tensor");
    code.line(fmt::format("return self.q_values(obs).argmax(1){}", offset()));
    code.def("forward_masked(self, obs: " + obs_type + ", mask: Tensor) -> Tensor");
    code.line("q = self.q_values(obs).masked_fill(mask" + to_bool + ".logical_not(), float(\"-inf\"))");
    code.line(fmt::format("return q.argmax(1){}", offset()));
    method("forward(obs) -> Tensor", obs_doc() + " -> greedy actions: " + actions_doc());
    method("forward_masked(obs, mask) -> Tensor", "forward() among legal actions; " + mask_doc());
    method("q_values(obs) -> Tensor", fmt::format("action values, float32 [B, {}]", p.action_space.n()));
  }

  void mlp_policy() {
    const Space& o = p.observation_space;
    if (!o.is_box() || o.shape().size() != 1)
      throw UserError("cannot export an MLP policy for the observation space " + o.describe() + " (a flat Box)");
    mlp_method(code, t, "_trunk", "trunk.", p.policy);
    policy_head("head.");
    code.def("forward(self, obs: Tensor) -> Tensor");
    code.line("return self._actions(self._trunk(obs" + to_float + "), None)");
    method("forward(obs) -> Tensor", obs_doc() + " -> actions: " + actions_doc());
  }

  // SquashedGaussianActor / DeterministicActor with the deterministic action act() returns:
  // tanh of the mean, then BoxActionScaling::to_env.
  void tanh_actor() {
    const std::int64_t dim = p.action_space.numel();
    if (!p.action_space.is_bounded())
      throw UserError("cannot export a tanh actor for " + p.action_space.describe() + ": its bounds are not finite");
    out.buffers.emplace_back("action_low64", torch::tensor(p.action_space.low(), torch::kFloat64));
    out.buffers.emplace_back("action_high64", torch::tensor(p.action_space.high(), torch::kFloat64));
    encoder_method(code, t, p, obs_type);
    mlp_method(code, t, "_trunk", "trunk.", p.policy);
    code.def("forward(self, obs: " + obs_type + ") -> Tensor");
    code.line("out = " + linear(t, "head.", "self._trunk(self._encode(obs))") + fmt::format(".narrow(1, 0, {})", dim));
    if (p.clip_mean > 0) code.line(fmt::format("out = out.clamp({}, {})", py_float(-p.clip_mean), py_float(p.clip_mean)));
    code.line(p.tanh_in_float64 ? "u = torch.tanh(out" + to_double + ")" : "u = torch.tanh(out)" + to_double);
    code.line("a = self.action_low64 + (u + 1.0) * 0.5 * (self.action_high64 - self.action_low64)");
    std::string shape = "[a.size(0)";
    for (auto d : p.action_space.shape()) shape += fmt::format(", {}", d);
    code.line("return a" + to_float + ".reshape(" + shape + "])");
    method("forward(obs) -> Tensor", obs_doc() + fmt::format(" -> actions: float32 {}, tanh of the actor's {} rescaled to "
                                                              "the bounds of {}",
                                                              shape_doc(p.action_space),
                                                              p.tanh_in_float64 ? "mean" : "output",
                                                              p.action_space.describe()));
  }

  TorchScriptPolicy run() {
    switch (p.network) {
      case PolicyExport::Network::actor_critic: actor_critic(); break;
      case PolicyExport::Network::q_network: q_network(); break;
      case PolicyExport::Network::mlp_policy: mlp_policy(); break;
      case PolicyExport::Network::tanh_actor: tanh_actor(); break;
    }
    out.source = code.text();
    out.parameters = t.attributes({"log_std"});
    return std::move(out);
  }
};

}  // namespace

TorchScriptPolicy generate_torchscript_policy(const PolicyExport& policy) {
  if (policy.observation_normalization &&
      !(policy.observation_space.is_box() && dtype_is_floating(policy.observation_space.dtype())))
    throw UserError("observation normalisation can be exported for a float Box observation space only, not " +
                    policy.observation_space.describe());
  return Generator(policy).run();
}

}  // namespace rlzoo
