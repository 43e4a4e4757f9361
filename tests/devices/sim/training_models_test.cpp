// The kernels of a training step (docs/training.md) on the simulator: each
// op type prepares from logical shapes, has a tuning space, times
// positively and scales with its work and its cores; each fused kernel
// costs less than its parts run apart; hostile tasks are refused naming the
// op and the tensor.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "aoe/sdk/error.h"
#include "op_model.h"
#include "op_tasks.h"
#include "sim_device.h"
#include "soc_files.h"
#include "training_reductions.h"
#include "training_vector_ops.h"
#include "weight_gradient_model.h"

namespace aoe::sim {
namespace {

using sdk::DType;
using sdk::OpTask;
using sdk::TensorDesc;
using test::tensor;

const Soc& soc() {
  static const Soc s = load_soc("ascend910_30c");
  return s;
}

OpTask task(const std::string& op_type, std::vector<TensorDesc> inputs, std::vector<TensorDesc> outputs,
            nlohmann::json attrs = nlohmann::json::object(), std::vector<std::string> fused = {}) {
  OpTask t;
  t.name = op_type;
  t.op_type = op_type;
  t.inputs = std::move(inputs);
  t.outputs = std::move(outputs);
  t.attrs = std::move(attrs);
  t.fused_ops = std::move(fused);
  return t;
}

double time_of(const OpTask& t, const std::function<void(const sdk::TuningSpace&, sdk::Config&)>& edit = {}) {
  const auto model = op_model(soc(), t);
  auto config = model->space().default_config;
  if (edit) edit(model->space(), config);
  const auto verdict = model->check(config);
  EXPECT_TRUE(verdict.ok()) << t.op_type << ": " << verdict.message;
  return model->time_us(config);
}

const auto f16 = DType::f16;
const auto f32 = DType::f32;
TensorDesc h(std::vector<int64_t> s) { return tensor(std::move(s), f16); }
TensorDesc f(std::vector<int64_t> s) { return tensor(std::move(s), f32); }
const nlohmann::json kConv3x3 = {{"kernel_shape", {3, 3}}, {"strides", {1, 1}}, {"pads", {1, 1, 1, 1}},
                                 {"dilations", {1, 1}}, {"group", 1}};

// Each op type of the step at batch n (its work grows with n).
struct StepOp {
  std::string name;
  std::function<OpTask(int64_t n)> make;
};

std::vector<StepOp> step_ops() {
  const int64_t c = 64;
  auto stats = [&] { return f({c}); };
  auto conv_in = kConv3x3;
  conv_in["input_size"] = {28, 28};
  return {
      {"BNTrainingReduce", [=](int64_t n) { return task("BNTrainingReduce", {h({n, c, 28, 28})}, {stats(), stats()}); }},
      {"BNTrainingUpdate",
       [=](int64_t n) {
         return task("BNTrainingUpdate", {h({n, c, 28, 28}), stats(), stats(), stats(), stats()},
                     {h({n, c, 28, 28}), stats(), stats()}, {{"epsilon", 1e-5}});
       }},
      {"SoftmaxCrossEntropyWithLogits",
       [](int64_t n) {
         return task("SoftmaxCrossEntropyWithLogits", {h({n * 32, 1000}), h({n * 32, 1000})}, {f({n * 32}), h({n * 32, 1000})});
       }},
      {"Conv2DBackpropInput",
       [=](int64_t n) { return task("Conv2DBackpropInput", {h({n, c, 28, 28}), h({c, 32, 3, 3})}, {h({n, 32, 28, 28})}, conv_in); }},
      {"Conv2DBackpropFilter",
       [=](int64_t n) { return task("Conv2DBackpropFilter", {h({n, 32, 28, 28}), h({n, c, 28, 28})}, {f({c, 32, 3, 3})}, kConv3x3); }},
      {"BiasAddGrad", [](int64_t n) { return task("BiasAddGrad", {h({n * 128, 768})}, {f({768})}, {{"axis", -1}}); }},
      {"BatchMatMul",
       [](int64_t n) {
         return task("BatchMatMul", {h({n * 12, 128, 64}), h({n * 12, 128, 64})}, {h({n * 12, 128, 128})},
                     {{"adj_x1", 0}, {"adj_x2", 1}});
       }},
      {"ReluGradV2", [=](int64_t n) { return task("ReluGradV2", {h({n, c, 56, 56}), h({n, c, 56, 56})}, {h({n, c, 56, 56})}); }},
      {"GeLUGrad", [](int64_t n) { return task("GeLUGrad", {h({n * 128, 3072}), h({n * 128, 3072})}, {h({n * 128, 3072})}); }},
      {"Relu6Grad", [=](int64_t n) { return task("Relu6Grad", {h({n, c, 56, 56}), h({n, c, 56, 56})}, {h({n, c, 56, 56})}); }},
      {"SigmoidGrad", [](int64_t n) { return task("SigmoidGrad", {h({n, 1, 160, 160}), h({n, 1, 160, 160})}, {h({n, 1, 160, 160})}); }},
      {"HardSwishGrad",
       [=](int64_t n) { return task("HardSwishGrad", {h({n, c, 56, 56}), h({n, c, 56, 56})}, {h({n, c, 56, 56})}); }},
      {"HardSigmoidGrad",
       [=](int64_t n) {
         return task("HardSigmoidGrad", {h({n, c, 56, 56}), h({n, c, 56, 56})}, {h({n, c, 56, 56})}, {{"alpha", 0.2}, {"beta", 0.5}});
       }},
      {"SoftmaxGradExt",
       [](int64_t n) {
         return task("SoftmaxGradExt", {h({n * 12, 128, 128}), h({n * 12, 128, 128})}, {h({n * 12, 128, 128})}, {{"axis", -1}});
       }},
      {"LayerNormXBackpropV2",
       [](int64_t n) {
         return task("LayerNormXBackpropV2", {h({n * 128, 768}), h({n * 128, 768}), f({n * 128, 1}), f({n * 128, 1}), f({768})},
                     {h({n * 128, 768})}, {{"axis", -1}});
       }},
      {"LayerNormBetaGammaBackpropV2",
       [](int64_t n) {
         return task("LayerNormBetaGammaBackpropV2", {h({n * 128, 768}), h({n * 128, 768}), f({n * 128, 1}), f({n * 128, 1})},
                     {f({768}), f({768})}, {{"axis", -1}});
       }},
      {"BNTrainingUpdateGrad",
       [=](int64_t n) {
         return task("BNTrainingUpdateGrad", {h({n, c, 28, 28}), h({n, c, 28, 28}), stats(), stats()}, {stats(), stats()});
       }},
      {"BNTrainingReduceGrad",
       [=](int64_t n) {
         return task("BNTrainingReduceGrad",
                     {h({n, c, 28, 28}), h({n, c, 28, 28}), stats(), stats(), stats(), stats(), stats()}, {h({n, c, 28, 28})});
       }},
      {"MaxPoolGradWithArgmax",
       [=](int64_t n) {
         return task("MaxPoolGradWithArgmax", {h({n, c, 112, 112}), h({n, c, 56, 56})}, {h({n, c, 112, 112})},
                     {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}});
       }},
      {"ResizeNearestNeighborV2Grad",
       [](int64_t n) {
         return task("ResizeNearestNeighborV2Grad", {h({n, 24, 80, 80})}, {h({n, 24, 40, 40})}, {{"input_size", {40, 40}}});
       }},
      {"ResizeBilinearV2Grad",
       [](int64_t n) {
         return task("ResizeBilinearV2Grad", {h({n, 24, 40, 40})}, {h({n, 24, 20, 20})}, {{"input_size", {20, 20}}});
       }},
      {"GlobalAveragePoolGrad",
       [](int64_t n) {
         return task("GlobalAveragePoolGrad", {h({n, 2048, 1, 1})}, {h({n, 2048, 7, 7})}, {{"input_size", {7, 7}}});
       }},
      {"AddN",
       [=](int64_t n) { return task("AddN", {h({n, c, 56, 56}), h({n, c, 56, 56}), h({n, c, 56, 56})}, {h({n, c, 56, 56})}); }},
      {"FusedMulAddN",
       [](int64_t n) { return task("FusedMulAddN", {f({n * 256, 1024}), f({n * 256, 1024})}, {f({n * 256, 1024})}, {{"weight_decay", 1e-4}}); }},
      {"ApplyMomentum",
       [](int64_t n) {
         const auto w = f({n * 256, 1024});
         return task("ApplyMomentum", {w, w, w}, {w, w}, {{"lr", 0.1}, {"momentum", 0.9}});
       }},
      {"ApplyAdam",
       [](int64_t n) {
         const auto w = f({n * 256, 1024});
         return task("ApplyAdam", {w, w, w, w}, {w, w, w},
                     {{"lr", 1e-3}, {"beta1", 0.9}, {"beta2", 0.999}, {"epsilon", 1e-8}, {"step", 1}});
       }},
      {"LambApplyOptimizerAssign",
       [](int64_t n) {
         const auto w = f({n * 256, 1024});
         return task("LambApplyOptimizerAssign", {w, w, w, w}, {w, w, w},
                     {{"beta1", 0.9}, {"beta2", 0.999}, {"epsilon", 1e-6}, {"weight_decay", 0.01}, {"step", 1}});
       }},
      {"SquareSumV1", [](int64_t n) { return task("SquareSumV1", {f({n * 256, 1024})}, {f({1})}); }},
      {"LambApplyWeightAssign",
       [](int64_t n) {
         const auto w = f({n * 256, 1024});
         return task("LambApplyWeightAssign", {f({1}), f({1}), w, w}, {w}, {{"lr", 1e-3}});
       }},
  };
}

size_t knob_index(const sdk::TuningSpace& space, const std::string& name) {
  for (size_t i = 0; i < space.knobs.size(); ++i)
    if (space.knobs[i].name == name) return i;
  ADD_FAILURE() << "no knob " << name;
  return 0;
}

TEST(TrainingModels, EveryKernelPreparesHasASpaceAndTimesPositively) {
  for (const auto& op : step_ops()) {
    SCOPED_TRACE(op.name);
    const auto t = op.make(16);
    std::unique_ptr<OpModel> model;
    ASSERT_NO_THROW(model = op_model(soc(), t));
    const auto& space = model->space();
    EXPECT_FALSE(space.knobs.empty());
    EXPECT_EQ(space.default_config.size(), space.knobs.size());
    EXPECT_TRUE(model->check(space.default_config).ok()) << model->check(space.default_config).message;
    const double us = model->time_us(space.default_config);
    EXPECT_GT(us, 0);
    EXPECT_LE(model->roofline_us(), us);
  }
}

TEST(TrainingModels, TwiceTheWorkTakesLongerAndMoreCoresAreFaster) {
  for (const auto& op : step_ops()) {
    SCOPED_TRACE(op.name);
    EXPECT_GT(time_of(op.make(32)), time_of(op.make(16)));
    const auto t = op.make(32);
    // A weight gradient's blocks split the batch in batch_dim shares: one share on one core.
    const double one_core = time_of(t, [](const sdk::TuningSpace& s, sdk::Config& c) {
      c[knob_index(s, "block_dim")] = 1;
      for (size_t i = 0; i < s.knobs.size(); ++i)
        if (s.knobs[i].name == "batch_dim") c[i] = 1;
    });
    const double all = time_of(t, [](const sdk::TuningSpace& s, sdk::Config& c) {
      c[knob_index(s, "block_dim")] = std::max<int64_t>(c[knob_index(s, "block_dim")], 8);
    });
    EXPECT_LT(all, one_core);
  }
}

TEST(TrainingModels, TheCubeGradientsAreTunedAsTheirForwardKernels) {
  const auto ops = step_ops();
  auto space_of = [&](const std::string& name) {
    for (const auto& op : ops)
      if (op.name == name) return op_model(soc(), op.make(16))->space();
    throw std::runtime_error("no " + name);
  };
  auto names = [](const sdk::TuningSpace& s) {
    std::vector<std::string> out;
    for (const auto& k : s.knobs) out.push_back(k.name);
    return out;
  };
  const OpTask conv = task("Conv", {h({16, 32, 28, 28}), h({64, 32, 3, 3})}, {h({16, 64, 28, 28})}, kConv3x3);
  EXPECT_EQ(names(space_of("Conv2DBackpropInput")), names(op_model(soc(), conv)->space()));
  const auto matmul = op_model(soc(), test::square(256, 256, 256))->space();
  auto dw_names = names(matmul);
  dw_names.insert(dw_names.begin() + 1, "batch_dim");
  EXPECT_EQ(names(space_of("Conv2DBackpropFilter")), dw_names);
  EXPECT_EQ(names(space_of("BatchMatMul")), names(matmul));
}

TEST(TrainingModels, TheGradientsRunAsTheKernelsTheyMapTo) {
  // BatchMatMul with a read transposed is the MatMul of the transposed a.
  const auto bmm = task("BatchMatMul", {h({8, 64, 128}), h({8, 64, 256})}, {h({8, 128, 256})}, {{"adj_x1", 1}, {"adj_x2", 0}});
  EXPECT_DOUBLE_EQ(time_of(bmm), time_of(task("MatMul", {h({8, 128, 64}), h({8, 64, 256})}, {h({8, 128, 256})})));
  // The data gradient of a stride-1 3x3 conv is a stride-1 3x3 conv of dy.
  auto conv_in = kConv3x3;
  conv_in["input_size"] = {28, 28};
  const auto dx = task("Conv2DBackpropInput", {h({16, 64, 28, 28}), h({64, 32, 3, 3})}, {h({16, 32, 28, 28})}, conv_in);
  EXPECT_DOUBLE_EQ(time_of(dx), time_of(task("Conv", {h({16, 64, 28, 28}), h({32, 64, 3, 3})}, {h({16, 32, 28, 28})}, kConv3x3)));
  // The weight gradient of a 1x1 conv, its batch in one share (batch_dim
  // 1), is dy^T x x over the batch's positions; a grouped one is one such
  // product per group.
  const nlohmann::json one = {{"kernel_shape", {1, 1}}, {"strides", {1, 1}}, {"pads", {0, 0, 0, 0}}, {"dilations", {1, 1}}, {"group", 1}};
  auto as_matmul = [](const OpTask& matmul) {
    const auto mm = op_model(soc(), matmul)->space().default_config;
    return [mm](const sdk::TuningSpace&, sdk::Config& c) {
      c = mm;
      c.insert(c.begin() + 1, 1);
    };
  };
  const auto mm = task("MatMul", {h({128, 16 * 14 * 14}), h({16 * 14 * 14, 256})}, {f({128, 256})});
  const auto dw = task("Conv2DBackpropFilter", {h({16, 256, 14, 14}), h({16, 128, 14, 14})}, {f({128, 256, 1, 1})}, one);
  EXPECT_DOUBLE_EQ(time_of(dw, as_matmul(mm)), time_of(mm));
  auto grouped = one;
  grouped["group"] = 4;
  const auto mm4 = task("MatMul", {h({4, 32, 16 * 14 * 14}), h({4, 16 * 14 * 14, 64})}, {f({4, 32, 64})});
  const auto dw4 = task("Conv2DBackpropFilter", {h({16, 256, 14, 14}), h({16, 128, 14, 14})}, {f({128, 64, 1, 1})}, grouped);
  EXPECT_DOUBLE_EQ(time_of(dw4, as_matmul(mm4)), time_of(mm4));
}

// CANN's weight gradient splits the batch over its blocks [docs: ResNet-50's
// profile]: on 30 cores a batch of 32 runs 16 blocks of two images, a
// strided conv's and FusedDbnDw's 32 of one (two waves); a batch smaller than
// the cores leaves the rest to the output tiles.
TEST(TrainingModels, AWeightGradientSplitsTheBatchOverItsBlocks) {
  ASSERT_EQ(soc().ai_cores, 30);
  const nlohmann::json one = {{"kernel_shape", {1, 1}}, {"strides", {1, 1}}, {"pads", {0, 0, 0, 0}}, {"dilations", {1, 1}}, {"group", 1}};
  auto strided = kConv3x3;
  strided["strides"] = {2, 2};
  auto blocks = [](const WeightGradientModel& m) { return m.space().default_config[WeightGradientModel::kBlockDim]; };
  const auto dw = task("Conv2DBackpropFilter", {h({32, 256, 14, 14}), h({32, 128, 14, 14})}, {f({128, 256, 1, 1})}, one);
  EXPECT_EQ(blocks(WeightGradientModel(soc(), dw)), 16);
  EXPECT_EQ(blocks(WeightGradientModel(soc(), dw, true)), 32);
  const auto s2 = task("Conv2DBackpropFilter", {h({32, 64, 28, 28}), h({32, 64, 14, 14})}, {f({64, 64, 3, 3})}, strided);
  EXPECT_EQ(blocks(WeightGradientModel(soc(), s2)), 32);
  const auto small = task("Conv2DBackpropFilter", {h({4, 256, 14, 14}), h({4, 128, 14, 14})}, {f({128, 256, 1, 1})}, one);
  EXPECT_EQ(blocks(WeightGradientModel(soc(), small)), 28);
  // Blocks beyond the cores wait a wave: 31 shares of two images take
  // longer than 30 of two, whose work per block is the same.
  const WeightGradientModel m(soc(), dw);
  auto c = m.space().default_config;
  c[WeightGradientModel::kBlockDim] = c[WeightGradientModel::kBatchDim] = 30;
  ASSERT_TRUE(m.check(c).ok()) << m.check(c).message;
  const double one_wave = m.time_us(c);
  c[WeightGradientModel::kBlockDim] = c[WeightGradientModel::kBatchDim] = 31;
  EXPECT_GT(m.time_us(c), one_wave * 1.5);
  // Blocks that are not whole multiples of the batch shares are refused.
  c[WeightGradientModel::kBlockDim] = 17;
  c[WeightGradientModel::kBatchDim] = 16;
  EXPECT_FALSE(m.check(c).ok());
}

// BNTrainingUpdateGrad splits N x H x W over every core, adding per-channel
// partials atomically, however many channels it keeps; a plain reduction
// keeping as many splits them instead.
TEST(TrainingModels, BnStatisticsGradientsSplitTheBatchOverEveryCore) {
  const auto stat = f({512});
  const auto map = h({32, 512, 14, 14});
  const auto grad = op_model(soc(), task("BNTrainingUpdateGrad", {map, map, stat, stat}, {stat, stat}));
  const auto& space = grad->space();
  EXPECT_EQ(space.default_config[knob_index(space, "block_dim")], 30);
  EXPECT_EQ(space.describe(space.default_config).at("split_axis"), "reduce");
  const auto sum = op_model(soc(), task("ReduceSum", {map}, {stat}, {{"axes", {0, 2, 3}}, {"keepdims", 0}}));
  EXPECT_EQ(sum->space().describe(sum->space().default_config).at("split_axis"), "non_reduce");
}

// Batch norm's kernels cast float16 maps to float32 and compute there, each
// per-channel operand broadcast over the tile first (TBE's sources): the
// passes run at fp32's 64 lanes, a cast more per map and one for a float16
// output, so on a large map each takes at least those passes' vector time;
// an op fused after them runs on the float16 result.
TEST(TrainingModels, BatchNormKernelsComputeFloat16MapsInFloat32) {
  const auto stat = f({256});
  const std::vector<int64_t> shape{32, 256, 56, 56};
  auto update = [&](DType t) { return task("BNTrainingUpdate", {tensor(shape, t), stat, stat, stat, stat}, {tensor(shape, t), stat, stat}); };
  auto data_grad = [&](DType t) {
    return task("BNTrainingReduceGrad", {tensor(shape, t), tensor(shape, t), stat, stat, stat, stat, stat}, {tensor(shape, t)});
  };
  auto stats_grad = [&](DType t) { return task("BNTrainingUpdateGrad", {tensor(shape, t), tensor(shape, t), stat, stat}, {stat, stat}); };

  // The update's x * a + b and its two broadcasts; the data gradient's four
  // ops and three broadcasts; the casts where the maps are float16.
  EXPECT_EQ(training_vector_problem(update(f32), soc()).simple_passes, 4);
  EXPECT_EQ(training_vector_problem(update(f16), soc()).simple_passes, 4 + 2);
  EXPECT_EQ(training_vector_problem(data_grad(f16), soc()).simple_passes, 7 + 3);
  EXPECT_EQ(training_vector_problem(data_grad(f16), soc()).bytes, 4);
  // The ReLU fused after the update works on the float16 result it writes.
  auto relu = [&](DType t) {
    auto task = update(t);
    task.fused_ops = {"Relu"};
    return training_vector_problem(task, soc());
  };
  EXPECT_EQ(relu(f16).simple_passes, 6);
  EXPECT_EQ(relu(f16).output_passes, 1);
  EXPECT_EQ(relu(f32).simple_passes, 5);
  EXPECT_EQ(relu(f32).output_passes, 0);
  // The statistics' gradient: 2.5 passes per element of dy and x stacked, a
  // cast more for float16, then the sum, all in float32.
  const auto half = training_reduce_problem(stats_grad(f16), soc());
  EXPECT_DOUBLE_EQ(half.map_passes, 3.5);
  EXPECT_EQ(half.vector_bytes(), 4);
  EXPECT_EQ(half.bytes, 2);
  EXPECT_DOUBLE_EQ(training_reduce_problem(stats_grad(f32), soc()).map_passes, 2.5);

  const double elements = 32.0 * 256 * 56 * 56;
  auto floor_us = [&](double passes) {
    return passes * elements / (soc().vector_bytes_per_cycle / 4) / soc().ai_cores / soc().cycles_per_us();
  };
  EXPECT_GT(time_of(update(f16)), floor_us(6));
  EXPECT_GT(time_of(data_grad(f16)), floor_us(10));
  EXPECT_GT(time_of(stats_grad(f16)), floor_us(2 * (3.5 + 1)));
}

// FusedDbnDw launches its blocks once: the kernel costs its parts less the
// vector pass's launch, its blocks' included.
TEST(TrainingModels, FusedDbnDwLaunchesItsBlocksOnce) {
  const auto stat = f({64});
  const auto dz = h({32, 64, 28, 28}), x = h({32, 128, 28, 28});
  const nlohmann::json one = {{"kernel_shape", {1, 1}}, {"strides", {1, 1}}, {"pads", {0, 0, 0, 0}}, {"dilations", {1, 1}}, {"group", 1}};
  const auto fused = op_model(soc(), task("BNTrainingReduceGrad", {dz, dz, stat, stat, stat, stat, stat, x},
                                          {dz, f({64, 128, 1, 1})}, {{"fused_attrs", {one}}}, {"Conv2DBackpropFilter"}));
  const auto& space = fused->space();
  const auto& c = space.default_config;
  EXPECT_EQ(c[knob_index(space, "block_dim")], 32);  // a block per image
  const int64_t dbn_blocks = c[knob_index(space, "dbn_block_dim")];
  // The same config without the fused launch saving: each part's time.
  const auto dw = op_model(soc(), task("Conv2DBackpropFilter", {x, dz}, {f({64, 128, 1, 1})}, one));
  EXPECT_GT(fused->time_us(c), soc().launch_us_for(32));
  double parts = 0;
  sdk::Config dw_config(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(dw->space().knobs.size()));
  parts += WeightGradientModel(soc(), [&] {
             auto t = task("Conv2DBackpropFilter", {x, dz}, {f({64, 128, 1, 1})}, one);
             t.attrs["on_chip_inputs"] = {1};
             return t;
           }(), true).time_us(dw_config);
  const auto dbn = op_model(soc(), task("BNTrainingReduceGrad", {dz, dz, stat, stat, stat, stat, stat}, {dz}));
  sdk::Config dbn_config(c.begin() + static_cast<std::ptrdiff_t>(dw->space().knobs.size()), c.end());
  parts += dbn->time_us(dbn_config);
  EXPECT_NEAR(fused->time_us(c), parts - soc().launch_us_for(dbn_blocks), 1e-9);
}

// A fused kernel and its parts run apart, each part a task of its own.
struct Fusion {
  std::string name;
  OpTask fused;
  std::vector<OpTask> parts;
};

std::vector<Fusion> fusions() {
  const int64_t n = 32, c = 64;
  const auto map = h({n, c, 56, 56});
  const auto stat = f({c});
  auto conv_in = kConv3x3;
  conv_in["input_size"] = {56, 56};
  const auto dy = h({n, c, 56, 56}), w = h({c, c, 3, 3});
  const auto rows = h({4096, 3072}), lhs = h({4096, 768}), rhs = h({768, 3072}), bias = h({3072});
  const auto param = f({1024, 1024});
  std::vector<Fusion> out;
  out.push_back({"Conv + BNTrainingReduce",
                 task("Conv", {map, w}, {map, stat, stat}, kConv3x3, {"BNTrainingReduce"}),
                 {task("Conv", {map, w}, {map}, kConv3x3), task("BNTrainingReduce", {map}, {stat, stat})}});
  const auto update = task("BNTrainingUpdate", {map, stat, stat, stat, stat}, {map, stat, stat});
  auto with = [](OpTask t, std::vector<std::string> fused, std::vector<TensorDesc> extra) {
    t.fused_ops = std::move(fused);
    for (auto& e : extra) t.inputs.push_back(e);
    return t;
  };
  out.push_back({"BNTrainingUpdate + Relu", with(update, {"Relu"}, {}), {update, task("Relu", {map}, {map})}});
  out.push_back({"BNTrainingUpdate + Add + Relu",
                 with(update, {"Add", "Relu"}, {map}),
                 {update, task("Add", {map, map}, {map}), task("Relu", {map}, {map})}});
  const auto data_grad = task("Conv2DBackpropInput", {dy, w}, {map}, conv_in);
  out.push_back({"Conv2DBackpropInput + ReluGradV2",
                 with(data_grad, {"ReluGradV2"}, {map}),
                 {data_grad, task("ReluGradV2", {map, map}, {map})}});
  out.push_back({"Conv2DBackpropInput + AddN + ReluGradV2",
                 with(data_grad, {"AddN", "ReluGradV2"}, {map, map}),
                 {data_grad, task("AddN", {map, map}, {map}), task("ReluGradV2", {map, map}, {map})}});
  const auto mm = task("MatMul", {lhs, rhs}, {rows});
  out.push_back({"MatMul + Add + Gelu",
                 with(mm, {"Add", "Gelu"}, {bias}),
                 {mm, task("Add", {rows, bias}, {rows}), task("Gelu", {rows}, {rows})}});
  const auto bmm = task("BatchMatMul", {lhs, rhs}, {rows}, {{"adj_x1", 0}, {"adj_x2", 0}});
  out.push_back({"BatchMatMul + GeLUGrad", with(bmm, {"GeLUGrad"}, {rows}), {bmm, task("GeLUGrad", {rows, rows}, {rows})}});
  const auto unscale = task("Mul", {param, f({1})}, {param});
  out.push_back({"Mul + ApplyMomentum",
                 task("Mul", {param, f({1}), param, param}, {param, param}, {{"lr", 0.1}, {"momentum", 0.9}}, {"ApplyMomentum"}),
                 {unscale, task("ApplyMomentum", {param, param, param}, {param, param}, {{"lr", 0.1}, {"momentum", 0.9}})}});
  // FusedDbnDw launches a block per image: a batch the cores run in one
  // wave (30 on ascend910_30c; 32 runs two there, where the weight gradient
  // apart runs 16 blocks of two images and can win).
  const auto x = h({30, 128, 56, 56}), dz = h({30, c, 56, 56});
  const auto dbn = task("BNTrainingReduceGrad", {dz, dz, stat, stat, stat, stat, stat}, {dz});
  out.push_back({"BNTrainingReduceGrad + Conv2DBackpropFilter",
                 task("BNTrainingReduceGrad", {dz, dz, stat, stat, stat, stat, stat, x}, {dz, f({c, 128, 1, 1})},
                      {{"fused_attrs",
                        {{{"kernel_shape", {1, 1}}, {"strides", {1, 1}}, {"pads", {0, 0, 0, 0}}, {"dilations", {1, 1}}, {"group", 1}}}}},
                      {"Conv2DBackpropFilter"}),
                 {dbn, task("Conv2DBackpropFilter", {x, dz}, {f({c, 128, 1, 1})},
                            {{"kernel_shape", {1, 1}}, {"strides", {1, 1}}, {"pads", {0, 0, 0, 0}}, {"dilations", {1, 1}}, {"group", 1}})}});
  return out;
}

TEST(TrainingModels, EachFusedKernelCostsLessThanItsPartsApart) {
  for (const auto& fusion : fusions()) {
    SCOPED_TRACE(fusion.name);
    double apart = 0;
    for (const auto& part : fusion.parts) apart += time_of(part);
    EXPECT_LT(time_of(fusion.fused), apart);
  }
}

TEST(TrainingModels, TheDeviceListsTheFollowersOfTheStepsFusions) {
  SimDevice device(soc(), {});
  const auto listed = device.describe()["fused_op_types"].get<std::vector<std::string>>();
  for (const char* op : {"BNTrainingReduce", "Relu", "Add", "AddN", "ReluGradV2", "Gelu", "GeLUGrad", "ApplyMomentum",
                         "Conv2DBackpropFilter"})
    EXPECT_NE(std::find(listed.begin(), listed.end(), op), listed.end()) << op;
}

void expect_refused(const OpTask& t, const std::string& tensor_name) {
  try {
    op_model(soc(), t);
    ADD_FAILURE() << t.op_type << " accepted a hostile task";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), sdk::StatusCode::invalid_argument) << e.what();
    const std::string what = e.what();
    EXPECT_NE(what.find(t.op_type), std::string::npos) << what;
    EXPECT_NE(what.find(tensor_name), std::string::npos) << what;
  }
}

