// The cuda device's GEMM without a GPU: problems read from MatMul and Gemm
// tasks, the tuning space, the checks, the default rule, the source's
// #define lines, and the test double's host twin of the kernel against a
// plain reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "aoe/sdk/error.h"
#include "gemm_problem.h"
#include "gemm_template.h"
#include "host_kernel.h"
#include "host_kernel_registry.h"
#include "tensor_core_inputs.h"

namespace aoe::cuda {
namespace {

using sdk::DType;
using sdk::OpTask;
using sdk::TensorDesc;
using Shape = std::vector<int64_t>;

TensorDesc tensor(const std::string& name, Shape shape, DType dtype = DType::f32) {
  TensorDesc t;
  t.name = name;
  t.shape = std::move(shape);
  t.dtype = dtype;
  return t;
}

OpTask task(const std::string& op, std::vector<Shape> inputs, Shape output, std::vector<std::string> fused = {},
            nlohmann::json attrs = nlohmann::json::object()) {
  OpTask t;
  t.name = "node";
  t.op_type = op;
  for (size_t i = 0; i < inputs.size(); ++i) t.inputs.push_back(tensor("in" + std::to_string(i), inputs[i]));
  t.outputs.push_back(tensor("out", std::move(output)));
  t.fused_ops = std::move(fused);
  t.attrs = std::move(attrs);
  return t;
}

// The status code and message gemm_problem throws with.
std::pair<sdk::StatusCode, std::string> refusal(const OpTask& t) {
  try {
    gemm_problem(t);
  } catch (const sdk::Error& e) {
    return {e.code(), e.what()};
  }
  return {sdk::StatusCode::ok, ""};
}

TEST(GemmProblem, BertProjection) {
  const auto p = gemm_problem(task("MatMul", {{1, 128, 768}, {768, 768}}, {1, 128, 768}));
  EXPECT_EQ(p.batch, 1);
  EXPECT_EQ(p.m, 128);
  EXPECT_EQ(p.n, 768);
  EXPECT_EQ(p.k, 768);
  EXPECT_FALSE(p.trans_a || p.trans_b || p.has_bias);
  EXPECT_EQ(p.activation, GemmActivation::none);
}

TEST(GemmProblem, BertFeedForwardWithBiasAndGelu) {
  const auto p = gemm_problem(task("MatMul", {{1, 128, 768}, {768, 3072}, {3072}}, {1, 128, 3072}, {"Add", "Gelu"}));
  EXPECT_EQ(p.m, 128);
  EXPECT_EQ(p.n, 3072);
  EXPECT_TRUE(p.has_bias);
  EXPECT_EQ(p.bias_batch_stride, 0);
  EXPECT_EQ(p.bias_row_stride, 0);
  EXPECT_EQ(p.bias_col_stride, 1);
  EXPECT_EQ(p.beta, 1.0f);
  EXPECT_EQ(p.bias_input, 2);
  // BERT's erf pattern becomes a Gelu without attributes: the erf form.
  EXPECT_EQ(p.activation, GemmActivation::gelu_erf);
  const nlohmann::json tanh_form = {{"fused_attrs", {nlohmann::json::object(), {{"approximate", "tanh"}}}}};
  EXPECT_EQ(gemm_problem(task("MatMul", {{1, 128, 768}, {768, 3072}, {3072}}, {1, 128, 3072}, {"Add", "Gelu"}, tanh_form)).activation,
            GemmActivation::gelu_tanh);
  EXPECT_EQ(gemm_problem(task("MatMul", {{128, 768}, {768, 3072}}, {128, 3072}, {"Relu"})).activation, GemmActivation::relu);
}

TEST(GemmProblem, ResidualAddReadsAWholeMatrix) {
  const auto p = gemm_problem(task("MatMul", {{1, 128, 3072}, {3072, 768}, {1, 128, 768}}, {1, 128, 768}, {"Add"}));
  EXPECT_TRUE(p.has_bias);
  EXPECT_EQ(p.bias_row_stride, 768);
  EXPECT_EQ(p.bias_col_stride, 1);
}

TEST(GemmProblem, BatchesSharingBAreFoldedIntoRows) {
  const auto p = gemm_problem(task("MatMul", {{4, 128, 768}, {768, 768}, {4, 128, 768}}, {4, 128, 768}, {"Add"}));
  EXPECT_EQ(p.batch, 1);
  EXPECT_EQ(p.m, 512);
  EXPECT_EQ(p.a_batch_stride, 0);
  EXPECT_EQ(p.bias_row_stride, 768);
  // A per-batch row of bias does not step through folded rows: the batch stays.
  const auto kept = gemm_problem(task("MatMul", {{4, 128, 768}, {768, 768}, {4, 1, 768}}, {4, 128, 768}, {"Add"}));
  EXPECT_EQ(kept.batch, 4);
  EXPECT_EQ(kept.m, 128);
  EXPECT_EQ(kept.bias_batch_stride, 768);
}

TEST(GemmProblem, BatchedAttention) {
  const auto p = gemm_problem(task("MatMul", {{12, 128, 64}, {12, 64, 128}}, {12, 128, 128}));
  EXPECT_EQ(p.batch, 12);
  EXPECT_EQ(p.m, 128);
  EXPECT_EQ(p.n, 128);
  EXPECT_EQ(p.k, 64);
  EXPECT_EQ(p.a_batch_stride, 128 * 64);
  EXPECT_EQ(p.b_batch_stride, 64 * 128);
  const auto shared_a = gemm_problem(task("MatMul", {{128, 64}, {2, 6, 64, 32}}, {2, 6, 128, 32}));
  EXPECT_EQ(shared_a.batch, 12);
  EXPECT_EQ(shared_a.a_batch_stride, 0);
  EXPECT_EQ(shared_a.b_batch_stride, 64 * 32);
}

TEST(GemmProblem, VectorOperands) {
  const auto row = gemm_problem(task("MatMul", {{768}, {768, 3072}}, {3072}));
  EXPECT_EQ(row.m, 1);
  EXPECT_EQ(row.n, 3072);
  const auto col = gemm_problem(task("MatMul", {{128, 768}, {768}, {128}}, {128}, {"Add"}));
  EXPECT_EQ(col.n, 1);
  EXPECT_EQ(col.bias_row_stride, 1);  // the addend runs down the output's rows
  EXPECT_EQ(col.bias_col_stride, 0);
}

TEST(GemmProblem, GemmWithTransBAlphaBetaAndC) {
  const nlohmann::json attrs = {{"transB", 1}, {"alpha", 0.5}, {"beta", 2.0}};
  const auto p = gemm_problem(task("Gemm", {{128, 768}, {3072, 768}, {3072}}, {128, 3072}, {}, attrs));
  EXPECT_TRUE(p.trans_b);
  EXPECT_FALSE(p.trans_a);
  EXPECT_EQ(p.m, 128);
  EXPECT_EQ(p.n, 3072);
  EXPECT_EQ(p.k, 768);
  EXPECT_EQ(p.alpha, 0.5f);
  EXPECT_EQ(p.beta, 2.0f);
  EXPECT_TRUE(p.has_bias);
  EXPECT_EQ(p.bias_col_stride, 1);
  const auto ta = gemm_problem(task("Gemm", {{768, 128}, {768, 3072}, {128, 1}}, {128, 3072}, {"Relu"}, {{"transA", 1}}));
  EXPECT_TRUE(ta.trans_a);
  EXPECT_EQ(ta.m, 128);
  EXPECT_EQ(ta.bias_row_stride, 1);
  EXPECT_EQ(ta.bias_col_stride, 0);
  EXPECT_EQ(ta.activation, GemmActivation::relu);
  // ONNX ignores C when beta is 0.
  const auto no_c = gemm_problem(task("Gemm", {{4, 8}, {8, 5}, {5}}, {4, 5}, {}, {{"beta", 0.0}}));
  EXPECT_FALSE(no_c.has_bias);
  EXPECT_EQ(no_c.bias_input, -1);
  // A Gemm without C takes a fused Add as its bias; one whose C is ignored reads the Add's operand.
  EXPECT_TRUE(gemm_problem(task("Gemm", {{4, 8}, {8, 5}, {5}}, {4, 5}, {"Add"})).has_bias);
  const auto after_c = gemm_problem(task("Gemm", {{4, 8}, {8, 5}, {5}, {4, 5}}, {4, 5}, {"Add"}, {{"beta", 0.0}}));
  EXPECT_EQ(after_c.bias_input, 3);
  EXPECT_EQ(after_c.bias_row_stride, 5);
  EXPECT_EQ(after_c.beta, 1.0f);
  // BERT's output projection: a bias, then the residual, each with its own strides; a Gemm's C then an Add likewise.
  const auto bert = gemm_problem(task("MatMul", {{128, 768}, {768, 768}, {768}, {128, 768}}, {128, 768}, {"Add", "Add"}));
  EXPECT_TRUE(bert.has_bias && bert.has_residual);
  EXPECT_EQ(bert.bias_input, 2);
  EXPECT_EQ(bert.residual_input, 3);
  EXPECT_EQ(bert.bias_row_stride, 0);
  EXPECT_EQ(bert.residual_row_stride, 768);
  EXPECT_EQ(bert.residual_col_stride, 1);
  const auto c_then_add = gemm_problem(task("Gemm", {{4, 8}, {8, 5}, {5}, {4, 5}}, {4, 5}, {"Add"}, {{"beta", 2.0}}));
  EXPECT_EQ(c_then_add.bias_input, 2);
  EXPECT_EQ(c_then_add.beta, 2.0f);
  EXPECT_EQ(c_then_add.residual_input, 3);
}

TEST(GemmProblem, RefusesWhatTheKernelDoesNotTake) {
  auto half = task("MatMul", {{128, 768}, {768, 768}}, {128, 768});
  half.inputs[0].dtype = DType::f16;
  const auto [code, why] = refusal(half);
  EXPECT_EQ(code, sdk::StatusCode::unsupported);
  EXPECT_NE(why.find("MatMul 'node'"), std::string::npos) << why;
  EXPECT_NE(why.find("float16"), std::string::npos) << why;

  const auto sigmoid = refusal(task("MatMul", {{8, 8}, {8, 8}}, {8, 8}, {"Sigmoid"}));
  EXPECT_EQ(sigmoid.first, sdk::StatusCode::unsupported);
  EXPECT_NE(sigmoid.second.find("Sigmoid"), std::string::npos) << sigmoid.second;
  EXPECT_EQ(refusal(task("MatMul", {{8, 8}, {8, 8}, {8}}, {8, 8}, {"Relu", "Add"})).first, sdk::StatusCode::unsupported);
  EXPECT_EQ(refusal(task("MatMul", {{8, 8}, {8, 8}, {8}, {8}, {8}}, {8, 8}, {"Add", "Add", "Add"})).first,
            sdk::StatusCode::unsupported);
  EXPECT_EQ(refusal(task("Gemm", {{8, 8}, {8, 8}, {8}, {8}, {8}}, {8, 8}, {"Add", "Add"})).first, sdk::StatusCode::unsupported);

  const auto part = refusal(task("MatMul", {{2, 1, 4, 8}, {1, 3, 8, 4}}, {2, 3, 4, 4}));
  EXPECT_EQ(part.first, sdk::StatusCode::unsupported);
  EXPECT_NE(part.second.find("part of the batch"), std::string::npos) << part.second;

  auto dynamic = task("MatMul", {{-1, 768}, {768, 768}}, {-1, 768});
  EXPECT_EQ(refusal(dynamic).first, sdk::StatusCode::unsupported);
  EXPECT_EQ(refusal(task("Conv", {{1, 3, 8, 8}, {4, 3, 3, 3}}, {1, 4, 6, 6})).first, sdk::StatusCode::unsupported);
  EXPECT_EQ(refusal(task("MatMul", {{8, 7}, {8, 8}}, {8, 8})).first, sdk::StatusCode::invalid_argument);
  EXPECT_EQ(refusal(task("MatMul", {{8, 8}, {8, 8}}, {8, 9})).first, sdk::StatusCode::invalid_argument);
  EXPECT_EQ(refusal(task("MatMul", {{8, 8}, {8, 8}, {3}}, {8, 8}, {"Add"})).first, sdk::StatusCode::invalid_argument);
}

GemmProblem shape(int64_t m, int64_t n, int64_t k) {
  GemmProblem p;
  p.op = "MatMul 'test'";
  p.m = m;
  p.n = n;
  p.k = k;
  return p;
}

const sdk::Knob& knob(const sdk::TuningSpace& s, GemmKnob k) { return s.knobs[k]; }

TEST(GemmSpace, KnobsAreScheduleKnobsSizedToTheProblem) {
  const auto s = gemm_space(shape(128, 768, 768));
  ASSERT_EQ(s.knobs.size(), kGemmKnobCount);
  const std::vector<std::string> names = {"block_m", "block_n", "block_k", "thread_m", "thread_n", "vector_width", "stages", "split_k", "math"};
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(s.knobs[i].name, names[i]);
    EXPECT_EQ(s.knobs[i].tag, i == kMath ? sdk::KnobTag::impl : sdk::KnobTag::schedule);
  }
  // TF32 is offered only where the user allows it; then the default takes it where its tile can.
  EXPECT_EQ(knob(s, kMath).labels, (std::vector<std::string>{"fp32", "tf32", "fp16"}));
  EXPECT_EQ(knob(s, kMath).values, (std::vector<int64_t>{0}));
  EXPECT_EQ(s.default_config[kMath], 0);
  GemmProblem allowed = shape(128, 768, 768);
  allowed.allowed.tf32 = true;
  const auto tf32_space = gemm_space(allowed);
  EXPECT_EQ(knob(tf32_space, kMath).values, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(tf32_space.default_config[kMath], 1);
  sdk::Config same_tile = tf32_space.default_config;
  same_tile[kMath] = 0;
  EXPECT_EQ(same_tile, s.default_config);
  GpuLimits turing;
  turing.compute_capability = 75;
  EXPECT_EQ(gemm_default(allowed, turing)[kMath], 0);
  GemmProblem row = shape(1, 768, 768);  // one row: no tile of 8 x 4 lanes
  row.allowed.tf32 = true;
  EXPECT_EQ(gemm_space(row).default_config[kMath], 0);
  // fp16 after tf32 in the knob's order; the default takes it first, its slice 16 of K deep.
  GemmProblem both = allowed;
  both.allowed.fp16 = true;
  const auto fp16_space = gemm_space(both);
  EXPECT_EQ(knob(fp16_space, kMath).values, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(gemm_math(fp16_space.default_config), GemmMath::fp16);
  EXPECT_EQ(fp16_space.default_config[kBlockK], 16);
  GemmProblem fp16_only = shape(128, 768, 768);
  fp16_only.allowed.fp16 = true;
  // A value means one math whatever is allowed: a banked tf32 is never read as fp16.
  EXPECT_EQ(knob(gemm_space(fp16_only), kMath).values, (std::vector<int64_t>{0, 2}));
  EXPECT_NE(gemm_check(fp16_only, {128, 128, 16, 8, 8, 4, 2, 1, 1}, GpuLimits{}).message.find("allow_tf32"), std::string::npos);
  EXPECT_EQ(knob(s, kBlockM).values, (std::vector<int64_t>{8, 16, 32, 64, 128}));
  EXPECT_EQ(knob(s, kBlockN).values, (std::vector<int64_t>{8, 16, 32, 64, 128, 256}));
  EXPECT_EQ(knob(s, kBlockK).values, (std::vector<int64_t>{8, 16, 32, 64}));
  EXPECT_EQ(knob(s, kVectorWidth).values, (std::vector<int64_t>{1, 2, 4}));
  EXPECT_EQ(knob(s, kStages).values, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(knob(s, kSplitK).values, (std::vector<int64_t>{1, 2, 4, 8, 16}));
  EXPECT_TRUE(s.in_domain(s.default_config));
  EXPECT_TRUE(gemm_check(shape(128, 768, 768), s.default_config, GpuLimits{}).ok());

  // A row times a short K: no tall tiles, no deep slices, no split.
  const auto gemv = gemm_space(shape(1, 1000, 8));
  EXPECT_EQ(knob(gemv, kBlockM).values, (std::vector<int64_t>{8}));
  EXPECT_EQ(knob(gemv, kThreadM).values, (std::vector<int64_t>{1, 2, 4, 8}));
  EXPECT_EQ(knob(gemv, kBlockK).values, (std::vector<int64_t>{8}));
  EXPECT_EQ(knob(gemv, kSplitK).values, (std::vector<int64_t>{1}));
  EXPECT_TRUE(gemv.in_domain(gemv.default_config));
}

// Every config of the space either passes the checks or says why not.
TEST(GemmSpace, EveryConfigIsCheckedWithAReason) {
  const auto p = shape(100, 300, 50);
  const auto s = gemm_space(p);
  int valid = 0, total = 0;
  sdk::for_each_config(s, [&](const sdk::Config& c) {
    const auto m = gemm_check(p, c, GpuLimits{});
    ++total;
    if (m.ok()) {
      ++valid;
    } else {
      EXPECT_EQ(m.status, sdk::ResultStatus::invalid);
      EXPECT_FALSE(m.message.empty());
    }
  });
  EXPECT_GT(valid, total / 20);
  EXPECT_LT(valid, total);
}

std::string why(const GemmProblem& p, const sdk::Config& c, const GpuLimits& limits = GpuLimits{}) {
  const auto m = gemm_check(p, c, limits);
  EXPECT_EQ(m.status, m.ok() ? sdk::ResultStatus::ok : sdk::ResultStatus::invalid);
  return m.message;
}

TEST(GemmCheck, RefusesWithTheReason) {
  const auto p = shape(512, 512, 512);
  EXPECT_EQ(why(p, {128, 128, 8, 8, 8, 4, 2, 1, 0}), "");
  EXPECT_NE(why(p, {256, 256, 8, 4, 4, 4, 2, 1, 0}).find("4096 threads per block"), std::string::npos);
  EXPECT_EQ(why(p, {64, 64, 8, 4, 1, 4, 2, 1, 0}), "");  // 1024 threads
  EXPECT_EQ(why(p, {64, 64, 8, 8, 4, 4, 2, 1, 0}), "");  // 128 threads
  EXPECT_NE(why(p, {32, 32, 8, 8, 8, 4, 2, 1, 0}).find("warps"), std::string::npos);  // 16 threads
  EXPECT_NE(why(p, {256, 128, 64, 16, 8, 4, 2, 1, 0}).find("shared memory"), std::string::npos);
  EXPECT_NE(why(p, {256, 256, 8, 16, 16, 4, 2, 1, 0}).find("registers"), std::string::npos);
  EXPECT_NE(why(p, {64, 64, 8, 3, 4, 4, 2, 1, 0}).find("does not divide"), std::string::npos);
  EXPECT_NE(why(p, {64, 64, 8, 4, 4, 3, 2, 1, 0}).find("vector_width"), std::string::npos);
  EXPECT_NE(why(p, {64, 64, 8, 4, 4, 4, 3, 1, 0}).find("stages"), std::string::npos);
  // Rows of 511 floats start unaligned: float4 loads refused, float loads fine.
  EXPECT_NE(why(shape(512, 512, 511), {64, 64, 8, 4, 4, 4, 2, 1, 0}).find("A's rows of 511"), std::string::npos);
  EXPECT_NE(why(shape(512, 510, 512), {64, 64, 8, 4, 4, 4, 2, 1, 0}).find("B's rows of 510"), std::string::npos);
  EXPECT_EQ(why(shape(512, 510, 512), {64, 64, 8, 4, 4, 2, 2, 1, 0}), "");
  EXPECT_EQ(why(shape(512, 512, 511), {64, 64, 8, 4, 4, 1, 2, 1, 0}), "");
  // split_k: empty splits and a nonlinear epilogue refused; alpha and bias fine.
  EXPECT_NE(why(shape(64, 64, 64), {64, 64, 32, 4, 4, 4, 2, 4, 0}).find("without K"), std::string::npos);
  EXPECT_EQ(why(shape(64, 64, 64), {64, 64, 16, 4, 4, 4, 2, 4, 0}), "");
  GemmProblem gelu = shape(64, 64, 4096);
  gelu.activation = GemmActivation::gelu_erf;
  EXPECT_NE(why(gelu, {64, 64, 16, 4, 4, 4, 2, 2, 0}).find("gelu_erf"), std::string::npos);
  GemmProblem bias = shape(64, 64, 4096);
  bias.has_bias = true;
  bias.alpha = 0.5f;
  EXPECT_EQ(why(bias, {64, 64, 16, 4, 4, 4, 2, 2, 0}), "");
  // The GPU's own limits.
  GpuLimits small;
  small.max_threads_per_block = 128;
  small.max_shared_bytes_per_block = 4096;
  EXPECT_NE(why(p, {64, 64, 8, 4, 4, 4, 1, 1, 0}, small).find("over the GPU's 128"), std::string::npos);
  EXPECT_NE(why(p, {64, 64, 8, 8, 8, 4, 2, 1, 0}, small).find("over the GPU's 4096"), std::string::npos);
  EXPECT_NE(why(p, {64, 64, 8, 8, 8, 4, 2}, small).find("7"), std::string::npos);
  // TF32: allowed by the user, on tensor cores (8.0 on), lanes of 8 x 4 holding 2 x 2 sums per tile.
  EXPECT_NE(why(p, {128, 128, 8, 8, 8, 4, 2, 1, 1}).find("allow_tf32"), std::string::npos);
  GemmProblem tf32 = p;
  tf32.allowed.tf32 = true;
  EXPECT_EQ(why(tf32, {128, 128, 8, 8, 8, 4, 2, 1, 1}), "");
  EXPECT_NE(why(tf32, {64, 64, 8, 4, 1, 4, 2, 1, 1}).find("even thread tile"), std::string::npos);
  EXPECT_NE(why(tf32, {128, 32, 8, 2, 16, 4, 2, 1, 1}).find("8 x 4 lanes"), std::string::npos);  // 64 x 2 threads
  GpuLimits turing;
  turing.compute_capability = 75;
  EXPECT_NE(why(tf32, {128, 128, 8, 8, 8, 4, 2, 1, 1}, turing).find("compute capability 8.0"), std::string::npos);
  EXPECT_NE(why(tf32, {128, 128, 16, 8, 8, 4, 2, 1, 2}).find("allow_fp16"), std::string::npos);
  EXPECT_NE(why(tf32, {128, 128, 8, 8, 8, 4, 2, 1, 3}).find("math is 3"), std::string::npos);
  // fp16 multiplies 16 of K at a time.
  GemmProblem fp16 = p;
  fp16.allowed.fp16 = true;
  EXPECT_EQ(why(fp16, {128, 128, 16, 8, 8, 4, 2, 1, 2}), "");
  EXPECT_NE(why(fp16, {128, 128, 8, 8, 8, 4, 2, 1, 2}).find("16 of K"), std::string::npos);
  EXPECT_NE(why(fp16, {128, 128, 16, 8, 8, 4, 2, 1, 2}, turing).find("compute capability 8.0"), std::string::npos);
}

// The output check a config passes: fp32's as before, TF32's wider by the rounding of K inputs.
TEST(GemmCheck, TheToleranceIsThePrecisions) {
  GemmProblem p = shape(64, 64, 1024);
  p.allowed.tf32 = true;
  const auto fp32 = gemm_tolerance(p, {64, 64, 8, 4, 4, 4, 2, 1, 0});
  EXPECT_LT(fp32.rtol, 0);  // the device option's
  EXPECT_DOUBLE_EQ(fp32.atol, 1e-3);
  const auto tf32 = gemm_tolerance(p, {64, 64, 8, 4, 4, 4, 2, 1, 1});
  EXPECT_DOUBLE_EQ(tf32.rtol, 1e-3);
  EXPECT_DOUBLE_EQ(tf32.atol, 1e-3 * 32);
  p.allowed.fp16 = true;  // the same 10 mantissa bits
  const auto fp16 = gemm_tolerance(p, {64, 64, 16, 4, 4, 4, 2, 1, 2});
  EXPECT_DOUBLE_EQ(fp16.rtol, 1e-3);
  EXPECT_DOUBLE_EQ(fp16.atol, 1e-3 * 32);
}

TEST(GemmDefault, LargestLadderTileThatFillsEverySm) {
  GpuLimits a100;
  a100.multiprocessors = 108;
  const auto tile = [&](const GemmProblem& p, const GpuLimits& l) {
    const auto c = gemm_default(p, l);
    EXPECT_TRUE(gemm_check(p, c, l).ok()) << gemm_check(p, c, l).message;
    EXPECT_TRUE(gemm_space(p).in_domain(c));
    return std::vector<int64_t>{c[kBlockM], c[kBlockN], c[kBlockK], c[kThreadM], c[kThreadN]};
  };
  using T = std::vector<int64_t>;
  EXPECT_EQ(tile(shape(4096, 4096, 4096), a100), (T{128, 128, 8, 8, 8}));
  EXPECT_EQ(tile(shape(1024, 1024, 1024), a100), (T{64, 128, 8, 4, 8}));  // 8 x 16 = 128 blocks
  EXPECT_EQ(tile(shape(512, 768, 768), a100), (T{32, 64, 8, 2, 4}));     // 16 x 12 = 192 blocks
  EXPECT_EQ(tile(shape(128, 768, 768), a100), (T{32, 32, 8, 2, 2}));     // none fills 108 SMs: the smallest
  EXPECT_EQ(tile(shape(128, 768, 768), GpuLimits{}), (T{128, 128, 8, 8, 8}));
  // A side past the problem is cut to the space's bound.
  EXPECT_EQ(tile(shape(1, 1000, 512), GpuLimits{}), (T{8, 128, 8, 1, 8}));
  const auto c = gemm_default(shape(128, 768, 768), a100);
  EXPECT_EQ(c[kVectorWidth], 4);
  EXPECT_EQ(c[kStages], 2);
  EXPECT_EQ(c[kSplitK], 1);
  EXPECT_EQ(gemm_default(shape(128, 767, 768), a100)[kVectorWidth], 1);
  EXPECT_EQ(gemm_default(shape(128, 766, 768), a100)[kVectorWidth], 2);
}

// NAME -> VALUE of every `#define NAME VALUE` line, as the test double reads them.
std::map<std::string, std::string> defines_of(const std::string& source) {
  std::map<std::string, std::string> out;
  std::istringstream lines(source);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("#define ", 0) != 0) continue;
    const auto name_end = line.find(' ', 8);
    if (name_end == std::string::npos) continue;
    out[line.substr(8, name_end - 8)] = line.substr(name_end + 1);
  }
  return out;
}

TEST(GemmSource, StatesTheConfigAndTheProblem) {
  GemmProblem p = shape(100, 300, 50);
  p.batch = 3;
  p.a_batch_stride = 5000;
  p.trans_b = true;
  p.alpha = 0.1f;
  p.beta = -2.5f;
  p.has_bias = true;
  p.bias_col_stride = 1;
  p.activation = GemmActivation::gelu_tanh;
  const sdk::Config c = {64, 32, 16, 4, 2, 2, 1, 1, 0};
  const auto d = defines_of(gemm_source(p, c));
  const std::map<std::string, std::string> want = {
      {"BLOCK_M", "64"}, {"BLOCK_N", "32"}, {"BLOCK_K", "16"},  {"THREAD_M", "4"},        {"THREAD_N", "2"},
      {"VECTOR_WIDTH", "2"}, {"STAGES", "1"}, {"SPLIT_K", "1"}, {"BATCH", "3"},            {"M", "100"},
      {"N", "300"}, {"K", "50"}, {"TRANS_A", "0"}, {"TRANS_B", "1"}, {"A_BATCH_STRIDE", "5000"},
      {"B_BATCH_STRIDE", "0"}, {"HAS_BIAS", "1"}, {"BIAS_BATCH_STRIDE", "0"}, {"BIAS_ROW_STRIDE", "0"},
      {"BIAS_COL_STRIDE", "1"}, {"EPILOGUE", "3"}};
  for (const auto& [name, value] : want) EXPECT_EQ(d.count(name) ? d.at(name) : "(none)", value) << name;
  // Float literals that read back as the very floats.
  ASSERT_TRUE(d.count("ALPHA") && d.count("BETA"));
  EXPECT_EQ(d.at("ALPHA").back(), 'f');
  EXPECT_EQ(std::stof(d.at("ALPHA")), 0.1f);
  EXPECT_EQ(std::stof(d.at("BETA")), -2.5f);
  const std::string source = gemm_source(p, c);
  EXPECT_NE(source.find("extern \"C\" __global__"), std::string::npos);
  EXPECT_NE(source.find("aoe_gemm("), std::string::npos);
}

TEST(GemmLaunch, GridCoversTheOutput) {
  GemmProblem p = shape(100, 300, 50);
  p.batch = 3;
  const auto g = gemm_launch(p, {64, 32, 16, 4, 2, 2, 2, 4, 0});
  EXPECT_EQ(g.grid, (std::array<unsigned, 3>{10, 2, 12}));
  EXPECT_EQ(g.block, (std::array<unsigned, 3>{256, 1, 1}));  // 16 x 16 threads
  EXPECT_EQ(g.shared_bytes, 2u * 16 * (65 + 33) * 4);
  EXPECT_TRUE(gemm_zeroes_output({64, 32, 16, 4, 2, 2, 2, 4, 0}));
  EXPECT_FALSE(gemm_zeroes_output({64, 32, 16, 4, 2, 2, 2, 1, 0}));
}

// --- The host twin against a plain reference.

const cuda_double::HostKernel& host_gemm() {
  const auto* kernel = cuda_double::find_host_kernel("aoe_gemm");
  if (!kernel) throw std::runtime_error("aoe_gemm is not registered");
  return *kernel;
}

// The launch the device would make, on host buffers.
struct Launch {
  std::vector<unsigned long long> pointers;
  std::vector<void*> params;
  cuda_double::HostLaunch launch;

