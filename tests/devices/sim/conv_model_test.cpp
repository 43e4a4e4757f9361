// The ascend910 Conv2D model: hand-computed figures for each path,
// constraints, bounds, scaling with cores and the default tiling against the best.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "aoe/sdk/error.h"
#include "conv_model.h"
#include "op_tasks.h"
#include "sim_device.h"
#include "soc.h"
#include "soc_files.h"

namespace aoe::sim {
namespace {

using sdk::DType;
using test::tensor;

struct ConvShape {
  int64_t n, c, h, w, cout, k;
  int64_t stride = 1, pad = 0, group = 1;
};

// An ONNX Conv node: X [N,C,H,W], W [M,C/group,k,k], attributes left out when they are the defaults.
sdk::OpTask conv(const ConvShape& s, std::vector<std::string> fused = {}, DType dtype = DType::f16) {
  sdk::OpTask task;
  task.name = "conv";
  task.op_type = "Conv";
  task.inputs = {tensor({s.n, s.c, s.h, s.w}, dtype), tensor({s.cout, s.c / s.group, s.k, s.k}, dtype, true)};
  if (s.stride != 1) task.attrs["strides"] = {s.stride, s.stride};
  if (s.pad != 0) task.attrs["pads"] = {s.pad, s.pad, s.pad, s.pad};
  if (s.group != 1) task.attrs["group"] = s.group;
  task.attrs["kernel_shape"] = {s.k, s.k};
  task.fused_ops = std::move(fused);
  return task;
}

ConvModel model_of(const sdk::OpTask& task) { return ConvModel(ascend910(), conv_problem(task, ascend910())); }

ConvTiling tiling(int64_t block_dim, ConvSplit split, int64_t h_l1, int64_t c1_l1, int64_t m_l0, int64_t n_l0,
                  int64_t k_l0, bool db_l1, bool db_l0, ConvImpl impl = ConvImpl::cube) {
  return {block_dim, split, h_l1, c1_l1, m_l0, n_l0, k_l0, db_l1, db_l0, impl};
}

sdk::StatusCode code_of(const std::function<void()>& body) {
  try {
    body();
  } catch (const sdk::Error& e) {
    return e.code();
  }
  return sdk::StatusCode::ok;
}

struct Best {
  sdk::Config config;
  double us = 0;
  size_t valid = 0;
};

Best exhaustive_best(const ConvModel& model) {
  Best best;
  sdk::for_each_config(model.space(), [&](const sdk::Config& c) {
    if (!model.check(c).ok()) return;
    ++best.valid;
    const double us = model.time_us(c);
    if (best.config.empty() || us < best.us) best.config = c, best.us = us;
  });
  return best;
}

// ResNet-50 (v1.5, batch 1) and MobileNetV2 (batch 1) convs.
struct NamedConv {
  const char* name;
  sdk::OpTask task;
};

std::vector<NamedConv> real_convs() {
  return {
      {"resnet50 conv1 7x7/2", conv({1, 3, 224, 224, 64, 7, 2, 3}, {"Relu"})},
      {"resnet50 res2 1x1 64->64", conv({1, 64, 56, 56, 64, 1}, {"Relu"})},
      {"resnet50 res2 3x3 64", conv({1, 64, 56, 56, 64, 3, 1, 1}, {"Relu"})},
      {"resnet50 res3 3x3/2 128", conv({1, 128, 56, 56, 128, 3, 2, 1}, {"Relu"})},
      {"resnet50 res3 1x1/2 down", conv({1, 256, 56, 56, 512, 1, 2})},
      {"resnet50 res4 3x3 256", conv({1, 256, 14, 14, 256, 3, 1, 1}, {"Relu"})},
      {"resnet50 res5 3x3 512", conv({1, 512, 7, 7, 512, 3, 1, 1}, {"Relu"})},
      {"resnet50 res5 1x1 512->2048", conv({1, 512, 7, 7, 2048, 1})},
      {"mobilenetv2 stem 3x3/2", conv({1, 3, 224, 224, 32, 3, 2, 1}, {"Clip"})},
      {"mobilenetv2 dw 3x3 32@112", conv({1, 32, 112, 112, 32, 3, 1, 1, 32}, {"Clip"})},
      {"mobilenetv2 dw 3x3/2 144", conv({1, 144, 56, 56, 144, 3, 2, 1, 144}, {"Clip"})},
      {"mobilenetv2 dw 3x3 960@7", conv({1, 960, 7, 7, 960, 3, 1, 1, 960}, {"Clip"})},
      {"mobilenetv2 1x1 24->144", conv({1, 24, 56, 56, 144, 1}, {"Clip"})},
      {"mobilenetv2 1x1 960->160", conv({1, 960, 7, 7, 160, 1})},
      {"mobilenetv2 1x1 320->1280", conv({1, 320, 7, 7, 1280, 1}, {"Clip"})},
  };
}

// ---- vocabulary -------------------------------------------------------------

TEST(ConvModel, SpaceSpeaksCannConvTilingVocabulary) {
  const auto model = model_of(conv({1, 64, 56, 56, 64, 3, 1, 1}));
  std::vector<std::string> names;
  for (const auto& k : model.space().knobs) {
    names.push_back(k.name);
    EXPECT_EQ(k.tag, sdk::KnobTag::schedule) << k.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"block_dim", "split", "h_l1", "c1_l1", "m_l0", "n_l0", "k_l0", "db_l1",
                                             "db_l0"}));
  // Batch 1: the cores split output rows or output channels.
  EXPECT_EQ(model.space().knobs[ConvModel::kSplit].labels, (std::vector<std::string>{"rows", "cout"}));
  EXPECT_EQ(model.space().knobs[ConvModel::kHL1].values, (std::vector<int64_t>{1, 2, 4, 8, 16, 32, 64}));
  EXPECT_EQ(model.space().knobs[ConvModel::kC1L1].values, (std::vector<int64_t>{1, 2, 4}));
  EXPECT_LE(model.space().size(), 1e6);

