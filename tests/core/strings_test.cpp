// The message helpers (core/common/strings.h): near-name hints and whole-number parsing.
#include <gtest/gtest.h>

#include "core/common/strings.h"

namespace rlzoo {
namespace {

TEST(Strings, DidYouMeanNamesTheClosest) {
  EXPECT_EQ(did_you_mean("trian", {"train", "eval", "list"}), " (did you mean 'train'?)");
  EXPECT_EQ(did_you_mean("zzzzzz", {"train", "eval"}), "");
}

TEST(Strings, ParseInt64TakesOnlyAWholeNumber) {
  EXPECT_EQ(parse_int64("2048"), 2048);
  EXPECT_EQ(parse_int64("-3"), -3);
  EXPECT_EQ(parse_int64("9223372036854775807"), INT64_MAX);
  for (const char* bad : {"", " 5", "5 ", "5x", "1e3", "2.5", "0x10", "9223372036854775808", "abc"})
    EXPECT_FALSE(parse_int64(bad).has_value()) << "'" << bad << "'";
}

}  // namespace
}  // namespace rlzoo
