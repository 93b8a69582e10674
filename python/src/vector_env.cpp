// N envs stepped as one batch (core/vector/vector_env.h) with numpy in and out.
//
// Same-step autoreset (the default), as the C++ vector envs do it: the observation row of an
// env whose episode ended already holds the first observation of its next episode; the true
// final observation comes in info["final_obs"] with its "_final_obs" mask. Next-step autoreset
// (Gymnasium 1.x's default) where asked: the row keeps the final observation and the env is
// reset on the next step, its action ignored. With episode_info, info["episode"] (and, same-
// step, info["final_info"]["episode"]) carry {r, l} with their masks. The env's named scalars
// (MuJoCo's x_velocity, ...) come every step as [N] float64 arrays, each with its "_key" mask
// (False for an env that holds no value yet: one just reset).
//
// copy=False returns read-only numpy arrays over the C++ vector env's two output sets, which
// alternate from step to step (VectorEnv::enable_double_buffering: no copy, no allocation) for
// the observations, rewards and flags: what a step returns stays valid through the next step
// and is overwritten by the one after, so keeping the previous observation (SB3's _last_obs)
// is safe. The info's arrays (final_obs, the episode statistics, action_mask, acting_agent)
// are views of the live buffers. copy=True (the default) returns fresh arrays, with the
// masked-off rows of the final-step entries zeroed.
#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "bindings.h"
#include "convert.h"
#include "core/registry/env_registry.h"
#include "core/vector/vector_env.h"

namespace rlzoo::python {

namespace {

// What the numpy views point into; kept alive by every view (through a capsule), so a view
// outlives the Python vector env safely.
struct Batch {
  std::unique_ptr<VectorEnv> venv;
  std::vector<std::uint8_t> done;     // terminated | truncated of the last step
  std::vector<std::int64_t> acting;   // acting agent per env (turn-based games)
  std::vector<std::uint8_t> all_true;
};

py::array read_only(py::array a) {
  py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return a;
}

template <class T>
py::array vector_view(const T* data, std::vector<py::ssize_t> shape, py::handle base, py::dtype dt = py::dtype::of<T>()) {
  return read_only(py::array(dt, std::move(shape), data, base));
}

// Zeroes the rows of a fresh copy where mask is 0 (arrays and dicts of arrays, rows first).
void zero_rows(py::handle copied, const std::vector<std::uint8_t>& mask) {
  if (py::isinstance<py::dict>(copied)) {
    for (auto [k, v] : py::reinterpret_borrow<py::dict>(copied)) zero_rows(v, mask);
    return;
  }
  auto a = py::reinterpret_borrow<py::array>(copied);
  const std::size_t row = static_cast<std::size_t>(a.nbytes()) / mask.size();
  auto* p = static_cast<std::byte*>(a.mutable_data());
  for (std::size_t i = 0; i < mask.size(); ++i)
    if (!mask[i]) std::memset(p + i * row, 0, row);
}

class PyVectorEnv {
 public:
  PyVectorEnv(std::unique_ptr<VectorEnv> venv, bool copy, bool next_step, bool episode_info)
      : b_(std::make_shared<Batch>()), copy_(copy), next_step_(next_step), episode_info_(episode_info) {
    b_->venv = std::move(venv);
    VectorEnv& v = *b_->venv;
    if (next_step) v.set_autoreset_mode(AutoresetMode::next_step);
    v.enable_double_buffering();  // before the views over both sets are made
    n_ = v.num_envs();
    b_->done.assign(static_cast<std::size_t>(n_), 0);
    b_->acting.assign(static_cast<std::size_t>(n_), 0);
    b_->all_true.assign(static_cast<std::size_t>(n_), 1);
    masked_ = v.spec().has_action_mask;
    multi_agent_ = v.spec().num_agents > 1;
    action_buffer_.resize(static_cast<std::size_t>(n_) * v.single_action_space().byte_size());
    actions_what_ = fmt::format("{}: actions", v.spec().id);

    py::capsule base(new std::shared_ptr<Batch>(b_), [](void* p) { delete static_cast<std::shared_ptr<Batch>*>(p); });
    const auto n = static_cast<py::ssize_t>(n_);
    const py::dtype boolean = py::dtype::of<bool>();
    final_obs_ = batch_views(v.single_observation_space(), v.final_observation_bytes().data(), n_, base);
    returns_ = vector_view(v.episode_returns().data(), {n}, base);
    lengths_ = vector_view(v.episode_lengths().data(), {n}, base);
    done_ = vector_view(b_->done.data(), {n}, base, boolean);
    all_true_ = vector_view(b_->all_true.data(), {n}, base, boolean);
    acting_ = vector_view(b_->acting.data(), {n}, base);
    if (masked_)
      masks_ = vector_view(v.action_masks().data(), {n, static_cast<py::ssize_t>(v.single_action_space().n())}, base,
                           boolean);
    for (int k = 0; k < 2; ++k) {
      const VectorEnv::OutputSet& set = v.output_set(k);
      obs_[k] = batch_views(v.single_observation_space(), set.obs.data(), n_, base);
      rewards_[k] = vector_view(set.rewards.data(), {n}, base);
      terminated_[k] = vector_view(set.terminated.data(), {n}, base, boolean);
      truncated_[k] = vector_view(set.truncated.data(), {n}, base, boolean);
    }
  }

