// The vector-unit models: elementwise chains, reduces, softmax and layer
// norm, pooling and transpose. Hand-computed figures, refusals, bounds,
// scaling with cores and the default tiling against the best one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "aoe/sdk/error.h"
#include "atomic_clean_model.h"
#include "elementwise_model.h"
#include "layernorm_model.h"
#include "norm_model.h"
#include "op_tasks.h"
#include "pool_model.h"
#include "reduce_model.h"
#include "sim_device.h"
#include "softmax_model.h"
#include "transpose_model.h"

namespace aoe::sim {
namespace {

using sdk::DType;
using test::tensor;

// The 910 as the hardware notes give it, written out so the figures below
// can be checked by hand.
const Soc& soc() {
  static const Soc s = [] {
    Soc x;
    x.target = "ascend910";
    x.ai_cores = 32;
    x.clock_ghz = 1.0;
    x.ub_bytes = 256 << 10;
    x.hbm_gbps = 1200;  // 1200 B/cycle for the chip, 37.5 per core when all 32 stream
    x.gm_to_l1_rate = 110;
    x.ub_to_gm_rate = 64;
    x.vector_bytes_per_cycle = 256;
    x.transcendental_elems_per_cycle = 32;
    x.launch_us = 3;
    x.dma_cycles = 200;
    x.vector_latency_cycles = 6;
    x.transcendental_latency_cycles = 12;
    return x;
  }();
  return s;
}

sdk::OpTask op(std::string type, std::vector<sdk::TensorDesc> inputs, nlohmann::json attrs = nlohmann::json::object(),
               std::vector<std::string> fused = {}) {
  sdk::OpTask t;
  t.name = "op";
  t.op_type = std::move(type);
  t.inputs = std::move(inputs);
  t.attrs = std::move(attrs);
  t.fused_ops = std::move(fused);
  return t;
}

std::unique_ptr<OpModel> model_of(const sdk::OpTask& t) {
  const auto& s = soc();
  if (is_elementwise_op(t.op_type)) return std::make_unique<ElementwiseModel>(s, elementwise_problem(t, s));
  if (is_reduce_op(t.op_type)) return std::make_unique<ReduceModel>(s, reduce_problem(t, s));
  if (t.op_type == "Softmax") return std::make_unique<NormModel>(s, softmax_problem(t, s));
  if (t.op_type == "LayerNormalization") return std::make_unique<NormModel>(s, layernorm_problem(t, s));
  if (is_pool_op(t.op_type)) return std::make_unique<PoolModel>(s, pool_problem(t, s));
  return std::make_unique<TransposeModel>(s, transpose_problem(t, s));
}


// One realistic op per family, with the family's knob order for hand configs.
struct Family {
  std::string name;
  sdk::OpTask realistic;
  sdk::OpTask large;         // big and evenly divisible over 1..32 cores
  sdk::Config overflow;      // exceeds UB on the large op
  size_t block_dim_knob;
};

std::vector<Family> families() {
  const auto f16 = DType::f16;
  return {
      {"elementwise",  // MobileNetV2 residual add of the 7 x 7 stage
       op("Add", {tensor({1, 160, 7, 7}, f16), tensor({1, 160, 7, 7}, f16)}),
       op("Sigmoid", {tensor({64, 1024, 1024}, f16)}),
       {1, 65536, 1},
       ElementwiseModel::kBlockDim},
      {"reduce",  // BERT-base layer-norm mean over hidden
       op("ReduceMean", {tensor({1, 128, 768}, f16)}, {{"axes", {-1}}}),
       op("ReduceSum", {tensor({4096, 4096}, f16)}, {{"axes", {1}}}),
       {ReduceModel::kSplitKept, 1, 131072, 0, 1},
       ReduceModel::kBlockDim},
      {"softmax",  // BERT-base attention scores
       op("Softmax", {tensor({1, 12, 128, 128}, f16)}, {{"axis", -1}}),
       op("Softmax", {tensor({8192, 1024}, f16)}),
       {1, 128, 1, NormModel::kOnePass},
       NormModel::kBlockDim},
      {"layernorm",  // BERT-base
       op("LayerNormalization", {tensor({1, 128, 768}, f16), tensor({768}, f16), tensor({768}, f16)}, {{"axis", -1}}),
       op("LayerNormalization", {tensor({8192, 768}, f16), tensor({768}, f16), tensor({768}, f16)}, {{"axis", -1}}),
       {1, 64, 1, NormModel::kOnePass},
       NormModel::kBlockDim},
      {"pool",  // ResNet-50 stem max pool
       op("MaxPool", {tensor({1, 64, 112, 112}, f16)},
          {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}),
       op("AveragePool", {tensor({32, 64, 128, 128}, f16)}, {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}}),
       {1, 64, 1, PoolModel::kNc1hwc0},
       PoolModel::kBlockDim},
      {"transpose",  // BERT-base key transpose for Q x K^T
       op("Transpose", {tensor({1, 12, 128, 64}, f16)}, {{"perm", {0, 1, 3, 2}}}),
       op("Transpose", {tensor({64, 1024, 1024}, f16)}, {{"perm", {0, 2, 1}}}),
       {1, 131072, 1, TransposeModel::kVnchwconv},
       TransposeModel::kBlockDim},
  };
}

// ---- hand-computed figures ------------------------------------------------

// Stages are GM->UB (bytes / min(port, HBM share) + 200), vector, UB->GM.
TEST(VectorModels, ElementwiseHandComputed) {
  // 512 Ki fp16 over 32 cores: one tile of 16384 each, 32 KiB in and out.
  const auto m = model_of(op("Relu", {tensor({512, 1024}, DType::f16)}));
  const sdk::Config c{32, 16384, 0};
  ASSERT_TRUE(m->check(c).ok()) << m->check(c).message;
  const double share = 1200.0 / 32;
  const double in = 32768 / share + 200, out = 32768 / share + 200;
  const double vec = 128 + 6;  // 128 repeats of 256 B, one instruction
  EXPECT_NEAR(m->time_us(c), 3 + (in + vec + out) / 1000, 1e-9);
  // With db a single tile cannot overlap anything.
  EXPECT_NEAR(m->time_us({32, 16384, 1}), m->time_us(c), 1e-9);
  // Two tiles of 8192 with db: the first runs through; the second adds its
  // slowest stage, here its reads and writes together at the core's HBM share.
  const double in2 = 16384 / share + 200, vec2 = 64 + 6, hbm2 = 32768 / share;
  EXPECT_NEAR(m->time_us({32, 8192, 1}), 3 + (in2 + vec2 + in2 + hbm2) / 1000, 1e-9);
}

// A SoC whose UB the MTEs and the vector unit contend for: double buffering
// hides all but ub_contention of the shorter of a tile's copies and its
// passes (here the passes), so each tile after the first adds that share.
TEST(VectorModels, UbContentionAddsItsShareOfTheShorterStage) {
  const auto task = op("Relu", {tensor({512, 1024}, DType::f16)});
  const double share = 1200.0 / 32, in2 = 16384 / share + 200, vec2 = 64 + 6, hbm2 = 32768 / share;
  for (const double f : {0.0, 0.5, 1.0}) {
    SCOPED_TRACE(f);
    Soc contended = soc();
    contended.ub_contention = f;
    const ElementwiseModel m(contended, elementwise_problem(task, contended));
    EXPECT_NEAR(m.time_us({32, 8192, 1}), 3 + (in2 + vec2 + in2 + hbm2 + f * vec2) / 1000, 1e-9);
    // Without db the stages run in turn whatever the share.
    EXPECT_NEAR(m.time_us({32, 8192, 0}), 3 + 2 * (in2 + vec2 + in2) / 1000, 1e-9);
  }
}

// A SoC whose launch grows by block_launch_us a block: the same tiles cost
// that much more for each block the config launches, and nothing else moves.
TEST(VectorModels, EachLaunchedBlockAddsItsLaunch) {
  Soc per_block = soc();
  per_block.block_launch_us = 0.125;
  const auto task = op("Relu", {tensor({512, 1024}, DType::f16)});
  const ElementwiseModel flat(soc(), elementwise_problem(task, soc()));
  const ElementwiseModel growing(per_block, elementwise_problem(task, per_block));
  for (const sdk::Config c : {sdk::Config{32, 16384, 0}, sdk::Config{8, 16384, 1}, sdk::Config{1, 16384, 1}}) {
    SCOPED_TRACE(c[0]);
    ASSERT_TRUE(growing.check(c).ok()) << growing.check(c).message;
    EXPECT_NEAR(growing.time_us(c) - flat.time_us(c), 0.125 * static_cast<double>(c[0]), 1e-9);
  }
}

TEST(VectorModels, ReduceHandComputed) {
  // 64 rows of 1024 fp32 summed on 8 cores (one 32 B output block each): one tile of 8 rows.
  const auto m = model_of(op("ReduceSum", {tensor({64, 1024}, DType::f32)}, {{"axes", {1}}}));
  const sdk::Config c{ReduceModel::kSplitKept, 8, 8192, 0, 0};
  ASSERT_TRUE(m->check(c).ok()) << m->check(c).message;
  const double in = 8 * 1024 * 4 / 110.0 + 200;  // 8 cores leave MTE2 as the cap
  // Per row: fold 960 values into one repeat (15 repeats + 6), then a 22-cycle vcadd.
  const double vec = 8 * (15 + 6 + 22);
  const double out = 8 * 4 / 64.0 + 200;
  EXPECT_NEAR(m->time_us(c), 3 + (in + vec + out) / 1000, 1e-9);
  // Nine cores would split a 32 B output block.
  EXPECT_FALSE(m->check({ReduceModel::kSplitKept, 9, 8192, 0, 0}).ok());
}

// A sum of mapped elements (squares, then a root) pays the extra vector
// passes; min and product reductions refuse atomic adds as max does.
TEST(VectorModels, MappedAndNonAdditiveReductions) {
  const auto x = tensor({64, 1024}, DType::f32);
  const auto sum = model_of(op("ReduceSum", {x}, {{"axes", {1}}}));
  const auto l2 = model_of(op("ReduceL2", {x}, {{"axes", {1}}}));
  const auto& c = sum->space().default_config;
  ASSERT_TRUE(l2->check(c).ok()) << l2->check(c).message;
  EXPECT_GT(l2->time_us(c), sum->time_us(c));
  for (const char* t : {"ReduceMin", "ReduceProd"}) {
    const auto m = model_of(op(t, {tensor({1, 1 << 20}, DType::f32)}, {{"axes", {1}}}));
    EXPECT_TRUE(m->check(m->space().default_config).ok()) << t;
    auto atomic = m->space().default_config;
    atomic[ReduceModel::kSplitAxis] = ReduceModel::kSplitReduced;
    atomic[ReduceModel::kAtomic] = 1;
    EXPECT_NE(m->check(atomic).message.find("atomic add cannot combine"), std::string::npos) << t;
  }
}

// ArgMax and ArgMin reduce one axis, a max that keeps its index: the max's
// time and a compare and select over each element more; no atomic adds.
TEST(VectorModels, ArgMaxIsAMaxThatKeepsItsIndex) {
  const auto x = tensor({64, 1024}, DType::f32);
  const auto max = model_of(op("ReduceMax", {x}, {{"axes", {1}}}));
  for (const char* t : {"ArgMax", "ArgMin"}) {
    const auto arg = model_of(op(t, {x}, {{"axis", 1}, {"keepdims", 0}}));
    const auto& c = max->space().default_config;
    ASSERT_TRUE(arg->check(c).ok()) << arg->check(c).message;
    EXPECT_GT(arg->time_us(c), max->time_us(c)) << t;
    auto atomic = c;
    atomic[ReduceModel::kSplitAxis] = ReduceModel::kSplitReduced;
    atomic[ReduceModel::kAtomic] = 1;
    EXPECT_FALSE(arg->check(atomic).ok()) << t;
  }
  // The default axis is 0: 1024 kept columns, not 64 rows.
  const auto p = reduce_problem(op("ArgMax", {x}), soc());
  EXPECT_EQ(p.reduced, 64);
  EXPECT_EQ(p.kept(), 1024);
}

// The elementwise table's rows beyond the arithmetic: the inverse
// trigonometric and hyperbolic ops cost more vector work than a negation of
// the same tensor; bit, logic and Like ops stream as one pass; ops that read
// no input (random draws, EyeLike, Range, the windows) are as big as their
// output, which they need; a Dropout that is a kernel writes its mask too;
// LRN's work grows with its window; CumSum, Trilu and the quantizers stream
// one input of those they are given.
TEST(VectorModels, MathBitAndGeneratorOpsHaveATime) {
  const auto x = tensor({256, 1024}, DType::f32);
  const auto neg = model_of(op("Neg", {x}));
  const double neg_us = neg->time_us(neg->space().default_config);
  for (const char* t : {"Asin", "Acos", "Asinh", "Acosh", "Atanh"}) {
    const auto m = model_of(op(t, {x}));
    EXPECT_GT(m->time_us(m->space().default_config), neg_us) << t;
  }
  // One instruction an element, as an Add of the same operands or a Neg of the same tensor.
  const auto default_us = [](const sdk::OpTask& t) {
    const auto m = model_of(t);
    return m->time_us(m->space().default_config);
  };
  const auto i = tensor({256, 1024}, DType::i32), row = tensor({1024}, DType::i32);
  for (const char* t : {"BitShift", "BitwiseAnd", "BitwiseXor", "Xor", "LessOrEqual", "GreaterOrEqual"})
    EXPECT_DOUBLE_EQ(default_us(op(t, {i, row})), default_us(op("Add", {i, row}))) << t;
  for (const char* t : {"IsNaN", "BitwiseNot"}) EXPECT_DOUBLE_EQ(default_us(op(t, {x})), neg_us) << t;
  EXPECT_GE(default_us(op("IsInf", {x})), neg_us);
  auto with_output = [](sdk::OpTask t, sdk::TensorDesc y) {
    t.outputs = {std::move(y)};
    return t;
  };
  const auto uniform = model_of(with_output(op("RandomUniform", {}, {{"shape", {256, 1024}}}), x));
  const auto normal = model_of(with_output(op("RandomNormalLike", {x}), x));
  const double uniform_us = uniform->time_us(uniform->space().default_config);
  EXPECT_GT(uniform_us, neg_us);  // Philox's rounds outweigh the read a negation makes
  EXPECT_GT(normal->time_us(normal->space().default_config), uniform_us);
  EXPECT_EQ(elementwise_problem(with_output(op("EyeLike", {tensor({64, 64})}), tensor({64, 64})), soc()).elements, 4096);
  EXPECT_EQ(elementwise_problem(with_output(op("ConstantOfShape", {tensor({2}, DType::i64)}), x), soc()).elements, 256 * 1024);
  const auto scalar = tensor({}, DType::i64);
  EXPECT_EQ(elementwise_problem(with_output(op("Range", {scalar, scalar, scalar}), tensor({5000}, DType::i64)), soc()).elements, 5000);
  const auto mel = elementwise_problem(
      with_output(op("MelWeightMatrix", {scalar, scalar, scalar, tensor({}), tensor({})}), tensor({257, 80})), soc());
  EXPECT_EQ(mel.elements, 257 * 80);
  EXPECT_EQ(mel.transcendental_passes, 2);
  try {
    elementwise_problem(op("RandomUniform", {}, {{"shape", {4}}}), soc());
    ADD_FAILURE() << "a draw without its output's shape was sized";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), sdk::StatusCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("RandomUniform"), std::string::npos) << e.what();
  }
  // A Dropout that is a kernel: at inference it copies x and writes its mask
  // (one more output stream); in training it draws as well.
  auto dropout = with_output(op("Dropout", {x}), x);
  dropout.outputs.push_back(tensor({256, 1024}, DType::boolean));
  const auto copy = elementwise_problem(dropout, soc());
  EXPECT_EQ(copy.mask_bytes, 1);
  EXPECT_GT(copy.gm_bytes(), elementwise_problem(op("Neg", {x}), soc()).gm_bytes());
  auto training = dropout;
  training.inputs = {x, tensor({}, DType::f32), tensor({}, DType::boolean)};
  training.inputs[2].name = "training_mode";
  EXPECT_GT(elementwise_problem(training, soc()).simple_passes, copy.simple_passes);
  training.attrs = {{"training_mode", 0}};  // folded false: the copy again
  EXPECT_EQ(elementwise_problem(training, soc()).simple_passes, copy.simple_passes);
  // The windows are generators: a Blackman window's two cosines cost more than a Hann window's one.
  const auto window = [&](const char* t) {
    const auto m = model_of(with_output(op(t, {tensor({}, DType::i64)}), tensor({1 << 16})));
    return m->time_us(m->space().default_config);
  };
  EXPECT_GT(window("BlackmanWindow"), window("HannWindow"));
  // LRN sums a window of `size` channels: a wider one costs more.
  const auto maps = tensor({1, 64, 56, 56});
  const auto lrn = [&](int64_t size) { return elementwise_problem(op("LRN", {maps}, {{"size", size}}), soc()); };
  EXPECT_EQ(lrn(5).simple_passes - lrn(3).simple_passes, 2);
  EXPECT_THROW(lrn(0), sdk::Error);
  // CumSum streams x, Trilu its matrix; the axis and the diagonal are scalars they do not stream.
  for (const char* t : {"CumSum", "Trilu"}) {
    const auto p = elementwise_problem(op(t, {x, tensor({}, DType::i64)}), soc());
    EXPECT_EQ(p.streamed_bytes.size(), 1u) << t;
    EXPECT_TRUE(p.broadcast_elements.empty()) << t;
    EXPECT_GE(default_us(op(t, {x, tensor({}, DType::i64)})), neg_us) << t;
  }
  // Quantizing writes a byte an element, dequantizing the float it makes of one.
  const auto scale = tensor({}, DType::f32), point = tensor({}, DType::u8);
  const auto quantize = elementwise_problem(with_output(op("QuantizeLinear", {x, scale, point}), tensor({256, 1024}, DType::u8)), soc());
  const auto dequantize =
      elementwise_problem(with_output(op("DequantizeLinear", {tensor({256, 1024}, DType::u8), scale, point}), x), soc());
  EXPECT_EQ(quantize.out_bytes, 1);
  EXPECT_EQ(dequantize.out_bytes, 4);
}

