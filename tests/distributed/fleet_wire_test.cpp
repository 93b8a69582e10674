// The learner's checks of what arrives from the network (distributed/fleet_wire.h) and the
// security rules (distributed/fleet_auth.h), without a server.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <limits>
#include <random>

#include "distributed/fleet_auth.h"
#include "distributed/fleet_server_state.h"
#include "distributed/fleet_wire.h"
#include "tests/support/fleet_messages.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

const Space kObs = Space::box(-10, 10, {4});

Trajectory sample_trajectory() {
  const TrajectoryShape shape{3, 2, kObs.byte_size(), 8, 3, 0};
  Trajectory t(shape);
  for (std::size_t i = 0; i < t.obs.size() / 4; ++i) as_span<float>(Bytes(t.obs))[i] = 0.25f * static_cast<float>(i);
  for (std::size_t i = 0; i < t.rewards.size(); ++i) t.rewards[i] = static_cast<double>(i);
  for (std::size_t i = 0; i < t.extras.size(); ++i) t.extras[i] = -static_cast<float>(i);
  t.terminated[3] = 1;
  t.episode_returns[3] = 12.5;
  t.episode_lengths[3] = 7;
  t.sequence = 4;
  t.policy_version = 9;
  return t;
}

std::optional<WireError> decode(const fleet::TrajectoryUpload& m, Trajectory& out) {
  return decode_trajectory(m, sample_trajectory().shape, kObs, out);
}

TEST(FleetWire, TrajectoryRoundTrip) {
  const Trajectory t = sample_trajectory();
  fleet::TrajectoryUpload m;
  encode_trajectory(t, m);
  Trajectory back;
  ASSERT_FALSE(decode(m, back));
  EXPECT_EQ(back.shape, t.shape);
  EXPECT_EQ(back.obs, t.obs);
  EXPECT_EQ(back.rewards, t.rewards);
  EXPECT_EQ(back.extras, t.extras);
  EXPECT_EQ(back.terminated, t.terminated);
  EXPECT_EQ(back.episode_returns, t.episode_returns);
  EXPECT_EQ(back.episode_lengths, t.episode_lengths);
  EXPECT_EQ(back.sequence, 4u);
  EXPECT_EQ(back.policy_version, 9u);
}

TEST(FleetWire, EachKindOfBadTrajectoryIsRefusedWithItsReason) {
  fleet::TrajectoryUpload good;
  encode_trajectory(sample_trajectory(), good);
  Trajectory out;
  auto expect_kind = [&](fleet::TrajectoryUpload m, const std::string& kind, const std::string& words) {
    const auto e = decode(m, out);
    ASSERT_TRUE(e) << "accepted a bad trajectory (" << kind << ")";
    EXPECT_EQ(e->kind, kind) << e->detail;
    EXPECT_NE(e->detail.find(words), std::string::npos) << e->detail;
  };
  auto m = good;
  m.set_num_steps(4);
  expect_kind(m, "shape", "4 steps x 2 envs where the fleet agreed on 3 x 2");
  m = good;
  m.mutable_rewards()->set_dtype(fleet::Tensor::FLOAT32);
  expect_kind(m, "dtype", "rewards: dtype FLOAT32 where FLOAT64");
  m = good;
  m.mutable_extras()->set_shape(2, 4);
  expect_kind(m, "shape", "extras: shape [3, 2, 4]");
  m = good;
  m.mutable_obs()->mutable_data()->resize(10);
  expect_kind(m, "size", "obs: 10 bytes");
  m = good;
  {
    std::string r = m.rewards().data();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::memcpy(r.data() + 8, &nan, 8);
    m.mutable_rewards()->set_data(r);
  }
  expect_kind(m, "non_finite", "rewards: value 1");
  m = good;
  {
    std::string o = m.next_obs().data();
    const float inf = std::numeric_limits<float>::infinity();
    std::memcpy(o.data() + 4, &inf, 4);
    m.mutable_next_obs()->set_data(o);
  }
  expect_kind(m, "non_finite", "next_obs: row 0");
  // A final observation only counts where an episode ended.
  m = good;
  {
    std::string o = m.final_obs().data();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::memcpy(o.data(), &nan, 4);  // row 0: no episode ended there
    m.mutable_final_obs()->set_data(o);
  }
  EXPECT_FALSE(decode(m, out));
  {
    std::string o = m.final_obs().data();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::memcpy(o.data() + 3 * 16, &nan, 4);  // row 3 ended
    m.mutable_final_obs()->set_data(o);
  }
  expect_kind(m, "non_finite", "final_obs: row 3");
}

