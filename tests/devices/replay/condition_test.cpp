// Conditions of kernel descriptions evaluate as Python would, and what they
// cannot read is an error naming the file and the expression.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "aoe/sdk/error.h"
#include "condition.h"

namespace aoe::replay {
namespace {

const std::vector<std::string> kNames{"a", "b", "c"};

bool holds(const std::string& text, int64_t a = 0, int64_t b = 0, int64_t c = 0) {
  return Condition(text, kNames, "test.kernel.json").holds({Number::of(a), Number::of(b), Number::of(c)});
}

std::string parse_error(const std::string& text) {
  try {
    Condition(text, kNames, "kernel description x.kernel.json");
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), sdk::StatusCode::invalid_argument);
    return e.what();
  }
  ADD_FAILURE() << "\"" << text << "\" parsed";
  return {};
}

TEST(Condition, ArithmeticIsPythons) {
  EXPECT_TRUE(holds("7 // 2 == 3"));
  EXPECT_TRUE(holds("-7 // 2 == -4"));
  EXPECT_TRUE(holds("-7 % 3 == 2"));
  EXPECT_TRUE(holds("7 % -3 == -2"));
  EXPECT_TRUE(holds("7 / 2 == 3.5"));
  EXPECT_TRUE(holds("2 ** 10 == 1024"));
  EXPECT_TRUE(holds("-2 ** 2 == -4"));
  EXPECT_TRUE(holds("2 ** -1 == 0.5"));
  EXPECT_TRUE(holds("1 + 2 * 3 - 4 == 3"));
  EXPECT_TRUE(holds("(1 + 2) * 3 == 9"));
  EXPECT_TRUE(holds("12*1024 == 12288"));
  EXPECT_TRUE(holds("1.5e3 == 1500"));
}

TEST(Condition, ComparisonsChainAndLogicShortCircuits) {
  EXPECT_TRUE(holds("32 <= a * b <= 1024", 8, 32));
  EXPECT_FALSE(holds("32 <= a * b <= 1024", 2, 8));
  EXPECT_FALSE(holds("32 <= a * b <= 1024", 64, 32));
  EXPECT_TRUE(holds("a < b > c", 1, 5, 2));
  EXPECT_TRUE(holds("a == 0 or b % a == 0", 0, 7));  // the right side would divide by zero
  EXPECT_FALSE(holds("a != 0 and b % a == 0", 0, 7));
  EXPECT_TRUE(holds("not a", 0));
  EXPECT_TRUE(holds("not a == 1 and b", 2, 1));  // not binds looser than ==, tighter than and
  EXPECT_TRUE(holds("a or b and c", 1, 0, 0));   // and binds tighter than or
  EXPECT_TRUE(holds("True and not False"));
}

TEST(Condition, TheConditionsOfTheRecordedKernels) {
  const std::vector<std::string> conv{"block_size_x", "block_size_y", "tile_size_x", "tile_size_y", "use_padding",
                                      "use_shmem", "filter_height", "filter_width"};
  const Condition shmem(
      "use_shmem == 0 or (((block_size_x*tile_size_x+(filter_width-1)))*((block_size_y*tile_size_y+(filter_height-1)))) "
      "< 12*1024",
      conv, "convolution_milo.kernel.json");
  auto n = [](std::vector<int64_t> v) {
    std::vector<Number> out;
    for (auto x : v) out.push_back(Number::of(x));
    return out;
  };
  EXPECT_TRUE(shmem.holds(n({16, 16, 1, 1, 1, 1, 15, 15})));    // 30 * 30
  EXPECT_TRUE(shmem.holds(n({256, 4, 1, 2, 0, 1, 15, 15})));    // 270 * 22 = 5940
  EXPECT_FALSE(shmem.holds(n({256, 8, 1, 4, 0, 1, 15, 15})));   // 270 * 46 = 12420
  EXPECT_TRUE(shmem.holds(n({128, 4, 2, 4, 0, 0, 15, 15})));    // no shared memory
  EXPECT_FALSE(shmem.holds(n({128, 16, 2, 4, 0, 1, 15, 15})));  // 270 * 78
  const Condition padding("use_padding==0 or block_size_x % 32 != 0", conv, "convolution_milo.kernel.json");
  EXPECT_FALSE(padding.holds(n({64, 1, 1, 1, 1, 1, 15, 15})));
  EXPECT_TRUE(padding.holds(n({48, 1, 1, 1, 1, 1, 15, 15})));
  EXPECT_EQ(padding.uses(), (std::vector<size_t>{0, 4}));
}

TEST(Condition, WhatItCannotReadNamesTheFileAndTheExpression) {
  const std::string unknown = parse_error("a < max_threads");
  EXPECT_NE(unknown.find("x.kernel.json"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("\"a < max_threads\""), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("'max_threads' is not a tuning parameter"), std::string::npos) << unknown;
  EXPECT_NE(parse_error("min(a, b) > 1").find("calls such as 'min(...)' are not supported"), std::string::npos);
  EXPECT_NE(parse_error("a in [1, 2]").find("unexpected 'in' at column 3"), std::string::npos);
  EXPECT_NE(parse_error("(a + b").find("expected ')'"), std::string::npos);
  EXPECT_NE(parse_error("a < ").find("ends early"), std::string::npos);
  EXPECT_NE(parse_error("a & b").find("unexpected '&' at column 3"), std::string::npos);
  EXPECT_NE(parse_error("a b").find("unexpected 'b'"), std::string::npos);
}

TEST(Condition, DivisionByZeroIsAnErrorNamingTheExpression) {
  try {
    holds("b % a == 0", 0, 3);
    FAIL() << "no error";
  } catch (const sdk::Error& e) {
    EXPECT_NE(std::string(e.what()).find("\"b % a == 0\""), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace aoe::replay