TEST(VectorModels, SoftmaxHandComputed) {
  // 32 fp32 rows of 1024, one per core.
  const auto m = model_of(op("Softmax", {tensor({32, 1024}, DType::f32)}));
  const sdk::Config c{32, 1, 0, NormModel::kOnePass};
  ASSERT_TRUE(m->check(c).ok()) << m->check(c).message;
  const double share = 1200.0 / 32;
  const double io = 2 * (4096 / share + 200);
  const double simple = 2 * (16 + 6);         // sub, mul: 16 repeats each
  const double exp = 1024 / 32.0 + 12;        // 32 lanes per cycle
  const double reduces = 2 * (15 + 6 + 22);   // max and sum
  EXPECT_NEAR(m->time_us(c), 3 + (io + simple + exp + reduces) / 1000, 1e-9);
}

TEST(VectorModels, LayerNormHandComputed) {
  // 32 fp32 rows of 1024 with gamma and beta, one row per core.
  const auto m = model_of(op("LayerNormalization",
                             {tensor({32, 1024}, DType::f32), tensor({1024}, DType::f32), tensor({1024}, DType::f32)}));
  const sdk::Config c{32, 1, 0, NormModel::kOnePass};
  ASSERT_TRUE(m->check(c).ok()) << m->check(c).message;
  const double share = 1200.0 / 32;
  const double gamma_beta = 8192 / share + 200;
  const double io = 2 * (4096 / share + 200);
  const double vec = 5 * (16 + 6) + 2 * (15 + 6 + 22);
  EXPECT_NEAR(m->time_us(c), 3 + (gamma_beta + io + vec) / 1000, 1e-9);
}

