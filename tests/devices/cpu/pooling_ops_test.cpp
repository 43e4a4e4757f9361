// MaxPool's Indices output, MaxUnpool, RoiAlign, MaxRoiPool, LpPool and
// GlobalLpPool, and LpNormalization against their references and against
// values worked out by hand.
#include <gtest/gtest.h>

#include "pool_op.h"
#include "tasks.h"

namespace aoe::cpu {
namespace {

using test::f32;
using test::host;
using test::of_dtype;
using test::op;
using test::pool;

sdk::OpTask with_outputs(sdk::OpTask task, std::vector<sdk::TensorDesc> outputs) {
  task.outputs = std::move(outputs);
  return task;
}

TEST(MaxPoolIndices, RowAndColumnMajorMatchTheReference) {
  for (int order : {0, 1}) {
    const PoolOp o(with_outputs(op("MaxPool", {f32({2, 3, 7, 6})},
                                   {{"kernel_shape", {3, 2}}, {"strides", {2, 1}}, {"pads", {1, 0, 1, 1}},
                                    {"dilations", {1, 2}}, {"storage_order", order}}),
                                {f32({2, 3, 4, 5}), of_dtype({2, 3, 4, 5}, sdk::DType::i64)}),
                   host());
    test::expect_matches_reference(o, test::sample_configs(o, 4), pool());
  }
}

TEST(MaxPoolIndices, ThreeDimensionalAndRefusedBlocked) {
  const PoolOp o(with_outputs(op("MaxPool", {f32({1, 16, 4, 5, 6})}, {{"kernel_shape", {2, 2, 3}}, {"strides", {2, 2, 2}}}),
                              {f32({1, 16, 2, 2, 2}), of_dtype({1, 16, 2, 2, 2}, sdk::DType::i64)}),
                 host());
  test::expect_matches_reference(o, test::sample_configs(o, 4), pool());
  const auto blocked = test::with(o.space(), o.space().default_config, "format", "NCHWc");
  EXPECT_NE(o.check(blocked), "");
}

// A 4 x 4 plane pooled 2 x 2: the maximum (15, at 15) and where it was, in both orders.
TEST(MaxPoolIndices, StorageOrderByHand) {
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[static_cast<size_t>(i)] = static_cast<float>(i);
  for (int order : {0, 1}) {
    const PoolOp o(with_outputs(op("MaxPool", {f32({1, 1, 4, 4})}, {{"kernel_shape", {4, 4}}, {"storage_order", order}}),
                                {f32({1, 1, 1, 1}), of_dtype({1, 1, 1, 1}, sdk::DType::i64)}),
                   host());
    const auto out = run_once(o, o.space().default_config, {x.data()}, pool());
    EXPECT_EQ(out[0][0], 15.0f);
    EXPECT_EQ(out[1][0], 15.0f);  // (3, 3): 3 * 4 + 3 either way
  }
  x[7] = 100.0f;  // (1, 3): 1 * 4 + 3 row-major, 1 + 3 * 4 column-major
  for (int order : {0, 1}) {
    const PoolOp o(with_outputs(op("MaxPool", {f32({1, 1, 4, 4})}, {{"kernel_shape", {4, 4}}, {"storage_order", order}}),
                                {f32({1, 1, 1, 1}), of_dtype({1, 1, 1, 1}, sdk::DType::i64)}),
                   host());
    const auto out = run_once(o, o.space().default_config, {x.data()}, pool());
    EXPECT_EQ(out[1][0], order == 0 ? 7.0f : 13.0f);
  }
}

// Random indices land anywhere (one thread, in order); MaxPool's stay in their planes (a task per plane).
TEST(MaxUnpool, AnyIndicesAndPlanarOnes) {
  const auto task = op("MaxUnpool", {f32({2, 3, 3, 4}), of_dtype({2, 3, 3, 4}, sdk::DType::i64)},
                       {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}});
  const auto made = make_op(task, host());
  const CpuOp& o = *made;
  EXPECT_EQ(o.output_shapes()[0], (Shape{2, 3, 6, 8}));
  test::expect_matches_reference(o, test::sample_configs(o, 3), pool());
  std::vector<float> x(72), at(72), want(2 * 3 * 48, 0.0f);
  for (int64_t i = 0; i < 72; ++i) {
    const int64_t plane = i / 12, r = i % 12;
    x[static_cast<size_t>(i)] = static_cast<float>(i + 1);
    at[static_cast<size_t>(i)] = static_cast<float>(plane * 48 + (r / 4 * 2 + 1) * 8 + r % 4 * 2);
    want[static_cast<size_t>(at[static_cast<size_t>(i)])] = x[static_cast<size_t>(i)];
  }
  for (const auto& c : test::sample_configs(o, 3)) EXPECT_EQ(run_once(o, c, {x.data(), at.data()}, pool())[0], want);
}

TEST(MaxUnpool, OutputShapePadsTheUnpooledCorner) {
  auto task = op("MaxUnpool", {f32({1, 1, 2, 2}), of_dtype({1, 1, 2, 2}, sdk::DType::i64), of_dtype({4}, sdk::DType::i64)},
                 {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}});
  task.outputs = {f32({1, 1, 5, 5})};
  const auto made = make_op(task, host());
  const CpuOp& o = *made;
  const std::vector<float> x = {5, 6, 7, 8}, at = {5, 7, 13, 15}, shape = {1, 1, 5, 5};
  std::vector<float> want(25, 0.0f);
  want[6] = 5, want[8] = 6, want[16] = 7, want[18] = 8;
  EXPECT_EQ(run_once(o, o.space().default_config, {x.data(), at.data(), shape.data()}, pool())[0], want);
  task.outputs = {f32({1, 1, 3, 5})};
  EXPECT_THROW(make_op(task, host()), sdk::Error);  // smaller than the unpooled 4 x 4
}