  Launch(const GemmProblem& p, const sdk::Config& c, const float* a, const float* b, const float* bias,
         const float* residual, float* out) {
    pointers = {reinterpret_cast<uintptr_t>(a), reinterpret_cast<uintptr_t>(b), reinterpret_cast<uintptr_t>(bias),
                reinterpret_cast<uintptr_t>(residual), reinterpret_cast<uintptr_t>(out)};
    for (auto& ptr : pointers) params.push_back(&ptr);
    const auto geometry = gemm_launch(p, c);
    launch.defines = defines_of(gemm_source(p, c));
    launch.grid = {geometry.grid[0], geometry.grid[1], geometry.grid[2]};
    launch.block = {geometry.block[0], geometry.block[1], geometry.block[2]};
    launch.shared_bytes = geometry.shared_bytes;
    launch.params = params.data();
  }
};

float activate(GemmActivation act, double v) {
  switch (act) {
    case GemmActivation::relu: return static_cast<float>(v > 0 ? v : 0);
    case GemmActivation::gelu_erf: return static_cast<float>(0.5 * v * (1 + std::erf(v / std::sqrt(2.0))));
    case GemmActivation::gelu_tanh:
      return static_cast<float>(0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))));
    case GemmActivation::none: break;
  }
  return static_cast<float>(v);
}