  py::tuple reset(std::optional<std::uint64_t> seed) {
    InUse use(busy_, "this vector env");
    VectorEnv& v = venv();
    {
      py::gil_scoped_release free;
      v.reset(seed);
    }
    std::fill(b_->done.begin(), b_->done.end(), 0);
    return py::make_tuple(out(obs_[v.current_output_set()]), info(false));
  }

  py::tuple step(py::handle actions) {
    InUse use(busy_, "this vector env");
    VectorEnv& v = venv();
    const Space& as = v.single_action_space();
    const std::string& what = actions_what_;
    ConstBytes bytes;
    // The converted actions (the caller's array when no conversion was needed). py::object, not
    // py::array, for this and the results below: a default py::array is a new empty numpy
    // array, and four of them were a quarter of a 16-env step's cost.
    py::object keep;
    if (as.kind() == SpaceKind::Dict) {
      write_elements(as, actions, n_, action_buffer_.data(), what);
      bytes = ConstBytes(action_buffer_);
    } else {
      py::array a = leaf_array(as, actions, n_, what);
      bytes = ConstBytes(static_cast<const std::byte*>(a.data()), action_buffer_.size());
      keep = std::move(a);
    }
    validate(bytes);
    // copy=True: the rows go to fresh arrays, copied by the thread that stepped them while they
    // are in its cache, in parallel. copy=False: the step writes the output set it returns.
    const int k = 1 - v.current_output_set();  // the set this step writes
    py::object obs, rewards, terminated, truncated;
    Rows to{};
    if (copy_) {
      // A fresh array for `view`'s rows, stored in `into`; returns where its data starts.
      const auto fresh = [](const py::object& view, py::object& into) {
        py::array a = empty_like(view);
        void* data = a.mutable_data();
        into = std::move(a);
        return data;
      };
      to.rewards = static_cast<double*>(fresh(rewards_[k], rewards));
      to.terminated = static_cast<std::uint8_t*>(fresh(terminated_[k], terminated));
      to.truncated = static_cast<std::uint8_t*>(fresh(truncated_[k], truncated));
      if (!py::isinstance<py::dict>(obs_[k]) &&
          (py::reinterpret_borrow<py::array>(obs_[k]).flags() & py::array::c_style))
        to.obs = static_cast<std::byte*>(fresh(obs_[k], obs));
    }
    std::atomic<bool> any_done{false};
    {
      py::gil_scoped_release free;
      const auto& term = v.output_set(k).terminated, &trunc = v.output_set(k).truncated;
      std::uint8_t* const done = b_->done.data();
      v.step(bytes, [&](std::int64_t begin, std::int64_t end) {
        const auto b = static_cast<std::size_t>(begin), e = static_cast<std::size_t>(end);
        if (copy_) copy_rows(to, b, e);
        std::uint8_t any = 0;
        const std::uint8_t *__restrict t = term.data(), *__restrict u = trunc.data();
        std::uint8_t* __restrict d = done;
        for (std::size_t i = b; i < e; ++i) any |= (d[i] = t[i] | u[i]);
        // Read first: a store from every chunk of every thread would bounce the line between cores.
        if (any && !any_done.load(std::memory_order_relaxed)) any_done.store(true, std::memory_order_relaxed);
      });
    }
    const bool ended = any_done.load(std::memory_order_relaxed);
    if (!copy_) return py::make_tuple(obs_[k], rewards_[k], terminated_[k], truncated_[k], info(ended));
    if (!obs) obs = copy_views(obs_[k]);  // Dict observations: copied leaf by leaf after the step
    return py::make_tuple(obs, rewards, terminated, truncated, info(ended));
  }

