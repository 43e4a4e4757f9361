// Elementwise chains, reductions, softmax, layer norm, pooling and
// transpose against their references, over several configs each.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "aoe/sdk/error.h"
#include "cpu_op.h"
#include "tasks.h"

namespace aoe::cpu {
namespace {

using test::f32;
using test::host;
using test::op;
using test::pool;
using test::with;

// The default, every ISA this CPU runs and every value of each categorical
// knob on the default, and random configs.
std::vector<sdk::Config> variants(const CpuOp& o, size_t random = 6) {
  auto out = test::sample_configs(o, random);
  const auto& space = o.space();
  for (size_t k = 0; k < space.knobs.size(); ++k)
    for (auto v : space.knobs[k].values) {
      auto c = space.default_config;
      c[k] = v;
      if (o.check(c).empty()) out.push_back(c);
    }
  return out;
}

void expect_ok(const sdk::OpTask& task, size_t random = 6) {
  SCOPED_TRACE(task.signature());
  const auto o = make_op(task, host());
  test::expect_matches_reference(*o, variants(*o, random), pool());
}

TEST(Elementwise, UnaryOps) {
  for (const char* t : {"Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Abs", "Neg", "Reciprocal", "Erf", "HardSwish"})
    expect_ok(op(t, {f32({3, 37, 11})}), 2);
  expect_ok(op("LeakyRelu", {f32({1000})}, {{"alpha", 0.2}}), 2);
  expect_ok(op("HardSigmoid", {f32({1000})}, {{"alpha", 0.3}, {"beta", 0.4}}), 2);
  expect_ok(op("Clip", {f32({1000})}, {{"min", -0.5}, {"max", 0.25}}), 2);
  expect_ok(op("Gelu", {f32({2, 700})}), 2);
  expect_ok(op("Gelu", {f32({2, 700})}, {{"approximate", "tanh"}}), 2);
  expect_ok(op("Swish", {f32({3, 37, 11})}), 2);
  expect_ok(op("Swish", {f32({1000})}, {{"alpha", 1.702}}), 2);
}

TEST(Elementwise, TranscendentalsHoldOverAWideRange) {
  // Large arguments: exp overflow to inf, sigmoid and tanh saturation.
  const auto o = make_op(op("Exp", {f32({4096})}), host());
  std::vector<float> x(4096);
  for (size_t i = 0; i < x.size(); ++i) x[i] = -100.0f + 200.0f * static_cast<float>(i) / 4096.0f;
  std::vector<float> want(x.size());
  o->reference({x.data()}, {want.data()});
  for (Isa isa : host().isas) {
    const auto c = with(o->space(), o->space().default_config, "isa", isa_name(isa));
    const auto got = run_once(*o, c, {x.data()}, pool());
    EXPECT_EQ(compare(got[0].data(), want.data(), 4096, {1e-5, 1e-6}), "") << isa_name(isa);
  }
  for (const char* t : {"Sigmoid", "Tanh", "Erf"}) {
    const auto f = make_op(op(t, {f32({4096})}), host());
    std::vector<float> y(x.size());
    for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] / 10;
    f->reference({y.data()}, {want.data()});
    for (Isa isa : host().isas) {
      const auto got = run_once(*f, with(f->space(), f->space().default_config, "isa", isa_name(isa)), {y.data()}, pool());
      EXPECT_EQ(compare(got[0].data(), want.data(), 4096, {1e-5, 1e-6}), "") << t << " " << isa_name(isa);
    }
  }
}

TEST(Elementwise, BinaryOpsBroadcast) {
  for (const char* t : {"Add", "Sub", "Mul", "Div", "Pow"}) {
    expect_ok(op(t, {f32({2, 3, 17}), f32({2, 3, 17})}), 2);
    expect_ok(op(t, {f32({2, 3, 17}), f32({17})}), 2);
    expect_ok(op(t, {f32({2, 3, 32}), f32({32})}), 2);  // a row repeated whole vectors at a time
    expect_ok(op(t, {f32({2, 1, 17}), f32({3, 1})}), 2);
    expect_ok(op(t, {f32({1}), f32({5, 7})}), 2);
  }
  expect_ok(op("Add", {f32({2, 16, 7, 7}), f32({16, 1, 1})}));
  expect_ok(op("Mul", {f32({}), f32({})}), 1);
}

// Pow by a constant 2 runs as x * x: the same values as powf, negative bases too.
TEST(Elementwise, PowByTwoIsASquare) {
  const auto p = make_op(op("Pow", {f32({2, 100}), f32({1}, true)}), host());
  std::vector<float> x(200), two = {2.0f}, want(200);
  for (size_t i = 0; i < x.size(); ++i) x[i] = (static_cast<float>(i) - 100.5f) / 7.0f;
  p->reference({x.data(), two.data()}, {want.data()});
  for (Isa isa : host().isas) {
    const auto got = run_once(*p, with(p->space(), p->space().default_config, "isa", isa_name(isa)), {x.data(), two.data()},
                              pool());
    EXPECT_EQ(compare(got[0].data(), want.data(), 200, {1e-6, 1e-6}), "") << isa_name(isa);
    EXPECT_FLOAT_EQ(got[0][0], x[0] * x[0]) << isa_name(isa);
  }
}

TEST(Elementwise, FusedChains) {
  const nlohmann::json attrs = {{"fused_attrs", {nlohmann::json::object(), {{"min", 0.0}, {"max", 6.0}}, {{"alpha", 0.1}}}}};
  expect_ok(op("Add", {f32({4, 64, 9}), f32({4, 64, 9}), f32({64, 1})}, attrs, {"Mul", "Clip", "LeakyRelu"}), 4);
  expect_ok(op("Sigmoid", {f32({300}), f32({300})}, {}, {"Mul"}), 3);
}

TEST(Reduce, AxesKeepdimsAndKinds) {
  for (const char* t : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin"}) {
    expect_ok(op(t, {f32({4, 50, 3})}, {{"axes", {1}}}), 3);
    expect_ok(op(t, {f32({4, 50, 3})}, {{"axes", {-1}}, {"keepdims", 0}}), 3);
    expect_ok(op(t, {f32({4, 5, 6, 7})}, {{"axes", {0, 2}}}), 3);
    expect_ok(op(t, {f32({3000})}), 3);
    expect_ok(op(t, {f32({2, 1000})}, {{"axes", {1}}}), 3);
    expect_ok(op(t, {f32({2, 701, 5})}, {{"axes", {1}}}), 3);  // short rows, many to a call, and some left over
  }
  expect_ok(op("GlobalAveragePool", {f32({2, 24, 7, 7})}));
  expect_ok(op("GlobalMaxPool", {f32({2, 24, 5})}));
  // ReduceSum 13 takes axes as a tensor: with them folded into the attribute, or none at all.
  expect_ok(op("ReduceSum", {f32({3, 4}), f32({1})}, {{"axes", {0}}}));
  expect_ok(op("ReduceSum", {f32({3, 4})}, {{"noop_with_empty_axes", 1}}));
}

TEST(Softmax, AlongAnyAxis) {
  expect_ok(op("Softmax", {f32({8, 1000})}));
  expect_ok(op("Softmax", {f32({2, 3, 77})}, {{"axis", 1}}));
  expect_ok(op("Softmax", {f32({2, 12, 5})}, {{"axis", 0}}));
  const auto o = make_op(op("Softmax", {f32({4, 9}) }, {{"axis", 0}}), host());
  EXPECT_NE(o->check(with(o->space(), o->space().default_config, "passes", "online")), "");
}

// A row masked whole (every score -inf, as an attention's padding mask makes
// it for an empty sequence) is NaN, as ONNX defines it and ONNX Runtime
// gives it; a row masked in part has 0 where it is masked. On every config.
TEST(Softmax, ARowMaskedWholeIsNaN) {
  const float ninf = -std::numeric_limits<float>::infinity();
  std::vector<float> x(2 * 40, ninf);
  for (size_t i = 40; i < 80; i += 2) x[i] = 0.05f * static_cast<float>(i);
  const auto o = make_op(op("Softmax", {f32({2, 40})}), host());
  for (const auto& c : variants(*o)) {
    const auto got = run_once(*o, c, {x.data()}, pool());
    float sum = 0;
    for (size_t i = 0; i < 40; ++i) EXPECT_TRUE(std::isnan(got[0][i])) << i;
    for (size_t i = 40; i < 80; ++i) {
      if (i % 2) EXPECT_EQ(got[0][i], 0.0f) << i;
      sum += got[0][i];
    }
    EXPECT_NEAR(sum, 1.0f, 1e-5);
  }
}

TEST(LayerNormalization, RowsScaleBiasAndStatistics) {
  expect_ok(op("LayerNormalization", {f32({6, 768}), f32({768}), f32({768})}));
  expect_ok(op("LayerNormalization", {f32({2, 3, 5, 7}), f32({5, 7})}, {{"axis", 2}, {"epsilon", 1e-3}}));
  expect_ok(op("LayerNormalization", {f32({4, 96})}, {{"axis", -1}}));
  auto stats = op("LayerNormalization", {f32({5, 33}), f32({33}), f32({33})});
  stats.outputs = {f32({5, 33}), f32({5, 1}), f32({5, 1})};
  const auto o = make_op(stats, host());
  EXPECT_EQ(o->output_shapes().size(), 3u);
  test::expect_matches_reference(*o, variants(*o), pool());
}

// Instance norm a row per image and channel (its scale and bias the
// channel's), mean-variance normalisation over trailing axes the same way,
// and over N, H and W (its default) by strided sums.
TEST(MomentsNorm, InstanceAndMeanVarianceRowsAndStrided) {
  expect_ok(op("InstanceNormalization", {f32({2, 5, 7, 9}), f32({5}), f32({5})}, {{"epsilon", 1e-3}}), 2);
  expect_ok(op("InstanceNormalization", {f32({1, 16, 64, 64}), f32({16}), f32({16})}), 2);
  expect_ok(op("InstanceNormalization", {f32({3, 4, 33}), f32({4}), f32({4})}), 2);
  expect_ok(op("MeanVarianceNormalization", {f32({2, 3, 5, 6})}, {{"axes", {2, 3}}}), 2);
  expect_ok(op("MeanVarianceNormalization", {f32({2, 3, 5, 6})}), 2);
}

TEST(Pool, MaxAndAverage) {
  for (const char* t : {"MaxPool", "AveragePool"}) {
    expect_ok(op(t, {f32({2, 20, 11, 11})}, {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}));
    expect_ok(op(t, {f32({1, 3, 9, 10})}, {{"kernel_shape", {2, 3}}, {"ceil_mode", 1}, {"strides", {2, 2}}}));
    expect_ok(op(t, {f32({1, 17, 12})}, {{"kernel_shape", {3}}, {"auto_pad", "SAME_UPPER"}}));
    expect_ok(op(t, {f32({1, 2, 4, 5, 6})}, {{"kernel_shape", {2, 2, 2}}}), 2);
  }
  expect_ok(op("AveragePool", {f32({1, 16, 8, 8})},
               {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 2, 2}}, {"count_include_pad", 1}, {"ceil_mode", 1}, {"strides", {2, 2}}}));
  expect_ok(op("MaxPool", {f32({1, 16, 10, 10})}, {{"kernel_shape", {2, 2}}, {"dilations", {2, 2}}}));
}