// C in double precision, straight from the definitions.
std::vector<float> reference(const GemmProblem& p, const std::vector<float>& a, const std::vector<float>& b,
                             const std::vector<float>& bias, const std::vector<float>& residual) {
  std::vector<float> c(static_cast<size_t>(p.batch * p.m * p.n));
  for (int64_t z = 0; z < p.batch; ++z)
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j) {
        double sum = 0;
        for (int64_t q = 0; q < p.k; ++q) {
          const double av = a[z * p.a_batch_stride + (p.trans_a ? q * p.m + i : i * p.k + q)];
          const double bv = b[z * p.b_batch_stride + (p.trans_b ? j * p.k + q : q * p.n + j)];
          sum += av * bv;
        }
        double v = p.alpha * sum;
        if (p.has_bias) v += p.beta * bias[z * p.bias_batch_stride + i * p.bias_row_stride + j * p.bias_col_stride];
        if (p.has_residual)
          v += residual[z * p.residual_batch_stride + i * p.residual_row_stride + j * p.residual_col_stride];
        c[(z * p.m + i) * p.n + j] = activate(p.activation, v);
      }
  return c;
}

std::vector<float> random_values(size_t count, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> out(count);
  for (auto& v : out) v = dist(gen);
  return out;
}

void expect_host_matches_reference(const GemmProblem& p, const sdk::Config& c) {
  SCOPED_TRACE(p.op + " " + gemm_space(p).describe(c).dump());
  ASSERT_TRUE(gemm_check(p, c, GpuLimits{}).ok()) << gemm_check(p, c, GpuLimits{}).message;
  const auto a = random_values(static_cast<size_t>((p.a_batch_stride ? p.batch : 1) * p.m * p.k), 1);
  const auto b = random_values(static_cast<size_t>((p.b_batch_stride ? p.batch : 1) * p.k * p.n), 2);
  const auto bias = random_values(static_cast<size_t>(p.batch * p.m * p.n), 3);
  const auto residual = random_values(static_cast<size_t>(p.batch * p.m * p.n), 4);
  // Garbage where the kernel stores, zero where split_k adds.
  std::vector<float> out(static_cast<size_t>(p.batch * p.m * p.n), gemm_zeroes_output(c) ? 0.0f : 1e30f);
  Launch l(p, c, a.data(), b.data(), bias.data(), residual.data(), out.data());
  host_gemm().run(l.launch);
  // The tensor cores multiply the inputs rounded to TF32 or fp16.
  auto rounded = [&](std::vector<float> v) {
    for (auto& x : v)
      x = gemm_math(c) == GemmMath::tf32 ? tf32_rounded(x) : gemm_math(c) == GemmMath::fp16 ? fp16_rounded(x) : x;
    return v;
  };
  const auto want = reference(p, rounded(a), rounded(b), bias, residual);
  for (size_t i = 0; i < out.size(); ++i)
    ASSERT_NEAR(out[i], want[i], 1e-4 * (1 + std::abs(want[i])) * std::sqrt(static_cast<double>(std::max<int64_t>(p.k, 1)))) << "at " << i;
}