  const auto batched = model_of(conv({8, 64, 56, 56, 64, 3, 1, 1}));
  EXPECT_EQ(batched.space().knobs[ConvModel::kSplit].labels, (std::vector<std::string>{"batch", "rows", "cout"}));

  // Depthwise adds the choice of unit, tagged Impl.
  const auto dw = model_of(conv({1, 32, 112, 112, 32, 3, 1, 1, 32}));
  ASSERT_EQ(dw.space().knobs.size(), 10u);
  EXPECT_EQ(dw.space().knobs[ConvModel::kImpl].name, "impl");
  EXPECT_EQ(dw.space().knobs[ConvModel::kImpl].tag, sdk::KnobTag::impl);
  EXPECT_EQ(dw.space().knobs[ConvModel::kImpl].labels, (std::vector<std::string>{"cube", "vector"}));
  for (const auto& c : real_convs()) EXPECT_LE(model_of(c.task).space().size(), 1.2e6) << c.name;
}

// ---- hand-computed figures ----------------------------------------------------
// ascend910 rates, B/cycle: GM->L1 110, L1->L0A 512, L1->L0B 256, L0C->UB 256,
// UB->GM 64, HBM 1200 for the chip; 200 cycles per GM transfer, 30 per L0
// load, 20 per mmad, 6 per vector instruction; 1 GHz; launch 3 us.

// An NHWC conv (a TensorFlow graph's) reads its dims by its data_format;
// the cube reads NC1HWC0 either way, so it tiles and costs as its NCHW twin.
TEST(ConvModel, NhwcConvTilesAsItsNchwTwin) {
  const sdk::OpTask nchw = conv({1, 64, 56, 56, 128, 3, 2, 1});
  sdk::OpTask nhwc = nchw;
  nhwc.inputs[0].shape = {1, 56, 56, 64};
  nhwc.attrs["data_format"] = "NHWC";
  const auto a = model_of(nchw), b = model_of(nhwc);
  EXPECT_EQ(b.problem().c, 64);
  EXPECT_EQ(b.problem().h, 56);
  EXPECT_EQ(b.problem().ho, 28);
  EXPECT_EQ(b.problem().layout, sdk::DataLayout::nhwc);
  EXPECT_EQ(b.space().knobs.size(), a.space().knobs.size());
  EXPECT_EQ(b.space().default_config, a.space().default_config);
  EXPECT_DOUBLE_EQ(b.time_us(b.space().default_config), a.time_us(a.space().default_config));
  // Read as NCHW, the same dims would be 56 channels the weights do not have.
  nhwc.attrs.erase("data_format");
  EXPECT_EQ(code_of([&] { model_of(nhwc); }), sdk::StatusCode::invalid_argument);
}

TEST(ConvModel, PointwiseByHand) {
  // 1x1 stride 1, 64 -> 64 channels on 16 x 16: load2d, a 256 x 64 x 64 matmul.
  const auto model = model_of(conv({1, 64, 16, 16, 64, 1}));
  const auto t = tiling(1, ConvSplit::rows, 16, 4, 16, 4, 4, false, false);
  ASSERT_TRUE(model.check(t).ok()) << model.check(t).message;
  const auto c = model.cost(t);
  EXPECT_EQ(c.feed, ConvFeed::load2d);
  EXPECT_EQ(c.out_tiles, 1);
  // The fmap, 4 channel groups x 256 positions x 32 B, and 4 x 4 weight fractals, two transfers.
  EXPECT_NEAR(c.gm_to_l1, (32768.0 + 8192.0) / 110 + 2 * 200, 1e-9);
  // 16 x 4 A fractals at 512 B/cycle, 4 x 4 B fractals at 256, one load2d each.
  EXPECT_NEAR(c.l1_to_l0, 32768.0 / 512 + 8192.0 / 256 + 2 * 30, 1e-9);
  // 16 x 4 x 4 fractal triples, one mmad.
  EXPECT_DOUBLE_EQ(c.cube, 16 * 4 * 4 + 20);
  const double write_back = 65536.0 / 256    // fp32 L0C to UB
                            + (256 + 2 * 6)  // cast: 256 repeats in two instructions
                            + 32768.0 / 64   // fp16 to GM
                            + 2 * 200;
  EXPECT_NEAR(c.write_back, write_back, 1e-9);
  const double core = (32768.0 + 8192.0) / 110 + 400 + 156 + 276 + write_back;
  EXPECT_NEAR(c.core_cycles, core, 1e-9);
  EXPECT_NEAR(c.total_us, core / 1000 + 3, 1e-9);
  // 2 x 256 x 64 x 64 FLOP is far below the 72 KiB at 1.2 TB/s.
  EXPECT_NEAR(model.roofline_us(), 73728.0 / 1.2e6, 1e-12);
}