  bool next_step() const { return next_step_; }
  bool episode_info() const { return episode_info_; }

  py::dict spec() const { return describe_spec(venv().spec()); }

  VectorEnv& venv() const {
    if (!b_->venv) throw UserError("this vector env is closed");
    return *b_->venv;
  }
  std::int64_t num_envs() const { return n_; }
  bool copy() const { return copy_; }
  void set_copy(bool c) {
    InUse use(busy_, "this vector env");  // not while a step (which reads copy_ on its threads) runs
    copy_ = c;
  }
  int num_threads() const {
    const auto* t = dynamic_cast<const ThreadedVectorEnv*>(&venv());
    return t ? t->num_threads() : 1;
  }

  // Drops this object's hold on the envs; views handed out keep them alive until dropped.
  void close() {
    InUse use(busy_, "this vector env");
    for (auto* x : {&final_obs_, &returns_, &lengths_, &done_, &all_true_, &acting_, &masks_, &obs_[0], &obs_[1],
                    &rewards_[0], &rewards_[1], &terminated_[0], &terminated_[1], &truncated_[0], &truncated_[1]})
      *x = py::none();
    b_ = std::make_shared<Batch>();
  }
  bool closed() const { return !b_->venv; }

 private:
  py::object out(const py::object& view) const {
    if (!copy_) return view;
    return copy_views(view);
  }

  // Where a step's rows are copied to (obs null: Dict observations, copied after the step).
  struct Rows {
    std::byte* obs;
    double* rewards;
    std::uint8_t *terminated, *truncated;
  };

  // A C-contiguous array of the view's dtype and shape, not initialised.
  static py::array empty_like(const py::object& view) {
    const auto a = py::reinterpret_borrow<py::array>(view);
    return py::array(a.dtype(), std::vector<py::ssize_t>(a.shape(), a.shape() + a.ndim()));
  }

  // Rows [b, e) of the C++ batch's observations, rewards and flags into `to` (its obs skipped
  // when null).
  void copy_rows(const Rows& to, std::size_t b, std::size_t e) const {
    const VectorEnv& v = venv();
    const std::size_t ob = v.single_observation_space().byte_size(), rows = e - b;
    if (to.obs) std::memcpy(to.obs + b * ob, v.observation_bytes().data() + b * ob, rows * ob);
    std::memcpy(to.rewards + b, v.rewards().data() + b, rows * sizeof(double));
    std::memcpy(to.terminated + b, v.terminated().data() + b, rows);
    std::memcpy(to.truncated + b, v.truncated().data() + b, rows);
  }

  // Checks every row before anything is stepped, so that a bad action leaves the batch as it
  // was. Rows that fail the fast check get the env's own validation and message.
  void validate(ConstBytes bytes) const {
    VectorEnv& v = venv();
    const Space& as = v.single_action_space();
    const std::size_t ab = as.byte_size();
    auto check_row = [&](std::int64_t i) {
      try {
        v.env(i).validate_action(bytes.subspan(static_cast<std::size_t>(i) * ab, ab));
      } catch (const UserError& e) {
        throw UserError(fmt::format("actions[{}]: {}", i, e.what()));
      }
    };
    // Next-step mode: the rows whose env resets on this step have their action ignored.
    const auto pending = v.resets_pending();
    if (as.kind() == SpaceKind::Discrete) {
      const auto* a = reinterpret_cast<const std::int64_t*>(bytes.data());
      const auto masks = v.action_masks();
      const std::int64_t n = as.n(), start = as.start();
      // Unsigned: one comparison finds k < 0 and k >= n.
      const auto bad = [&](std::int64_t i) {
        const std::int64_t k = a[i] - start;
        return static_cast<std::uint64_t>(k) >= static_cast<std::uint64_t>(n) ||
               (masked_ && !masks[static_cast<std::size_t>(i * n + k)]);
      };
      // The common case in passes without branches (the compiler vectorises the first): all
      // in range, then all legal. Only a batch that fails them is searched row by row.
      std::uint64_t out_of_range = 0;
      for (std::int64_t i = 0; i < n_; ++i)
        out_of_range |= static_cast<std::uint64_t>(static_cast<std::uint64_t>(a[i] - start) >= static_cast<std::uint64_t>(n));
      std::uint8_t legal = 1;
      if (!out_of_range && masked_)
        for (std::int64_t i = 0; i < n_; ++i) legal &= masks[static_cast<std::size_t>(i * n + (a[i] - start))];
      if (out_of_range || !legal) [[unlikely]]
        for (std::int64_t i = 0; i < n_; ++i)
          if (bad(i) && !pending[static_cast<std::size_t>(i)]) check_row(i);
    } else {
      for (std::int64_t i = 0; i < n_; ++i)
        if (!pending[static_cast<std::size_t>(i)]) check_row(i);
    }
  }

