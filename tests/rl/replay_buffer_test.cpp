// ReplayBuffer: next observations by index, true final observations at episode ends, wrap-around,
// n-step sums against hand-computed values, and a bit-for-bit save/load round trip.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <vector>

#include "rl/buffers/replay_buffer.h"
#include "rl/nets/observation.h"
#include "core/checkpoint/reader.h"
#include "core/checkpoint/writer.h"
#include "core/common/error.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

using ::testing::HasSubstr;

// Observations are 2 floats: (step code, env). A step code identifies every observation, so a
// test can tell which one came back: 100 * step for ordinary observations, 100 * step + 50 for
// final observations (never stored in a slot).
const Space kObs = Space::box(-1e9, 1e9, {2});
const Space kAct = Space::discrete(3);

float obs_code(const torch::Tensor& bytes, std::int64_t row) {
  return observation_tensors(kObs, bytes)[0][row][0].item<float>();
}

// Drives a buffer like a vector env of n envs: keeps the current observations and feeds add().
class Feeder {
 public:
  Feeder(ReplayBuffer& rb, std::int64_t n) : rb_(rb), n_(n), obs_(2 * n), next_(2 * n), final_(2 * n) {
    set(obs_, 0, 0.0f);
  }
  // One step at time `step`; envs listed in `term`/`trunc` end their episode on it.
  void step(std::int64_t step, std::vector<double> rewards, std::vector<std::uint8_t> term = {},
            std::vector<std::uint8_t> trunc = {}) {
    if (term.empty()) term.assign(n_, 0);
    if (trunc.empty()) trunc.assign(n_, 0);
    std::vector<std::int64_t> actions(n_);
    for (std::int64_t e = 0; e < n_; ++e) actions[e] = (step + e) % 3;
    set(next_, step + 1, 0.0f);
    set(final_, step + 1, 50.0f);
    rb_.add(std::as_bytes(std::span(obs_)), std::as_bytes(std::span(actions)), rewards, term, trunc,
            std::as_bytes(std::span(next_)), std::as_bytes(std::span(final_)));
    obs_ = next_;
  }
  std::vector<float>& obs() { return obs_; }

 private:
  void set(std::vector<float>& v, std::int64_t step, float extra) {
    for (std::int64_t e = 0; e < n_; ++e) {
      v[2 * e] = static_cast<float>(100 * step) + extra;
      v[2 * e + 1] = static_cast<float>(e);
    }
  }
  ReplayBuffer& rb_;
  std::int64_t n_;
  std::vector<float> obs_, next_, final_;
};

TEST(ReplayBufferTest, NextObservationIsTheFollowingSlot) {
  ReplayBuffer rb(kObs, kAct, 20, 2);
  EXPECT_EQ(rb.slots(), 10);
  EXPECT_EQ(rb.capacity(), 20);
  Feeder f(rb, 2);
  for (int t = 0; t < 3; ++t) f.step(t, {1.0, 2.0});
  EXPECT_EQ(rb.size(), 6);
  const std::vector<std::int64_t> idx{0, 1, 2, 5};  // (slot 0, env 0), (0, 1), (1, 0), (2, 1)
  const ReplaySample s = rb.gather(idx, 0.9);
  EXPECT_EQ(obs_code(s.obs, 0), 0);
  EXPECT_EQ(obs_code(s.next_obs, 0), 100);
  EXPECT_EQ(obs_code(s.next_obs, 1), 100);
  EXPECT_EQ(observation_tensors(kObs, s.next_obs)[0][1][1].item<float>(), 1);  // env 1's row
  EXPECT_EQ(obs_code(s.obs, 2), 100);
  EXPECT_EQ(obs_code(s.next_obs, 2), 200);
  EXPECT_EQ(obs_code(s.next_obs, 3), 300);  // the newest transition: next obs in the write slot
  EXPECT_EQ(s.actions.scalar_type(), torch::kInt64);
  EXPECT_EQ(s.actions[3].item<std::int64_t>(), (2 + 1) % 3);
  EXPECT_FLOAT_EQ(s.rewards[1].item<float>(), 2.0f);
  EXPECT_FLOAT_EQ(s.discounts[0].item<float>(), 0.9f);
  EXPECT_EQ(s.terminated.sum().item<float>(), 0);
  EXPECT_EQ(rb.num_final_observations(), 0u);
  EXPECT_FALSE(rb.sampleable(3));  // the write position
}