TEST(ConvModel, Img2colByHand) {
  // 3x3 pad 1 over 16 channels of 8 x 8: load3d, K = 9 fractals.
  const auto model = model_of(conv({1, 16, 8, 8, 16, 3, 1, 1}));
  const auto t = tiling(1, ConvSplit::rows, 8, 1, 4, 1, 16, false, false);
  ASSERT_TRUE(model.check(t).ok()) << model.check(t).message;
  const auto c = model.cost(t);
  EXPECT_EQ(c.feed, ConvFeed::load3d);
  // 8 input rows of 8 positions (2 KiB) and 9 weight fractals.
  EXPECT_NEAR(c.gm_to_l1, (2048.0 + 4608.0) / 110 + 2 * 200, 1e-9);
  // img2col: 4 x 9 A fractals out of 2 KiB of fmap, in min(4, 9) = 4 load3d; one load2d of B.
  EXPECT_NEAR(c.l1_to_l0, 4 * 9 * 512.0 / 512 + 9 * 512.0 / 256 + 5 * 30, 1e-9);
  EXPECT_DOUBLE_EQ(c.cube, 4 * 1 * 9 + 20);
  EXPECT_NEAR(c.write_back, 4096.0 / 256 + (16 + 6) + 2048.0 / 64 + 400, 1e-9);
  EXPECT_NEAR(c.total_us, ((6656.0 / 110 + 400) + 204 + 56 + 470) / 1000 + 3, 1e-9);
}

TEST(ConvModel, DepthwiseOnTheVectorUnitByHand) {
  const auto model = model_of(conv({1, 16, 8, 8, 16, 3, 1, 1, 16}));
  const auto t = tiling(1, ConvSplit::rows, 8, 1, 1, 1, 1, false, false, ConvImpl::vector);
  ASSERT_TRUE(model.check(t).ok()) << model.check(t).message;
  const auto c = model.cost(t);
  // In: 8 rows x 8 positions x 32 B and 9 taps x 32 B of weights; out: 64 positions x 32 B.
  EXPECT_NEAR(c.gm_to_l1, 2336.0 / 110 + 200, 1e-9);
  // One vmla per tap and output row: 8 x 32 B is one repeat, plus its startup.
  EXPECT_DOUBLE_EQ(c.vector, 9 * 8 * (1 + 6));
  EXPECT_DOUBLE_EQ(c.write_back, 2048.0 / 64 + 200);
  EXPECT_NEAR(c.total_us, (2336.0 / 110 + 200 + 504 + 232) / 1000 + 3, 1e-9);

  // On the cube each group of 16 channels is a 64 x 144 x 16 matmul whose
  // weight fractals are diagonal: 15/16 of the cube's work is zeros.
  const auto cube = model.cost(tiling(1, ConvSplit::rows, 8, 1, 4, 1, 16, false, false));
  EXPECT_DOUBLE_EQ(cube.cube, 4 * 1 * 9 + 20);
  EXPECT_EQ(model.problem().enlarge, 16);
  EXPECT_EQ(model.problem().group_blocks, 1);
}

// ---- paths and parsing ---------------------------------------------------------

TEST(ConvModel, OneByOneStrideOneSkipsImg2col) {
  const auto pointwise = model_of(conv({4, 256, 14, 14, 1024, 1}));
  EXPECT_EQ(pointwise.problem().feed, ConvFeed::load2d);
  // The batch folds into the rows: one matmul over NHW x C.
  EXPECT_EQ(pointwise.problem().images, 1);
  EXPECT_EQ(pointwise.problem().rows, 4 * 14);
  EXPECT_EQ(pointwise.cost(tiling(32, ConvSplit::rows, 2, 16, 2, 8, 8, true, true)).feed, ConvFeed::load2d);
  // A strided or padded 1x1, and any larger kernel, go through load3d.
  EXPECT_EQ(model_of(conv({4, 256, 56, 56, 512, 1, 2})).problem().feed, ConvFeed::load3d);
  EXPECT_EQ(model_of(conv({1, 64, 56, 56, 64, 1, 1, 1})).problem().feed, ConvFeed::load3d);
  EXPECT_EQ(model_of(conv({1, 64, 56, 56, 64, 3, 1, 1})).problem().feed, ConvFeed::load3d);

  // The same 196 x 256 x 256 product, but img2col's load3d takes an
  // instruction per fractal row where load2d moves the block in one.
  const auto direct = model_of(conv({1, 256, 14, 14, 256, 1}));
  const auto padded = model_of(conv({1, 256, 12, 12, 256, 1, 1, 1}));  // 14 x 14 output through load3d
  const auto t = tiling(1, ConvSplit::rows, 16, 16, 16, 4, 4, false, false);
  ASSERT_TRUE(direct.check(t).ok()) << direct.check(t).message;
  ASSERT_TRUE(padded.check(t).ok()) << padded.check(t).message;
  EXPECT_EQ(direct.cost(t).cube, padded.cost(t).cube);
  EXPECT_LT(direct.cost(t).l1_to_l0, padded.cost(t).l1_to_l0);
}