TEST(Transpose, PermutationsAndTiles) {
  expect_ok(op("Transpose", {f32({37, 53})}));
  expect_ok(op("Transpose", {f32({2, 9, 31, 3})}, {{"perm", {0, 3, 1, 2}}}));  // an NHWC image to NCHW: rows of 3
  expect_ok(op("Transpose", {f32({2, 3, 40, 17})}, {{"perm", {0, 2, 1, 3}}}));
  expect_ok(op("Transpose", {f32({2, 3, 40, 17})}, {{"perm", {3, 1, 0, 2}}}));
  expect_ok(op("Transpose", {f32({4, 1, 6, 5})}, {{"perm", {2, 1, 3, 0}}}));
  expect_ok(op("Transpose", {f32({8, 128, 12, 64})}, {{"perm", {0, 2, 1, 3}}}), 2);
}

TEST(VectorOps, UnsupportedCases) {
  const auto& code = test::refusal_code;
  EXPECT_EQ(code(op("Softmax", {f32({4, 4})}, {}, {"Relu"})), sdk::StatusCode::unsupported);
  EXPECT_EQ(code(op("ReduceSum", {f32({3, 4}), f32({1})})), sdk::StatusCode::unsupported);
  auto argmax = op("MaxPool", {f32({1, 1, 4, 4})}, {{"kernel_shape", {2, 2}}});
  argmax.outputs = {f32({1, 1, 3, 3}), f32({1, 1, 3, 3})};
  EXPECT_EQ(code(argmax), sdk::StatusCode::unsupported);
  EXPECT_EQ(code(op("Add", {f32({3}), f32({4})})), sdk::StatusCode::invalid_argument);
}