TEST(ReplayBufferTest, EpisodeEndsUseTheTrueFinalObservation) {
  ReplayBuffer rb(kObs, kAct, 20, 2);
  Feeder f(rb, 2);
  f.step(0, {1, 1});
  f.step(1, {1, 1}, /*term=*/{1, 0});                // env 0 terminates
  f.step(2, {1, 1}, /*term=*/{}, /*trunc=*/{0, 1});  // env 1 is cut by a time limit
  f.step(3, {1, 1});
  EXPECT_EQ(rb.num_final_observations(), 2u);
  const ReplaySample s = rb.gather(std::vector<std::int64_t>{2, 5, 4}, 0.5);
  // env 0, slot 1: terminated; next is the final observation, not the reset one in slot 2.
  EXPECT_EQ(obs_code(s.next_obs, 0), 250);
  EXPECT_EQ(s.terminated[0].item<float>(), 1);
  // env 1, slot 2: truncated; not terminal, bootstraps from its final observation.
  EXPECT_EQ(obs_code(s.next_obs, 1), 350);
  EXPECT_EQ(s.terminated[1].item<float>(), 0);
  EXPECT_FLOAT_EQ(s.discounts[1].item<float>(), 0.5f);
  // env 0, slot 2: the first step of the new episode; its observation is the reset one.
  EXPECT_EQ(obs_code(s.obs, 2), 200);
  EXPECT_EQ(obs_code(s.next_obs, 2), 300);
}

// E6 (docs/reliability.md): a step that terminates exactly at the time limit is terminal: the
// target must not bootstrap, whatever the truncated flag says.
TEST(ReplayBufferTest, TerminatedAndTruncatedTogetherIsTerminal) {
  ReplayBuffer rb(kObs, kAct, 20, 2);
  Feeder f(rb, 2);
  f.step(0, {1, 1}, /*term=*/{1, 0}, /*trunc=*/{1, 1});  // env 0: both flags; env 1: time-out only
  f.step(1, {1, 1});
  const ReplaySample s = rb.gather(std::vector<std::int64_t>{0, 1}, 0.5, /*n_step=*/3);
  EXPECT_EQ(s.terminated[0].item<float>(), 1);
  EXPECT_EQ(obs_code(s.next_obs, 0), 150);  // its true final observation
  EXPECT_EQ(s.terminated[1].item<float>(), 0);
  EXPECT_EQ(obs_code(s.next_obs, 1), 150);
  // Neither n-step sum runs into the next episode.
  EXPECT_FLOAT_EQ(s.rewards[0].item<float>(), 1.0f);
  EXPECT_FLOAT_EQ(s.rewards[1].item<float>(), 1.0f);
}

TEST(ReplayBufferTest, WrapsAroundAndNeverSamplesTheWritePosition) {
  ReplayBuffer rb(kObs, kAct, 8, 2);  // 4 slots per env
  Feeder f(rb, 2);
  for (int t = 0; t < 10; ++t)
    f.step(t, {double(t), double(t)}, t == 4 ? std::vector<std::uint8_t>{1, 1} : std::vector<std::uint8_t>{});
  EXPECT_TRUE(rb.full());
  EXPECT_EQ(rb.pos(), 10 % 4);
  EXPECT_EQ(rb.size(), 3 * 2);
  // The end at step 4 (slot 0) was overwritten at step 8: its final observations are gone.
  EXPECT_EQ(rb.num_final_observations(), 0u);
  EXPECT_FALSE(rb.sampleable(2));
  // Slots hold steps 8, 9 (slots 0, 1), 6, 7 (slots 2, 3); slot 2 is the write position,
  // overwritten by the next observation of step 9.
  const ReplaySample s = rb.gather(std::vector<std::int64_t>{3 * 2, 0, 2}, 1.0);
  EXPECT_EQ(obs_code(s.obs, 0), 700);
  EXPECT_EQ(obs_code(s.next_obs, 0), 800);  // wraps to slot 0
  EXPECT_EQ(obs_code(s.obs, 1), 800);
  EXPECT_EQ(obs_code(s.next_obs, 2), 1000);  // the newest: next obs is in the write slot
  torch::manual_seed(3);
  const ReplaySample r = rb.sample(500, 0.99);
  const auto slots = torch::div(r.indices, 2, "floor");
  EXPECT_EQ(torch::eq(slots, rb.pos()).sum().item<std::int64_t>(), 0);
  EXPECT_EQ(std::get<0>(torch::_unique(slots)).numel(), 3);
}

