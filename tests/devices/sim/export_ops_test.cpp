// The ops real exports carry besides convs and matmuls: ConvTranspose (as
// the Conv over the dilated input), standalone BatchNormalization, and the
// data movers (Concat, Split, Slice, Pad, Gather, Resize). Each has a
// default that fits and a time; bad shapes and axes are refused naming the op.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "aoe/sdk/error.h"
#include "conv_model.h"
#include "conv_transpose.h"
#include "data_move_model.h"
#include "topk_model.h"
#include "op_tasks.h"
#include "quantized_ops.h"
#include "soc_files.h"
#include "spectral_ops.h"

namespace aoe::sim {
namespace {

using test::tensor;

const Soc& soc() { return ascend910(); }

sdk::OpTask op(std::string type, std::vector<sdk::TensorDesc> inputs, std::vector<sdk::TensorDesc> outputs,
               nlohmann::json attrs = nlohmann::json::object()) {
  sdk::OpTask t;
  t.name = "node7";
  t.op_type = std::move(type);
  t.inputs = std::move(inputs);
  t.outputs = std::move(outputs);
  t.attrs = std::move(attrs);
  return t;
}

// The message of the sdk::Error `f` throws, and that it has `code`.
template <typename F>
std::string refusal(F f, sdk::StatusCode code) {
  try {
    f();
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

double default_time(const sdk::OpTask& task) {
  const auto model = op_model(soc(), task);
  EXPECT_TRUE(model->check(model->space().default_config).ok());
  const double t = model->time_us(model->space().default_config);
  EXPECT_GE(t, model->roofline_us());
  return t;
}

TEST(ExportOps, ConvTransposeRunsAsTheConvOverItsDilatedInput) {
  // 2x2 stride 2, as DB heads upsample: 40x40 -> 80x80.
  const auto task = op("ConvTranspose", {tensor({1, 18, 40, 40}), tensor({18, 18, 2, 2}, sdk::DType::f16, true)},
                       {tensor({1, 18, 80, 80})}, {{"strides", {2, 2}}, {"kernel_shape", {2, 2}}});
  const auto conv = conv_transpose_as_conv(task, soc());
  EXPECT_EQ(conv.op_type, "Conv");
  EXPECT_EQ(conv.inputs[0].shape, (std::vector<int64_t>{1, 18, 79, 79}));
  EXPECT_EQ(conv.attrs["pads"], nlohmann::json({1, 1, 1, 1}));
  const auto p = conv_problem(conv, soc());
  EXPECT_EQ(p.ho, 80);
  EXPECT_EQ(p.wo, 80);
  EXPECT_EQ(p.cout, 18);
  // Tuned like a Conv: the same knobs.
  EXPECT_GT(op_model(soc(), task)->space().knobs.size(), 5u);
  EXPECT_GT(default_time(task), 0);
  // output_padding and grouped weights: [C, M/G, k, k].
  const auto grouped = op("ConvTranspose", {tensor({1, 8, 5, 5}), tensor({8, 2, 3, 3}, sdk::DType::f16, true)},
                          {tensor({1, 8, 10, 10})},
                          {{"strides", {2, 2}}, {"group", 4}, {"pads", {1, 1, 1, 1}}, {"output_padding", {1, 1}}});
  EXPECT_EQ(conv_problem(conv_transpose_as_conv(grouped, soc()), soc()).ho, 10);
  // output_shape one past what no pads give: ONNX's floored split extends the end.
  const auto shaped = op("ConvTranspose", {tensor({1, 1, 3, 3}), tensor({1, 2, 3, 3}, sdk::DType::f16, true)},
                         {tensor({1, 2, 10, 8})}, {{"strides", {3, 2}}, {"output_shape", {10, 8}}});
  const auto p2 = conv_problem(conv_transpose_as_conv(shaped, soc()), soc());
  EXPECT_EQ(p2.ho, 10);
  EXPECT_EQ(p2.wo, 8);
  // A 1-D one, as a vocoder upsamples: the 2-D one of height 1, output_padding and pads along the width.
  const auto wave = op("ConvTranspose", {tensor({1, 64, 100}), tensor({64, 32, 16}, sdk::DType::f16, true)},
                       {tensor({1, 32, 801})}, {{"strides", {8}}, {"pads", {4, 4}}, {"output_padding", {1}}});
  const auto p3 = conv_problem(conv_transpose_as_conv(wave, soc()), soc());
  EXPECT_EQ(p3.h, 1);
  EXPECT_EQ(p3.ho, 1);
  EXPECT_EQ(p3.wo, (100 - 1) * 8 + 16 - 8 + 1);
  EXPECT_GT(default_time(wave), 0);
  // A 3-D one, as a 3-D U-Net's decoder upsamples: the 3-D Conv over the
  // input dilated along depth, rows and columns.
  const auto volume = op("ConvTranspose", {tensor({1, 32, 8, 16, 16}), tensor({32, 16, 2, 2, 2}, sdk::DType::f16, true)},
                         {tensor({1, 16, 16, 32, 32})}, {{"strides", {2, 2, 2}}});
  const auto conv3 = conv_transpose_as_conv(volume, soc());
  EXPECT_EQ(conv3.inputs[0].shape, (std::vector<int64_t>{1, 32, 15, 31, 31}));
  EXPECT_EQ(conv3.inputs[1].shape, (std::vector<int64_t>{16, 32, 2, 2, 2}));
  EXPECT_EQ(conv3.attrs["pads"], nlohmann::json({1, 1, 1, 1, 1, 1}));
  const auto p4 = conv_problem(conv3, soc());
  EXPECT_EQ(p4.n, 16);  // N x Do images
  EXPECT_EQ(p4.ho, 32);
  EXPECT_GT(default_time(volume), default_time(op("ConvTranspose", {tensor({1, 32, 16, 16}), tensor({32, 16, 2, 2}, sdk::DType::f16, true)},
                                                  {tensor({1, 16, 32, 32})}, {{"strides", {2, 2}}})));
}

TEST(ExportOps, ConvTransposeRefusesWhatDisagrees) {
  auto bad_output = op("ConvTranspose", {tensor({1, 4, 8, 8}), tensor({4, 4, 2, 2})}, {tensor({1, 4, 15, 16})},
                       {{"strides", {2, 2}}});
  EXPECT_NE(refusal([&] { conv_transpose_as_conv(bad_output, soc()); }, sdk::StatusCode::invalid_argument)
                .find("ConvTranspose 'node7': output dim 2 is 15, its attributes give 16"),
            std::string::npos);
  auto bad_stride = op("ConvTranspose", {tensor({1, 4, 8, 8}), tensor({4, 4, 2, 2})}, {}, {{"strides", {0, 2}}});
  EXPECT_NE(refusal([&] { conv_transpose_as_conv(bad_stride, soc()); }, sdk::StatusCode::invalid_argument).find("ConvTranspose 'node7'"),
            std::string::npos);
  auto two_strides = op("ConvTranspose", {tensor({1, 4, 8, 8, 8}), tensor({4, 4, 2, 2, 2})}, {}, {{"strides", {2, 2}}});
  EXPECT_NE(refusal([&] { conv_transpose_as_conv(two_strides, soc()); }, sdk::StatusCode::invalid_argument)
                .find("a 3-D ConvTranspose takes 3 kernel dims"),
            std::string::npos);
  auto mixed = op("ConvTranspose", {tensor({1, 4, 8, 8, 8}), tensor({4, 4, 2, 2})}, {});
  refusal([&] { conv_transpose_as_conv(mixed, soc()); }, sdk::StatusCode::unsupported);
  auto huge = op("ConvTranspose", {tensor({1, 4, int64_t{1} << 40, 8}), tensor({4, 4, 2, 2})}, {}, {{"strides", {65536, 2}}});
  EXPECT_NE(refusal([&] { conv_transpose_as_conv(huge, soc()); }, sdk::StatusCode::invalid_argument).find("overflows"),
            std::string::npos);
}

TEST(ExportOps, StandaloneBatchNormalizationIsTimedAsAnElementwiseKernel) {
  const auto c = tensor({72}, sdk::DType::f16, true);
  const auto bn = op("BatchNormalization", {tensor({1, 72, 40, 40}), c, c, c, c}, {tensor({1, 72, 40, 40})});
  const double t = default_time(bn);
  // Twice the map costs more.
  EXPECT_GT(default_time(op("BatchNormalization", {tensor({2, 72, 40, 40}), c, c, c, c}, {tensor({2, 72, 40, 40})})), t);
  EXPECT_NE(refusal([&] { op_model(soc(), op("BatchNormalization", {tensor({1, 72, 4, 4}), c, c, c, tensor({8})}, {})); },
                    sdk::StatusCode::invalid_argument)
                .find("BatchNormalization 'node7': input 4"),
            std::string::npos);
}

// LSTM, GRU and RNN walk their sequence in one kernel: each step's product
// of [x_t, h] and the stacked weights on the cube, then the gates. Twice
// the steps take about twice the time; the step product's tiling is the
// space; the row normalisations of channels and groups, and Hardmax, are
// timed as row kernels.
TEST(ExportOps, RecurrentCellsWalkTheirSequenceStepByStep) {
  const auto lstm = [](int64_t seq, int64_t dirs, std::string layout_op = "LSTM") {
    const int64_t gates = layout_op == "LSTM" ? 4 : layout_op == "GRU" ? 3 : 1;
    return op(layout_op,
              {tensor({seq, 1, 64}), tensor({dirs, gates * 128, 64}, sdk::DType::f16, true),
               tensor({dirs, gates * 128, 128}, sdk::DType::f16, true)},
              {tensor({seq, dirs, 1, 128})}, {{"hidden_size", 128}});
  };
  const double t50 = default_time(lstm(50, 1)), t100 = default_time(lstm(100, 1));
  EXPECT_NEAR(t100 / t50, 2.0, 0.1);
  EXPECT_NEAR(default_time(lstm(50, 2)) / t50, 2.0, 0.1);  // both directions, one after the other
  EXPECT_LT(default_time(lstm(50, 1, "GRU")), t50);          // three gates, not four
  EXPECT_LT(default_time(lstm(50, 1, "RNN")), default_time(lstm(50, 1, "GRU")));
  const auto model = op_model(soc(), lstm(50, 1));
  EXPECT_EQ(model->space().knobs[0].name, "block_dim");
  EXPECT_EQ(model->space().knobs[1].name, "m_l0");
  // A config the step's product cannot hold is refused as the MatMul refuses it.
  auto big = model->space().default_config;
  big[1] = model->space().knobs[1].values.back();
  big[2] = model->space().knobs[2].values.back();
  big[3] = model->space().knobs[3].values.back();
  EXPECT_FALSE(model->check(big).ok());
  // W that disagrees with R is named.
  auto bad = lstm(50, 1);
  bad.inputs[2] = tensor({1, 512, 64}, sdk::DType::f16, true);
  EXPECT_NE(refusal([&] { op_model(soc(), bad); }, sdk::StatusCode::invalid_argument).find("LSTM 'node7'"), std::string::npos);

  const auto c = tensor({64}, sdk::DType::f16, true);
  const double instance = default_time(op("InstanceNormalization", {tensor({2, 64, 32, 32}), c, c}, {tensor({2, 64, 32, 32})}));
  const double group = default_time(
      op("GroupNormalization", {tensor({2, 64, 32, 32}), c, c}, {tensor({2, 64, 32, 32})}, {{"num_groups", 8}}));
  EXPECT_GT(instance, 0);
  EXPECT_GT(group, 0);
  EXPECT_NE(refusal([&] { op_model(soc(), op("GroupNormalization", {tensor({2, 64, 4, 4}), c, c}, {}, {{"num_groups", 5}})); },
                    sdk::StatusCode::invalid_argument)
                .find("num_groups"),
            std::string::npos);
  const double hardmax = default_time(op("Hardmax", {tensor({64, 1000})}, {tensor({64, 1000})}));
  EXPECT_LT(hardmax, default_time(op("Softmax", {tensor({64, 1000})}, {tensor({64, 1000})})));  // no exp, one reduce
}

// The losses over classes are rows of them: a log-softmax and a pick, or a
// pick alone from log-probabilities; log_prob, where asked for, writes the rows back.
TEST(ExportOps, LossesAreRowsOfClasses) {
  const auto scores = tensor({32, 1000}, sdk::DType::f32), labels = tensor({32}, sdk::DType::i64);
  const auto loss = tensor({}, sdk::DType::f32);
  const double nll = default_time(op("NegativeLogLikelihoodLoss", {scores, labels}, {loss}));
  const double sce = default_time(op("SoftmaxCrossEntropyLoss", {scores, labels}, {loss}));
  const double with_log_prob = default_time(op("SoftmaxCrossEntropyLoss", {scores, labels}, {loss, scores}));
  EXPECT_LT(nll, sce);
  EXPECT_LT(sce, with_log_prob);
  // Per position of a segmentation map: rows across the classes' axis.
  EXPECT_GT(default_time(op("SoftmaxCrossEntropyLoss", {tensor({2, 21, 64, 64}, sdk::DType::f32), tensor({2, 64, 64}, sdk::DType::i64)},
                            {loss})),
            0);
  EXPECT_NE(refusal([&] { op_model(soc(), op("NegativeLogLikelihoodLoss", {tensor({8}), labels}, {loss})); },
                    sdk::StatusCode::invalid_argument)
                .find("N x C"),
            std::string::npos);
}

TEST(ExportOps, DataMoversHaveATunableSplitAndATime) {
  const std::vector<sdk::OpTask> tasks = {
      op("Concat", {tensor({1, 24, 40, 40}), tensor({1, 24, 40, 40}), tensor({1, 24, 40, 40})}, {tensor({1, 72, 40, 40})},
         {{"axis", 1}}),
      op("Split", {tensor({1, 32, 24, 96})}, {tensor({1, 16, 24, 96}), tensor({1, 16, 24, 96})}, {{"axis", 1}}),
      op("Slice", {tensor({1, 32, 24, 96})}, {tensor({1, 32, 24, 48})}),
      op("Pad", {tensor({1, 32, 24, 96})}, {tensor({1, 32, 26, 98})}, {{"mode", "reflect"}}),
      op("Gather", {tensor({30522, 768}), tensor({128}, sdk::DType::i64)}, {tensor({128, 768})}),
      op("Resize", {tensor({1, 24, 20, 20}), tensor({4}, sdk::DType::f32, true)}, {tensor({1, 24, 40, 40})}),
      op("Resize", {tensor({1, 24, 20, 20}), tensor({4}, sdk::DType::f32, true)}, {tensor({1, 24, 40, 40})},
         {{"mode", "linear"}}),
  };
  std::vector<double> times;
  for (const auto& t : tasks) {
    SCOPED_TRACE(t.op_type);
    const auto model = op_model(soc(), t);
    EXPECT_EQ(model->space().knobs[DataMoveModel::kBlockDim].name, "block_dim");
    times.push_back(default_time(t));
    // One core is slower than the default's spread.
    auto one = model->space().default_config;
    one[DataMoveModel::kBlockDim] = 1;
    if (model->check(one).ok() && model->space().default_config[DataMoveModel::kBlockDim] > 1)
      EXPECT_GT(model->time_us(one), times.back());
  }
  // Linear weighs more taps than nearest.
  EXPECT_GT(times[6], times[5]);
}

TEST(ExportOps, RepeatsBlockMovesAndElementGathersHaveATime) {
  const std::vector<sdk::OpTask> tasks = {
      op("Tile", {tensor({1, 24, 20, 20}), tensor({4}, sdk::DType::i64, true)}, {tensor({2, 24, 40, 20})}),
      op("Expand", {tensor({1, 24, 1, 20}), tensor({4}, sdk::DType::i64, true)}, {tensor({4, 24, 20, 20})}),
      op("DepthToSpace", {tensor({1, 64, 20, 20})}, {tensor({1, 16, 40, 40})}, {{"blocksize", 2}}),
      op("SpaceToDepth", {tensor({1, 16, 40, 40})}, {tensor({1, 64, 20, 20})}, {{"blocksize", 2}}),
      op("GatherElements", {tensor({64, 512}), tensor({64, 128}, sdk::DType::i64, true)}, {tensor({64, 128})}),
  };
  for (const auto& t : tasks) {
    SCOPED_TRACE(t.op_type);
    EXPECT_GT(default_time(t), 0);
  }
  // Reading every element on its own costs more than a gather of whole rows of as many.
  EXPECT_GT(default_time(tasks[4]),
            default_time(op("Gather", {tensor({512, 64}), tensor({128}, sdk::DType::i64)}, {tensor({128, 64})})));
  // GatherND of 128 pairs from a 16 x 512 x 64 map picks rows of 64, as a Gather of them moves them.
  const auto nd = data_move_problem(
      op("GatherND", {tensor({16, 512, 64}), tensor({128, 2}, sdk::DType::i64)}, {tensor({128, 64})}), soc());
  EXPECT_EQ(nd.out_elements, 128 * 64);
  EXPECT_EQ(nd.in_run, 64);
  EXPECT_GT(default_time(op("GatherND", {tensor({16, 512, 64}), tensor({128, 2}, sdk::DType::i64)}, {tensor({128, 64})})), 0);
  EXPECT_NE(refusal([&] { data_move_problem(op("GatherND", {tensor({16, 512}), tensor({128, 3}, sdk::DType::i64)}, {}), soc()); },
                    sdk::StatusCode::invalid_argument)
                .find("do not fit data"),
            std::string::npos);
  // A key-value cache written at one position: the cache copied, one row of 64 per head written over it.
  const auto cache = tensor({1, 12, 512, 64});
  const auto kv = op("ScatterND", {cache, tensor({1, 12, 1, 3}, sdk::DType::i64), tensor({1, 12, 1, 64})}, {cache});
  const auto p = data_move_problem(kv, soc());
  EXPECT_EQ(p.out_elements, 12 * 512 * 64 + 12 * 64);
  const double rows = default_time(kv);
  // The same updates element by element cost more bursts; an adding reduction reads what it updates.
  const auto idx = tensor({1, 12, 1, 64}, sdk::DType::i64);
  auto elements = op("ScatterElements", {cache, idx, tensor({1, 12, 1, 64})}, {cache}, {{"axis", 2}});
  EXPECT_LT(data_move_problem(elements, soc()).in_run, p.in_run);
  EXPECT_GE(default_time(elements), rows);
  elements.attrs["reduction"] = "add";
  EXPECT_GT(data_move_problem(elements, soc()).in_elements, data_move_problem(kv, soc()).in_elements);
  // ReverseSequence moves rows of the dims after batch and time; Compress writes the slices it keeps.
  const auto rev = data_move_problem(
      op("ReverseSequence", {tensor({50, 4, 256}), tensor({4}, sdk::DType::i64)}, {tensor({50, 4, 256})}), soc());
  EXPECT_EQ(rev.in_run, 256);
  EXPECT_EQ(rev.out_elements, 50 * 4 * 256);
  const auto kept = data_move_problem(
      op("Compress", {tensor({8, 100, 32}), tensor({100}, sdk::DType::boolean)}, {tensor({8, 10, 32})}, {{"axis", 1}}), soc());
  EXPECT_EQ(kept.out_elements, 8 * 10 * 32);
  EXPECT_EQ(kept.in_run, 32);
  EXPECT_NE(refusal([&] { data_move_problem(op("ScatterND", {cache, tensor({1, 12, 1, 3}, sdk::DType::i64), tensor({1, 12, 1, 32})}, {}), soc()); },
                    sdk::StatusCode::invalid_argument)
                .find("not one slice"),
            std::string::npos);
}

TEST(ExportOps, DataMoversRefuseBadAxesAndShapesNamingTheOp) {
  const auto x = tensor({1, 24, 40, 40});
  auto message = [&](const sdk::OpTask& t) {
    return refusal([&] { op_model(soc(), t); }, sdk::StatusCode::invalid_argument);
  };
  EXPECT_NE(message(op("Concat", {x, x}, {}, {{"axis", 4}})).find("Concat 'node7': axis 4 is out of range for rank 4"),
            std::string::npos);
  EXPECT_NE(message(op("Concat", {x, tensor({1, 24, 40, 41})}, {}, {{"axis", 1}})).find("disagrees"), std::string::npos);
  EXPECT_NE(message(op("Split", {x}, {tensor({1, 20, 40, 40})}, {{"axis", 1}})).find("Split 'node7': outputs take 20"),
            std::string::npos);
  EXPECT_NE(message(op("Gather", {x, tensor({3}, sdk::DType::i64)}, {}, {{"axis", -5}})).find("Gather 'node7'"),
            std::string::npos);
  EXPECT_NE(message(op("Slice", {x}, {})).find("Slice 'node7': needs its output's shape"), std::string::npos);
  EXPECT_NE(message(op("Pad", {x}, {tensor({1, 24, 42, 42})}, {{"mode", "mirror"}})).find("Pad 'node7': mode 'mirror'"),
            std::string::npos);
  const auto huge = tensor({int64_t{1} << 40, int64_t{1} << 40});
  EXPECT_NE(message(op("Concat", {huge, huge}, {}, {{"axis", 0}})).find("Concat 'node7': input 0, 1099511627776 x 1099511627776, holds more than 2^40 elements"),
            std::string::npos);
  EXPECT_EQ(refusal([&] { op_model(soc(), op("Resize", {x}, {tensor({1, 24, 80, 80})}, {{"mode", "area"}})); },
                    sdk::StatusCode::unsupported)
                .find("'area'") != std::string::npos,
            true);
}

// Cubic weighs 4 sources an axis where linear weighs 2: 16 taps of a 2-D
// resize against 4. Upsample (opsets 7 to 9) is the Resize it became, its
// `bilinear` the linear mode.
// TopK sorts proposals in groups of 16 and merges them four ways, lists cut
// to k: a detector's one row of candidates is cut over the cores, a
// classifier's many rows each go whole to one.
TEST(ExportOps, TopKSortsItsRowsOnTheVectorUnit) {
  const auto topk = [](std::vector<int64_t> in, int64_t k, int64_t axis = -1) {
    auto out = in;
    out[static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(in.size()) : axis)] = k;
    return op("TopK", {tensor(in, sdk::DType::f32), tensor({1}, sdk::DType::i64, true)},
              {tensor(out, sdk::DType::f32), tensor(out, sdk::DType::i64)}, {{"axis", axis}});
  };
  // One row of 27000 candidates, as SSD's pre-NMS selection.
  const auto one_row = topk({1, 27000}, 200);
  const auto model = op_model(soc(), one_row);
  const auto cores = model->space().default_config;
  EXPECT_GT(cores[TopKModel::kBlockDim], 1);
  EXPECT_LT(model->time_us(cores), model->time_us({1})) << "cutting the row over the cores must pay";
  EXPECT_LT(default_time(topk({1, 3000}, 200)), default_time(one_row));
  EXPECT_LT(default_time(topk({1, 27000}, 10)), default_time(topk({1, 27000}, 2000))) << "longer lists to merge";
  // Many short rows: every core, each row whole.
  const auto rows = op_model(soc(), topk({4096, 80}, 5));
  EXPECT_EQ(rows->space().default_config[TopKModel::kBlockDim], soc().ai_cores);
  EXPECT_GT(default_time(topk({4096, 80}, 5)), default_time(topk({1024, 80}, 5)));
  // Off the last axis: transposed in and out around the same sort.
  EXPECT_GT(default_time(topk({80, 4096}, 5, 0)), default_time(topk({4096, 80}, 5)));
  // More cores than segments of 16 values: refused as a config.
  EXPECT_FALSE(op_model(soc(), topk({2, 40}, 3))->check({30}).ok());

  const auto too_many = refusal([&] { op_model(soc(), topk({1, 10}, 11)); }, sdk::StatusCode::invalid_argument);
  EXPECT_NE(too_many.find("keeps 11 of the 10 values"), std::string::npos) << too_many;
  EXPECT_NE(too_many.find("node7"), std::string::npos) << too_many;
  auto no_output = topk({1, 10}, 3);
  no_output.outputs.clear();
  refusal([&] { op_model(soc(), no_output); }, sdk::StatusCode::invalid_argument);
}

// 8-bit convolutions and products fill the cube's 16 x 32 int8 fractal: an
// operand of depth K costs what an fp16 one of depth K / 2 does.
TEST(ExportOps, QuantizedProductsRunAsFp16OnesOfHalfTheDepth) {
  using sdk::DType;
  const auto scalar = [](DType t) { return tensor({}, t, true); };
  const auto qconv = op("QLinearConv",
                        {tensor({1, 64, 28, 28}, DType::u8), scalar(DType::f32), scalar(DType::u8),
                         tensor({128, 64, 3, 3}, DType::i8, true), scalar(DType::f32), scalar(DType::i8),
                         scalar(DType::f32), scalar(DType::u8), tensor({128}, DType::i32, true)},
                        {tensor({1, 128, 28, 28}, DType::u8)}, {{"pads", {1, 1, 1, 1}}});
  const auto conv = quantized_as_fp16(qconv, soc());
  EXPECT_EQ(conv.op_type, "Conv");
  EXPECT_EQ(conv.inputs.size(), 3u);  // x, w and the int32 bias
  EXPECT_EQ(conv.inputs[0].shape, (std::vector<int64_t>{1, 32, 28, 28}));
  EXPECT_EQ(conv.inputs[1].shape, (std::vector<int64_t>{128, 32, 3, 3}));
  EXPECT_EQ(conv.outputs[0].dtype, DType::u8);
  const auto fp16 = op("Conv", {tensor({1, 64, 28, 28}), tensor({128, 64, 3, 3}, DType::f16, true)},
                       {tensor({1, 128, 28, 28})}, {{"pads", {1, 1, 1, 1}}});
  EXPECT_LT(default_time(qconv), default_time(fp16));
  EXPECT_GT(op_model(soc(), qconv)->space().knobs.size(), 5u) << "tuned by the Conv's knobs";
  // Depthwise: each group's one channel is a whole int8 fractal's depth.
  const auto depthwise = op("ConvInteger", {tensor({1, 32, 14, 14}, DType::u8), tensor({32, 1, 3, 3}, DType::u8, true)},
                            {tensor({1, 32, 12, 12}, DType::i32)}, {{"group", 32}});
  const auto dw = quantized_as_fp16(depthwise, soc());
  EXPECT_EQ(dw.inputs[0].shape, (std::vector<int64_t>{1, 32, 14, 14}));
  EXPECT_EQ(dw.outputs[0].dtype, DType::f32);  // the int32 accumulator's width
  EXPECT_GT(default_time(depthwise), 0);
  // MatMulInteger, as ONNX Runtime's dynamic quantisation writes BERT's products.
  const auto mm = op("MatMulInteger", {tensor({128, 768}, DType::u8), tensor({768, 768}, DType::i8, true), scalar(DType::u8)},
                     {tensor({128, 768}, DType::i32)}, {{"input_slots", {0, 1, 2}}});
  const auto product = quantized_as_fp16(mm, soc());
  EXPECT_EQ(product.op_type, "MatMul");
  EXPECT_EQ(product.inputs[0].shape, (std::vector<int64_t>{128, 384}));
  EXPECT_EQ(product.inputs[1].shape, (std::vector<int64_t>{384, 768}));
  EXPECT_FALSE(product.attrs.contains("input_slots"));
  EXPECT_LT(default_time(mm), default_time(op("MatMul", {tensor({128, 768}), tensor({768, 768}, DType::f16, true)},
                                               {tensor({128, 768}, DType::f32)})));
  // Operands and outputs of other types are refused naming the op.
  auto float_operand = mm;
  float_operand.inputs[0].dtype = DType::f32;
  EXPECT_NE(refusal([&] { op_model(soc(), float_operand); }, sdk::StatusCode::invalid_argument).find("MatMulInteger 'node7'"),
            std::string::npos);
  auto float_output = qconv;
  float_output.outputs[0].dtype = DType::f32;
  EXPECT_NE(refusal([&] { op_model(soc(), float_output); }, sdk::StatusCode::invalid_argument).find("8-bit"),
            std::string::npos);
  // DynamicQuantizeLinear: the range of x, then x quantized, one launch.
  const auto dynamic = op("DynamicQuantizeLinear", {tensor({128, 768}, DType::f32)},
                          {tensor({128, 768}, DType::u8), scalar(DType::f32), scalar(DType::u8)});
  const auto sequence = op_model(soc(), dynamic);
  std::vector<std::string> knobs;
  for (const auto& k : sequence->space().knobs) knobs.push_back(k.name);
  EXPECT_NE(std::find(knobs.begin(), knobs.end(), "min_block_dim"), knobs.end());
  EXPECT_NE(std::find(knobs.begin(), knobs.end(), "quantize_block_dim"), knobs.end());
  const auto quantize = op("QuantizeLinear", {tensor({128, 768}, DType::f32), scalar(DType::f32), scalar(DType::u8)},
                           {tensor({128, 768}, DType::u8)});
  EXPECT_GT(default_time(dynamic), default_time(quantize));
  auto half = dynamic;
  half.inputs[0].dtype = DType::f16;
  refusal([&] { op_model(soc(), half); }, sdk::StatusCode::invalid_argument);
}

// GridSample gathers each output's taps from where its grid point falls: a
// burst per tap, 1 nearest, 4 bilinear, 16 bicubic; 8 trilinear in 3-D.
TEST(ExportOps, GridSampleGathersItsTapsOneBurstEach) {
  const auto sample = [](const char* mode) {
    return op("GridSample", {tensor({1, 32, 64, 64}), tensor({1, 48, 48, 2})}, {tensor({1, 32, 48, 48})},
              {{"mode", mode}});
  };
  const auto p = data_move_problem(sample("linear"), soc());
  EXPECT_EQ(p.out_elements, 32 * 48 * 48);
  EXPECT_EQ(p.in_elements, 4 * 32 * 48 * 48 + 48 * 48 * 2);
  EXPECT_EQ(p.in_run, 1);
  EXPECT_LT(default_time(sample("nearest")), default_time(sample("linear")));
  EXPECT_LT(default_time(sample("linear")), default_time(sample("cubic")));
  const auto volume = op("GridSample", {tensor({1, 4, 8, 8, 8}), tensor({1, 8, 8, 8, 3})}, {tensor({1, 4, 8, 8, 8})});
  EXPECT_EQ(data_move_problem(volume, soc()).in_elements, 8 * 4 * 8 * 8 * 8 + 8 * 8 * 8 * 3);
  auto cubic_volume = volume;
  cubic_volume.attrs = {{"mode", "cubic"}};
  refusal([&] { op_model(soc(), cubic_volume); }, sdk::StatusCode::invalid_argument);
  const auto four = op("GridSample", {tensor({1, 2, 4, 4, 4, 4}), tensor({1, 4, 4, 4, 4, 4})}, {tensor({1, 2, 4, 4, 4, 4})});
  refusal([&] { op_model(soc(), four); }, sdk::StatusCode::unsupported);
  auto wrong = sample("linear");
  wrong.outputs[0].shape = {1, 32, 48, 47};
  EXPECT_NE(refusal([&] { op_model(soc(), wrong); }, sdk::StatusCode::invalid_argument).find("GridSample 'node7'"),
            std::string::npos);
}

// RoiAlign gathers each bin's sampling points, 4 taps each, a burst of C0
// channels per tap; sampling_ratio 0 is costed for a region as large as the
// map; regions that disagree with their batch indices are refused.
TEST(ExportOps, RoiAlignGathersEachBinsSamplingPoints) {
  const auto align = [](int64_t ratio) {
    return op("RoiAlign", {tensor({1, 256, 50, 50}), tensor({100, 4}), tensor({100}, sdk::DType::i64)},
              {tensor({100, 256, 7, 7})},
              {{"output_height", 7}, {"output_width", 7}, {"sampling_ratio", ratio}});
  };
  const auto p = data_move_problem(align(2), soc());
  EXPECT_EQ(p.out_elements, 100 * 256 * 7 * 7);
  EXPECT_EQ(p.in_elements, 4 * 4 * 100 * 256 * 7 * 7 + 100 * 5);
  EXPECT_EQ(p.in_run, 16);
  EXPECT_EQ(data_move_problem(align(0), soc()).in_elements, 4 * 8 * 8 * 100 * 256 * 7 * 7 + 100 * 5);
  EXPECT_LT(default_time(align(1)), default_time(align(2)));
  EXPECT_LT(default_time(align(2)), default_time(align(0)));
  auto orphan = align(2);
  orphan.inputs[2].shape = {99};
  EXPECT_NE(refusal([&] { op_model(soc(), orphan); }, sdk::StatusCode::invalid_argument).find("batch_indices"),
            std::string::npos);
  refusal([&] { op_model(soc(), align(1000)); }, sdk::StatusCode::unsupported);
}

// MaxUnpool zeroes its output and writes each pooled value where its index
// points; NonZero is costed for every element nonzero, its int64 indices
// counted in its input's width; MeanVarianceNormalization is its two
// statistics, then the subtraction and the division, in one launch.
TEST(ExportOps, MaxUnpoolNonZeroAndMeanVarianceNormalizationAreTimed) {
  const auto mask = op("NonZero", {tensor({4, 1000}, sdk::DType::boolean)}, {tensor({2, -1}, sdk::DType::i64)});
  const auto nz = data_move_problem(mask, soc());
  EXPECT_EQ(nz.in_elements, 4000);
  EXPECT_EQ(nz.out_elements, 4000 * 2 * 8);
  EXPECT_GT(default_time(mask), 0);

  const auto unpool = op("MaxUnpool", {tensor({1, 64, 28, 28}), tensor({1, 64, 28, 28}, sdk::DType::i64)},
                         {tensor({1, 64, 56, 56})}, {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}});
  const auto p = data_move_problem(unpool, soc());
  EXPECT_EQ(p.out_elements, 64 * 56 * 56 + 64 * 28 * 28);
  EXPECT_EQ(p.in_elements, 2 * 64 * 28 * 28);
  EXPECT_GT(default_time(unpool), 0);
  auto misindexed = unpool;
  misindexed.inputs[1].shape = {1, 64, 28, 27};
  EXPECT_NE(refusal([&] { op_model(soc(), misindexed); }, sdk::StatusCode::invalid_argument).find("indices I"),
            std::string::npos);

  const auto mvn = op("MeanVarianceNormalization", {tensor({8, 64, 28, 28}, sdk::DType::f32)},
                      {tensor({8, 64, 28, 28}, sdk::DType::f32)});
  const auto sequence = op_model(soc(), mvn);
  std::vector<std::string> knobs;
  for (const auto& k : sequence->space().knobs) knobs.push_back(k.name);
  for (const char* k : {"square_block_dim", "sub_block_dim", "div_block_dim"})
    EXPECT_NE(std::find(knobs.begin(), knobs.end(), k), knobs.end()) << k;
  const auto sub = op("Sub", {tensor({8, 64, 28, 28}, sdk::DType::f32), tensor({1, 64, 1, 1}, sdk::DType::f32)},
                      {tensor({8, 64, 28, 28}, sdk::DType::f32)});
  EXPECT_GT(default_time(mvn), 2 * default_time(sub));
  auto instance = mvn;
  instance.attrs = {{"axes", {2, 3}}};
  EXPECT_GT(default_time(instance), 0);
  auto beyond = mvn;
  beyond.attrs = {{"axes", {0, 4}}};
  EXPECT_NE(refusal([&] { op_model(soc(), beyond); }, sdk::StatusCode::invalid_argument).find("axis 4"), std::string::npos);
}

// NonMaxSuppression sorts each batch-and-class row of scores, then checks
// the candidates against the boxes kept, 16 x 16 at a time: keeping fewer
// costs less, a limit known only as the model runs is costed for every box,
// and no limit at all keeps nothing to time.
TEST(ExportOps, NonMaxSuppressionSortsThenSuppressesPerClass) {
  const auto nms = [](std::optional<int64_t> limit, bool with_input = true) {
    std::vector<sdk::TensorDesc> in{tensor({1, 1000, 4}, sdk::DType::f32), tensor({1, 80, 1000}, sdk::DType::f32)};
    if (with_input) in.push_back(tensor({1}, sdk::DType::i64));
    nlohmann::json attrs = nlohmann::json::object();
    if (limit) attrs["max_output_boxes_per_class"] = *limit;
    return op("NonMaxSuppression", in, {tensor({-1, 3}, sdk::DType::i64)}, attrs);
  };
  const auto model = op_model(soc(), nms(100));
  std::vector<std::string> knobs;
  for (const auto& k : model->space().knobs) knobs.push_back(k.name);
  EXPECT_NE(std::find(knobs.begin(), knobs.end(), "suppress_block_dim"), knobs.end());
  EXPECT_LT(default_time(nms(10)), default_time(nms(100)));
  EXPECT_LT(default_time(nms(100)), default_time(nms(std::nullopt)));
  EXPECT_DOUBLE_EQ(default_time(nms(5000)), default_time(nms(std::nullopt)));
  auto listed = nms(100);  // as the frontend gives a constant input: the list it holds
  listed.attrs["max_output_boxes_per_class"] = {100};
  EXPECT_DOUBLE_EQ(default_time(listed), default_time(nms(100)));
  refusal([&] { op_model(soc(), nms(std::nullopt, false)); }, sdk::StatusCode::unsupported);
  refusal([&] { op_model(soc(), nms(0)); }, sdk::StatusCode::unsupported);
  auto mismatched = nms(100);
  mismatched.inputs[1].shape = {1, 80, 999};
  EXPECT_NE(refusal([&] { op_model(soc(), mismatched); }, sdk::StatusCode::invalid_argument).find("scores"),
            std::string::npos);
}

// DFT and STFT run as the product by the DFT matrix: a row per position off
// the axis (per frame, for STFT), the input's parts by its length as the
// depth, the output's real and imaginary columns; the window's length is
// the frame's.
TEST(ExportOps, DftAndStftAreProductsByTheDftMatrix) {
  const auto f32 = sdk::DType::f32;
  const auto dft = op("DFT", {tensor({2, 64, 3, 1}, f32)}, {tensor({2, 33, 3, 2}, f32)}, {{"axis", 1}, {"onesided", 1}});
  const auto mm = spectral_as_matmul(dft, soc());
  EXPECT_EQ(mm.inputs[0].shape, (std::vector<int64_t>{6, 64}));
  EXPECT_EQ(mm.inputs[1].shape, (std::vector<int64_t>{64, 66}));
  EXPECT_TRUE(mm.inputs[1].constant);
  EXPECT_GT(default_time(dft), 0);
  auto stft = op("STFT", {tensor({1, 16000, 1}, f32), tensor({}, sdk::DType::i64), tensor({400}, f32)},
                 {tensor({1, 98, 201, 2}, f32)}, {{"input_slots", {0, 1, 2}}});
  const auto frames = spectral_as_matmul(stft, soc());
  EXPECT_EQ(frames.inputs[0].shape, (std::vector<int64_t>{98, 400}));
  EXPECT_EQ(frames.outputs[0].shape, (std::vector<int64_t>{98, 402}));
  EXPECT_GT(default_time(stft), 0);
  auto last = dft;
  last.attrs["axis"] = -1;
  EXPECT_NE(refusal([&] { op_model(soc(), last); }, sdk::StatusCode::invalid_argument).find("axis -1"), std::string::npos);
  auto three = dft;
  three.inputs[0].shape = {2, 64, 3, 3};
  refusal([&] { op_model(soc(), three); }, sdk::StatusCode::invalid_argument);
}

TEST(ExportOps, CubicResizeWeighsFourTapsAnAxis) {
  const auto x = tensor({1, 24, 40, 40});
  const auto resize = [&](const char* type, const char* mode) {
    return op(type, {x, tensor({4}, sdk::DType::f32, true)}, {tensor({1, 24, 80, 80})}, {{"mode", mode}});
  };
  EXPECT_EQ(data_move_problem(resize("Resize", "linear"), soc()).simple_passes, 2 * 4);
  EXPECT_EQ(data_move_problem(resize("Resize", "cubic"), soc()).simple_passes, 2 * 16);
  EXPECT_GT(default_time(resize("Resize", "cubic")), default_time(resize("Resize", "linear")));
  EXPECT_DOUBLE_EQ(default_time(resize("Upsample", "bilinear")), default_time(resize("Resize", "linear")));
}

}  // namespace
}  // namespace aoe::sim