TEST(GemmHostKernel, MatchesTheReferenceAcrossConfigsAndEdges) {
  // Sides no tile divides; every transpose; each epilogue; batches with and without a shared operand.
  std::vector<GemmProblem> problems;
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      GemmProblem p = shape(37, 29, 19);
      p.op = "trans " + std::to_string(ta) + std::to_string(tb);
      p.trans_a = ta;
      p.trans_b = tb;
      problems.push_back(p);
    }
  for (auto act : {GemmActivation::relu, GemmActivation::gelu_erf, GemmActivation::gelu_tanh}) {
    GemmProblem p = shape(33, 65, 40);
    p.op = to_string(act);
    p.has_bias = true;
    p.bias_col_stride = 1;
    p.alpha = 0.75f;
    p.beta = 1.5f;
    p.activation = act;
    problems.push_back(p);
  }
  GemmProblem attention = shape(20, 24, 16);
  attention.op = "batched";
  attention.batch = 3;
  attention.a_batch_stride = 20 * 16;
  attention.b_batch_stride = 16 * 24;
  attention.has_bias = true;
  attention.bias_batch_stride = 20 * 24;
  attention.bias_row_stride = 24;
  attention.bias_col_stride = 1;
  problems.push_back(attention);
  GemmProblem shared_a = attention;
  shared_a.op = "shared A";
  shared_a.a_batch_stride = 0;
  shared_a.has_bias = false;
  problems.push_back(shared_a);
  // A per-column bias and a whole residual per batch, as BERT's output projection adds them.
  GemmProblem residual = attention;
  residual.op = "bias and residual";
  residual.bias_batch_stride = 0;
  residual.bias_row_stride = 0;
  residual.has_residual = true;
  residual.residual_batch_stride = 20 * 24;
  residual.residual_row_stride = 24;
  residual.residual_col_stride = 1;
  problems.push_back(residual);
  GemmProblem single = shape(1, 1, 1);
  single.op = "1x1x1";
  problems.push_back(single);

  const std::vector<sdk::Config> configs = {{8, 8, 8, 1, 1, 1, 1, 1, 0},   {16, 32, 8, 1, 1, 1, 2, 1, 0},
                                            {32, 32, 16, 2, 1, 1, 1, 1, 0}, {64, 64, 8, 4, 4, 1, 2, 1, 0},
                                            {32, 64, 32, 2, 2, 1, 2, 2, 0}, {16, 16, 8, 1, 2, 1, 1, 2, 0}};
  for (const auto& p : problems)
    for (const auto& c : configs) {
      // split_k refused for a nonlinear epilogue or a K too short to split
      if (c[kSplitK] > 1 && !gemm_check(p, c, GpuLimits{}).ok()) continue;
      expect_host_matches_reference(p, c);
    }
  // The tensor-core products: the inputs rounded to 10 mantissa bits, as the tensor cores take them.
  for (GemmProblem p : problems) {
    p.allowed = {true, true};
    for (const sdk::Config c : {sdk::Config{32, 32, 8, 2, 2, 1, 2, 1, 1}, sdk::Config{32, 32, 8, 2, 2, 1, 1, 2, 1},
                                sdk::Config{32, 32, 16, 2, 2, 1, 2, 1, 2}}) {
      if (c[kSplitK] > 1 && !gemm_check(p, c, GpuLimits{}).ok()) continue;
      expect_host_matches_reference(p, c);
    }
  }
  // Aligned operands with vector loads, split four ways.
  GemmProblem aligned = shape(36, 68, 132);
  aligned.op = "aligned";
  aligned.has_bias = true;
  aligned.bias_col_stride = 1;
  expect_host_matches_reference(aligned, {32, 64, 8, 2, 2, 4, 2, 4, 0});
  expect_host_matches_reference(aligned, {32, 64, 16, 2, 2, 2, 1, 1, 0});
}