TEST(RoiAlign, AvgAndMaxInBothCoordinateModes) {
  for (const char* mode : {"avg", "max"})
    for (const char* transform : {"half_pixel", "output_half_pixel"})
      for (int sampling : {0, 2}) {
        const auto made = make_op(op("RoiAlign", {f32({2, 3, 9, 8}), f32({5, 4}), of_dtype({5}, sdk::DType::i64)},
                                     {{"mode", mode}, {"coordinate_transformation_mode", transform}, {"output_height", 3},
                                      {"output_width", 2}, {"sampling_ratio", sampling}, {"spatial_scale", 0.5}}),
                                  host());
        const CpuOp& o = *made;
        test::expect_matches_reference(o, test::sample_configs(o, 2), pool());
      }
}

// One bin over a whole 2 x 2 plane, one sample at its centre (1, 1) - 0.5 = (0.5, 0.5): the mean of the four.
TEST(RoiAlign, OneSampleByHand) {
  const auto made =
      make_op(op("RoiAlign", {f32({1, 1, 2, 2}), f32({1, 4}), of_dtype({1}, sdk::DType::i64)}, {{"sampling_ratio", 1}}), host());
  const CpuOp& o = *made;
  const std::vector<float> x = {1, 2, 3, 4}, rois = {0, 0, 2, 2}, batch = {0};
  EXPECT_FLOAT_EQ(run_once(o, o.space().default_config, {x.data(), rois.data(), batch.data()}, pool())[0][0], 2.5f);
  const std::vector<float> past = {3};
  EXPECT_THROW(run_once(o, o.space().default_config, {x.data(), rois.data(), past.data()}, pool()), sdk::Error);
}

