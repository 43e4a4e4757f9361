// BatchNormalization in training and Dropout with its mask or training_mode,
// against their references and values worked out by hand.
#include <gtest/gtest.h>

#include <algorithm>

#include "cpu_op.h"
#include "tasks.h"

namespace aoe::cpu {
namespace {

using test::f32;
using test::host;
using test::of_dtype;
using test::op;
using test::pool;

TEST(BatchNormTrainingMode, MatchesTheReferenceWithAndWithoutRunningStatistics) {
  for (bool running : {false, true}) {
    auto task = op("BatchNormalization", {f32({3, 5, 4, 7}), f32({5}), f32({5}), f32({5}), f32({5})},
                   {{"training_mode", 1}, {"momentum", 0.8}, {"epsilon", 1e-3}});
    task.outputs = {f32({3, 5, 4, 7})};
    if (running) task.outputs.push_back(f32({5})), task.outputs.push_back(f32({5}));
    const auto o = make_op(task, host());
    EXPECT_EQ(o->output_shapes().size(), running ? 3u : 1u);
    test::expect_matches_reference(*o, test::sample_configs(*o, 3), pool());
  }
}

// One channel of 1, 2, 3, 4: mean 2.5, variance 1.25; running ones blended at momentum 0.5.
TEST(BatchNormTrainingMode, ByHand) {
  auto task = op("BatchNormalization", {f32({4, 1}), f32({1}), f32({1}), f32({1}), f32({1})},
                 {{"training_mode", 1}, {"momentum", 0.5}, {"epsilon", 0.0}});
  task.outputs = {f32({4, 1}), f32({1}), f32({1})};
  const auto o = make_op(task, host());
  const std::vector<float> x = {1, 2, 3, 4}, scale = {2}, bias = {1}, mean = {0.5f}, var = {0.75f};
  const auto out = run_once(*o, o->space().default_config, {x.data(), scale.data(), bias.data(), mean.data(), var.data()}, pool());
  EXPECT_NEAR(out[0][0], (1 - 2.5) / std::sqrt(1.25) * 2 + 1, 1e-5);
  EXPECT_FLOAT_EQ(out[1][0], 1.5f);
  EXPECT_FLOAT_EQ(out[2][0], 1.0f);
}

TEST(DropoutKernel, PassesThroughWithAMaskAllTrue) {
  auto task = op("Dropout", {f32({3, 50}), f32({}), of_dtype({}, sdk::DType::boolean)});
  task.outputs = {f32({3, 50}), of_dtype({3, 50}, sdk::DType::boolean)};
  const auto made = make_op(task, host());
  const CpuOp& o = *made;
  test::expect_matches_reference(o, test::sample_configs(o, 2), pool());
  std::vector<float> x(150, 3.0f);
  const std::vector<float> zero = {0.0f}, half = {0.5f}, on = {1.0f}, off = {0.0f};
  const auto out = run_once(o, o.space().default_config, {x.data(), zero.data(), on.data()}, pool());
  EXPECT_EQ(out[0], x);
  EXPECT_EQ(out[1], std::vector<float>(150, 1.0f));
  EXPECT_EQ(run_once(o, o.space().default_config, {x.data(), half.data(), off.data()}, pool())[0], x);
  // In training at ratio 0.5 the draws drop some elements (random_ops_test.cpp checks their law).
  const auto dropped = run_once(o, o.space().default_config, {x.data(), half.data(), on.data()}, pool());
  EXPECT_NE(dropped[1], std::vector<float>(150, 1.0f));
}

// A constant training_mode reaches the op as its folded attribute.
TEST(DropoutKernel, FoldedTrainingMode) {
  auto task = op("Dropout", {f32({8}), f32({}), of_dtype({}, sdk::DType::boolean)}, {{"training_mode", {1}}});
  task.inputs[2].constant = true;
  task.outputs = {f32({8}), of_dtype({8}, sdk::DType::boolean)};
  const auto made = make_op(task, host());
  const CpuOp& o = *made;
  const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8}, zero = {0.0f}, half = {0.5f};
  EXPECT_EQ(run_once(o, o.space().default_config, {x.data(), zero.data(), nullptr}, pool())[0], x);
  // In training at ratio 0.5 each element is 0 or doubled.
  const auto out = run_once(o, o.space().default_config, {x.data(), half.data(), nullptr}, pool());
  for (const float y : out[0])
    EXPECT_TRUE(y == 0.0f || std::find(x.begin(), x.end(), y / 2) != x.end()) << y;
}

}  // namespace
}  // namespace aoe::cpu