// ONNX allows an empty K: the product is zero, and the bias and activation remain.
TEST(GemmHostKernel, EmptyKLeavesTheEpilogue) {
  GemmProblem p = shape(5, 7, 0);
  p.has_bias = true;
  p.bias_col_stride = 1;
  p.activation = GemmActivation::relu;
  expect_host_matches_reference(p, {8, 8, 8, 1, 2, 1, 2, 1, 0});
  p.activation = GemmActivation::none;
  EXPECT_NE(why(p, {8, 8, 8, 1, 2, 1, 2, 2, 0}).find("without K"), std::string::npos);
  EXPECT_EQ(gemm_space(p).knobs[kSplitK].values, (std::vector<int64_t>{1}));
}

TEST(GemmHostKernel, RefusesALaunchThatDoesNotMatchItsDefines) {
  const GemmProblem p = shape(64, 64, 64);
  std::vector<float> a(64 * 64), b(64 * 64), out(64 * 64);
  Launch l(p, {32, 32, 8, 2, 2, 4, 2, 1, 0}, a.data(), b.data(), nullptr, nullptr, out.data());
  l.launch.grid.x = 1;
  EXPECT_THROW(host_gemm().run(l.launch), std::runtime_error);
}

double model_ms(const GemmProblem& p, const sdk::Config& c) {
  std::vector<float> none;
  Launch l(p, c, nullptr, nullptr, nullptr, nullptr, nullptr);
  return host_gemm().time_ms(l.launch);
}