// A 3-D Conv is CANN's Conv3D: each output depth a 2-D convolution over the kd
// input slices under it, the products of the 3-D definition; depth's stride,
// dilation and pads (NCDHW order) taken from the 3-D attributes.
TEST(ConvModel, ThreeDimensionalFoldsDepthIntoImagesAndChannels) {
  sdk::OpTask video;
  video.name = "conv3d";
  video.op_type = "Conv";
  video.inputs = {tensor({2, 32, 9, 20, 30}), tensor({48, 16, 3, 3, 5}, DType::f16, true), tensor({48})};
  video.attrs = {{"strides", {2, 1, 2}}, {"dilations", {2, 1, 1}}, {"pads", {1, 1, 2, 2, 1, 2}}, {"group", 2}};
  const auto p = conv_problem(video, ascend910());
  const int64_t depth = (9 + 1 + 2 - 5) / 2 + 1;  // 4
  EXPECT_EQ(p.n, 2 * depth);
  EXPECT_EQ(p.c, 32 * 3);
  EXPECT_EQ(p.ho, 20);
  EXPECT_EQ(p.wo, (30 + 4 - 5) / 2 + 1);
  EXPECT_EQ(p.pad_top, 1);
  EXPECT_EQ(p.pad_right, 2);
  EXPECT_TRUE(p.has_bias);
  EXPECT_DOUBLE_EQ(p.flops(), 2.0 * 2 * 48 * depth * 20 * 15 * 16 * 3 * 3 * 5);
  const ConvModel m(ascend910(), p);
  EXPECT_GE(m.time_us(m.space().default_config), m.roofline_us());
  video.attrs["pads"] = {1, 1, 2, 2};
  EXPECT_EQ(code_of([&] { conv_problem(video, ascend910()); }), sdk::StatusCode::invalid_argument);
}

TEST(ConvModel, OnnxDefaultsAndAutoPad) {
  // No attributes: stride 1, no pads, dilation 1, one group, kernel from the weights.
  sdk::OpTask bare;
  bare.op_type = "Conv";
  bare.inputs = {tensor({2, 32, 20, 30}), tensor({48, 32, 3, 5})};
  const auto p = conv_problem(bare, ascend910());
  EXPECT_EQ(p.ho, 18);
  EXPECT_EQ(p.wo, 26);
  EXPECT_EQ(p.group, 1);
  EXPECT_FALSE(p.has_bias);
  EXPECT_DOUBLE_EQ(p.flops(), 2.0 * 2 * 48 * 18 * 26 * 32 * 15);

  auto same = bare;
  same.attrs = {{"auto_pad", "SAME_UPPER"}, {"strides", {2, 2}}};
  const auto s = conv_problem(same, ascend910());
  EXPECT_EQ(s.ho, 10);
  EXPECT_EQ(s.wo, 15);
  EXPECT_EQ(s.pad_top, 0);     // total 1: the extra row goes to the end
  EXPECT_EQ(s.pad_bottom, 1);
  EXPECT_EQ(s.pad_left, 1);    // total 3
  EXPECT_EQ(s.pad_right, 2);
  same.attrs["auto_pad"] = "SAME_LOWER";
  EXPECT_EQ(conv_problem(same, ascend910()).pad_top, 1);

  auto dilated = bare;
  dilated.attrs = {{"dilations", {2, 2}}, {"pads", {2, 4, 2, 4}}};
  EXPECT_EQ(conv_problem(dilated, ascend910()).ho, 20);
  EXPECT_EQ(conv_problem(dilated, ascend910()).wo, 30);

  // A 1-D third input is the bias: one more vector pass and its row read.
  auto biased = bare;
  biased.inputs.push_back(tensor({48}));
  const auto b = conv_problem(biased, ascend910());
  EXPECT_TRUE(b.has_bias);
  EXPECT_EQ(b.epilogue.simple_passes, 1);
  EXPECT_DOUBLE_EQ(b.epilogue.addend_bytes_total(), 48 * 2);
}