TEST(VectorModels, PoolHandComputed) {
  // 16 fp16 channels of 8 x 8, 2 x 2 max, stride 2: one C1 plane, one tile of 4 output rows.
  const auto m = model_of(op("MaxPool", {tensor({1, 16, 8, 8}, DType::f16)}, {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}}));
  const sdk::Config c{1, 4, 0, PoolModel::kNc1hwc0};
  ASSERT_TRUE(m->check(c).ok()) << m->check(c).message;
  const double in = 8 * 8 * 16 * 2 / 110.0 + 200;
  const double out = 4 * 4 * 16 * 2 / 64.0 + 200;
  const double vec = 4 * (2 + 6);  // 4 taps, each 2 repeats over 256 values
  EXPECT_NEAR(m->time_us(c), 3 + (in + vec + out) / 1000, 1e-9);
  // ND on W = 8: every tap of every output row is its own short instruction.
  const sdk::Config nd{1, 64, 0, PoolModel::kNd};
  ASSERT_TRUE(m->check(nd).ok()) << m->check(nd).message;
  const double nd_vec = 16 * 4 * 4 * (1 + 6);
  EXPECT_NEAR(m->time_us(nd), 3 + (8 * 8 * 16 * 2 / 110.0 + 200 + nd_vec + out) / 1000, 1e-9);
}