// FusedDbnDw reads its conv's attributes where fusion keeps a follower's
// (fused_attrs), so a strided 3x3 conv's weight gradient is its own.
TEST(TrainingModels, FusedDbnDwTakesItsConvFromTheFollowersAttributes) {
  const auto dx = h({8, 64, 28, 28}), stat = f({64}), x = h({8, 32, 56, 56});
  auto strided = kConv3x3;
  strided["strides"] = {2, 2};
  const auto fused = task("BNTrainingReduceGrad", {dx, dx, stat, stat, stat, stat, stat, x}, {dx, f({64, 32, 3, 3})},
                          {{"fused_attrs", {strided}}}, {"Conv2DBackpropFilter"});
  const auto alone = task("Conv2DBackpropFilter", {x, dx}, {f({64, 32, 3, 3})}, strided);
  EXPECT_GT(time_of(fused), time_of(alone));
  expect_refused(task("BNTrainingReduceGrad", {dx, dx, stat, stat, stat, stat, stat, x}, {}, nlohmann::json::object(),
                      {"Conv2DBackpropFilter"}),
                 "fused_attrs");
}

TEST(TrainingModels, HostileTasksAreRefusedNamingTheOpAndTheTensor) {
  const auto map = h({8, 64, 28, 28});
  const auto stat = f({64});
  auto conv_in = kConv3x3;
  conv_in["input_size"] = {28, 28};
  expect_refused(task("Conv2DBackpropInput", {h({64, 28, 28}), h({64, 32, 3, 3})}, {}, conv_in), "dy");
  expect_refused(task("Conv2DBackpropInput", {map, h({32, 32, 3, 3})}, {}, conv_in), "w");
  expect_refused(task("Conv2DBackpropFilter", {h({8, 32, 28, 28}), map}, {f({64, 16, 3, 3})}, kConv3x3), "dw");
  expect_refused(task("Conv2DBackpropFilter", {h({8, 32, 28, 28}), h({8, 64, 14, 14})}, {}, kConv3x3), "dy");
  expect_refused(task("BatchMatMul", {h({4, 128, 64}), h({4, 32, 128})}, {}), "op(a)");
  expect_refused(task("BatchMatMul", {h({128}), h({128, 64})}, {}), "a");
  expect_refused(task("BNTrainingUpdate", {map, stat, stat, f({32}), stat}, {}), "scale");
  expect_refused(task("BNTrainingReduce", {h({8, 64})}, {}), "x");
  expect_refused(task("BNTrainingUpdateGrad", {map, h({8, 64, 14, 14}), stat, stat}, {}), "x");
  expect_refused(task("ReluGradV2", {map, h({8, 32, 28, 28})}, {}), "y");
  expect_refused(task("ApplyMomentum", {f({10, 10}), f({10, 10})}, {}), "grad");
  expect_refused(task("LambApplyWeightAssign", {f({2}), f({1}), f({4, 4}), f({4, 4})}, {}), "w_square_sum");
  expect_refused(task("SoftmaxGradExt", {h({8, 128}), h({8, 64})}, {}), "y");
  expect_refused(task("LayerNormXBackpropV2", {h({8, 768}), h({8, 768}), f({8, 1}), f({8, 1}), f({512})}, {}), "gamma");
  expect_refused(task("LayerNormBetaGammaBackpropV2", {h({8, 768}), h({8, 768}), f({4, 1}), f({8, 1})}, {}), "mean");
  expect_refused(task("MaxPoolGradWithArgmax", {h({8, 64, 112, 112}), h({8, 64, 28, 28})},
                      {}, {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}),
                 "dy");
  expect_refused(task("GlobalAveragePoolGrad", {h({8, 64, 7, 7})}, {}, {{"input_size", {7, 7}}}), "dy");
  expect_refused(task("ResizeNearestNeighborV2Grad", {h({64, 80, 80})}, {}, {{"input_size", {40, 40}}}), "dy");
  expect_refused(task("ResizeBilinearV2Grad", {h({8, 24, 80, 80})}, {}, {{"input_size", {40}}}), "input_size");
  expect_refused(task("SquareSumV1", {h({})}, {}), "t");
  expect_refused(task("BNTrainingReduceGrad", {map, map, stat, stat, stat, stat, stat}, {}, kConv3x3, {"Conv2DBackpropFilter"}),
                 "x");
}