TEST(ConvModel, DepthwiseAndGroupedConvsRun) {
  for (const auto& task : {conv({1, 32, 112, 112, 32, 3, 1, 1, 32}, {"Clip"}),
                           conv({1, 144, 56, 56, 144, 3, 2, 1, 144}, {"Clip"}),
                           conv({2, 128, 28, 28, 128, 3, 1, 1, 32}, {"Relu"}),  // ResNeXt-50 32x4d
                           conv({1, 64, 28, 28, 128, 3, 1, 1, 2})}) {
    const auto model = model_of(task);
    const auto& d = model.space().default_config;
    ASSERT_TRUE(model.check(d).ok()) << task.signature() << ": " << model.check(d).message;
    EXPECT_GE(model.time_us(d), model.roofline_us());
  }
  // 32 groups of 4 channels merge 4 at a time into 8 blocks of 16 x 16 channels.
  const auto resnext = model_of(conv({2, 128, 28, 28, 128, 3, 1, 1, 32})).problem();
  EXPECT_EQ(resnext.enlarge, 4);
  EXPECT_EQ(resnext.group_blocks, 8);
  EXPECT_EQ(resnext.c1g, 1);
  EXPECT_FALSE(resnext.vector_capable);
  // Two groups of 32 -> 64 channels need no merging.
  const auto halves = model_of(conv({1, 64, 28, 28, 128, 3, 1, 1, 2})).problem();
  EXPECT_EQ(halves.group_blocks, 2);
  EXPECT_EQ(halves.c1g, 2);
  EXPECT_EQ(halves.n1g, 4);

  // Depthwise: the default is CANN's cube kernel, and both units give valid kernels.
  const auto dw = model_of(conv({1, 144, 56, 56, 144, 3, 2, 1, 144}, {"Clip"}));
  EXPECT_EQ(dw.space().default_config[ConvModel::kImpl], 0);
  EXPECT_TRUE(dw.problem().depthwise);
  size_t cube = 0, vector = 0;
  double best_cube = 1e30, best_vector = 1e30;
  sdk::for_each_config(dw.space(), [&](const sdk::Config& c) {
    if (!dw.check(c).ok()) return;
    const double us = dw.time_us(c);
    if (c[ConvModel::kImpl] == 0) ++cube, best_cube = std::min(best_cube, us);
    else ++vector, best_vector = std::min(best_vector, us);
  });
  EXPECT_GT(cube, 100u);
  EXPECT_GT(vector, 100u);
  std::printf("depthwise 3x3/2 144@56: best cube %.3f us, best vector %.3f us\n", best_cube, best_vector);
}

// A 1-D Conv is CANN's Conv1D: the 2-D conv over maps of height 1 with a 1 x k
// kernel, its stride, dilation and pads those of the width.
TEST(ConvModel, OneDimensionalIsTheTwoDimensionalOfHeightOne) {
  sdk::OpTask conv1d;
  conv1d.name = "c1d";
  conv1d.op_type = "Conv";
  conv1d.inputs = {tensor({1, 1, 1280}), tensor({257, 1, 512}, DType::f16, true)};
  conv1d.attrs = {{"strides", {160}}, {"pads", {3, 5}}};
  sdk::OpTask twin = conv1d;
  twin.inputs = {tensor({1, 1, 1, 1280}), tensor({257, 1, 1, 512}, DType::f16, true)};
  twin.attrs = {{"strides", {1, 160}}, {"pads", {0, 3, 0, 5}}};
  const auto p = conv_problem(conv1d, ascend910()), q = conv_problem(twin, ascend910());
  EXPECT_EQ(p.h, 1);
  EXPECT_EQ(p.wo, (1280 + 8 - 512) / 160 + 1);
  EXPECT_DOUBLE_EQ(p.flops(), q.flops());
  const ConvModel a(ascend910(), p), b(ascend910(), q);
  EXPECT_EQ(a.space().default_config, b.space().default_config);
  EXPECT_DOUBLE_EQ(a.time_us(a.space().default_config), b.time_us(b.space().default_config));
  conv1d.attrs["strides"] = {1, 1};
  EXPECT_EQ(code_of([&] { conv_problem(conv1d, ascend910()); }), sdk::StatusCode::invalid_argument);
}

TEST(ConvModel, WhatTheModelDoesNotCoverIsUnsupported) {
  sdk::OpTask conv4d;
  conv4d.name = "c4d";
  conv4d.op_type = "Conv";
  conv4d.inputs = {tensor({1, 16, 4, 4, 4, 4}), tensor({32, 16, 3, 3, 3, 3})};
  try {
    conv_problem(conv4d, ascend910());
    FAIL() << "a 4-D conv was accepted";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), sdk::StatusCode::unsupported);
    EXPECT_NE(std::string(e.what()).find("1-D, 2-D or 3-D"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Conv"), std::string::npos) << e.what();
  }
  // Through the device as well.
  SimDevice dev(sdk::CreateArgs{"ascend910", nlohmann::json::object()});
  EXPECT_EQ(code_of([&] { dev.prepare(conv4d); }), sdk::StatusCode::unsupported);

  EXPECT_EQ(code_of([] { model_of(conv({1, 16, 8, 8, 16, 3}, {}, DType::bf16)); }), sdk::StatusCode::unsupported);
  EXPECT_EQ(code_of([] { model_of(conv({1, 16, 8, 8, 16, 3}, {"Softmax"})); }), sdk::StatusCode::unsupported);
  // Malformed tasks are invalid arguments.
  EXPECT_EQ(code_of([] { model_of(conv({1, 30, 8, 8, 16, 3, 1, 0, 4})); }), sdk::StatusCode::invalid_argument);
  EXPECT_EQ(code_of([] { model_of(conv({1, 16, 2, 2, 16, 5})); }), sdk::StatusCode::invalid_argument);
  auto bad_bias = conv({1, 16, 8, 8, 16, 3});
  bad_bias.inputs.push_back(tensor({15}));
  EXPECT_EQ(code_of([&] { model_of(bad_bias); }), sdk::StatusCode::invalid_argument);
  auto bad_pad = conv({1, 16, 8, 8, 16, 3});
  bad_pad.attrs["auto_pad"] = "SAME";
  EXPECT_EQ(code_of([&] { model_of(bad_pad); }), sdk::StatusCode::invalid_argument);
}

