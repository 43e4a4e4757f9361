// --training end to end: every kernel of conv_block's step tuned on the
// simulator and on the cpu device, of bert_layer's on the cpu, and of the
// OCR models' (HardSwish, ReLU6, Sigmoid, Resize, ConvTranspose) on both, as
// docs/training.md has the devices run them, each backward and optimizer
// kernel named with its forward op.
#include <filesystem>
#include <map>
#include <set>

#include "aoe_host_fixture.h"

namespace aoe::test {
namespace {

using nlohmann::json;

void expect_every_kernel_tuned(const json& opat, const std::set<std::string>& backward) {
  EXPECT_TRUE(opat["unsupported_operators"].empty()) << opat["unsupported_operators"].dump(1);
  EXPECT_EQ(opat["opat_tuning_result"], "tuning successful");
  std::set<std::string> types;
  for (const auto& op : opat["opat_tuned_operators"]) {
    ASSERT_TRUE(op.contains("forward_op")) << op;
    types.insert(op["op_type"].get<std::string>());
  }
  for (const auto& type : backward) EXPECT_TRUE(types.count(type)) << type << " not tuned";
}

TEST_F(AoeHostTest, TrainingStepOfConvBlockTunesOnTheSimulator) {
  const auto r = tune("conv_block.onnx", {"--training", "--budget", "4"});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  expect_every_kernel_tuned(only_result()["OPAT"],
                            {"Conv2DBackpropInput", "Conv2DBackpropFilter", "BNTrainingUpdateGrad",
                             "BNTrainingReduceGrad", "BiasAddGrad", "ReluGradV2", "FusedMulAddN",
                             "SoftmaxCrossEntropyWithLogits"});
}

TEST_F(AoeHostTest, TrainingStepOfConvBlockTunesOnTheCpu) {
  const auto r = aoe_host({"--plugin", "opat", "--device", "cpu", "--model", model("conv_block.onnx").string(),
                           "--training", "--budget", "4"});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  EXPECT_NE((r.err + r.out).find("training step (momentum, fp32)"), std::string::npos) << r.err;
  expect_every_kernel_tuned(only_result()["OPAT"],
                            {"Conv2DBackpropInput", "Conv2DBackpropFilter", "BNTrainingUpdateGrad",
                             "BNTrainingReduceGrad", "BiasAddGrad", "ReluGradV2", "ApplyMomentum", "FusedMulAddN",
                             "SoftmaxCrossEntropyWithLogits"});
}

// BERT's layer: the attention's products, softmax, layer-norm and GELU
// gradients, every one measured and checked against its reference.
TEST_F(AoeHostTest, TrainingStepOfBertLayerTunesOnTheCpu) {
  const auto r = aoe_host({"--plugin", "opat", "--device", "cpu", "--model", model("bert_layer.onnx").string(),
                           "--training", "--budget", "2"});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  expect_every_kernel_tuned(only_result()["OPAT"],
                            {"BatchMatMul", "SoftmaxGradExt", "LayerNormXBackpropV2", "LayerNormBetaGammaBackpropV2",
                             "GeLUGrad", "AddN", "BiasAddGrad", "ApplyMomentum", "SoftmaxCrossEntropyWithLogits"});
}

// The OCR models' steps, each on the simulator and on the cpu device.
TEST_F(AoeHostTest, TrainingStepsOfTheOcrModelsTuneOnBothDevices) {
  const std::map<std::string, std::set<std::string>> backward = {
      {"ocr_cls.onnx", {"HardSwishGrad", "HardSigmoidGrad", "Relu6Grad", "GlobalAveragePoolGrad", "SoftmaxGradExt"}},
      {"ocr_det.onnx", {"HardSwishGrad", "Relu6Grad", "SigmoidGrad", "ResizeNearestNeighborV2Grad", "ResizeBilinearV2Grad",
                        "Conv2DBackpropFilter"}}};
  for (const auto& [name, kernels] : backward)
    for (const char* device : {"ascend910", "cpu"}) {
      for (const auto& f : result_files()) std::filesystem::remove(f);
      const auto r = aoe_host({"--plugin", "opat", "--device", device, "--model", model(name).string(), "--training",
                               "--budget", "1"});
      ASSERT_EQ(r.exit_code, 0) << name << " on " << device << ": " << failure_text(r);
      SCOPED_TRACE(name + " on " + device);
      expect_every_kernel_tuned(only_result()["OPAT"], kernels);
    }
}

}  // namespace
}  // namespace aoe::test