TEST(VectorModels, Pool3dHandComputed) {
  // 16 fp16 channels of 4 x 8 x 8, 2 x 2 x 2 max, stride 2: each of the 2
  // output slices a 2-D pool over the 2 input slices under it, 8 taps.
  const auto m = model_of(op("MaxPool", {tensor({1, 16, 4, 8, 8}, DType::f16)},
                             {{"kernel_shape", {2, 2, 2}}, {"strides", {2, 2, 2}}, {"pads", {0, 0, 0, 0, 0, 0}}}));
  const sdk::Config c{1, 4, 0, PoolModel::kNc1hwc0};
  ASSERT_TRUE(m->check(c).ok()) << m->check(c).message;
  const double in = 2 * 8 * 8 * 16 * 2 / 110.0 + 200;
  const double out = 4 * 4 * 16 * 2 / 64.0 + 200;
  const double vec = 8 * (2 + 6);  // 8 taps, each 2 repeats over 256 values
  EXPECT_NEAR(m->time_us(c), 3 + 2 * (in + vec + out) / 1000, 1e-9);  // two tiles, one per output slice
  EXPECT_THROW(model_of(op("AveragePool", {tensor({1, 16, 4, 8, 8}, DType::f16)}, {{"kernel_shape", {2, 2}}})),
               sdk::Error);
  // A pad past any window modelled is unsupported, a negative one malformed.
  const auto status = [](nlohmann::json attrs) {
    try {
      model_of(op("MaxPool", {tensor({1, 16, 4, 8, 8}, DType::f16)}, std::move(attrs)));
    } catch (const sdk::Error& e) {
      return e.code();
    }
    return sdk::StatusCode::ok;
  };
  EXPECT_EQ(status({{"kernel_shape", {2, 2, 2}}, {"pads", {int64_t{1} << 40, 0, 0, 0, 0, 0}}}), sdk::StatusCode::unsupported);
  EXPECT_EQ(status({{"kernel_shape", {2, 2, 2}}, {"pads", {-1, 0, 0, 0, 0, 0}}}), sdk::StatusCode::invalid_argument);
}