TEST(ConvModel, FusedOpsAreVectorWorkOnTheOutput) {
  const ConvShape s{1, 256, 14, 14, 1024, 1};
  auto residual = conv(s, {"Add", "Relu"});
  residual.inputs.push_back(tensor({1, 1024, 14, 14}));
  auto swish = conv(s, {"HardSwish"});
  const auto t = tiling(32, ConvSplit::cout, 16, 16, 16, 2, 8, true, true);
  const auto plain = model_of(conv(s)).cost(t), res = model_of(residual).cost(t), hs = model_of(swish).cost(t);
  EXPECT_GT(res.write_back, plain.write_back);
  EXPECT_GT(hs.write_back, plain.write_back);
  EXPECT_EQ(res.cube, plain.cube);
  EXPECT_GT(model_of(residual).roofline_us(), model_of(conv(s)).roofline_us());
  // A binary op without an operand reads one value per output channel.
  EXPECT_DOUBLE_EQ(model_of(conv(s, {"Mul"})).problem().epilogue.addend_bytes_total(), 1024 * 2);
}

TEST(ConvModel, Fp32InputIsCastForTheCube) {
  const ConvShape s{1, 64, 56, 56, 64, 3, 1, 1};
  const auto half = model_of(conv(s));
  const auto full = model_of(conv(s, {}, DType::f32));
  const auto t = half.tiling(half.space().default_config);
  EXPECT_EQ(full.cost(t).cube, half.cost(t).cube);
  EXPECT_GT(full.cost(t).cast_us, 0);
  EXPECT_GT(full.cost(t).total_us, half.cost(t).total_us);
}

// ---- constraints ---------------------------------------------------------------

TEST(ConvModel, BuffersAreCountedWithDoubleBuffering) {
  // 256 -> 256 channels, 3x3 on 28 x 28: 16 channel groups, K = 144 fractals, 16 Cout fractals.
  const auto model = model_of(conv({1, 256, 28, 28, 256, 3, 1, 1}));
  EXPECT_TRUE(model.check(tiling(28, ConvSplit::rows, 1, 16, 2, 1, 16, false, false)).ok());
  // 16 x 16 fractals of A: 128 KiB, twice what L0A has; with db_l0, 8 x 8 already fills it.
  EXPECT_EQ(model.check(tiling(16, ConvSplit::cout, 16, 16, 16, 1, 16, false, false)).message,
            "L0A, needs 131072 B, has 65536 B");
  EXPECT_TRUE(model.check(tiling(16, ConvSplit::cout, 16, 16, 8, 1, 8, false, true)).ok());
  EXPECT_EQ(model.check(tiling(16, ConvSplit::cout, 16, 16, 8, 1, 16, false, true)).message,
            "L0A, needs 131072 B, has 65536 B");
  EXPECT_EQ(model.check(tiling(1, ConvSplit::cout, 16, 16, 8, 16, 16, false, false)).message,
            "L0B, needs 131072 B, has 65536 B");
  // fp32 accumulator fractals of 1 KiB: 16 x 8 fill L0C twice, 16 x 16 do not.
  EXPECT_TRUE(model.check(tiling(1, ConvSplit::cout, 16, 16, 16, 8, 1, false, true)).ok());
  EXPECT_EQ(model.check(tiling(1, ConvSplit::cout, 16, 16, 16, 16, 1, false, true)).message,
            "L0C, needs 524288 B, has 262144 B");
  // All 16 channel groups of the 28 rows (392 KiB) and a 144 x 4 fractal
  // weight slab (288 KiB) fit L1 once, not twice.
  EXPECT_TRUE(model.check(tiling(1, ConvSplit::cout, 32, 16, 16, 4, 1, false, false)).ok());
  EXPECT_EQ(model.check(tiling(1, ConvSplit::cout, 32, 16, 16, 4, 1, true, false)).message,
            "L1, needs 1392640 B, has 1048576 B");
}

