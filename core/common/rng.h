// The one random-number generator type of rlzoo. Every env, sampler and buffer owns one;
// nothing touches a global RNG. The distributions are written here (not std::*_distribution)
// so that a seed gives the same numbers with every standard library.
#pragma once

#include <cstdint>
#include <random>
#include <string>

namespace rlzoo {

class Rng {
 public:
  explicit Rng(std::uint64_t seed = 0) { seed_with(seed); }

  void seed_with(std::uint64_t seed);
  std::uint64_t next_u64() { return engine_(); }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  double uniform(double low, double high) { return low + (high - low) * uniform(); }
  // Uniform integer in [0, n); n > 0. Unbiased (rejection sampling).
  std::uint64_t below(std::uint64_t n);
  // Standard normal (Box-Muller, no cached second value so the state is just the engine).
  double normal();

  // Exact state as text, for checkpoints.
  std::string state() const;
  void set_state(const std::string& s);

  bool operator==(const Rng& o) const { return engine_ == o.engine_; }

 private:
  std::mt19937_64 engine_;
};

// Derives independent child seeds (env i of a vector env, actor j, ...) from one seed.
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream);

}  // namespace rlzoo
