// DFT, STFT and MelWeightMatrix: the kernels (the radix-2 FFT where the
// length is a power of two, the direct sum otherwise) against their
// double-precision references for every threads count, a few values worked
// out by hand, and the refusals naming the op.
#include <gtest/gtest.h>

#include <cmath>

#include "tasks.h"
#include "thread_pool.h"

namespace aoe::cpu {
namespace {

using test::expect_matches_reference;
using test::f32;
using test::host;
using test::op;
using test::pool;
using test::refusal;
using test::sample_configs;

sdk::TensorDesc i64(std::vector<int64_t> shape) { return test::of_dtype(std::move(shape), sdk::DType::i64); }

void expect_matches(const sdk::OpTask& task) {
  const auto o = make_op(task, host());
  expect_matches_reference(*o, sample_configs(*o, 4), pool());
}

TEST(DftOp, PowersOfTwoAndOtherLengthsMatchTheReference) {
  for (int64_t n : {1, 2, 7, 16, 64, 100}) {
    SCOPED_TRACE(n);
    expect_matches(op("DFT", {f32({2, n, 3, 1})}));                                  // real, axis 1
    expect_matches(op("DFT", {f32({2, 3, n, 2})}, {{"axis", -2}, {"inverse", 1}}));  // complex, inverse
    expect_matches(op("DFT", {f32({3, n, 1})}, {{"onesided", 1}}));
  }
}

// dft_length cuts the signal (10 points to 8) or pads it with zeros (to 32).
TEST(DftOp, ADftLengthCutsOrPadsTheSignal) {
  for (int64_t n : {8, 32}) {
    auto t = op("DFT", {f32({2, 10, 2}), i64({})}, {{"onesided", 0}});
    t.outputs = {f32({2, n, 2})};
    expect_matches(t);
    auto half = op("DFT", {f32({2, 10, 1}), i64({})}, {{"onesided", 1}});
    half.outputs = {f32({2, n / 2 + 1, 2})};
    expect_matches(half);
  }
}

// [1, 2, 3, 4]: 10, -2 + 2i, -2, -2 - 2i; inverse of that is the signal again.
TEST(DftOp, FourPointsWorkedOutByHand) {
  const auto forward = make_op(op("DFT", {f32({1, 4, 1})}), host());
  const std::vector<float> x = {1, 2, 3, 4};
  const auto got = run_once(*forward, {1}, {x.data()}, pool());
  const std::vector<float> want = {10, 0, -2, 2, -2, 0, -2, -2};
  ASSERT_EQ(got.size(), 1u);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[0][i], want[i], 1e-5) << i;
  const auto inverse = make_op(op("DFT", {f32({1, 4, 2})}, {{"inverse", 1}}), host());
  const auto back = run_once(*inverse, {1}, {got[0].data()}, pool());
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(back[0][2 * i], x[i], 1e-5) << i;
}

TEST(DftOp, RefusalsNameTheOp) {
  EXPECT_NE(refusal(op("DFT", {f32({2, 8, 3})})).find("DFT 'DFT': the signal [2,8,3] must end in an axis of 1"),
            std::string::npos);
  EXPECT_NE(refusal(op("DFT", {f32({2, 8, 1})}, {{"axis", 2}})).find("axis 2 is outside"), std::string::npos);
  EXPECT_NE(refusal(op("DFT", {f32({2, 8, 2})}, {{"inverse", 1}, {"onesided", 1}})).find("not onesided"),
            std::string::npos);
  EXPECT_NE(refusal(op("DFT", {f32({2, 8, 1}), i64({})})).find("make dft_length a constant"), std::string::npos);
}

// frame_step and frame_length fed as the model runs; a window or none.
TEST(StftOp, FramesOfAWindowOrALengthMatchTheReference) {
  auto windowed = op("STFT", {f32({2, 100, 1}), i64({}), f32({16})});
  windowed.outputs = {f32({2, 22, 9, 2})};  // (100 - 16) / 4 + 1 frames, onesided
  expect_matches(windowed);
  auto plain = op("STFT", {f32({1, 50, 2}), i64({}), i64({})}, {{"onesided", 0}, {"input_slots", {0, 1, 3}}});
  plain.outputs = {f32({1, 5, 10, 2})};  // frames of 10 every 10
  expect_matches(plain);
  auto odd = op("STFT", {f32({1, 60, 1}), i64({}), f32({12}), i64({})});
  odd.outputs = {f32({1, 13, 7, 2})};  // 12 points every 4
  expect_matches(odd);
}

TEST(StftOp, RefusalsNameTheOp) {
  auto unplanned = op("STFT", {f32({1, 64, 1}), i64({}), f32({16})});
  EXPECT_NE(refusal(unplanned).find("STFT 'STFT': its output's shape depends on frame_step"), std::string::npos);
  auto too_long = op("STFT", {f32({1, 8, 1}), i64({}), f32({16})});
  too_long.outputs = {f32({1, 1, 9, 2})};
  EXPECT_NE(refusal(too_long).find("frames of 16 points do not fit"), std::string::npos) << refusal(too_long);
}

TEST(MelWeightMatrixOp, MatchesTheReference) {
  auto t = op("MelWeightMatrix", {i64({}), i64({}), i64({}), f32({}), f32({})});
  t.outputs = {f32({257, 40})};
  expect_matches(t);
}

TEST(MelWeightMatrixOp, RefusesAnUnplannedShapeNamingTheOp) {
  const auto why = refusal(op("MelWeightMatrix", {i64({}), i64({}), i64({}), f32({}), f32({})}));
  EXPECT_NE(why.find("MelWeightMatrix 'MelWeightMatrix': its output's shape depends on num_mel_bins"), std::string::npos)
      << why;
}

}  // namespace
}  // namespace aoe::cpu