TEST(ConvModel, OtherConstraintsAreRefused) {
  const auto model = model_of(conv({1, 64, 14, 14, 64, 3, 1, 1}));
  // 14 output rows, 4 Cout fractals.
  EXPECT_EQ(model.check(tiling(15, ConvSplit::rows, 1, 4, 1, 1, 1, false, false)).message,
            "block_dim 15 exceeds the 14 output rows");
  EXPECT_EQ(model.check(tiling(5, ConvSplit::cout, 1, 4, 1, 1, 1, false, false)).message,
            "block_dim 5 exceeds the 4 output channel groups");
  // A core's share is 2 rows: 4 rows per L1 load duplicates 2.
  EXPECT_EQ(model.check(tiling(7, ConvSplit::rows, 4, 4, 1, 1, 1, false, false)).status, sdk::ResultStatus::invalid);
  EXPECT_TRUE(model.check(tiling(7, ConvSplit::rows, 2, 4, 1, 1, 1, false, false)).ok());
  // K split over L1 loads needs one L0 M tile per L1 tile: 2 rows x 14 = 28 positions need 2 fractals.
  EXPECT_TRUE(model.check(tiling(7, ConvSplit::rows, 2, 2, 2, 1, 1, false, false)).ok());
  EXPECT_NE(model.check(tiling(7, ConvSplit::rows, 2, 2, 1, 1, 1, false, false)).message.find("m_l0 1 must cover"),
            std::string::npos);
  EXPECT_EQ(model.check(sdk::Config{1, 0, 1}).status, sdk::ResultStatus::invalid);

  // The vector path has no L0 tiles: its L0 knobs change nothing.
  const auto dw = model_of(conv({1, 32, 56, 56, 32, 3, 1, 1, 32}));
  const auto plain = tiling(2, ConvSplit::cout, 4, 1, 1, 1, 1, true, false, ConvImpl::vector);
  const auto with_l0 = tiling(2, ConvSplit::cout, 4, 1, 2, 1, 1, true, false, ConvImpl::vector);
  EXPECT_TRUE(dw.check(plain).ok());
  EXPECT_TRUE(dw.check(with_l0).ok());
  EXPECT_EQ(dw.cost(plain).total_us, dw.cost(with_l0).total_us);
  // Both channel groups of all 56 rows, input and output, twice.
  EXPECT_EQ(dw.check(tiling(1, ConvSplit::rows, 64, 2, 1, 1, 1, true, false, ConvImpl::vector)).message.substr(0, 3),
            "UB:");
  EXPECT_TRUE(dw.check(tiling(1, ConvSplit::rows, 16, 2, 1, 1, 1, true, false, ConvImpl::vector)).ok());
}

// ---- bounds, scaling, default against best ----------------------------------------

TEST(ConvModel, NoValidConfigBeatsTheRoofline) {
  const std::vector<sdk::OpTask> shapes = {
      conv({1, 64, 56, 56, 64, 3, 1, 1}, {"Relu"}),          conv({1, 512, 7, 7, 2048, 1}),
      conv({2, 3, 64, 64, 32, 7, 2, 3}),                     conv({1, 96, 28, 28, 96, 3, 1, 1, 96}, {"Clip"}),
      conv({1, 1000, 13, 13, 37, 3, 2, 0}),                  conv({4, 64, 28, 28, 64, 3, 1, 1, 4}),
  };
  for (const auto& task : shapes) {
    const auto model = model_of(task);
    // The bound by hand: FLOPs at 32 cores x 8192 FLOP/cycle at 1 GHz, bytes at 1.2 TB/s.
    const auto& p = model.problem();
    const double bytes = static_cast<double>(p.n * p.c * p.h * p.w + p.cout * (p.c / p.group) * p.taps() +
                                             p.n * p.cout * p.ho * p.wo) * 2;
    EXPECT_NEAR(model.roofline_us(), std::max(p.flops() / 262144e3, bytes / 1.2e6), 1e-12) << task.signature();
    size_t valid = 0;
    sdk::for_each_config(model.space(), [&](const sdk::Config& c) {
      if (!model.check(c).ok()) return;
      ++valid;
      const double us = model.time_us(c);
      if (us < model.roofline_us()) ADD_FAILURE() << task.signature() << " " << model.space().describe(c).dump();
    });
    EXPECT_GT(valid, 1000u) << task.signature();
  }
}

TEST(ConvModel, MoreCoresAreNeverSlowerOnALargeBalancedConv) {
  // Batch 32, 32 output rows, 16 Cout fractals: every power-of-two block_dim
  // up to the axis divides it.
  const auto model = model_of(conv({32, 256, 32, 32, 256, 3, 1, 1}, {"Relu"}));
  size_t compared = 0;
  sdk::for_each_config(model.space(), [&](const sdk::Config& c) {
    if (c[ConvModel::kBlockDim] != 1 || !model.check(c).ok()) return;
    sdk::Config more = c;
    double previous = model.time_us(c);
    for (int64_t cores = 2; cores <= 32; cores *= 2) {
      more[ConvModel::kBlockDim] = cores;
      if (!model.check(more).ok()) break;
      const double now = model.time_us(more);
      EXPECT_LE(now, previous * (1 + 1e-12)) << model.space().describe(more).dump();
      previous = now;
    }
    ++compared;
  });
  EXPECT_GT(compared, 1000u);
  // And the chip is used: 32 cores are far faster than one.
  auto t = model.tiling(model.space().default_config);
  const double all = model.cost(t).total_us;
  t.block_dim = 1;
  EXPECT_GT(model.cost(t).total_us, 16 * all);
}

TEST(ConvModel, DefaultFollowsCannConvTiling) {
  // res2 3x3 at batch 1: 56 rows, 2 a core on the 28 cores those shares
  // need, double buffering, all of K (4 channel groups x 9 taps) in L1, the
  // largest L0C tile that fits twice.
  const auto model = model_of(conv({1, 64, 56, 56, 64, 3, 1, 1}, {"Relu"}));
  const auto t = model.tiling(model.space().default_config);
  EXPECT_EQ(t.split, ConvSplit::rows);
  EXPECT_EQ(t.block_dim, 28);
  EXPECT_TRUE(t.db_l1);
  EXPECT_TRUE(t.db_l0);
  EXPECT_EQ(t.c1_l1, 4);
  EXPECT_EQ(t.h_l1, 2);  // a core's 2 rows in one L1 load
  EXPECT_EQ(t.m_l0 * t.n_l0, 8 * 4);  // 112 positions in 7 fractals, by all 4 Cout fractals
  EXPECT_EQ(t.n_l0, 4);

  // Few rows and many output channels: the estimate splits Cout.
  const auto wide = model_of(conv({1, 512, 7, 7, 2048, 1}));
  EXPECT_EQ(wide.tiling(wide.space().default_config).split, ConvSplit::cout);
  EXPECT_EQ(wide.tiling(wide.space().default_config).block_dim, 32);
}

