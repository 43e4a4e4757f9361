// The training steps of conv_block, mlp and bert_layer: which kernels, with
// which shapes and types, named after the forward ops they come from.
#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "aoe/sdk/error.h"
#include "gradient_rules.h"
#include "step_precision.h"
#include "training_step_fixture.h"

namespace aoe::training::test {
namespace {

using aoe::sdk::DType;
using Counts = std::map<std::string, size_t>;

TEST(TrainingStep, ConvBlockInFp32) {
  const auto step = step_of("conv_block.onnx", fp32());
  const Counts want = {{"Conv", 2},          {"BNTrainingReduce", 1},     {"BNTrainingUpdate", 1},
                       {"Relu", 2},          {"Add", 1},                  {"SoftmaxCrossEntropyWithLogits", 1},
                       {"ReluGradV2", 2},    {"Conv2DBackpropInput", 1},  {"Conv2DBackpropFilter", 2},
                       {"BiasAddGrad", 1},   {"BNTrainingUpdateGrad", 1}, {"BNTrainingReduceGrad", 1},
                       {"FusedMulAddN", 2},  {"ApplyMomentum", 5}};
  EXPECT_EQ(op_counts(step), want);
  for (const auto& [name, t] : step.graph.tensors)
    EXPECT_NE(t.dtype, DType::f16) << name << ": fp32 keeps every tensor float32";
}

TEST(TrainingStep, ConvBlockShapesAndNames) {
  const auto step = step_of("conv_block.onnx", fp32());
  // The model input takes no gradient: only conv2 reads an activation.
  ASSERT_EQ(kernels_of(step, "Conv2DBackpropInput").size(), 1u);
  const auto& dx = kernel(step, "conv2/Conv/Conv2DBackpropInput");
  EXPECT_EQ(step.forward_of.at(dx.name), "conv2/Conv");
  EXPECT_EQ(shape(step, dx.inputs[0]), (std::vector<int64_t>{1, 64, 56, 56}));
  EXPECT_EQ(shape(step, dx.inputs[1]), (std::vector<int64_t>{64, 64, 1, 1}));
  EXPECT_EQ(shape(step, dx.outputs[0]), (std::vector<int64_t>{1, 64, 56, 56}));
  EXPECT_EQ(dx.attrs.at("input_size"), nlohmann::json({56, 56}));
  EXPECT_EQ(dx.attrs.at("kernel_shape"), nlohmann::json({1, 1}));
  const auto& dw = kernel(step, "conv1/Conv/Conv2DBackpropFilter");
  EXPECT_EQ(dw.inputs[0], "x");
  EXPECT_EQ(shape(step, dw.outputs[0]), (std::vector<int64_t>{64, 64, 3, 3}));
  EXPECT_EQ(dw.attrs.at("pads"), nlohmann::json({1, 1, 1, 1}));
  const auto& reduce_grad = kernel(step, "bn1/BatchNormalization/BNTrainingReduceGrad");
  EXPECT_EQ(reduce_grad.inputs.size(), 7u);
  EXPECT_EQ(shape(step, reduce_grad.inputs[5]), (std::vector<int64_t>{64}));
  // The loss reads the output as rows x its last dim; labels are a new input of that shape.
  EXPECT_EQ(step.graph.inputs, (std::vector<std::string>{"x", "labels"}));
  EXPECT_EQ(shape(step, "labels"), (std::vector<int64_t>{64 * 56, 56}));
  const auto& loss = *kernels_of(step, "SoftmaxCrossEntropyWithLogits").front();
  EXPECT_EQ(shape(step, loss.outputs[0]), (std::vector<int64_t>{64 * 56}));
}

TEST(TrainingStep, MixedPrecisionCastsWeightsOnceAndUnscalesEachGradient) {
  const auto step = step_of("conv_block.onnx");
  const auto counts = op_counts(step);
  // The input, conv1_w, conv2_w, conv2_b; the logits to float32 and their gradient back.
  EXPECT_EQ(counts.at("Cast"), 6u);
  EXPECT_EQ(counts.at("Mul"), 5u);
  const auto& dw = kernel(step, "conv1/Conv/Conv2DBackpropFilter");
  EXPECT_EQ(step.graph.tensor(dw.inputs[0]).dtype, DType::f16);
  EXPECT_EQ(step.graph.tensor(dw.inputs[1]).dtype, DType::f16);
  EXPECT_EQ(step.graph.tensor(dw.outputs[0]).dtype, DType::f32);
  const auto& update = kernel(step, "bn1/BatchNormalization/BNTrainingUpdate");
  EXPECT_EQ(step.graph.tensor(update.inputs[0]).dtype, DType::f16);
  EXPECT_EQ(step.graph.tensor(update.inputs[3]).dtype, DType::f32) << "scale stays float32";
  EXPECT_EQ(step.graph.tensor(update.outputs[1]).dtype, DType::f32) << "batch_mean";
  const auto& loss = *kernels_of(step, "SoftmaxCrossEntropyWithLogits").front();
  EXPECT_EQ(step.graph.tensor(loss.inputs[0]).dtype, DType::f32);
  for (const auto* m : kernels_of(step, "ApplyMomentum")) {
    EXPECT_EQ(step.graph.tensor(m->inputs[0]).dtype, DType::f32) << m->name;
    EXPECT_EQ(step.graph.tensor(m->inputs[2]).dtype, DType::f32) << m->name;
  }
}

TEST(TrainingStep, Mlp) {
  const auto step = step_of("mlp.onnx", fp32());
  const Counts want = {{"MatMul", 2},      {"Add", 1},          {"Relu", 2},        {"Gemm", 1},
                       {"SoftmaxCrossEntropyWithLogits", 1},    {"BatchMatMul", 5}, {"ReluGradV2", 2},
                       {"BiasAddGrad", 2}, {"FusedMulAddN", 3}, {"ApplyMomentum", 5}};
  EXPECT_EQ(op_counts(step), want);
  // W1's gradient from the input and the gradient of fc1: x^T . dy, float32.
  const auto& dw1 = kernel(step, "fc1/MatMul/BatchMatMul");
  EXPECT_EQ(dw1.inputs[0], "x");
  EXPECT_EQ(dw1.attrs, nlohmann::json({{"adj_x1", 1}, {"adj_x2", 0}}));
  EXPECT_EQ(shape(step, dw1.outputs[0]), (std::vector<int64_t>{256, 512}));
  // Gemm with transB: dA = dy . W2, dW2 = dy^T . a.
  const auto gemm_grads = kernels_of(step, "BatchMatMul");
  std::set<std::vector<int64_t>> shapes;
  for (const auto* k : gemm_grads) shapes.insert(shape(step, k->outputs[0]));
  EXPECT_TRUE(shapes.count({128, 512}) && shapes.count({8, 512}) && shapes.count({8, 128}) && shapes.count({128, 64}));
  EXPECT_EQ(shape(step, "labels"), (std::vector<int64_t>{8, 64}));
  const auto& bias = kernel(step, "fc2/Gemm/BiasAddGrad");
  EXPECT_EQ(bias.attrs.at("axis"), -1);
  EXPECT_EQ(shape(step, bias.outputs[0]), (std::vector<int64_t>{128}));
}

TEST(TrainingStep, BertLayer) {
  const auto step = step_of("bert_layer.onnx");
  const auto counts = op_counts(step);
  EXPECT_EQ(counts.at("LayerNormalization"), 2u);
  EXPECT_EQ(counts.at("LayerNormXBackpropV2"), 2u);
  EXPECT_EQ(counts.at("LayerNormBetaGammaBackpropV2"), 2u);
  EXPECT_EQ(counts.at("Gelu"), 1u);
  EXPECT_EQ(counts.at("GeLUGrad"), 1u);
  EXPECT_EQ(counts.at("SoftmaxGradExt"), 1u);
  // Six weights' gradients, three activations' through a weight (the input's
  // projections take none), two of each product of activations.
  EXPECT_EQ(counts.at("BatchMatMul"), 13u);
  EXPECT_EQ(counts.at("Transpose"), 8u);
  EXPECT_EQ(counts.at("AddN"), 1u);  // the first LayerNorm's output, read by the FFN and its residual
  EXPECT_EQ(counts.at("ApplyMomentum"), 16u);
  EXPECT_EQ(counts.at("FusedMulAddN"), 6u);
  EXPECT_EQ(shape(step, "labels"), (std::vector<int64_t>{128, 768}));
  for (const auto* ln : kernels_of(step, "LayerNormXBackpropV2")) {
    ASSERT_EQ(ln->inputs.size(), 5u);
    EXPECT_EQ(shape(step, ln->inputs[2]), (std::vector<int64_t>{128, 1}));
    EXPECT_EQ(shape(step, ln->inputs[4]), (std::vector<int64_t>{768}));
  }
  std::set<nlohmann::json> perms;
  for (const auto* t : kernels_of(step, "Transpose")) perms.insert(t->attrs.at("perm"));
  EXPECT_TRUE(perms.count(nlohmann::json({0, 3, 1, 2}))) << "the inverse of the keys' {0, 2, 3, 1}";
}

TEST(TrainingStep, EveryKernelNamesItsForwardOpAndNoAttributeNamesAnything) {
  for (const char* name : {"conv_block.onnx", "mlp.onnx", "bert_layer.onnx"}) {
    const auto step = step_of(name);
    std::set<std::string> names;
    for (const auto& n : step.graph.nodes) names.insert(n.name);
    for (const auto& [t, desc] : step.graph.tensors) names.insert(t);
    std::function<void(const nlohmann::json&, const std::string&)> check = [&](const nlohmann::json& j, const std::string& at) {
      if (j.is_string()) {
        EXPECT_FALSE(names.count(j.get<std::string>())) << at << " names " << j;
      }
      if (j.is_structured())
        for (const auto& v : j) check(v, at);
    };
    for (const auto& n : step.graph.nodes) {
      ASSERT_TRUE(step.forward_of.count(n.name)) << n.name;
      const std::string& forward = step.forward_of.at(n.name);
      EXPECT_EQ(n.name.rfind(forward, 0), 0u) << n.name << " comes from " << forward;
      check(n.attrs, n.name);
    }
  }
}

TEST(TrainingStep, Optimizers) {
  StepOptions adam = fp32();
  adam.optimizer = Optimizer::adam;
  auto counts = op_counts(step_of("mlp.onnx", adam));
  EXPECT_EQ(counts.at("ApplyAdam"), 5u);
  EXPECT_EQ(counts.at("FusedMulAddN"), 3u);
  EXPECT_FALSE(counts.count("ApplyMomentum"));
  StepOptions lamb = fp32();
  lamb.optimizer = Optimizer::lamb;
  counts = op_counts(step_of("mlp.onnx", lamb));
  EXPECT_EQ(counts.at("LambApplyOptimizerAssign"), 5u);
  EXPECT_EQ(counts.at("SquareSumV1"), 10u);
  EXPECT_EQ(counts.at("LambApplyWeightAssign"), 5u);
  EXPECT_FALSE(counts.count("FusedMulAddN")) << "LAMB decays inside its own update";
  EXPECT_EQ(optimizer_from_string("adam"), Optimizer::adam);
  EXPECT_THROW(optimizer_from_string("sgd"), aoe::sdk::Error);
}

TEST(TrainingStep, PrecisionFollowsTheOptionThenTheDevicesDtypes) {
  using nlohmann::json;
  EXPECT_TRUE(mixed_precision("", json::object())) << "a device that lists no dtypes";
  EXPECT_TRUE(mixed_precision("", {{"dtypes", {"float16", "float32"}}}));
  EXPECT_FALSE(mixed_precision("", {{"dtypes", {"float32"}}})) << "the cpu device";
  EXPECT_TRUE(mixed_precision("mixed", {{"dtypes", {"float32"}}}));
  EXPECT_FALSE(mixed_precision("fp32", json::object()));
  EXPECT_THROW(mixed_precision("bf16", json::object()), aoe::sdk::Error);
}

aoe::sdk::Graph conv_then(const std::string& op_type, bool op_first) {
  aoe::sdk::Graph g;
  g.name = "g";
  auto tensor = [&](const std::string& name, std::vector<int64_t> shape, bool constant = false) {
    aoe::sdk::TensorDesc t;
    t.name = name;
    t.shape = std::move(shape);
    t.constant = constant;
    g.tensors[name] = t;
  };
  tensor("x", {1, 4, 8, 8});
  tensor("w", {4, 4, 1, 1}, true);
  tensor("a", {1, 4, 8, 8});
  tensor("y", {1, 4, 8, 8});
  g.inputs = {"x"};
  g.outputs = {"y"};
  const aoe::sdk::Node op{"op", op_type, {op_first ? "x" : "a"}, {op_first ? "a" : "y"}, {}};
  const aoe::sdk::Node conv{"conv", "Conv", {op_first ? "a" : "x", "w"}, {op_first ? "y" : "a"}, {}};
  g.nodes = op_first ? std::vector<aoe::sdk::Node>{op, conv} : std::vector<aoe::sdk::Node>{conv, op};
  return g;
}

TEST(TrainingStep, AGradientReachingAnOpWithoutARuleNamesItAndTheSupportedOnes) {
  try {
    derive_training_step(conv_then("Tanh", false), {});
    FAIL() << "a gradient went through Tanh";
  } catch (const aoe::sdk::Error& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.code(), aoe::sdk::StatusCode::invalid_argument);
    EXPECT_NE(message.find("Tanh"), std::string::npos) << message;
    EXPECT_NE(message.find("'op'"), std::string::npos) << message;
    EXPECT_NE(message.find("Conv, "), std::string::npos) << message;
  }
  // Before the first weight no gradient is needed: the op needs no rule.
  EXPECT_NO_THROW(derive_training_step(conv_then("Tanh", true), {}));
  EXPECT_EQ(find_gradient_rule("Tanh"), nullptr);
}

// Clip takes ReLU6's gradient; other bounds are an error naming the node.
TEST(TrainingStep, ClipIsReluSixOnly) {
  aoe::sdk::Graph g = conv_then("Clip", false);
  g.nodes[1].attrs = {{"min", 0.0}, {"max", 6.0}};
  const auto step = derive_training_step(g, fp32());
  const auto& grad = kernel(step, "op/Relu6Grad");
  EXPECT_EQ(grad.inputs[1], "a") << "the Clip's input";
  g.nodes[1].attrs = {{"min", -1.0}, {"max", 1.0}};
  try {
    derive_training_step(g, fp32());
    FAIL() << "Clip to [-1, 1] took ReLU6's gradient";
  } catch (const aoe::sdk::Error& e) {
    EXPECT_NE(std::string(e.what()).find("Clip with bounds other than the constants 0 and 6 (node 'op')"),
              std::string::npos) << e.what();
  }
}

// x -> Conv -> Split in two along channels -> Concat in the other order.
TEST(TrainingStep, ConcatAndSplitTakeEachOthersGradient) {
  aoe::sdk::Graph g = conv_then("Relu", false);
  auto add = [&](const std::string& name, std::vector<int64_t> shape) {
    g.tensors[name].name = name;
    g.tensors[name].shape = std::move(shape);
  };
  add("a0", {1, 2, 8, 8});
  add("a1", {1, 2, 8, 8});
  add("z", {1, 4, 8, 8});
  g.nodes[1] = {"split", "Split", {"a"}, {"a0", "a1"}, {{"axis", 1}}};
  g.nodes.push_back({"concat", "Concat", {"a1", "a0"}, {"z"}, {{"axis", 1}}});
  g.outputs = {"z"};
  const auto step = derive_training_step(g, fp32());
  const auto& split = kernel(step, "concat/Split");
  EXPECT_EQ(split.attrs, nlohmann::json({{"axis", 1}, {"split", {2, 2}}}));
  const auto& concat = kernel(step, "split/Concat");
  EXPECT_EQ(concat.inputs, (std::vector<std::string>{split.outputs[1], split.outputs[0]}));
  EXPECT_EQ(shape(step, concat.outputs[0]), (std::vector<int64_t>{1, 4, 8, 8}));
}

}  // namespace
}  // namespace aoe::training::test
