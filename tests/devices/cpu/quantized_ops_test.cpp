// DynamicQuantizeLinear, MatMulInteger, QLinearMatMul, ConvInteger and
// QLinearConv on small hand-computed cases: the kernel and the reference
// each give the values worked out here, for every threads count; and on
// random inputs against the reference. Integers are held as whole-number floats.
#include <gtest/gtest.h>

#include <random>

#include "aoe/sdk/error.h"
#include "integer_gemm.h"
#include "tasks.h"
#include "thread_pool.h"

namespace aoe::cpu {
namespace {

using test::f32;
using test::host;
using test::op;
using test::pool;
using Values = std::vector<float>;

sdk::TensorDesc typed(std::vector<int64_t> shape, sdk::DType dtype) {
  sdk::TensorDesc t = f32(std::move(shape));
  t.dtype = dtype;
  return t;
}
sdk::TensorDesc u8(std::vector<int64_t> shape) { return typed(std::move(shape), sdk::DType::u8); }
sdk::TensorDesc i8(std::vector<int64_t> shape) { return typed(std::move(shape), sdk::DType::i8); }

// Every output of the op on `inputs`, from every threads count and from its reference.
void expect_gives(const sdk::OpTask& task, const std::vector<Values>& inputs, const std::vector<Values>& want) {
  const auto o = make_op(task, host());
  std::vector<const float*> in;
  for (const auto& v : inputs) in.push_back(v.data());
  std::vector<Values> ref;
  std::vector<float*> out;
  for (const auto& w : want) ref.emplace_back(w.size(), -99.0f);
  for (auto& r : ref) out.push_back(r.data());
  o->reference(in, out);
  EXPECT_EQ(ref, want) << "reference of " << task.op_type;
  for (int64_t threads = 1; threads <= std::min(host().threads, 3); ++threads)
    EXPECT_EQ(run_once(*o, {threads}, in, pool()), want) << task.op_type << " on " << threads << " threads";
}

TEST(DynamicQuantizeOp, RangeWidenedToZeroGivesScaleAndZeroPoint) {
  auto t = op("DynamicQuantizeLinear", {f32({4})});
  t.outputs = {u8({4}), f32({}), u8({})};
  // Range [0, 2.55]: scale 0.01, zero point 0.
  const float scale = 2.55f / 255.0f;
  expect_gives(t, {{0.0f, 2.55f, 1.0f, 0.5f}}, {{0, 255, std::nearbyint(1.0f / scale), std::nearbyint(0.5f / scale)}, {scale}, {0}});
  // Range [-1, 0]: zero point 255, everything at or below it.
  const float s = 1.0f / 255.0f;
  expect_gives(t, {{-1.0f, -0.5f, 0.0f, -0.25f}}, {{0, 255 + std::nearbyint(-0.5f / s), 255, 255 + std::nearbyint(-0.25f / s)}, {s}, {255}});
  // All zero: scale 0, nothing to divide by.
  expect_gives(t, {{0, 0, 0, 0}}, {{0, 0, 0, 0}, {0}, {0}});
}

// x / y_scale exactly 20.5 and 21.5 in float32 (scale 2.55 / 255): ties
// round to even, to 20 and 22, as the definition (and ONNX Runtime) round.
TEST(DynamicQuantizeOp, TiesRoundToEven) {
  auto t = op("DynamicQuantizeLinear", {f32({3})});
  t.outputs = {u8({3}), f32({}), u8({})};
  const float scale = 2.55f / 255.0f;
  const float at_20_5 = 0.204999998f, at_21_5 = 0.214999989f;
  ASSERT_EQ(at_20_5 / scale, 20.5f);
  ASSERT_EQ(at_21_5 / scale, 21.5f);
  expect_gives(t, {{2.55f, at_20_5, at_21_5}}, {{255, 20, 22}, {scale}, {0}});
}

TEST(IntegerMatMulOp, ZeroPointsPerRowOfAAndPerColumnOfB) {
  // A [2,3] less [1, 2] per row, B [3,2] less [0, 1] per column.
  auto t = op("MatMulInteger", {u8({2, 3}), u8({3, 2}), u8({2}), u8({2})});
  t.outputs = {typed({2, 2}, sdk::DType::i32)};
  // A - za = [[0,1,2],[1,0,-1]]; B - zb = [[1,0],[2,1],[3,2]].
  expect_gives(t, {{1, 2, 3, 3, 2, 1}, {1, 1, 2, 2, 3, 3}, {1, 2}, {0, 1}}, {{8, 5, -2, -2}});
}

TEST(IntegerMatMulOp, AnOmittedZeroPointIsTakenFromItsSlot) {
  // b_zero_point alone: the frontend's input_slots say it is slot 3.
  auto t = op("MatMulInteger", {i8({1, 2}), i8({2, 1}), i8({})}, {{"input_slots", {0, 1, 3}}});
  expect_gives(t, {{-3, 4}, {2, 5}, {1}}, {{-3 * 1 + 4 * 4}});
}

TEST(IntegerMatMulOp, QLinearScalesRoundsHalfToEvenAndSaturates) {
  // B less 2 = [5, -3]; sums [[5, -3], [500, -300]] scaled by 0.5: 2.5 -> 2, -1.5 -> -2, 250 and -150 saturated.
  auto t = op("QLinearMatMul", {i8({2, 1}), f32({}), i8({}), i8({1, 2}), f32({}), i8({}), f32({}), i8({})});
  expect_gives(t, {{1, 100}, {0.5f}, {0}, {7, -1}, {1}, {2}, {1}, {0}}, {{2, -2, 127, -128}});
  // 3-D A against 2-D B, batches broadcast.
  auto b = op("QLinearMatMul", {u8({2, 1, 2}), f32({}), u8({}), u8({2, 1}), f32({}), u8({}), f32({}), u8({})});
  expect_gives(b, {{1, 2, 3, 4}, {1}, {0}, {1, 1}, {1}, {0}, {2}, {10}}, {{12, 14}});
}

TEST(IntegerConvOp, PaddedTapsAddNothingAndWeightsLoseTheirChannelsZeroPoint) {
  // x [1,1,2,2] less 1; two 2x2 filters less [0, 1]; pads 1 on the top and left only.
  auto t = op("ConvInteger", {u8({1, 1, 2, 2}), u8({2, 1, 2, 2}), u8({}), u8({2})}, {{"pads", {1, 1, 0, 0}}});
  // x - 1 = [[0,1],[2,3]]; w0 = [[1,2],[3,4]], w1 - 1 = [[0,0],[0,1]].
  // Output (2x2 per channel): out[i][j] = sum over taps in x of x[i-1+a][j-1+b] * w[a][b].
  expect_gives(t, {{1, 2, 3, 4}, {1, 2, 3, 4, 1, 1, 1, 2}, {1}, {0, 1}},
               {{0 * 4, 0 * 3 + 1 * 4, 0 * 2 + 2 * 4, 0 * 1 + 1 * 2 + 2 * 3 + 3 * 4, 0, 1, 2, 3}});
}

TEST(IntegerConvOp, QLinearAddsTheBiasThenScalesPerChannel) {
  // One 1x1 filter per channel of a 1x1 image: x - 2 = 3; w = [2, -1]; bias [1, 0].
  auto t = op("QLinearConv", {u8({1, 1, 1, 1}), f32({}), u8({}), i8({2, 1, 1, 1}), f32({2}), i8({}), f32({}), u8({}),
                              typed({2}, sdk::DType::i32)});
  // (3*2 + 1) * 0.5 = 3.5 -> 4, + 100; (3*-1 + 0) * 0.25 = -0.75 -> -1, + 100.
  expect_gives(t, {{5}, {1}, {2}, {2, -1}, {0.5f, 0.25f}, {0}, {1}, {100}, {1, 0}}, {{104, 99}});
}

TEST(IntegerConvOp, KernelsMatchTheReferenceOnRandomInputs) {
  for (const auto& task :
       {op("ConvInteger", {u8({2, 4, 7, 6}), u8({6, 2, 3, 2}), u8({}), u8({6})},
           {{"group", 2}, {"strides", {2, 1}}, {"dilations", {1, 2}}, {"auto_pad", "SAME_UPPER"}}),
        op("QLinearConv", {i8({1, 3, 9}), f32({}), i8({}), i8({4, 3, 3}), f32({4}), i8({4}), f32({}), i8({})},
           {{"pads", {2, 1}}}),
        op("QLinearMatMul", {u8({3, 5, 7}), f32({5}), u8({5}), u8({7, 4}), f32({4}), u8({4}), f32({}), u8({})}),
        op("MatMulInteger", {i8({2, 1, 3, 9}), i8({4, 9, 2}), i8({}), i8({2})})}) {
    const auto o = make_op(task, host());
    test::expect_matches_reference(*o, test::sample_configs(*o, 3), pool());
  }
}

TEST(IntegerConvOp, GemmMatchesTheReferenceOnGroupsStridesDilationsAndPads) {
  const auto i32 = [](std::vector<int64_t> s) { return typed(std::move(s), sdk::DType::i32); };
  for (const auto& task :
       {// Three groups, strides, dilations, uneven pads, a zero point per output channel.
        op("ConvInteger", {u8({2, 6, 9, 8}), u8({9, 2, 3, 3}), u8({}), u8({9})},
           {{"group", 3}, {"strides", {2, 1}}, {"dilations", {2, 1}}, {"pads", {1, 0, 2, 1}}}),
        // 3-D, 7 output channels (not a whole number of tiles), bias and scales per channel.
        op("QLinearConv", {i8({1, 5, 4, 5, 6}), f32({}), i8({}), i8({7, 5, 2, 3, 2}), f32({7}), i8({}), f32({}), i8({}), i32({7})},
           {{"strides", {1, 2, 1}}, {"pads", {0, 1, 1, 1, 0, 0}}}),
        // 1-D depthwise: one channel per group, an odd number of taps.
        op("ConvInteger", {i8({1, 8, 37}), i8({8, 1, 5}), i8({}), i8({})}, {{"group", 8}, {"dilations", {3}}, {"pads", {4, 4}}}),
        // More output positions than one task takes.
        op("QLinearConv", {u8({1, 3, 20, 17}), f32({}), u8({}), u8({5, 3, 3, 3}), f32({}), u8({5}), f32({}), u8({})},
           {{"pads", {1, 1, 1, 1}}}),
        // Rows of 20 outputs at stride 2: blocks of 8 within a row (copied
        // at the stride, or tap by tap at a padded edge) and across two.
        op("ConvInteger", {u8({1, 3, 5, 40}), u8({6, 3, 3, 3}), u8({}), u8({})}, {{"strides", {1, 2}}, {"pads", {1, 1, 1, 1}}}),
        // Two runs of output positions, the last ending in a short block,
        // on a panel an earlier run filled.
        op("ConvInteger", {u8({1, 2, 12, 23}), u8({3, 2, 3, 3}), u8({}), u8({})}, {{"pads", {0, 1, 0, 1}}})}) {
    const auto o = make_op(task, host());
    test::expect_matches_reference(*o, test::sample_configs(*o, 3), pool());
  }
}

TEST(IntegerConvOp, SumsBeyondInt32AreExact) {
  // 3700 channels of 3x3 taps, each (255 - 0) * (0 - 255): the sum, -2165332500, is below -2^31.
  const int64_t channels = 3700, taps = channels * 9;
  auto t = op("ConvInteger", {u8({1, channels, 3, 3}), u8({1, channels, 3, 3}), u8({}), u8({})});
  t.outputs = {typed({1, 1, 1, 1}, sdk::DType::i32)};
  expect_gives(t, {Values(taps, 255), Values(taps, 0), {0}, {255}}, {{static_cast<float>(-65025.0 * static_cast<double>(taps))}});
}

TEST(IntegerTile, EveryIsaGivesTheExactSums) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> value(-255, 255);
  // A short random tile, and one past an int32 chunk of extreme values.
  for (const int64_t pairs : {int64_t{37}, kExactPairs + 5}) {
    std::vector<int16_t> rows(static_cast<size_t>(pairs * kIntRows * 2)), cols(static_cast<size_t>(pairs * kIntCols * 2));
    const bool extreme = pairs > kExactPairs;
    for (auto& v : rows) v = static_cast<int16_t>(extreme ? -255 : value(rng));
    for (auto& v : cols) v = static_cast<int16_t>(extreme ? 255 : value(rng));
    std::vector<int64_t> want(kIntRows * kIntCols, 0);
    for (int64_t p = 0; p < pairs; ++p)
      for (int64_t r = 0; r < kIntRows; ++r)
        for (int64_t j = 0; j < kIntCols; ++j)
          for (int64_t t = 0; t < 2; ++t) want[r * kIntCols + j] += int64_t{rows[(p * kIntRows + r) * 2 + t]} * cols[(p * kIntCols + j) * 2 + t];
    for (int isa = 0; isa <= static_cast<int>(widest_int_tile_isa()); ++isa) {
      std::vector<int64_t> got(kIntRows * kIntCols, -1);
      integer_tile_sums(pairs, rows.data(), cols.data(), got.data(), static_cast<IntTileIsa>(isa));
      EXPECT_EQ(got, want) << "isa " << isa << ", " << pairs << " pairs";
    }
  }
}

TEST(IntegerMatMulOp, RefusesFloatsAndZeroPointsOfAnotherCount) {
  const auto& code = test::refusal_code;
  EXPECT_EQ(code(op("MatMulInteger", {f32({2, 3}), u8({3, 2})})), sdk::StatusCode::unsupported);
  EXPECT_EQ(code(op("MatMulInteger", {u8({2, 3}), u8({3, 2}), u8({3})})), sdk::StatusCode::invalid_argument);
  EXPECT_EQ(code(op("ConvInteger", {u8({1, 2, 3, 3}), u8({4, 2, 1, 1}), u8({}), u8({3})})), sdk::StatusCode::invalid_argument);
}

}  // namespace
}  // namespace aoe::cpu
