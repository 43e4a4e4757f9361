// Each rule of CANN's table fuses where the device lists its followers, and
// only there; ResNet-50's step at batch 32 fuses as CANN fused it.
#include <gtest/gtest.h>

#include "step_fusion.h"
#include "training_step_fixture.h"

namespace aoe::training::test {
namespace {

std::set<std::string> followers_of(const std::string& kernel) {
  for (const auto& rule : step_fusion_rules())
    if (rule.kernel == kernel) return {rule.followers.begin(), rule.followers.end()};
  ADD_FAILURE() << "no rule " << kernel;
  return {};
}

std::vector<StepKernel> fused_by(const std::vector<StepKernel>& kernels, const std::string& fusion) {
  std::vector<StepKernel> out;
  for (const auto& k : kernels)
    if (k.fusion == fusion) out.push_back(k);
  return out;
}

const TrainingStep& resnet50_batch32() {
  static const TrainingStep step = step_of("resnet50.onnx", {}, {{"input", {32, 3, 224, 224}}});
  return step;
}

// MatMul, its bias and GELU, with nothing else reading the GELU's input.
TrainingStep matmul_bias_gelu() {
  TrainingStep step;
  auto& g = step.graph;
  for (const auto& [name, shape] : std::map<std::string, std::vector<int64_t>>{
           {"x", {4, 8}}, {"w", {8, 16}}, {"b", {16}}, {"m", {4, 16}}, {"h", {4, 16}}, {"y", {4, 16}}}) {
    g.tensors[name].name = name;
    g.tensors[name].shape = shape;
  }
  g.outputs = {"y"};
  g.nodes = {{"fc", "MatMul", {"x", "w"}, {"m"}, {}}, {"bias", "Add", {"m", "b"}, {"h"}, {}},
             {"gelu", "Gelu", {"h"}, {"y"}, {}}};
  return step;
}

struct Case {
  std::string kernel;
  std::function<TrainingStep()> step;
};

void PrintTo(const Case& c, std::ostream* out) { *out << c.kernel; }

class EachRule : public ::testing::TestWithParam<Case> {};

TEST_P(EachRule, FusesWhereTheDeviceListsItsFollowersOnly) {
  const auto& c = GetParam();
  const TrainingStep step = c.step();
  const auto followers = followers_of(c.kernel);
  const auto fused = fuse_step(step, followers);
  ASSERT_FALSE(fused_by(fused, c.kernel).empty()) << c.kernel << " did not apply";
  for (const auto& k : fused_by(fused, c.kernel)) {
    EXPECT_EQ(k.op.op_types.size(), followers_of(c.kernel).size() + 1);
    EXPECT_FALSE(k.forward_op.empty());
  }
  for (const auto& k : fuse_step(step, {})) EXPECT_EQ(k.op.op_types.size(), 1u) << k.op.task.name;
  // One follower missing from the list: the rule does not apply.
  for (const auto& missing : followers) {
    auto fewer = followers;
    fewer.erase(missing);
    EXPECT_TRUE(fused_by(fuse_step(step, fewer), c.kernel).empty()) << c.kernel << " without " << missing;
  }
}

TrainingStep mixed(const std::string& model) { return step_of(model); }

INSTANTIATE_TEST_SUITE_P(
    StepFusion, EachRule,
    ::testing::Values(Case{"FusionOp_Conv2D_BNTrainingReduce", [] { return mixed("conv_block.onnx"); }},
                      Case{"FusionOp_BNTrainingUpdate_ReLUV2", [] { return mixed("conv_block.onnx"); }},
                      Case{"FusionOp_BNTrainingUpdate_Add_ReLUV2", [] { return resnet50_batch32(); }},
                      Case{"FusionOp_Conv2DBackpropInput_ReluGradV2", [] { return mixed("conv_block.onnx"); }},
                      Case{"FusionOp_Conv2DBackpropInput_AddN_ReluGradV2", [] { return resnet50_batch32(); }},
                      Case{"FusionOp_MatMul_GeLU", matmul_bias_gelu},
                      Case{"FusionOp_MatMul_GeLUGrad", [] { return mixed("bert_layer.onnx"); }},
                      Case{"FusedMulApplyMomentum", [] { return mixed("conv_block.onnx"); }},
                      Case{"FusedDbnDw", [] { return resnet50_batch32(); }}),
    [](const ::testing::TestParamInfo<Case>& info) { return info.param.kernel; });

TEST(StepFusion, ResNet50AtBatch32FusesAsCannFusedIt) {
  const auto counts = kernel_counts(fuse_step(resnet50_batch32(), every_follower()));
  const std::map<std::string, size_t> profile = {{"FusedMulApplyMomentum", 161},
                                                 {"FusedMulAddN", 54},
                                                 {"FusionOp_Conv2D_BNTrainingReduce", 53},
                                                 {"BNTrainingUpdateGrad", 53},
                                                 {"FusionOp_BNTrainingUpdate_ReLUV2", 33},
                                                 {"BNTrainingReduceGrad", 33},
                                                 {"Conv2DBackpropFilter", 33},
                                                 {"FusionOp_Conv2DBackpropInput_ReluGradV2", 32},
                                                 {"FusedDbnDw", 20},
                                                 {"FusionOp_BNTrainingUpdate_Add_ReLUV2", 16},
                                                 {"FusionOp_Conv2DBackpropInput_AddN_ReluGradV2", 15},
                                                 {"Conv2DBackpropInput", 5},
                                                 {"BNTrainingUpdate", 4},
                                                 {"MatMul", 3},
                                                 {"ReluGradV2", 2},
                                                 {"AddN", 1},
                                                 {"BiasAddGrad", 1},
                                                 {"MaxPoolGradWithArgmax", 1},
                                                 {"SoftmaxCrossEntropyWithLogits", 1}};
  for (const auto& [kernel, count] : profile) EXPECT_EQ(counts.count(kernel) ? counts.at(kernel) : 0, count) << kernel;
}

TEST(StepFusion, FusedDbnDwOnlyAtTheShapesCannFusesIt) {
  const auto step = step_of("resnet50.onnx");  // batch 1
  EXPECT_TRUE(fused_by(fuse_step(step, every_follower()), "FusedDbnDw").empty());
}

TEST(StepFusion, FusedKernelsReadAndWriteAsTheTableSays) {
  const auto kernels = fuse_step(resnet50_batch32(), every_follower());
  const auto add_relu = fused_by(kernels, "FusionOp_BNTrainingUpdate_Add_ReLUV2").front().op.task;
  EXPECT_EQ(add_relu.fused_ops, (std::vector<std::string>{"Add", "Relu"}));
  ASSERT_EQ(add_relu.inputs.size(), 6u) << "x, sum, square_sum, scale, offset, the shortcut";
  EXPECT_EQ(add_relu.inputs[5].shape, add_relu.inputs[0].shape);
  ASSERT_EQ(add_relu.outputs.size(), 3u) << "y, batch_mean, batch_invstd";
  EXPECT_EQ(add_relu.outputs[1].shape.size(), 1u);

  const auto momentum = fused_by(kernels, "FusedMulApplyMomentum").front().op.task;
  ASSERT_EQ(momentum.inputs.size(), 4u) << "grad, scale, w, accum";
  EXPECT_TRUE(momentum.inputs[1].shape.empty());
  EXPECT_EQ(momentum.outputs.size(), 2u);

  const auto dbn_dw = fused_by(kernels, "FusedDbnDw").front();
  ASSERT_EQ(dbn_dw.op.task.inputs.size(), 8u) << "BNTrainingReduceGrad's seven, then the conv's x";
  ASSERT_EQ(dbn_dw.op.task.outputs.size(), 2u) << "dx, dw";
  EXPECT_EQ(dbn_dw.op.task.outputs[1].shape.size(), 4u);
  EXPECT_EQ(dbn_dw.op.task.attrs.at("fused_attrs").size(), 1u) << "the conv's attributes";
  EXPECT_EQ(dbn_dw.op.task.outputs[1].dtype, aoe::sdk::DType::f32);

  const auto conv_reduce = fused_by(kernels, "FusionOp_Conv2D_BNTrainingReduce").front().op.task;
  EXPECT_EQ(conv_reduce.outputs.size(), 3u) << "y, sum, square_sum";
}

TEST(StepFusion, MatMulGeluKeepsApartWhereTheGeluGradientReadsItsInput) {
  const auto kernels = fuse_step(step_of("bert_layer.onnx"), every_follower());
  EXPECT_TRUE(fused_by(kernels, "FusionOp_MatMul_GeLU").empty());
  EXPECT_EQ(fused_by(kernels, "FusionOp_MatMul_GeLUGrad").size(), 1u);
}

}  // namespace
}  // namespace aoe::training::test
