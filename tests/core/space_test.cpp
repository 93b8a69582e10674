#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/spaces/space.h"

namespace rlzoo {
namespace {

using ::testing::HasSubstr;

template <class T>
ConstBytes bytes(const std::vector<T>& v) { return std::as_bytes(std::span<const T>(v)); }

TEST(Space, DiscreteLayoutSampleContains) {
  const Space s = Space::discrete(3, 1);
  EXPECT_EQ(s.describe(), "Discrete(3, start=1)");
  EXPECT_EQ(s.byte_size(), 8u);
  EXPECT_EQ(s.dtype(), DType::Int64);
  EXPECT_TRUE(s.contains(bytes(std::vector<std::int64_t>{1})));
  EXPECT_TRUE(s.contains(bytes(std::vector<std::int64_t>{3})));
  EXPECT_FALSE(s.contains(bytes(std::vector<std::int64_t>{0})));
  EXPECT_FALSE(s.contains(bytes(std::vector<std::int64_t>{4})));
  Rng rng(1);
  std::vector<int> counts(3);
  std::int64_t v;
  for (int i = 0; i < 3000; ++i) {
    s.sample(rng, Bytes(reinterpret_cast<std::byte*>(&v), 8));
    ASSERT_TRUE(v >= 1 && v <= 3);
    ++counts[static_cast<std::size_t>(v - 1)];
  }
  for (int c : counts) EXPECT_GT(c, 800);
}

TEST(Space, BoxBoundsAndDescribe) {
  const Space s = Space::box(-1.0, 2.0, {2, 3});
  EXPECT_EQ(s.describe(), "Box(-1, 2, (2, 3), float32)");
  EXPECT_EQ(s.numel(), 6);
  EXPECT_EQ(s.byte_size(), 24u);
  EXPECT_TRUE(s.is_bounded());
  std::vector<float> x(6, 0.5f);
  EXPECT_TRUE(s.contains(bytes(x)));
  x[4] = 2.5f;
  EXPECT_FALSE(s.contains(bytes(x)));
  x[4] = std::nanf("");
  EXPECT_FALSE(s.contains(bytes(x)));
  const Space mixed = Space::box({-1, -INFINITY}, {1, INFINITY}, {2});
  EXPECT_EQ(mixed.describe(), "Box([-1, -inf], [1, inf], (2,), float32)");
  EXPECT_FALSE(mixed.is_bounded());
}

TEST(Space, BoxSamplesStayInsideIncludingUnbounded) {
  const Space s = Space::box({-2, 0, -INFINITY, -INFINITY}, {2, INFINITY, 5, INFINITY}, {4});
  Rng rng(3);
  std::vector<float> x(4);
  for (int i = 0; i < 2000; ++i) {
    s.sample(rng, writable_bytes_of(std::span<float>(x)));
    ASSERT_TRUE(s.contains(bytes(x))) << x[0] << " " << x[1] << " " << x[2] << " " << x[3];
  }
  const Space ints = Space::box(0, 255, {8}, DType::UInt8);
  std::vector<std::uint8_t> img(8);
  for (int i = 0; i < 100; ++i) {
    ints.sample(rng, writable_bytes_of(std::span<std::uint8_t>(img)));
    ASSERT_TRUE(ints.contains(bytes(img)));
  }
}

TEST(Space, MultiDiscreteAndMultiBinary) {
  const Space md = Space::multi_discrete({2, 5});
  EXPECT_EQ(md.describe(), "MultiDiscrete([2, 5])");
  EXPECT_TRUE(md.contains(bytes(std::vector<std::int64_t>{1, 4})));
  EXPECT_FALSE(md.contains(bytes(std::vector<std::int64_t>{2, 0})));
  const Space mb = Space::multi_binary({3});
  EXPECT_TRUE(mb.contains(bytes(std::vector<std::uint8_t>{0, 1, 1})));
  EXPECT_FALSE(mb.contains(bytes(std::vector<std::uint8_t>{0, 2, 1})));
}

TEST(Space, DictLayoutAlignsFields) {
  const Space d = Space::dict({{"pos", Space::box(-1, 1, {3})}, {"id", Space::discrete(4)}, {"bits", Space::multi_binary({2})}});
  // pos: 12 bytes at 0 -> id at 16 (8-aligned) -> bits at 24, 2 bytes -> total 32.
  EXPECT_EQ(d.field("pos").offset, 0u);
  EXPECT_EQ(d.field("id").offset, 16u);
  EXPECT_EQ(d.field("bits").offset, 24u);
  EXPECT_EQ(d.byte_size(), 32u);
  EXPECT_EQ(d.numel(), 6);
  Rng rng(5);
  std::vector<std::byte> x(d.byte_size());
  for (int i = 0; i < 100; ++i) {
    d.sample(rng, x);
    ASSERT_TRUE(d.contains(x));
  }
  EXPECT_THAT(d.describe(), HasSubstr("'id': Discrete(4)"));
  try {
    d.field("idd");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("did you mean 'id'"));
  }
}

TEST(Space, InvalidSpacesAreUserErrors) {
  EXPECT_THROW(Space::discrete(0), UserError);
  EXPECT_THROW(Space::box(1.0, -1.0, {2}), UserError);
  EXPECT_THROW(Space::box(0, 1, {0}), UserError);
  EXPECT_THROW(Space::box({0}, {1, 2}, {1}), UserError);
  EXPECT_THROW(Space::multi_discrete({}), UserError);
  EXPECT_THROW(Space::dict({{"a", Space::discrete(2)}, {"a", Space::discrete(3)}}), UserError);
}

TEST(Space, Equality) {
  EXPECT_TRUE(Space::box(-1, 1, {2}) == Space::box(-1, 1, {2}));
  EXPECT_FALSE(Space::box(-1, 1, {2}) == Space::box(-1, 2, {2}));
  EXPECT_FALSE(Space::discrete(2) == Space::discrete(3));
}

}  // namespace
}  // namespace rlzoo
