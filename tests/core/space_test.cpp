#include <gtest/gtest.h>
#include "core/spaces/space.h"
TEST(Space, DiscreteDescribe) { EXPECT_EQ(rlzoo::Space::discrete(2).describe(), "Discrete(2)"); }
