// The random ops and Dropout in training: the generator against Philox's
// published answers, each kernel against its reference (which draws the
// same values), and the law of the draws by statistics over many of them.
// The seeds are fixed, so each check's outcome is too; the bounds are five
// standard deviations, which a right generator misses about once in 10^6 seeds.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "counter_random.h"
#include "cpu_op.h"
#include "tasks.h"

namespace aoe::cpu {
namespace {

using test::f32;
using test::host;
using test::of_dtype;
using test::op;
using test::pool;

// Random123's known-answer vectors for Philox4x32-10 (kat_vectors).
TEST(CounterRandom, GivesPhiloxsKnownAnswers) {
  using W = std::array<uint32_t, 4>;
  EXPECT_EQ(philox4x32_10({0, 0, 0, 0}, {0, 0}), (W{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(philox4x32_10({~0u, ~0u, ~0u, ~0u}, {~0u, ~0u}), (W{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
            (W{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

// Draws filled a block at a time equal those addressed one by one, from any start.
TEST(CounterRandom, BlocksEqualSingleDraws) {
  const CounterRandom r(42);
  std::vector<float> run(37);
  r.uniforms(5, 42, run.data());
  for (uint64_t i = 5; i < 42; ++i) EXPECT_EQ(run[i - 5], r.uniform(i)) << i;
  EXPECT_NE(CounterRandom(1).uniform(0), CounterRandom(2).uniform(0));
}

// A chi-square over ten equal bins of [0, 1) and the mean, for 10^6 uniforms.
TEST(CounterRandom, UniformsAreUniform) {
  const CounterRandom r(7);
  const int n = 1000000;
  std::vector<int> bins(10);
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    const float u = r.uniform(static_cast<uint64_t>(i));
    ASSERT_TRUE(u >= 0.0f && u < 1.0f) << u;
    ++bins[static_cast<size_t>(u * 10)];
    sum += u;
  }
  double chi2 = 0;
  for (const int b : bins) chi2 += (b - n / 10.0) * (b - n / 10.0) / (n / 10.0);
  EXPECT_LT(chi2, 37.7);  // the chi-square of 9 degrees of freedom at p = 1e-5 (5 sigma would be looser)
  EXPECT_NEAR(sum / n, 0.5, 5 * std::sqrt(1.0 / 12 / n));
}

// Mean, variance and the share within one standard deviation of 10^6 normals.
TEST(CounterRandom, NormalsAreNormal) {
  const CounterRandom r(9);
  const int n = 1000000;
  double sum = 0, squares = 0;
  int within = 0;
  for (int i = 0; i < n; ++i) {
    const double z = r.normal(static_cast<uint64_t>(i));
    sum += z, squares += z * z, within += std::abs(z) < 1;
  }
  EXPECT_NEAR(sum / n, 0.0, 5 / std::sqrt(n));
  EXPECT_NEAR(squares / n, 1.0, 5 * std::sqrt(2.0 / n));
  EXPECT_NEAR(within / static_cast<double>(n), 0.682689, 5 * std::sqrt(0.682689 * 0.317311 / n));
}

sdk::OpTask seeded(sdk::OpTask task, double seed) {
  task.attrs["seed"] = seed;
  return task;
}

// RandomUniform and RandomNormalLike: the threaded kernel draws the reference's values; their laws hold.
TEST(RandomOps, UniformAndNormalDrawTheirLaws) {
  auto uniform = seeded(op("RandomUniform", {}, {{"shape", {300, 400}}, {"low", -3.0}, {"high", 5.0}}), 1);
  uniform.outputs = {f32({300, 400})};
  auto normal = seeded(op("RandomNormalLike", {of_dtype({300, 400}, sdk::DType::i64)}, {{"mean", 2.0}, {"scale", 0.5}}), 2);
  normal.outputs = {f32({300, 400})};
  for (const auto& task : {uniform, normal}) {
    const auto o = make_op(task, host());
    test::expect_matches_reference(*o, test::sample_configs(*o, 3), pool());
    const std::vector<float> shape_only(120000);
    const auto y = run_once(*o, o->space().default_config, {task.inputs.empty() ? nullptr : shape_only.data()}, pool())[0];
    const double mean = std::accumulate(y.begin(), y.end(), 0.0) / y.size();
    const bool is_uniform = task.op_type == "RandomUniform";
    EXPECT_NEAR(mean, is_uniform ? 1.0 : 2.0, 5 * (is_uniform ? 8 / std::sqrt(12.0) : 0.5) / std::sqrt(y.size()));
    if (is_uniform)
      for (const float v : y) ASSERT_TRUE(v >= -3.0f && v < 5.0f) << v;
  }
}

// Bernoulli: 0 and 1, ones at the probability's rate; none at 0, all at 1.
TEST(RandomOps, BernoulliKeepsItsProbabilities) {
  auto task = seeded(op("Bernoulli", {f32({100000})}), 3);
  task.outputs = {of_dtype({100000}, sdk::DType::i32)};
  const auto o = make_op(task, host());
  test::expect_matches_reference(*o, test::sample_configs(*o, 3), pool());
  for (const float p : {0.0f, 0.3f, 1.0f}) {
    const std::vector<float> probability(100000, p);
    const auto y = run_once(*o, o->space().default_config, {probability.data()}, pool())[0];
    const double ones = std::accumulate(y.begin(), y.end(), 0.0);
    for (const float v : y) ASSERT_TRUE(v == 0.0f || v == 1.0f) << v;
    EXPECT_NEAR(ones / 100000, p, 5 * std::sqrt(p * (1 - p) / 100000) + 1e-12) << p;
  }
}

// Multinomial: each class drawn at its softmax's rate; the threaded rows the reference's.
TEST(RandomOps, MultinomialSamplesTheSoftmax) {
  auto task = seeded(op("Multinomial", {f32({2, 3})}, {{"sample_size", 30000}}), 4);
  task.outputs = {of_dtype({2, 30000}, sdk::DType::i32)};
  const auto o = make_op(task, host());
  test::expect_matches_reference(*o, test::sample_configs(*o, 3), pool());
  const std::vector<float> logits = {std::log(0.1f), std::log(0.2f), std::log(0.7f), 0.0f, 0.0f, 5.0f};
  const auto y = run_once(*o, o->space().default_config, {logits.data()}, pool())[0];
  const double e5 = std::exp(5.0), want[2][3] = {{0.1, 0.2, 0.7}, {1 / (2 + e5), 1 / (2 + e5), e5 / (2 + e5)}};
  for (int row = 0; row < 2; ++row)
    for (int c = 0; c < 3; ++c) {
      const auto first = y.begin() + row * 30000;
      const double share = std::count(first, first + 30000, static_cast<float>(c)) / 30000.0;
      const double p = want[row][c];
      EXPECT_NEAR(share, p, 5 * std::sqrt(p * (1 - p) / 30000) + 1e-12) << "row " << row << " class " << c;
    }
  auto flat = op("Multinomial", {f32({6})});
  flat.outputs = {of_dtype({6, 1}, sdk::DType::i32)};
  EXPECT_EQ(test::refusal_code(flat), sdk::StatusCode::invalid_argument);
}

// Dropout in training: kept elements scaled by 1 / (1 - ratio), the mask true
// where kept, about 1 - ratio of them; the same seed the same mask, another seed another.
TEST(DropoutKernel, DropsAtItsRatioInTraining) {
  auto task = seeded(op("Dropout", {f32({200, 500}), f32({}), of_dtype({}, sdk::DType::boolean)}), 5);
  task.outputs = {f32({200, 500}), of_dtype({200, 500}, sdk::DType::boolean)};
  const auto o = make_op(task, host());
  test::expect_matches_reference(*o, test::sample_configs(*o, 3), pool());
  std::vector<float> x(100000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 1.0f + static_cast<float>(i % 7);
  const std::vector<float> ratio = {0.3f}, on = {1.0f};
  const auto out = run_once(*o, o->space().default_config, {x.data(), ratio.data(), on.data()}, pool());
  double kept = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_TRUE(out[1][i] == 0.0f || out[1][i] == 1.0f);
    ASSERT_FLOAT_EQ(out[0][i], out[1][i] * x[i] / 0.7f) << i;
    kept += out[1][i];
  }
  EXPECT_NEAR(kept / 100000, 0.7, 5 * std::sqrt(0.21 / 100000));
  EXPECT_EQ(run_once(*o, o->space().default_config, {x.data(), ratio.data(), on.data()}, pool()), out);
  const auto other = make_op(seeded(task, 6), host());
  EXPECT_NE(run_once(*other, other->space().default_config, {x.data(), ratio.data(), on.data()}, pool())[1], out[1]);
  // A ratio of 1 or more drops everything and scales by infinity: refused as it runs.
  const std::vector<float> one = {1.0f};
  EXPECT_THROW(run_once(*o, o->space().default_config, {x.data(), one.data(), on.data()}, pool()), sdk::Error);
}

}  // namespace
}  // namespace aoe::cpu
