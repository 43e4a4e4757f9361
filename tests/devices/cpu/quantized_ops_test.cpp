// DynamicQuantizeLinear, MatMulInteger, QLinearMatMul, ConvInteger and
// QLinearConv on small hand-computed cases: the kernel and the reference
// each give the values worked out here, for every threads count; and on
// random inputs against the reference. Integers are held as whole-number floats.
#include <gtest/gtest.h>

#include "aoe/sdk/error.h"
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

TEST(IntegerMatMulOp, RefusesFloatsAndZeroPointsOfAnotherCount) {
  const auto& code = test::refusal_code;
  EXPECT_EQ(code(op("MatMulInteger", {f32({2, 3}), u8({3, 2})})), sdk::StatusCode::unsupported);
  EXPECT_EQ(code(op("MatMulInteger", {u8({2, 3}), u8({3, 2}), u8({3})})), sdk::StatusCode::invalid_argument);
  EXPECT_EQ(code(op("ConvInteger", {u8({1, 2, 3, 3}), u8({4, 2, 1, 1}), u8({}), u8({3})})), sdk::StatusCode::invalid_argument);
}

}  // namespace
}  // namespace aoe::cpu
