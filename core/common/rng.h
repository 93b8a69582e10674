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
  std::uint64_t next_u64() { return draw(); }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(draw() >> 11) * 0x1.0p-53; }
  double uniform(double low, double high) { return low + (high - low) * uniform(); }
  // Uniform integer in [0, n); n > 0. Unbiased (rejection sampling).
  std::uint64_t below(std::uint64_t n);
  // Standard normal (Box-Muller, no cached second value so the state is just the engine).
  double normal();

  // Exact state as text, for checkpoints.
  std::string state() const;
  void set_state(const std::string& s);

  bool operator==(const Rng& o) const { return engine_ == o.engine_; }

  // Asks the CPU to bring in the state words the next draws read. The engine's 2.5 KB of state
  // is a likely cache miss where many generators are used in turn (one per env of a 1024-env
  // vector env, each resetting every ~20 steps); a hint only, it changes no number.
  void prefetch_next_draws() const {
    const auto* words = reinterpret_cast<const char*>(&engine_);  // the engines keep their words first
    const std::size_t at = position_ < kStateWords ? position_ : 0;
    __builtin_prefetch(words + at * 8);
    __builtin_prefetch(words + (at + 4 < kStateWords ? at + 4 : at) * 8);
  }

 private:
  static constexpr std::size_t kStateWords = std::mt19937_64::state_size;
  std::uint64_t draw() {
    position_ = (position_ < kStateWords ? position_ : 0) + 1;  // the engine's own index, mirrored
    return engine_();
  }

  std::mt19937_64 engine_;
  std::size_t position_ = kStateWords;  // the next word the engine reads (kStateWords: it regenerates first)
};

// Derives independent child seeds (env i of a vector env, actor j, ...) from one seed.
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream);

}  // namespace rlzoo