// ONNX's Momentum, Adam and Adagrad (ai.onnx.preview.training) run CANN's
// update kernel per weight, in one launch: two weights take longer than
// one, less than the two apart; Nesterov's look-ahead and weight decay add
// work; inputs not in whole groups per weight are refused.
TEST(TrainingModels, OnnxOptimizersUpdateEachWeightAsCannsKernel) {
  const auto r = f({}), t = tensor({}, DType::i64);
  const auto w = f({512, 512}), b = f({512});
  for (const std::string op : {"Momentum", "Adam", "Adagrad"}) {
    const size_t group = op == "Adam" ? 4 : 3;
    std::vector<TensorDesc> one{r, t}, two{r, t}, outs_one, outs_two;
    for (size_t i = 0; i < group; ++i) {
      one.push_back(w);
      two.push_back(w), two.push_back(b);
      if (i != 1) outs_one.push_back(w), outs_two.push_back(w), outs_two.push_back(b);
    }
    const double single = time_of(task(op, one, outs_one));
    const auto pair = op_model(soc(), task(op, two, outs_two));
    EXPECT_NE(knob_index(pair->space(), "w1_block_dim"), pair->space().knobs.size()) << op;
    const double both = pair->time_us(pair->space().default_config);
    std::vector<TensorDesc> bias{r, t}, outs_bias;
    for (size_t i = 0; i < group; ++i) {
      bias.push_back(b);
      if (i != 1) outs_bias.push_back(b);
    }
    EXPECT_GT(both, single) << op;
    EXPECT_LT(both, single + time_of(task(op, bias, outs_bias))) << op;  // one launch, not two
    EXPECT_GT(time_of(task(op, one, outs_one, {{"norm_coefficient", 0.01}})), single) << op;
  }
  const auto v = f({512, 512});
  EXPECT_GT(time_of(task("Momentum", {r, t, w, w, v}, {w, v}, {{"mode", "nesterov"}})),
            time_of(task("Momentum", {r, t, w, w, v}, {w, v}, {{"mode", "standard"}})));
  expect_refused(task("Momentum", {r, t, w, w}, {}), "R, T and 3 tensors per weight");
  expect_refused(task("Adam", {r, t, w, w, f({512, 256}), w}, {}), "V of weight 0");
  expect_refused(task("Momentum", {r, t, w, w, v}, {}, {{"mode", "heavy"}}), "mode 'heavy'");
}

TEST(TrainingModels, AFollowerTheKernelDoesNotFuseIsUnsupported) {
  const auto map = h({8, 64, 28, 28});
  const auto stat = f({64});
  try {
    op_model(soc(), task("BNTrainingUpdate", {map, stat, stat, stat, stat}, {}, {}, {"Sigmoid"}));
    ADD_FAILURE() << "a BNTrainingUpdate with a Sigmoid fused was modelled";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), sdk::StatusCode::unsupported) << e.what();
    EXPECT_NE(std::string(e.what()).find("Sigmoid"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace aoe::sim