// Random damage to the bytes of a valid message (seeded): whatever still parses as a message is
// either decoded into a trajectory of the agreed shape or refused with a reason; nothing
// crashes, throws or reads out of bounds.
TEST(FleetWire, DamagedMessagesAreDecodedOrRefusedNeverCrash) {
  fleet::TrajectoryUpload good;
  encode_trajectory(sample_trajectory(), good);
  const std::string bytes = good.SerializeAsString();
  std::mt19937 rng(7);
  int parsed = 0, refused = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string damaged = bytes;
    const int edits = 1 + static_cast<int>(rng() % 8);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = rng() % damaged.size();
      switch (rng() % 3) {
        case 0: damaged[at] = static_cast<char>(rng()); break;            // flip a byte
        case 1: damaged.erase(at, 1 + rng() % 16); break;                  // cut
        default: damaged.insert(at, 1 + rng() % 16, static_cast<char>(rng()));  // insert
      }
      if (damaged.empty()) damaged.push_back('x');  // not = "x": GCC 12 -Wstringop-overflow false positive
    }
    fleet::TrajectoryUpload m;
    if (!m.ParseFromString(damaged)) continue;
    ++parsed;
    Trajectory out;
    const auto error = decode(m, out);
    if (error) {
      ++refused;
      EXPECT_FALSE(error->kind.empty());
    } else {
      EXPECT_EQ(out.shape, sample_trajectory().shape);
      EXPECT_EQ(out.obs.size(), 3u * 2u * kObs.byte_size());
    }
  }
  EXPECT_GT(parsed, 100);
  EXPECT_GT(refused, 50);
}

TEST(FleetWire, ParametersRoundTripAndBadTensorsAreErrors) {
  ParameterSnapshot s;
  s.tensors.push_back(torch::arange(6, torch::kFloat32).reshape({2, 3}));
  s.tensors.push_back(torch::tensor({7}, torch::kInt64));
  fleet::ParametersReply m;
  encode_parameters(s, m);
  const ParameterSnapshot back = decode_parameters(m);
  ASSERT_EQ(back.tensors.size(), 2u);
  EXPECT_TRUE(torch::equal(back.tensors[0], s.tensors[0]));
  EXPECT_TRUE(torch::equal(back.tensors[1], s.tensors[1]));
  m.mutable_tensors(0)->mutable_data()->resize(5);
  EXPECT_NE(test::error_of([&] { decode_parameters(m); }).find("tensor 0 holds 5 bytes where its shape makes 24"),
            std::string::npos);
}

// The Rounds stream sends the parameters as bytes framed by hand once per version
// (State::parameters_wire): they must parse as a RoundsReply whose parameters are the reply.
TEST(FleetWire, TheFramedParametersParseAsARoundsReplyHoldingTheReply) {
  ModuleParameterStore params;
  ParameterSnapshot s;
  s.tensors.push_back(torch::arange(40000, torch::kFloat32));  // a length that takes 3 varint bytes
  s.tensors.push_back(torch::tensor({7}, torch::kInt64));
  params.publish(std::move(s));
  const auto state = make_fleet_state(FleetServerOptions{}, test::small_fleet_spec(), params, 0);
  const auto reply = state->parameters_reply();
  ASSERT_EQ(reply->tensors_size(), 2);
  const auto wire = state->parameters_wire(reply);
  EXPECT_EQ(state->parameters_wire(reply), wire);  // encoded once per version
  fleet::RoundsReply parsed;
  ASSERT_TRUE(parsed.ParseFromString(*wire));
  EXPECT_FALSE(parsed.has_upload());
  EXPECT_EQ(parsed.parameters().SerializeAsString(), reply->SerializeAsString());
}

TEST(FleetAuth, TokensCompareAndAddressesAreClassified) {
  EXPECT_TRUE(constant_time_equals("secret", "secret"));
  EXPECT_FALSE(constant_time_equals("secret", "secreT"));
  EXPECT_FALSE(constant_time_equals("secret", "secret2"));
  EXPECT_FALSE(constant_time_equals("", "x"));
  EXPECT_TRUE(is_loopback_address("127.0.0.1:50051"));
  EXPECT_TRUE(is_loopback_address("localhost:1"));
  EXPECT_TRUE(is_loopback_address("[::1]:50051"));
  EXPECT_FALSE(is_loopback_address("0.0.0.0:50051"));
  EXPECT_FALSE(is_loopback_address("10.1.2.3:50051"));
  EXPECT_FALSE(is_loopback_address("[::]:50051"));
}

TEST(FleetAuth, ListeningBeyondLoopbackNeedsAToken) {
  FleetServerOptions o;
  o.listen = "0.0.0.0:0";
  EXPECT_NE(test::error_of([&] { check_server_security(o); }).find("--listen 0.0.0.0:0: listening beyond this machine needs a shared token"),
            std::string::npos);
  o.security.token = "t";
  EXPECT_EQ(test::error_of([&] { check_server_security(o); }), "");
  o.security.tls_cert = "/nonexistent/cert.pem";
  EXPECT_NE(test::error_of([&] { check_server_security(o); }).find("--tls-key"), std::string::npos);
  o.security.tls_key = "/nonexistent/key.pem";
  EXPECT_NE(test::error_of([&] { check_server_security(o); }).find("'/nonexistent/"), std::string::npos);
  const std::string dir = test::make_temp_dir("rlzoo-token");
  EXPECT_NE(test::error_of([&] { read_token_file(dir + "/missing"); }).find("token file"), std::string::npos);
}

}  // namespace
}  // namespace rlzoo