TEST(VectorModels, NhwcPoolHandComputed) {
  // The same pool on NHWC: in ND every position already holds its 16
  // channels side by side, so one instruction per tap covers the tile, as NC1HWC0's does.
  const auto m = model_of(op("MaxPool", {tensor({1, 8, 8, 16}, DType::f16)},
                             {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}, {"data_format", "NHWC"}}));
  const sdk::Config nd{1, 4, 0, PoolModel::kNd};
  ASSERT_TRUE(m->check(nd).ok()) << m->check(nd).message;
  const double in = 8 * 8 * 16 * 2 / 110.0 + 200;
  const double out = 4 * 4 * 16 * 2 / 64.0 + 200;
  const double vec = 4 * (2 + 6);
  EXPECT_NEAR(m->time_us(nd), 3 + (in + vec + out) / 1000, 1e-9);
  EXPECT_NEAR(m->time_us({1, 4, 0, PoolModel::kNc1hwc0}), m->time_us(nd), 1e-9);
  EXPECT_THROW(model_of(op("MaxPool", {tensor({1, 8, 8, 16}, DType::f16)},
                           {{"kernel_shape", {2, 2}}, {"data_format", "NCWH"}})),
               sdk::Error);
}

TEST(VectorModels, TransposeHandComputed) {
  // 64 x 1024 fp16 swapped on one core, one tile: reads 64 runs of 2 KiB,
  // writes 1024 runs of 128 B, each run 2 issue cycles; vnchwconv once over it.
  const auto m = model_of(op("Transpose", {tensor({64, 1024}, DType::f16)}, {{"perm", {1, 0}}}));
  const sdk::Config conv{1, 65536, 0, TransposeModel::kVnchwconv};
  ASSERT_TRUE(m->check(conv).ok()) << m->check(conv).message;
  const double in = 131072 / 110.0 + 200 + 64 * 2;
  const double out = 131072 / 64.0 + 200 + 1024 * 2;
  const double vec = 512 + 3 * 6;
  EXPECT_NEAR(m->time_us(conv), 3 + (in + vec + out) / 1000, 1e-9);
  // Scattering by DMA writes each value as its own 32 B burst.
  const sdk::Config dma{1, 65536, 0, TransposeModel::kDma};
  const double scatter = 65536 * 32 / 64.0 + 200 + 65536 * 2;
  EXPECT_NEAR(m->time_us(dma), 3 + (in + scatter) / 1000, 1e-9);
}

// ---- constraints -----------------------------------------------------------

TEST(VectorModels, RefusesWhatOverflowsUb) {
  for (const auto& f : families()) {
    const auto m = model_of(f.large);
    ASSERT_TRUE(m->space().in_domain(f.overflow)) << f.name;
    const auto verdict = m->check(f.overflow);
    EXPECT_FALSE(verdict.ok()) << f.name;
    EXPECT_NE(verdict.message.find("UB"), std::string::npos) << f.name << ": " << verdict.message;
  }
}

TEST(VectorModels, DoubleBufferingCountsTwice) {
  // Add + Clip keeps two inputs and one output: 3 x 64 KiB fits once, not twice.
  const auto m = model_of(op("Add", {tensor({1 << 20}), tensor({1 << 20})}, {}, {"Clip"}));
  EXPECT_TRUE(m->check({32, 16384, 0}).ok());
  EXPECT_TRUE(m->check({32, 32768, 0}).ok()) << m->check({32, 32768, 0}).message;
  const auto v = m->check({32, 32768, 1});
  EXPECT_FALSE(v.ok());
  EXPECT_NE(v.message.find("double-buffered"), std::string::npos) << v.message;
}

TEST(VectorModels, RefusesMoreCoresThanWork) {
  const auto m = model_of(op("Relu", {tensor({100}, DType::f16)}));  // 7 blocks of 32 B
  EXPECT_TRUE(m->check({7, 128, 1}).ok());
  const auto v = m->check({8, 128, 1});
  EXPECT_FALSE(v.ok());
  EXPECT_NE(v.message.find("block_dim 8"), std::string::npos) << v.message;
  const auto s = model_of(op("Softmax", {tensor({4, 4096}, DType::f16)}));
  EXPECT_FALSE(s->check({5, 1, 1, NormModel::kOnePass}).ok());
}