  py::dict info(bool any_done) {
    py::dict d;
    VectorEnv& v = venv();
    if (any_done) {
      py::object final_obs = final_obs_, returns = returns_, lengths = lengths_, done = done_;
      if (copy_) {
        final_obs = copy_views(final_obs_);
        returns = copy_views(returns_);
        lengths = copy_views(lengths_);
        for (auto* x : {&final_obs, &returns, &lengths}) zero_rows(*x, b_->done);
        done = copy_views(done_);
      }
      py::dict episode;
      episode["r"] = returns;
      episode["l"] = lengths;
      if (!next_step_) {  // next-step: the observation row is the final observation
        d["final_obs"] = final_obs;
        d["_final_obs"] = done;
      }
      if (episode_info_) {
        if (!next_step_) {
          py::dict final_info;
          final_info["episode"] = episode;
          final_info["_episode"] = done;
          d["final_info"] = final_info;
          d["_final_info"] = done;
        }
        d["episode"] = episode;
        d["_episode"] = done;
      }
    }
    // The env's named scalars, one [N] array each with its mask: True where env i's Info holds
    // the value now (an env just reset holds none until it steps). The names are learned once,
    // from the first env that has stepped in its episode (envs without named values: none), so
    // a key does not come and go with env 0's resets and no step scans the batch for them.
    if (!scalar_names_known_)
      for (std::int64_t i = 0; i < n_; ++i) {
        if (v.env(i).elapsed_steps() == 0) continue;
        const Info& info = v.env(i).info();
        for (int k = 0; k < info.num_scalars; ++k)
          scalar_names_.push_back(info.scalars[static_cast<std::size_t>(k)].name);
        scalar_names_known_ = true;
        break;
      }
    for (std::size_t k = 0; k < scalar_names_.size(); ++k) {
      py::array_t<double> values(static_cast<py::ssize_t>(n_));
      py::array_t<bool> has(static_cast<py::ssize_t>(n_));
      double* p = values.mutable_data();
      bool* m = has.mutable_data();
      for (std::int64_t i = 0; i < n_; ++i) {
        const Info& info = v.env(i).info();
        m[i] = static_cast<int>(k) < info.num_scalars && scalar_names_[k] == info.scalars[k].name;
        p[i] = m[i] ? info.scalars[k].value : 0.0;
      }
      d[py::str(scalar_names_[k])] = values;
      d[py::str("_" + scalar_names_[k])] = has;
    }
    if (masked_) {
      d["action_mask"] = out(masks_);
      d["_action_mask"] = out(all_true_);
    }
    if (multi_agent_) {
      for (std::int64_t i = 0; i < n_; ++i) b_->acting[static_cast<std::size_t>(i)] = v.env(i).info().acting_agent;
      d["acting_agent"] = out(acting_);
      d["_acting_agent"] = out(all_true_);
    }
    return d;
  }