// The valid config of least modelled time.
sdk::Config fastest(const GemmProblem& p) {
  sdk::Config best;
  double best_ms = 1e300;
  sdk::for_each_config(gemm_space(p), [&](const sdk::Config& c) {
    if (!gemm_check(p, c, GpuLimits{}).ok()) return;
    const double ms = model_ms(p, c);
    if (ms < best_ms) {
      best_ms = ms;
      best = c;
    }
  });
  return best;
}

TEST(GemmHostKernel, TimeModelHasAnOptimumInsideTheSpace) {
  const GemmProblem bert = shape(128, 768, 768);
  const sdk::Config def = gemm_default(bert, GpuLimits{});
  EXPECT_EQ(model_ms(bert, def), model_ms(bert, def));  // deterministic
  const sdk::Config best = fastest(bert);
  EXPECT_LT(model_ms(bert, best), model_ms(bert, def));
  const auto s = gemm_space(bert);
  // Neither the smallest nor the largest tile wins.
  EXPECT_GT(best[kBlockM] * best[kBlockN], 8 * 8);
  EXPECT_LT(best[kBlockM] * best[kBlockN], s.knobs[kBlockM].values.back() * s.knobs[kBlockN].values.back());
  // Wider loads and a second stage pay; a K this long over few tiles splits.
  sdk::Config scalar = best;
  scalar[kVectorWidth] = 1;
  EXPECT_LT(model_ms(bert, best), model_ms(bert, scalar));
  const GemmProblem deep = shape(64, 64, 8192);
  EXPECT_GT(fastest(deep)[kSplitK], 1);
  sdk::Config one_stage = def;
  one_stage[kStages] = 1;
  EXPECT_LT(model_ms(bert, def), model_ms(bert, one_stage));
}

}  // namespace
}  // namespace aoe::cuda