TEST(VectorModels, SplitRowOnlyForRowsThatDoNotFit) {
  const auto small = model_of(op("Softmax", {tensor({64, 1024}, DType::f16)}));
  EXPECT_FALSE(small->check({32, 1, 1, NormModel::kSplitRow}).ok());
  // 64 Ki fp32 values need 3 x 256 KiB: only the two-pass schedule runs it.
  const auto big = model_of(op("Softmax", {tensor({64, 65536}, DType::f16)}));
  EXPECT_FALSE(big->check({32, 1, 0, NormModel::kOnePass}).ok());
  EXPECT_EQ(big->space().default_config[NormModel::kImpl], NormModel::kSplitRow);
  EXPECT_TRUE(big->check(big->space().default_config).ok());
}

TEST(VectorModels, AtomicOnlyWhenCoresSplitTheReducedAxis) {
  const auto m = model_of(op("ReduceSum", {tensor({16, 65536}, DType::f32)}, {{"axes", {1}}}));
  EXPECT_FALSE(m->check({ReduceModel::kSplitKept, 2, 1024, 1, 1}).ok());
  EXPECT_TRUE(m->check({ReduceModel::kSplitReduced, 32, 1024, 1, 1}).ok());
  // Few outputs, a long reduced axis: CANN's rules pick atomic mode.
  const auto& d = m->space().default_config;
  EXPECT_EQ(d[ReduceModel::kSplitAxis], ReduceModel::kSplitReduced);
  EXPECT_EQ(d[ReduceModel::kAtomic], 1);
  const auto mx = model_of(op("ReduceMax", {tensor({16, 65536}, DType::f32)}, {{"axes", {1}}}));
  EXPECT_FALSE(mx->check({ReduceModel::kSplitReduced, 32, 1024, 1, 1}).ok());
}

TEST(VectorModels, BroadcastInputIsReadOncePerCore) {
  // [128, 768] * [768]: the row vector stays in UB, so the op costs barely
  // more than a unary one of the same size.
  const auto bcast = model_of(op("Mul", {tensor({1024, 768}, DType::f16), tensor({768}, DType::f16)}));
  const auto full = model_of(op("Mul", {tensor({1024, 768}, DType::f16), tensor({1024, 768}, DType::f16)}));
  const sdk::Config c{32, 8192, 1};
  ASSERT_TRUE(bcast->check(c).ok());
  EXPECT_LT(bcast->time_us(c), full->time_us(c));
  EXPECT_LT(bcast->roofline_us(), full->roofline_us());
}

TEST(VectorModels, FusedChainStaysInUb) {
  // Add then Clip fused reads and writes GM once; two kernels would twice.
  const auto fused = model_of(op("Add", {tensor({1, 96, 112, 112}), tensor({1, 96, 112, 112})}, {}, {"Clip"}));
  const auto add = model_of(op("Add", {tensor({1, 96, 112, 112}), tensor({1, 96, 112, 112})}));
  const auto clip = model_of(op("Clip", {tensor({1, 96, 112, 112})}));
  const double separate = add->time_us(add->space().default_config) + clip->time_us(clip->space().default_config);
  EXPECT_LT(fused->time_us(fused->space().default_config), separate);
}

TEST(VectorModels, UnknownOpsAreUnsupported) {
  auto code = [](const std::function<void()>& body) {
    try {
      body();
    } catch (const sdk::Error& e) {
      return e.code();
    }
    return sdk::StatusCode::ok;
  };
  EXPECT_EQ(code([] { elementwise_problem(op("Add", {tensor({4}), tensor({4})}, {}, {"TopK"}), soc()); }),
            sdk::StatusCode::unsupported);
  EXPECT_EQ(code([] { reduce_problem(op("TopK", {tensor({4})}), soc()); }), sdk::StatusCode::unsupported);
  // A fused op after one that reads no input, or one it is given only for its dtype or axis.
  for (const char* anchor : {"RandomUniformLike", "CastLike", "CumSum"})
    EXPECT_EQ(code([&] { elementwise_problem(op(anchor, {tensor({4}), tensor({4}), tensor({4})}, {}, {"Add"}), soc()); }),
              sdk::StatusCode::unsupported)
        << anchor;
  EXPECT_EQ(code([] { elementwise_problem(op("Add", {tensor({3, 4}), tensor({5, 4})}), soc()); }),
            sdk::StatusCode::invalid_argument);
  // Three input rows of 64 Ki fp16 overflow UB in any format: no kernel.
  EXPECT_EQ(code([] { model_of(op("MaxPool", {tensor({1, 16, 64, 65536})}, {{"kernel_shape", {3, 3}}})); }),
            sdk::StatusCode::unsupported);
  // Sixteen channels of 4096 do not fit as NC1HWC0 but do as ND.
  const auto wide = model_of(op("MaxPool", {tensor({1, 16, 64, 4096})}, {{"kernel_shape", {3, 3}}}));
  EXPECT_EQ(wide->space().default_config[PoolModel::kFormat], PoolModel::kNd);
}

// ---- bounds, scaling, default against best -----------------------------------

TEST(VectorModels, DefaultIsValid) {
  for (const auto& f : families()) {
    for (const auto* t : {&f.realistic, &f.large}) {
      const auto m = model_of(*t);
      const auto v = m->check(m->space().default_config);
      EXPECT_TRUE(v.ok()) << f.name << ": " << v.message;
    }
  }
}

TEST(VectorModels, NoConfigBeatsTheRoofline) {
  std::mt19937_64 rng(7);
  for (const auto& f : families()) {
    for (const auto* t : {&f.realistic, &f.large}) {
      const auto m = model_of(*t);
      const auto& knobs = m->space().knobs;
      int valid = 0;
      for (int i = 0; i < 200; ++i) {
        sdk::Config c;
        for (const auto& k : knobs) c.push_back(k.values[rng() % k.values.size()]);
        if (!m->check(c).ok()) continue;
        ++valid;
        EXPECT_GE(m->time_us(c), m->roofline_us()) << f.name;
        if (i % 20 == 0) EXPECT_EQ(model_of(*t)->time_us(c), m->time_us(c)) << f.name << ": built again";
      }
      EXPECT_GT(valid, 0) << f.name;
    }
  }
}