// bfloat16 is held as float32: a Cast to it keeps the high 16 bits (as
// ONNX's Cast up to opset 17), NaN and the infinities as they are.
TEST(TypedEltwise, CastToBfloat16KeepsTheHigh16Bits) {
  auto t = op("Cast", {f32({5})}, {{"to", 16}});
  t.outputs = {f32({5})};
  t.outputs[0].dtype = sdk::DType::bf16;
  const auto o = make_op(t, host());
  // 1 + 2^-7 + 2^-8 (0x3f818000) drops 2^-8, a tie rounding would take up to 0x3f82; 0x3f7fffff drops to 0x3f7f.
  const std::vector<float> x = {1.0f + 0x1.8p-7f, 0x1.fffffep-1f, -3.0f, INFINITY, NAN};
  std::vector<float> ref(5);
  o->reference({x.data()}, {ref.data()});
  const auto got = run_once(*o, o->space().default_config, {x.data()}, pool());
  for (const auto& y : {ref, got[0]}) {
    EXPECT_EQ(y[0], 1.0f + 0x1p-7f);
    EXPECT_EQ(y[1], 0x1.fep-1f);
    EXPECT_EQ(y[2], -3.0f);
    EXPECT_EQ(y[3], INFINITY);
    EXPECT_TRUE(std::isnan(y[4]));
  }
}

}  // namespace
}  // namespace aoe::cpu