// A batch whose images' outputs are small takes the cores first: the most
// blocks that split it into equal whole images (32 on 30 cores: 16 of two),
// a 1x1 conv's folded rows alike; a big output map splits as its estimate
// says.
TEST(ConvModel, TheBatchTakesTheCoresFirstWhereImagesAreSmall) {
  Soc thirty = ascend910();
  thirty.ai_cores = 30;
  auto tiling_of = [&](const ConvShape& s) {
    const ConvModel m(thirty, conv_problem(conv(s), thirty));
    return m.tiling(m.space().default_config);
  };
  const auto three = tiling_of({32, 256, 14, 14, 256, 3, 1, 1});
  EXPECT_EQ(three.split, ConvSplit::batch);
  EXPECT_EQ(three.block_dim, 16);
  const auto pointwise = tiling_of({32, 1024, 14, 14, 256, 1});
  EXPECT_EQ(pointwise.split, ConvSplit::rows);
  EXPECT_EQ(pointwise.block_dim, 16);
  EXPECT_EQ(tiling_of({24, 256, 28, 28, 256, 3, 1, 1}).block_dim, 24);
  EXPECT_EQ(tiling_of({32, 256, 56, 56, 64, 1}).block_dim, 30);  // 56 x 56: the rows split
  // 32 cores take the batch of 32 whole.
  const auto all = model_of(conv({32, 256, 14, 14, 256, 3, 1, 1}));
  EXPECT_EQ(all.tiling(all.space().default_config).block_dim, 32);
}

TEST(ConvModel, DefaultIsValidForAnyShape) {
  std::vector<sdk::OpTask> tasks = {conv({1, 1, 1, 1, 1, 1}),           conv({3, 5, 9, 11, 7, 3, 2, 1}),
                                    conv({1, 2048, 7, 7, 512, 1}),        conv({1, 4096, 3, 3, 4096, 3, 1, 1}),
                                    conv({64, 3, 224, 224, 64, 7, 2, 3}), conv({1, 8, 512, 512, 8, 3, 1, 1, 8}),
                                    conv({1, 16, 1, 4096, 16, 1}),        conv({2, 24, 57, 57, 48, 5, 3, 2, 24})};
  for (const auto& c : real_convs()) tasks.push_back(c.task);
  for (const auto& task : tasks) {
    const auto model = model_of(task);
    const auto& d = model.space().default_config;
    ASSERT_TRUE(model.space().in_domain(d)) << task.signature();
    EXPECT_TRUE(model.check(d).ok()) << task.signature() << ": " << model.check(d).message;
    EXPECT_GE(model.time_us(d), model.roofline_us());
    // A model built again gives the same time: nothing carried between builds.
    EXPECT_EQ(model_of(task).time_us(d), model.time_us(d)) << task.signature();
  }
}

// Figures: the default against the exhaustive best of each real shape. No
// headroom is demanded (that would reward a weak default); the default is
// checked against CANN's rules above, the tuner against this optimum in OPAT's tests.
TEST(ConvModel, DefaultAgainstTheExhaustiveBestOnRealShapes) {
  for (const auto& [name, task] : real_convs()) {
    const auto model = model_of(task);
    const auto& d = model.space().default_config;
    const double default_us = model.time_us(d);
    const auto best = exhaustive_best(model);
    std::printf("%-30s space %7.0f valid %7zu  default %8.3f us  best %8.3f us  x%.2f  roofline %.3f us\n"
                "%-30s default %s\n%-30s best    %s\n",
                name, model.space().size(), best.valid, default_us, best.us, default_us / best.us,
                model.roofline_us(), "", model.space().describe(d).dump().c_str(), "",
                model.space().describe(best.config).dump().c_str());
    EXPECT_LE(best.us, default_us) << name << ": the enumeration missed the default";
    EXPECT_GE(best.us, model.roofline_us()) << name;
  }
}

// ---- through the device -----------------------------------------------------------

TEST(ConvModel, TheDeviceTunesConv) {
  SimDevice dev(sdk::CreateArgs{"ascend910", nlohmann::json::object()});
  for (const auto& c : real_convs()) {
    auto task = dev.prepare(c.task);
    auto built = task->build(task->space().default_config);
    ASSERT_TRUE(built.candidate) << c.name << ": " << built.failure.message;
    EXPECT_DOUBLE_EQ(static_cast<SimCandidate*>(built.candidate.get())->time_us(),
                     model_of(c.task).time_us(task->space().default_config));
  }
}

}  // namespace
}  // namespace aoe::sim