  std::shared_ptr<Batch> b_;
  bool copy_, next_step_, episode_info_;
  std::vector<std::string> scalar_names_;  // the Info's named values, once known
  bool scalar_names_known_ = false;
  std::int64_t n_ = 0;
  bool masked_ = false, multi_agent_ = false;
  std::vector<std::byte> action_buffer_;
  std::string actions_what_;  // "<id>: actions", the prefix of the actions' error messages
  // The views (read-only numpy arrays over the C++ batches and Batch's buffers), made once;
  // obs_[k] ... truncated_[k] over the vector env's output set k.
  py::object final_obs_, returns_, lengths_, done_, all_true_, acting_, masks_;
  py::object obs_[2], rewards_[2], terminated_[2], truncated_[2];
  std::atomic<bool> busy_{false};
};

}  // namespace

void bind_vector_env(py::module_& m) {
  py::class_<PyVectorEnv>(m, "VectorEnv", "N rlzoo envs stepped as one batch (use rlzoo.make_vec)")
      .def("reset", &PyVectorEnv::reset, py::arg("seed") = py::none(),
           "Resets every env (env i with seed + i) -> (obs, info)")
      .def("step", &PyVectorEnv::step, py::arg("actions"),
           "-> (obs, rewards, terminations, truncations, info); same-step autoreset")
      .def("close", &PyVectorEnv::close)
      .def_property_readonly("closed", &PyVectorEnv::closed)
      .def_property_readonly("num_envs", &PyVectorEnv::num_envs)
      .def_property_readonly("num_threads", &PyVectorEnv::num_threads)
      .def_property("copy", &PyVectorEnv::copy, &PyVectorEnv::set_copy)
      .def_property_readonly("next_step", &PyVectorEnv::next_step, "Next-step autoreset (else same-step)")
      .def_property_readonly("episode_info", &PyVectorEnv::episode_info)
      .def_property_readonly("spec", &PyVectorEnv::spec)
      .def_property_readonly("single_observation_space",
                             [](const PyVectorEnv& e) { return describe_space(e.venv().single_observation_space()); })
      .def_property_readonly("single_action_space",
                             [](const PyVectorEnv& e) { return describe_space(e.venv().single_action_space()); });

  m.def(
      "time_cpp_vector_steps",
      [](const std::string& id, std::int64_t num_envs, int threads, const py::array_t<std::int64_t, py::array::c_style>& actions,
         int rounds) {
        // `rlzoo bench python`'s baseline: the C++ vector env stepped through the rows of
        // `actions` ([steps, num_envs]) `rounds` times with no Python in the loop; seconds.
        if (actions.ndim() != 2 || actions.shape(1) != num_envs)
          throw UserError(fmt::format("time_cpp_vector_steps: actions must be [steps, {}]", num_envs));
        auto envs = make_envs(id, num_envs, YAML::Node());
        std::unique_ptr<VectorEnv> v;
        if (threads == 1)
          v = std::make_unique<SyncVectorEnv>(std::move(envs));
        else
          v = std::make_unique<ThreadedVectorEnv>(std::move(envs), threads);
        const std::int64_t steps = actions.shape(0);
        const std::int64_t* a = actions.data();
        py::gil_scoped_release free;
        v->reset(0);
        const auto start = std::chrono::steady_clock::now();
        for (int r = 0; r < rounds; ++r)
          for (std::int64_t t = 0; t < steps; ++t)
            v->step(std::span<const std::int64_t>(a + t * num_envs, static_cast<std::size_t>(num_envs)));
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      },
      py::arg("id"), py::arg("num_envs"), py::arg("threads"), py::arg("actions"), py::arg("rounds"));

  m.def(
      "make_vector_env",
      [](const std::string& id, std::int64_t num_envs, int threads, bool copy, const py::dict& kwargs,
         std::optional<std::int64_t> max_episode_steps, bool next_step, bool episode_info) {
        if (threads < 1) throw UserError(fmt::format("threads must be >= 1, got {}", threads));
        auto envs = make_envs(id, num_envs, kwargs_to_yaml(kwargs));
        if (max_episode_steps)
          for (auto& e : envs) e->set_max_episode_steps(*max_episode_steps);
        std::unique_ptr<VectorEnv> v;
        if (threads == 1)
          v = std::make_unique<SyncVectorEnv>(std::move(envs));
        else
          v = std::make_unique<ThreadedVectorEnv>(std::move(envs), threads);
        return std::make_unique<PyVectorEnv>(std::move(v), copy, next_step, episode_info);
      },
      py::arg("id"), py::arg("num_envs"), py::arg("threads") = 1, py::arg("copy") = true, py::arg("kwargs") = py::dict(),
      py::arg("max_episode_steps") = py::none(), py::arg("next_step") = false, py::arg("episode_info") = false);
}

}  // namespace rlzoo::python