// A corner that is no finite number, or a region so large that its adaptive
// grid would take millions of samples, fails the run naming the region.
TEST(RoiAlign, RefusesRegionsNoGridCanSample) {
  const auto made = make_op(op("RoiAlign", {f32({1, 1, 4, 4}), f32({2, 4}), of_dtype({2}, sdk::DType::i64)}), host());
  const CpuOp& o = *made;
  const std::vector<float> x(16, 1.0f), batch = {0, 0};
  for (const float bad : {NAN, INFINITY, 1e30f}) {
    const std::vector<float> rois = {0, 0, 2, 2, 0, 0, bad, 2};
    try {
      run_once(o, o.space().default_config, {x.data(), rois.data(), batch.data()}, pool());
      ADD_FAILURE() << "ran with a corner " << bad;
    } catch (const sdk::Error& e) {
      EXPECT_NE(std::string(e.what()).find("region 1"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(test::refusal_code(op("RoiAlign", {f32({1, 1, 4, 4}), f32({2, 4}), of_dtype({2}, sdk::DType::i64)},
                                  {{"spatial_scale", NAN}})),
            sdk::StatusCode::invalid_argument);
}

// LpPool over 1 to 3 dims with strides, pads and dilations, p 1, 2 and 3; GlobalLpPool.
TEST(LpPool, MatchesTheReference) {
  const auto lp = [](int64_t p, Shape x, Shape y, nlohmann::json attrs) {
    attrs["p"] = p;
    return with_outputs(op("LpPool", {f32(std::move(x))}, attrs), {f32(std::move(y))});
  };
  for (const auto& task : {lp(2, {2, 3, 7, 6}, {2, 3, 4, 5}, {{"kernel_shape", {3, 2}}, {"strides", {2, 1}}, {"pads", {1, 0, 1, 0}}}),
                           lp(1, {1, 2, 9}, {1, 2, 3}, {{"kernel_shape", {3}}, {"strides", {3}}, {"dilations", {1}}}),
                           lp(3, {1, 2, 4, 5, 5}, {1, 2, 4, 5, 5}, {{"kernel_shape", {1, 3, 3}}, {"auto_pad", "SAME_UPPER"}}),
                           with_outputs(op("GlobalLpPool", {f32({2, 4, 5, 3})}), {f32({2, 4, 1, 1})})}) {
    SCOPED_TRACE(task.op_type + " " + task.attrs.dump());
    const auto o = make_op(task, host());
    test::expect_matches_reference(*o, test::sample_configs(*o, 3), pool());
  }
}

// A 2 x 2 window over 3, 4 / 0, 0 with a padded row: the L2 norm 5, the L1 sum 7.
TEST(LpPool, ByHand) {
  const std::vector<float> x = {3, -4, 0, 0};
  for (const int64_t p : {1, 2}) {
    const auto o = make_op(with_outputs(op("LpPool", {f32({1, 1, 2, 2})}, {{"kernel_shape", {2, 2}}, {"p", p}, {"pads", {1, 0, 0, 0}}}),
                                        {f32({1, 1, 2, 1})}),
                           host());
    const auto y = run_once(*o, o->space().default_config, {x.data()}, pool())[0];
    EXPECT_FLOAT_EQ(y[0], p == 1 ? 7.0f : 5.0f);  // the pad row and 3, -4
    EXPECT_FLOAT_EQ(y[1], p == 1 ? 7.0f : 5.0f);  // 3, -4 and 0, 0
  }
}

// MaxRoiPool: regions rounded to pixels, bins by floor and ceiling, empty bins 0.
TEST(MaxRoiPool, MatchesTheReferenceAndByHand) {
  auto task = with_outputs(op("MaxRoiPool", {f32({2, 3, 8, 6}), f32({4, 5})}, {{"pooled_shape", {2, 3}}, {"spatial_scale", 0.5}}),
                           {f32({4, 3, 2, 3})});
  const auto o = make_op(task, host());
  test::expect_matches_reference(*o, test::sample_configs(*o, 3), pool());

  // One 4 x 4 map of 0..15, the region (1, 1) to (2, 3) in 1 x 2 bins: columns 1 and 2 of rows 1 to 3.
  const auto one = make_op(with_outputs(op("MaxRoiPool", {f32({1, 1, 4, 4}), f32({2, 5})}, {{"pooled_shape", {1, 2}}}),
                                        {f32({2, 1, 1, 2})}),
                           host());
  std::vector<float> x(16);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  const std::vector<float> rois = {0, 1, 1, 2, 3, /* past the map: */ 0, 9, 9, 12, 12};
  const auto y = run_once(*one, one->space().default_config, {x.data(), rois.data()}, pool())[0];
  EXPECT_EQ(y, (std::vector<float>{13, 14, 0, 0}));
  // Corners far past the map: clipped to it, the right half of the first region covering it all, the second region none.
  const std::vector<float> far = {0, -1e30f, -1e30f, 1e30f, 1e30f, 0, 1e30f, 1e30f, 1e30f, 1e30f};
  const auto clipped = run_once(*one, one->space().default_config, {x.data(), far.data()}, pool())[0];
  EXPECT_EQ(clipped[1], 15.0f);
  EXPECT_EQ(clipped[2], 0.0f);
  EXPECT_EQ(clipped[3], 0.0f);
  // A batch index out of range or a corner that is no number fails the run naming the region.
  for (const float bad_value : {1.0f, NAN}) {
    std::vector<float> bad = rois;
    bad[bad_value == 1.0f ? 0 : 8] = bad_value;
    try {
      run_once(*one, one->space().default_config, {x.data(), bad.data()}, pool());
      ADD_FAILURE() << "ran with " << bad_value;
    } catch (const sdk::Error& e) {
      EXPECT_NE(std::string(e.what()).find(bad_value == 1.0f ? "region 0" : "region 1"), std::string::npos) << e.what();
    }
  }
}

// LpNormalization along an inner and the last axis, p 1 and 2; a zero vector stays zeros.
TEST(LpNormalization, AlongAnyAxis) {
  for (const int64_t p : {1, 2})
    for (const int64_t axis : {1, -1}) {
      const auto o = make_op(with_outputs(op("LpNormalization", {f32({3, 5, 4})}, {{"p", p}, {"axis", axis}}), {f32({3, 5, 4})}),
                             host());
      test::expect_matches_reference(*o, test::sample_configs(*o, 3), pool());
    }
  const auto o = make_op(with_outputs(op("LpNormalization", {f32({2, 2})}), {f32({2, 2})}), host());
  const std::vector<float> x = {3, 4, 0, 0};
  EXPECT_EQ(run_once(*o, o->space().default_config, {x.data()}, pool())[0], (std::vector<float>{0.6f, 0.8f, 0, 0}));
  EXPECT_EQ(test::refusal_code(op("LpNormalization", {f32({2, 2})}, {{"p", 3}})), sdk::StatusCode::invalid_argument);
}

}  // namespace
}  // namespace aoe::cpu