TEST(ReplayBufferTest, NStepSumsStopAtEpisodeEndsAndTheNewestData) {
  ReplayBuffer rb(kObs, kAct, 40, 2);
  Feeder f(rb, 2);
  // env 0: rewards 1..6, terminates at step 3. env 1: rewards 10, 20, ..., truncated at step 2.
  for (int t = 0; t < 6; ++t)
    f.step(t, {double(t + 1), double(10 * (t + 1))},
           t == 3 ? std::vector<std::uint8_t>{1, 0} : std::vector<std::uint8_t>{},
           t == 2 ? std::vector<std::uint8_t>{0, 1} : std::vector<std::uint8_t>{});
  const double g = 0.5;
  const ReplaySample s = rb.gather(std::vector<std::int64_t>{0, 2 * 2, 2 * 3, 1, 2 * 4, 2 * 5, 2 * 4 + 1}, g, 3);
  // env 0 from step 0: 1 + 0.5*2 + 0.25*3 = 2.75, 3 steps, next obs = obs of step 3.
  EXPECT_FLOAT_EQ(s.rewards[0].item<float>(), 2.75f);
  EXPECT_FLOAT_EQ(s.discounts[0].item<float>(), 0.125f);
  EXPECT_EQ(s.terminated[0].item<float>(), 0);
  EXPECT_EQ(obs_code(s.next_obs, 0), 300);
  // env 0 from step 2: 3 + 0.5*4 = 5, stops at the terminal step 3.
  EXPECT_FLOAT_EQ(s.rewards[1].item<float>(), 5.0f);
  EXPECT_FLOAT_EQ(s.discounts[1].item<float>(), 0.25f);
  EXPECT_EQ(s.terminated[1].item<float>(), 1);
  EXPECT_EQ(obs_code(s.next_obs, 1), 450);
  // env 0 from step 3 (terminal itself): just r = 4.
  EXPECT_FLOAT_EQ(s.rewards[2].item<float>(), 4.0f);
  EXPECT_EQ(s.terminated[2].item<float>(), 1);
  // env 1 from step 0: 10 + 10 + 7.5 = 27.5, ends truncated at step 2: bootstrap from its final obs.
  EXPECT_FLOAT_EQ(s.rewards[3].item<float>(), 27.5f);
  EXPECT_FLOAT_EQ(s.discounts[3].item<float>(), 0.125f);
  EXPECT_EQ(s.terminated[3].item<float>(), 0);
  EXPECT_EQ(obs_code(s.next_obs, 3), 350);
  // env 0 from step 4 (new episode): 5 + 0.5*6 = 8, stops at the newest data (step 5).
  EXPECT_FLOAT_EQ(s.rewards[4].item<float>(), 8.0f);
  EXPECT_FLOAT_EQ(s.discounts[4].item<float>(), 0.25f);
  EXPECT_EQ(obs_code(s.next_obs, 4), 600);
  // env 0 from step 5, the newest: one step.
  EXPECT_FLOAT_EQ(s.rewards[5].item<float>(), 6.0f);
  EXPECT_FLOAT_EQ(s.discounts[5].item<float>(), 0.5f);
  // env 1 from step 4: 50 + 0.5*60 = 80.
  EXPECT_FLOAT_EQ(s.rewards[6].item<float>(), 80.0f);
  // n = 1 is the plain transition.
  const ReplaySample one = rb.gather(std::vector<std::int64_t>{0}, g, 1);
  EXPECT_FLOAT_EQ(one.rewards[0].item<float>(), 1.0f);
  EXPECT_EQ(obs_code(one.next_obs, 0), 100);
}