TEST(VectorModels, MoreCoresAreNeverSlowerOnALargeOp) {
  for (const auto& f : families()) {
    const auto m = model_of(f.large);
    auto c = m->space().default_config;
    double previous = 0;
    for (int64_t cores : {1, 2, 4, 8, 16, 32}) {
      c[f.block_dim_knob] = cores;
      ASSERT_TRUE(m->check(c).ok()) << f.name << ": " << m->check(c).message;
      const double us = m->time_us(c);
      if (cores > 1) EXPECT_LE(us, previous * (1 + 1e-12)) << f.name << " on " << cores << " cores";
      previous = us;
    }
    c[f.block_dim_knob] = 1;
    const double one = m->time_us(c);
    c[f.block_dim_knob] = 32;
    EXPECT_LT(m->time_us(c), one) << f.name;
  }
}

// Figures: the default against the exhaustive best. No headroom demanded:
// the defaults follow CANN's rules (ElementwiseDefaultFollowsElewiseV3).
TEST(VectorModels, DefaultAgainstTheExhaustiveBestOnRealShapes) {
  for (const auto& f : families()) {
    const auto m = model_of(f.realistic);
    sdk::Config best;
    double best_us = 0;
    sdk::for_each_config(m->space(), [&](const sdk::Config& c) {
      if (!m->check(c).ok()) return;
      const double us = m->time_us(c);
      if (best.empty() || us < best_us) best = c, best_us = us;
    });
    const auto& d = m->space().default_config;
    const double default_us = m->time_us(d);
    std::printf("%-12s default %8.3f us %s\n%-12s best    %8.3f us %s  (roofline %.3f us)\n", f.name.c_str(),
                default_us, m->space().describe(d).dump().c_str(), "", best_us,
                m->space().describe(best).dump().c_str(), m->roofline_us());
    EXPECT_LE(best_us, default_us) << f.name << ": the enumeration missed the default";
  }
}

// CANN's elewise split: each core at least 512 elements, whatever their
// width, up to every core; double buffering on, and the largest UB tile that
// fits, but no bigger than a core's slice.
TEST(VectorModels, ElementwiseDefaultGivesEachCoreAMinimumOfElements) {
  auto cores = [](int64_t elements, DType dtype) {
    return model_of(op("Relu", {tensor({elements}, dtype)}))->space().default_config[ElementwiseModel::kBlockDim];
  };
  for (auto dtype : {DType::f16, DType::f32}) {
    EXPECT_EQ(cores(100, dtype), 1);
    EXPECT_EQ(cores(512, dtype), 1);
    EXPECT_EQ(cores(513, dtype), 2);
    EXPECT_EQ(cores(768, dtype), 2);
    EXPECT_EQ(cores(1536, dtype), 3);
    EXPECT_EQ(cores(3072, dtype), 6);
    EXPECT_EQ(cores(204800, dtype), 32);
  }
  // A binary op with a scalar splits the same way: 2560 on 5.
  EXPECT_EQ(model_of(op("Mul", {tensor({2560}, DType::f16), tensor({1}, DType::f16)}))
                ->space()
                .default_config[ElementwiseModel::kBlockDim],
            5);
  const auto big = model_of(op("Relu", {tensor({1, 64, 56, 56}, DType::f32)}));
  const auto& c = big->space().default_config;
  EXPECT_EQ(c[ElementwiseModel::kBlockDim], 32);
  EXPECT_EQ(c[ElementwiseModel::kDb], 1);
  EXPECT_TRUE(big->check(c).ok());
  EXPECT_LT(c[ElementwiseModel::kUbFactor] / 2, 200704 / 32);
  // 2000 fp32 elements: 4 cores of 500, a tile no bigger than a slice.
  const auto small = model_of(op("Relu", {tensor({2000}, DType::f32)}));
  EXPECT_EQ(small->space().default_config[ElementwiseModel::kBlockDim], 4);
  EXPECT_EQ(small->space().default_config[ElementwiseModel::kDb], 1);
  EXPECT_LT(small->space().default_config[ElementwiseModel::kUbFactor] / 2, 500);
}

// A lone Cast gives each core at least 2 KB of its input instead.
TEST(VectorModels, CastDefaultGivesEachCoreTwoKilobytesOfInput) {
  auto cores = [](int64_t elements, DType from, DType to) {
    auto t = op("Cast", {tensor({elements}, from)});
    t.outputs = {tensor({elements}, to)};
    return model_of(t)->space().default_config[ElementwiseModel::kBlockDim];
  };
  EXPECT_EQ(cores(768, DType::f16, DType::f32), 1);
  EXPECT_EQ(cores(768, DType::f32, DType::f16), 2);
  EXPECT_EQ(cores(3072, DType::f16, DType::f32), 3);
  EXPECT_EQ(cores(16384, DType::f16, DType::f32), 16);
  // Fused after another op, it is an elementwise chain as any other.
  auto chain = op("Relu", {tensor({1536}, DType::f16)}, nlohmann::json::object(), {"Cast"});
  chain.outputs = {tensor({1536}, DType::f32)};
  EXPECT_EQ(model_of(chain)->space().default_config[ElementwiseModel::kBlockDim], 3);
}

