// Spaces <-> JSON: exact round trips (infinite bounds, per-element bounds, Dict order) and
// errors that name where and what.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "core/spaces/space_json.h"
#include "tests/support/test_paths.h"

namespace rlzoo {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

constexpr double kInf = std::numeric_limits<double>::infinity();

Space round_trip(const Space& s) {
  // Through text, as a file would carry it.
  return space_from_json(json::parse(space_to_json(s).dump()), "test");
}

TEST(SpaceJson, EveryKindRoundTripsExactly) {
  const std::vector<Space> spaces = {
      Space::discrete(7),
      Space::discrete(3, -1),
      Space::multi_discrete({3, 5, 2}),
      Space::multi_binary({2, 3}),
      Space::box(-1.0, 1.0, {2}),
      Space::box(-kInf, kInf, {4}, DType::Float64),
      Space::box({-kInf, 0.1, -3.4028234663852886e38}, {kInf, 0.30000000000000004, 1e-300}, {3}),
      Space::box(0, 255, {4, 4, 3}, DType::UInt8),
      Space::box(-5, 5, {2}, DType::Int32),
      Space::box(-kInf, 7, {}, DType::Int64),
      Space::dict({{"zeta", Space::discrete(4)},
                   {"alpha", Space::box(-kInf, kInf, {3})},
                   {"inner", Space::dict({{"b", Space::multi_binary({5})}, {"a", Space::multi_discrete({2, 2})}})}}),
  };
  for (const Space& s : spaces) {
    const Space back = round_trip(s);
    EXPECT_TRUE(back == s) << s.describe() << " came back as " << back.describe();
    EXPECT_EQ(back.byte_size(), s.byte_size()) << s.describe();
  }
}

TEST(SpaceJson, DocumentedForm) {
  EXPECT_EQ(space_to_json(Space::discrete(2)), json::parse(R"({"type": "Discrete", "n": 2, "start": 0})"));
  EXPECT_EQ(space_to_json(Space::box({-1, -kInf}, {1, kInf}, {2})),
            json::parse(R"({"type": "Box", "shape": [2], "dtype": "float32", "low": [-1, "-inf"], "high": [1, "inf"]})"));
  // Equal bounds are written once; the Dict keeps its declaration order.
  EXPECT_EQ(space_to_json(Space::box(-kInf, kInf, {3}))["low"], "-inf");
  const json d = space_to_json(Space::dict({{"b", Space::discrete(2)}, {"a", Space::discrete(3)}}));
  EXPECT_EQ(d["fields"][0]["name"], "b");
  EXPECT_EQ(d["fields"][1]["name"], "a");
}

TEST(SpaceJson, ErrorsNameWhereAndWhat) {
  auto error = [](const std::string& text) {
    return test::error_of([&] { space_from_json(json::parse(text), "d/dataset.json: observation_space"); });
  };
  EXPECT_THAT(error(R"({"type": "Disc", "n": 2})"),
              HasSubstr("d/dataset.json: observation_space: key 'type': expected one of Discrete, MultiDiscrete, Box, "
                        "MultiBinary, Dict, got \"Disc\""));
  EXPECT_THAT(error(R"({"type": "Discrete"})"), HasSubstr("observation_space: missing key 'n'"));
  EXPECT_THAT(error(R"({"type": "Discrete", "n": 0})"), HasSubstr("observation_space: Discrete space needs n > 0"));
  EXPECT_THAT(error(R"({"type": "Box", "shape": [2], "dtype": "float16", "low": 0, "high": 1})"),
              HasSubstr("key 'dtype': expected one of uint8, int32, int64, float32, float64, got \"float16\""));
  EXPECT_THAT(error(R"({"type": "Box", "shape": [2], "dtype": "float32", "low": [0, 0, 0], "high": 1})"),
              HasSubstr("key 'low': 3 values for a shape with 2 elements"));
  EXPECT_THAT(error(R"({"type": "Box", "shape": [2], "dtype": "float32", "low": "-infinity", "high": 1})"),
              HasSubstr("key 'low': expected a number, \"inf\" or \"-inf\", got \"-infinity\""));
  EXPECT_THAT(error(R"({"type": "Box", "shape": [2], "dtype": "float32", "low": 2, "high": 1})"),
              HasSubstr("observation_space: Box bound 0 is invalid"));
  EXPECT_THAT(error(R"({"type": "Dict", "fields": [{"name": "x", "space": {"type": "Discrete", "n": -1}}]})"),
              HasSubstr("observation_space: fields[0] ('x'): Discrete space needs n > 0"));
  EXPECT_THAT(error("[1, 2]"), HasSubstr("observation_space: expected a space"));
}

}  // namespace
}  // namespace rlzoo