TEST(ReplayBufferTest, AStreamCutEndsThePreviousTransition) {
  ReplayBuffer rb(kObs, kAct, 20, 1);
  Feeder f(rb, 1);
  f.step(0, {1});
  f.step(1, {2});
  f.obs()[0] = 7777;  // the caller reset its env: the next obs stored by step 1 never happened
  f.step(2, {4});
  const ReplaySample s = rb.gather(std::vector<std::int64_t>{1, 0}, 0.5, 3);
  EXPECT_EQ(obs_code(s.next_obs, 0), 200);            // step 1 keeps its own next observation...
  EXPECT_EQ(s.terminated[0].item<float>(), 0);        // ... as a truncation
  EXPECT_FLOAT_EQ(s.rewards[1].item<float>(), 2.0f);  // and n-step sums stop there
  EXPECT_EQ(obs_code(s.next_obs, 1), 200);
}

TEST(ReplayBufferTest, SaveLoadContinuesBitForBit) {
  const std::string dir = test::make_temp_dir("rlzoo-replay") + "/ckpt";
  ReplayBuffer a(kObs, kAct, 12, 2);
  Feeder fa(a, 2);
  for (int t = 0; t < 9; ++t)
    fa.step(t, {0.1 * t, -0.3 * t}, t % 4 == 1 ? std::vector<std::uint8_t>{1, 0} : std::vector<std::uint8_t>{},
            t % 3 == 2 ? std::vector<std::uint8_t>{0, 1} : std::vector<std::uint8_t>{});
  CheckpointWriter w;
  a.save(w, "replay.pt");
  w.commit(dir);

  ReplayBuffer b(kObs, kAct, 12, 2);
  b.load(CheckpointReader::open(dir), "replay.pt");
  EXPECT_EQ(b.pos(), a.pos());
  EXPECT_EQ(b.full(), a.full());
  EXPECT_EQ(b.size(), a.size());
  EXPECT_EQ(b.num_final_observations(), a.num_final_observations());
  auto same = [](const ReplaySample& x, const ReplaySample& y) {
    EXPECT_TRUE(torch::equal(x.obs, y.obs));
    EXPECT_TRUE(torch::equal(x.next_obs, y.next_obs));
    EXPECT_TRUE(torch::equal(x.actions, y.actions));
    EXPECT_TRUE(torch::equal(x.rewards, y.rewards));
    EXPECT_TRUE(torch::equal(x.terminated, y.terminated));
    EXPECT_TRUE(torch::equal(x.discounts, y.discounts));
  };
  torch::manual_seed(11);
  const ReplaySample sa = a.sample(64, 0.9, 3);
  torch::manual_seed(11);
  const ReplaySample sb = b.sample(64, 0.9, 3);
  same(sa, sb);
  // Both continue identically (the loaded one knows its write position and stream).
  Feeder fb(b, 2);
  fb.obs() = fa.obs();
  for (int t = 9; t < 14; ++t) {
    fa.step(t, {1.0 * t, 2.0 * t}, t == 11 ? std::vector<std::uint8_t>{1, 1} : std::vector<std::uint8_t>{});
    fb.step(t, {1.0 * t, 2.0 * t}, t == 11 ? std::vector<std::uint8_t>{1, 1} : std::vector<std::uint8_t>{});
  }
  torch::manual_seed(12);
  const ReplaySample ta = a.sample(64, 0.9, 2);
  torch::manual_seed(12);
  const ReplaySample tb = b.sample(64, 0.9, 2);
  same(ta, tb);
  // A buffer of another geometry refuses the blob and names it.
  ReplayBuffer c(kObs, kAct, 20, 2);
  try {
    c.load(CheckpointReader::open(dir), "replay.pt");
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("replay.pt"));
    EXPECT_THAT(e.what(), HasSubstr("slots per env"));
  }
  std::filesystem::remove_all(std::filesystem::path(dir).parent_path());
}

TEST(ReplayBufferTest, EmptyAndTooSmallBuffersAreClearErrors) {
  EXPECT_THROW(ReplayBuffer(kObs, kAct, 3, 2), UserError);
  ReplayBuffer rb(kObs, kAct, 8, 2);
  EXPECT_THROW(rb.sample(4, 0.9), UserError);
  EXPECT_EQ(rb.size(), 0);
}

}  // namespace
}  // namespace rlzoo
