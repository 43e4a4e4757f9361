// The ascend910 MatMul/Gemm model: hand-computed figures, constraints, bounds and the default tiling.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <string>

#include "aoe/sdk/error.h"
#include "matmul_model.h"
#include "op_tasks.h"
#include "soc.h"
#include "soc_files.h"

namespace aoe::sim {
namespace {

using sdk::DType;
using test::matmul;
using test::square;
using test::tensor;

// The 910's bounds, written out from the hardware notes rather than read
// from the model: 32 cores x 16x16x16 fp16 MACs x 2 FLOP x 1000 cycles/us,
// and 1.2 TB/s of HBM.
constexpr double kPeakFlopsPerUs = 32.0 * 16 * 16 * 16 * 2 * 1000;
constexpr double kHbmBytesPerUs = 1.2e6;

MatMulModel model_of(const sdk::OpTask& task) { return MatMulModel(ascend910(), matmul_problem(task, ascend910())); }

double roofline(double flops, double bytes) { return std::max(flops / kPeakFlopsPerUs, bytes / kHbmBytesPerUs); }

sdk::StatusCode code_of(const std::function<void()>& body) {
  try {
    body();
  } catch (const sdk::Error& e) {
    return e.code();
  }
  return sdk::StatusCode::ok;
}

// block_dim, m_l0, n_l0, k_l0, k_l1, db_l0, db_l1
sdk::Config config(int64_t block_dim, int64_t m_l0, int64_t n_l0, int64_t k_l0, int64_t k_l1, bool db_l0,
                   bool db_l1) {
  return MatMulTiling{block_dim, m_l0, n_l0, k_l0, k_l1, db_l0, db_l1}.config();
}

TEST(MatMulModel, SpaceSpeaksCannTilingVocabulary) {
  const auto model = model_of(square(1024, 1024, 1024));
  const auto& knobs = model.space().knobs;
  std::vector<std::string> names;
  for (const auto& k : knobs) names.push_back(k.name);
  EXPECT_EQ(names, (std::vector<std::string>{"block_dim", "m_l0", "n_l0", "k_l0", "k_l1", "db_l0", "db_l1"}));
  for (const auto& k : knobs) EXPECT_EQ(k.tag, sdk::KnobTag::schedule) << k.name;
  EXPECT_EQ(knobs[0].values.front(), 1);
  EXPECT_EQ(knobs[0].values.back(), 32);
  EXPECT_EQ(knobs[1].values, (std::vector<int64_t>{1, 2, 4, 8, 16}));
  EXPECT_EQ(knobs[4].values.back(), 64);
  EXPECT_EQ(knobs[5].labels, (std::vector<std::string>{"off", "on"}));
}

TEST(MatMulModel, TileDomainsStopAtTheShape) {
  // 40 rows are 3 fractals: a tile of 4 fractals already covers them.
  const auto model = model_of(square(40, 20, 1024));
  EXPECT_EQ(model.space().knobs[1].values, (std::vector<int64_t>{1, 2, 4}));
  EXPECT_EQ(model.space().knobs[3].values, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(model.space().knobs[4].values, (std::vector<int64_t>{1, 2}));
}

TEST(MatMulModel, RooflineOfA1024CubeIsItsCubeTime) {
  // 2 x 1024^3 FLOP over 262144 FLOP/cycle... = 8192 cycles at 1 GHz; its
  // 6 MiB of operands take 5.24 us of HBM, less.
  const auto model = model_of(square(1024, 1024, 1024));
  EXPECT_NEAR(model.roofline_us(), 8.192, 1e-9);
}

TEST(MatMulModel, CubeCyclesAreOneCyclePerFractalTriple) {
  const auto model = model_of(square(1024, 1024, 1024));
  const auto cost = model.cost(MatMulTiling::from(config(32, 8, 16, 4, 32, true, true)));
  // 128 x 256 tiles: 8 x 4 of them, one per core.
  EXPECT_EQ(cost.tiles, 32);
  EXPECT_EQ(cost.rounds, 1);
  // 8 x 16 x 64 fractal mmad cycles, 16 mmads of k_l0 = 4 at 20 cycles issue each.
  EXPECT_DOUBLE_EQ(cost.cube, 8 * 16 * 64 + 16 * 20);
  // A 128x1024 and a 1024x256 fp16 panel at 110 B/cycle, 2 transfers per k_l1 slice.
  EXPECT_NEAR(cost.gm_to_l1, (128.0 + 256.0) * 1024 * 2 / 110 + 2 * 2 * 200, 1e-6);
  // L1 -> L0A at 512 B/cycle, L1 -> L0B at 256, 2 loads per k_l0 slice.
  EXPECT_NEAR(cost.l1_to_l0, 128.0 * 1024 * 2 / 512 + 1024.0 * 256 * 2 / 256 + 2 * 16 * 30, 1e-6);
  EXPECT_GE(cost.total_us, model.roofline_us());
  // Sanity of the calibration: a square GEMM this size runs at over a third of peak.
  EXPECT_LT(cost.total_us, 3 * model.roofline_us());
}

// A B that load3d expands from a map (a weight gradient's im2col) costs GM
// its map alone: a ninth of the panel for 3x3 taps at stride 1; the cube
// and L1 -> L0 work stay the panel's.
TEST(MatMulModel, AnExpandedBReadsOnlyItsMapFromGm) {
  auto p = matmul_problem(square(64, 8192, 576), ascend910());
  const MatMulModel plain(ascend910(), p);
  p.b_expansion = 9;
  const MatMulModel expanded(ascend910(), p);
  const double b_bytes = 8192.0 * 576 * 2;
  EXPECT_DOUBLE_EQ(plain.problem().gm_bytes() - expanded.problem().gm_bytes(), b_bytes * 8 / 9);
  const auto t = MatMulTiling::from(plain.space().default_config);
  const auto a = plain.cost(t), b = expanded.cost(t);
  EXPECT_LT(b.gm_to_l1, a.gm_to_l1);
  EXPECT_DOUBLE_EQ(b.l1_to_l0, a.l1_to_l0);
  EXPECT_DOUBLE_EQ(b.cube, a.cube);
  EXPECT_LT(b.total_us, a.total_us);
}

TEST(MatMulModel, SmallestMatMulByHand) {
  // One 16x16x16 fp16 fractal on one core, nothing double buffered. Rates in
  // B/cycle: GM->L1 110, L1->L0A 512, L1->L0B 256, L0C->UB 256, UB->GM 64;
  // 200 cycles per GM transfer, 30 per L0 load, 20 per mmad, 6 per vector op.
  const double gm_to_l1 = 1024.0 / 110 + 2 * 200;  // A and B, 512 B each
  const double l1_to_l0 = 512.0 / 512 + 512.0 / 256 + 2 * 30;
  const double cube = 1 + 20;
  const double write_back = 1024.0 / 256      // fp32 accumulators to UB
                            + (4 + 6)         // cast to fp16: 4 repeats of 256 B
                            + 512.0 / 64      // fp16 result to GM
                            + 2 * 200;        // its two transfers
  const double launch_us = 3;
  const double expected_us = (gm_to_l1 + l1_to_l0 + cube + write_back) / 1000 + launch_us;

  const auto model = model_of(square(16, 16, 16));
  EXPECT_NEAR(model.time_us(config(1, 1, 1, 1, 1, false, false)), expected_us, 1e-9);
}

TEST(MatMulModel, L0AOverflowIsRefusedNamingTheBuffer) {
  const auto model = model_of(square(1024, 1024, 1024));
  // 16 x 16 fractals of 512 B in L0A.
  const auto verdict = model.check(config(32, 16, 1, 16, 16, false, false));
  EXPECT_EQ(verdict.status, sdk::ResultStatus::invalid);
  EXPECT_EQ(verdict.message, "L0A, needs 131072 B, has 65536 B");
  EXPECT_EQ(verdict.time_us, 0);
}

TEST(MatMulModel, DoubleBufferingHalvesWhatFits) {
  const auto model = model_of(square(1024, 1024, 1024));
  // 8 x 8 fractals twice: exactly the 64 KiB of L0A and L0B.
  EXPECT_TRUE(model.check(config(32, 8, 8, 8, 8, true, false)).ok());
  EXPECT_EQ(model.check(config(32, 8, 1, 16, 16, true, false)).message, "L0A, needs 131072 B, has 65536 B");
  EXPECT_EQ(model.check(config(32, 1, 8, 16, 16, true, false)).message, "L0B, needs 131072 B, has 65536 B");
  // 16 x 16 fp32 accumulator fractals of 1 KiB, twice.
  EXPECT_TRUE(model.check(config(16, 16, 16, 1, 1, false, false)).ok());
  EXPECT_EQ(model.check(config(16, 16, 16, 1, 1, true, false)).message, "L0C, needs 524288 B, has 262144 B");
  // (8 + 8) x 64 fractals of A and B panels, twice: 1 MiB fits exactly, 16 + 16 does not.
  EXPECT_TRUE(model.check(config(16, 8, 8, 1, 64, false, true)).ok());
  EXPECT_EQ(model.check(config(16, 16, 16, 1, 64, false, true)).message, "L1, needs 2097152 B, has 1048576 B");
}

TEST(MatMulModel, OtherConstraintsAreRefused) {
  const auto model = model_of(square(64, 1024, 64));
  // 64 x 64 in 64 x 64 tiles: one tile, so one core.
  EXPECT_TRUE(model.check(config(1, 4, 4, 1, 1, false, false)).ok());
  EXPECT_EQ(model.check(config(2, 4, 4, 1, 1, false, false)).message, "block_dim 2 exceeds the 1 output tiles");
  EXPECT_EQ(model.check(config(1, 4, 4, 4, 2, false, false)).message, "k_l1 (2) must be a multiple of k_l0 (4)");
  EXPECT_EQ(model.check(config(1, 4, 4, 1, 3, false, false)).status, sdk::ResultStatus::invalid);
  EXPECT_EQ(model.check(sdk::Config{1, 4, 4}).status, sdk::ResultStatus::invalid);
}

struct Shape {
  sdk::OpTask task;
  double flops;
  double bytes;
};

std::vector<Shape> assorted_shapes() {
  std::vector<Shape> out;
  out.push_back({square(1024, 1024, 1024), 2.0 * 1024 * 1024 * 1024, 3.0 * 1024 * 1024 * 2});
  out.push_back({square(4096, 64, 4096), 2.0 * 4096 * 64 * 4096, (2.0 * 4096 * 64 + 4096.0 * 4096) * 2});
  out.push_back({square(1000, 333, 77), 2.0 * 1000 * 333 * 77, (1000.0 * 333 + 333.0 * 77 + 1000.0 * 77) * 2});
  out.push_back({square(512, 2048, 512, DType::f32), 2.0 * 512 * 2048 * 512,
                 (2.0 * 512 * 2048 + 512.0 * 512) * 4});
  out.push_back({matmul({8, 256, 512}, {8, 512, 128}), 8 * 2.0 * 256 * 512 * 128,
                 8 * (256.0 * 512 + 512.0 * 128 + 256.0 * 128) * 2});
  auto fused = square(2048, 256, 2048);
  fused.fused_ops = {"Add", "Relu"};
  fused.inputs.push_back(tensor({2048, 2048}));
  out.push_back({fused, 2.0 * 2048 * 256 * 2048, (2.0 * 2048 * 256 + 2.0 * 2048 * 2048) * 2});
  return out;
}

TEST(MatMulModel, NoValidConfigBeatsTheRoofline) {
  std::mt19937_64 rng(2024);
  for (const auto& shape : assorted_shapes()) {
    const auto model = model_of(shape.task);
    const double bound = roofline(shape.flops, shape.bytes);
    EXPECT_NEAR(model.roofline_us(), bound, bound * 1e-12) << shape.task.signature();
    int valid = 0;
    for (int i = 0; i < 4000; ++i) {
      sdk::Config c;
      for (const auto& k : model.space().knobs) c.push_back(k.values[rng() % k.values.size()]);
      if (!model.check(c).ok()) continue;
      ++valid;
      EXPECT_GE(model.time_us(c), bound) << shape.task.signature() << " " << model.space().describe(c).dump();
    }
    EXPECT_GT(valid, 100) << shape.task.signature();
  }
}

TEST(MatMulModel, MoreCoresAreNeverSlowerOnABalancedOp) {
  // 2048^3: every tile count is a power of two of at least 64, so every
  // power-of-two block_dim divides it.
  const auto model = model_of(square(2048, 2048, 2048));
  int compared = 0;
  sdk::for_each_config(model.space(), [&](const sdk::Config& c) {
    if (c[0] != 1 || !model.check(c).ok()) return;
    sdk::Config more = c;
    double previous = model.time_us(c);
    for (int64_t cores = 2; cores <= 32; cores *= 2) {
      more[0] = cores;
      const double now = model.time_us(more);
      EXPECT_LE(now, previous) << model.space().describe(more).dump();
      previous = now;
    }
    ++compared;
  });
  EXPECT_GT(compared, 100);

  // And the chip is used: 32 cores are far faster than one.
  const auto big = model_of(square(4096, 4096, 4096));
  EXPECT_GT(big.time_us(config(1, 8, 16, 4, 32, true, true)), 16 * big.time_us(config(32, 8, 16, 4, 32, true, true)));
}

TEST(MatMulModel, DefaultFollowsCannCacheTiling) {
  // All 32 cores, double buffering on, the largest L0 tiles that fit twice
  // (8 x 16 fractals in L0C, k_l0 4 beside them), k_l1 as deep as L1 holds twice.
  const auto model = model_of(square(1024, 1024, 1024));
  EXPECT_EQ(model.space().default_config, config(32, 8, 16, 4, 32, true, true));
}

TEST(MatMulModel, DefaultIsValidForAnyShape) {
  std::vector<sdk::OpTask> tasks = {square(16, 16, 16),     square(1, 1, 1),        square(17, 5000, 3),
                                    square(64, 4096, 64),   square(8192, 8192, 8192), square(100, 100, 100000),
                                    matmul({3, 7, 33, 65}, {65, 9}), matmul({12, 128, 64}, {12, 64, 128})};
  for (auto& shape : assorted_shapes()) tasks.push_back(shape.task);
  for (const auto& task : tasks) {
    const auto model = model_of(task);
    const auto& space = model.space();
    ASSERT_TRUE(space.in_domain(space.default_config)) << task.signature();
    EXPECT_TRUE(model.check(space.default_config).ok())
        << task.signature() << ": " << model.check(space.default_config).message;
    EXPECT_GE(model.time_us(space.default_config), model.roofline_us());
  }
}

TEST(MatMulModel, BatchDimsMultiplyTheWork) {
  const auto single = model_of(square(512, 512, 512));
  const auto batched = model_of(matmul({8, 512, 512}, {8, 512, 512}));
  EXPECT_EQ(batched.problem().batch, 8);
  EXPECT_DOUBLE_EQ(batched.problem().flops(), 8 * single.problem().flops());
  EXPECT_DOUBLE_EQ(batched.roofline_us(), 8 * single.roofline_us());
  const auto c = config(32, 4, 4, 4, 16, true, true);
  EXPECT_EQ(batched.cost(MatMulTiling::from(c)).tiles, 8 * single.cost(MatMulTiling::from(c)).tiles);
  EXPECT_GT(batched.time_us(c), 2 * single.time_us(c));

  // Batches sharing B stack into one taller product, as CANN folds them.
  const auto shared = model_of(matmul({2, 4, 512, 256}, {256, 128}));
  EXPECT_EQ(shared.problem().batch, 1);
  EXPECT_EQ(shared.problem().m, 8 * 512);
  EXPECT_EQ(shared.problem().b_elements, 256 * 128);
}

TEST(MatMulModel, FusedOpsAreVectorWorkOnTheOutput) {
  auto plain = square(2048, 512, 2048);
  auto add_relu = plain;
  add_relu.fused_ops = {"Add", "Relu"};
  add_relu.inputs.push_back(tensor({2048, 2048}));
  auto bias_sigmoid = plain;
  bias_sigmoid.fused_ops = {"Add", "Sigmoid"};
  bias_sigmoid.inputs.push_back(tensor({2048}));

  const auto c = MatMulTiling::from(config(32, 8, 8, 4, 16, true, true));
  const auto p = model_of(plain).cost(c), ar = model_of(add_relu).cost(c), bs = model_of(bias_sigmoid).cost(c);
  EXPECT_GT(ar.write_back, p.write_back);
  EXPECT_GT(bs.write_back, p.write_back);
  EXPECT_GT(ar.total_us, p.total_us);
  // Reading a full residual costs more than a bias row.
  EXPECT_GT(model_of(add_relu).roofline_us(), model_of(bias_sigmoid).roofline_us());
  EXPECT_EQ(ar.cube, p.cube);
}

TEST(MatMulModel, Fp32IsCastToFp16ForTheCube) {
  const auto c = config(32, 8, 16, 4, 32, true, true);
  const auto half = model_of(square(1024, 1024, 1024));
  const auto full = model_of(square(1024, 1024, 1024, DType::f32));
  const auto f32 = full.cost(MatMulTiling::from(c));
  EXPECT_EQ(f32.cube, half.cost(MatMulTiling::from(c)).cube);
  EXPECT_GT(f32.cast_us, 0);
  EXPECT_GT(f32.total_us, half.time_us(c));

  // A constant weight is cast once, at compile time.
  auto weights = square(1024, 1024, 1024, DType::f32);
  weights.inputs[1].constant = true;
  const auto folded = model_of(weights).cost(MatMulTiling::from(c));
  EXPECT_GT(folded.cast_us, 0);
  EXPECT_LT(folded.cast_us, f32.cast_us);
  EXPECT_LT(folded.total_us, f32.total_us);
}

sdk::OpTask gemm(std::vector<int64_t> a, std::vector<int64_t> b, bool trans_a, bool trans_b) {
  sdk::OpTask task;
  task.op_type = "Gemm";
  task.inputs = {tensor(std::move(a)), tensor(std::move(b))};
  task.attrs = {{"transA", trans_a ? 1 : 0}, {"transB", trans_b ? 1 : 0}};
  return task;
}

TEST(MatMulModel, GemmRespectsTransposes) {
  const auto reference = model_of(square(256, 512, 1024));
  const auto transposed = model_of(gemm({512, 256}, {1024, 512}, true, true));
  EXPECT_EQ(transposed.problem().m, 256);
  EXPECT_EQ(transposed.problem().k, 512);
  EXPECT_EQ(transposed.problem().n, 1024);
  const auto& space = reference.space();
  EXPECT_EQ(transposed.space().default_config, space.default_config);
  EXPECT_DOUBLE_EQ(transposed.time_us(space.default_config), reference.time_us(space.default_config));
  // Read untransposed, the inner dims disagree.
  EXPECT_EQ(code_of([] { model_of(gemm({512, 256}, {1024, 512}, false, false)); }),
            sdk::StatusCode::invalid_argument);
}

TEST(MatMulModel, GemmBiasAndScalingAreEpilogue) {
  auto with_c = gemm({256, 512}, {512, 1024}, false, false);
  with_c.inputs.push_back(tensor({1024}));
  auto scaled = with_c;
  scaled.attrs["alpha"] = 0.5;
  auto ignored = with_c;
  ignored.attrs["beta"] = 0.0;
  const auto c = config(32, 4, 4, 4, 16, true, true);
  const double plain_us = model_of(gemm({256, 512}, {512, 1024}, false, false)).time_us(c);
  EXPECT_GT(model_of(with_c).time_us(c), plain_us);
  EXPECT_GT(model_of(scaled).time_us(c), model_of(with_c).time_us(c));
  EXPECT_DOUBLE_EQ(model_of(ignored).time_us(c), plain_us);
}

TEST(MatMulModel, WhatTheSocCannotRunIsUnsupported) {
  auto conv = square(64, 64, 64);
  conv.op_type = "Conv";
  try {
    model_of(conv);
    FAIL() << "Conv was accepted";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), sdk::StatusCode::unsupported);
    EXPECT_STREQ(e.what(), "ascend910 simulator does not model op 'Conv' yet");
  }
  auto softmax = square(64, 64, 64);
  softmax.fused_ops = {"Softmax"};
  EXPECT_EQ(code_of([&] { model_of(softmax); }), sdk::StatusCode::unsupported);
  // The 910 cube has no bf16 mode.
  EXPECT_EQ(code_of([] { model_of(square(64, 64, 64, DType::bf16)); }), sdk::StatusCode::unsupported);
  EXPECT_EQ(code_of([] { model_of(square(64, 64, 64, DType::i32)); }), sdk::StatusCode::unsupported);
}

TEST(MatMulModel, MalformedTasksAreInvalidArguments) {
  EXPECT_EQ(code_of([] { model_of(matmul({64, 32}, {64, 32})); }), sdk::StatusCode::invalid_argument);
  EXPECT_EQ(code_of([] { model_of(matmul({-1, 32}, {32, 64})); }), sdk::StatusCode::invalid_argument);
  EXPECT_EQ(code_of([] { model_of(matmul({0, 32}, {32, 64})); }), sdk::StatusCode::invalid_argument);
  EXPECT_EQ(code_of([] { model_of(matmul({3, 8, 32}, {4, 32, 8})); }), sdk::StatusCode::invalid_argument);
  auto one_input = square(64, 64, 64);
  one_input.inputs.pop_back();
  EXPECT_EQ(code_of([&] { model_of(one_input); }), sdk::StatusCode::invalid_argument);
}

}  // namespace
}  // namespace aoe::sim