// A reduce whose cores share the reduced axis gives each 256 elements at
// least (a sum of squares of 768 runs on 3); one whose cores split the kept
// axes gives each whole outer rows, as many cores as the rounded-up share
// needs (48 column blocks of a FRACTAL_NZ matrix on 32 cores: 24 of 2).
TEST(VectorModels, ReduceDefaultSplitsAsCanns) {
  const auto squares = model_of(op("ReduceSum", {tensor({768}, DType::f16)}));
  EXPECT_EQ(squares->space().default_config[ReduceModel::kSplitAxis], ReduceModel::kSplitReduced);
  EXPECT_EQ(squares->space().default_config[ReduceModel::kBlockDim], 3);
  const auto columns = model_of(op("ReduceSum", {tensor({48, 16384, 16}, DType::f32)}, {{"axes", {1}}}));
  EXPECT_EQ(columns->space().default_config[ReduceModel::kSplitAxis], ReduceModel::kSplitKept);
  EXPECT_EQ(columns->space().default_config[ReduceModel::kBlockDim], 24);
}

// A sum of a whole tensor that fills every core gives each the floor of an
// even share of 32 B blocks and launches one block more for what is left:
// 21128 fp16 (1321 blocks) on 32 cores is 32 of 41 blocks and one of 9.
TEST(VectorModels, AWholeSumLeavesItsRemainderToOneBlockMore) {
  auto cores = [](int64_t elements) {
    return model_of(op("ReduceSum", {tensor({elements}, DType::f16)}))->space().default_config[ReduceModel::kBlockDim];
  };
  EXPECT_EQ(cores(21128), 33);
  EXPECT_EQ(cores(32 * 16 * 41), 32);  // an even split leaves nothing over
  EXPECT_EQ(cores(3072), 12);          // fewer than every core: 256 each
  const auto m = model_of(op("ReduceSum", {tensor({21128}, DType::f16)}));
  auto c = m->space().default_config;
  ASSERT_TRUE(m->check(c).ok()) << m->check(c).message;
  // The extra block costs its launch and its small remainder, not a second share.
  c[ReduceModel::kBlockDim] = 32;
  const double even = m->time_us(c);
  EXPECT_GT(m->time_us(m->space().default_config), even);
  EXPECT_LT(m->time_us(m->space().default_config), even * 1.5);
  // A sum that keeps an axis never launches more blocks than cores.
  const auto rows = model_of(op("ReduceSum", {tensor({64, 1024}, DType::f32)}, {{"axes", {1}}}));
  auto r = rows->space().default_config;
  r[ReduceModel::kBlockDim] = 33;
  EXPECT_FALSE(rows->check(r).ok());
}

// AtomicAddrClean as TBE compiles it: shares of 32 B blocks rounded up to
// its 48 KB zero buffer, each tensor cut into segments of a share.
TEST(VectorModels, AtomicCleanSplitsAsTbe) {
  // A 4 MiB fp32 weight gradient on 30 cores: shares of 3 zero buffers, 29 cores.
  EXPECT_EQ(atomic_clean_shares({4194304}, 30).size(), 29u);
  // An exact multiple of the share plus a small tensor: one core more.
  EXPECT_EQ(atomic_clean_shares({2359296}, 30).size(), 24u);
  EXPECT_EQ(atomic_clean_shares({2359296, 32}, 30).size(), 25u);
  // Two per-channel statistics: one core.
  EXPECT_EQ(atomic_clean_shares({256, 256}, 30), (std::vector<int64_t>{512}));
  // Every byte is cleared once, whatever the cores.
  for (int64_t cores : {1, 7, 30}) {
    int64_t sum = 0;
    for (auto b : atomic_clean_shares({1 << 20, 4096, 96}, cores)) sum += b;
    EXPECT_EQ(sum, (1 << 20) + 4096 + 96) << cores;
  }
}

// Its cost is what it clears: a few statistics cost a launch and one small
// write whatever the map they belong to; a big tensor costs its bytes.
TEST(VectorModels, AtomicCleanCostsWhatItClears) {
  auto model = [](std::vector<sdk::TensorDesc> cleared) {
    auto t = op("AtomicAddrClean", std::move(cleared));
    return AtomicCleanModel(soc(), atomic_clean_problem(t));
  };
  const auto stats = model({tensor({64}, DType::f32), tensor({64}, DType::f32)});
  EXPECT_EQ(stats.space().default_config[AtomicCleanModel::kBlockDim], 1);
  // A launch, one fill of the 48 KB zero buffer (192 repeats and its latency), one 512 B write.
  const double fill = 192 + 6, write = 512 / 64.0 + 200;
  EXPECT_NEAR(stats.time_us(stats.space().default_config), 3 + (fill + write) / 1000, 1e-9);
  const auto big = model({tensor({64 << 20}, DType::f32)});
  const double big_us = big.time_us(big.space().default_config);
  EXPECT_GE(big_us, big.roofline_us());
  EXPECT_NEAR(big.roofline_us(), (256 << 20) / 1200e3, 1e-6);
  EXPECT_THROW(atomic_clean_problem(op("AtomicAddrClean", {})), sdk::Error);
}

// ---- through the device ----------------------------------------------------

TEST(VectorModels, TheDeviceBuildsEveryFamily) {
  SimDevice dev(sdk::CreateArgs{"ascend910", nlohmann::json::object()});
  for (const auto& f : families()) {
    auto task = dev.prepare(f.realistic);
    const auto model = dev.model(f.realistic);
    auto built = task->build(model->space().default_config);
    EXPECT_TRUE(built.candidate) << f.name << ": " << built.failure.message;
  }
}

}  // namespace
}  // namespace aoe::sim
