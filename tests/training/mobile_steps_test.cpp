// The training steps of mobilenet_v2 and ocr_cls: the gradients of their
// activations (ReLU6 as Clip, HardSwish, HardSigmoid) and of ReduceMean.
#include <gtest/gtest.h>

#include "training_step_fixture.h"

namespace aoe::training::test {
namespace {

StepOptions fp32() {
  StepOptions o;
  o.mixed = false;
  return o;
}

TEST(MobileSteps, MobileNetV2TakesReluSixsGradientFromEachClipsInput) {
  const auto step = step_of("mobilenet_v2.onnx", fp32());
  const auto counts = op_counts(step);
  EXPECT_EQ(counts.at("Clip"), 35u);
  EXPECT_EQ(counts.at("Relu6Grad"), 35u);
  EXPECT_EQ(counts.at("Conv2DBackpropFilter"), 52u);
  EXPECT_EQ(counts.at("Conv2DBackpropInput"), 51u) << "every conv but the stem's";
  EXPECT_EQ(counts.at("AddN"), 10u) << "one per shortcut";
  EXPECT_EQ(counts.at("GlobalAveragePoolGrad"), 1u);
  for (const auto* clip : kernels_of(step, "Clip")) {
    const auto& grad = kernel(step, clip->name + "/Relu6Grad");
    EXPECT_EQ(grad.inputs[1], clip->inputs[0]) << grad.name << " reads the Clip's x";
    EXPECT_EQ(shape(step, grad.outputs[0]), shape(step, clip->inputs[0]));
  }
}

TEST(MobileSteps, OcrClsHardActivationsAndTheMeanOverTheMap) {
  const auto step = step_of("ocr_cls.onnx", fp32());
  const auto counts = op_counts(step);
  EXPECT_EQ(counts.at("HardSwishGrad"), 4u);
  EXPECT_EQ(counts.at("HardSigmoidGrad"), 1u);
  EXPECT_EQ(counts.at("Relu6Grad"), 1u);
  EXPECT_EQ(counts.at("GlobalAveragePoolGrad"), 2u) << "the squeeze-excite pool's and the ReduceMean's";
  const auto& gate = kernel(step, "se.gate/HardSigmoid/HardSigmoidGrad");
  EXPECT_EQ(gate.inputs[1], "se.fc2");
  EXPECT_NEAR(gate.attrs.at("alpha").get<double>(), 0.2, 1e-6);
  EXPECT_NEAR(gate.attrs.at("beta").get<double>(), 0.5, 1e-6);
  // The mean over H and W of 1 x 64 x 12 x 48, its gradient spread back from 1 x 64 x 1 x 1.
  const auto& mean = kernel(step, "pool/ReduceMean/GlobalAveragePoolGrad");
  EXPECT_EQ(shape(step, mean.inputs[0]), (std::vector<int64_t>{1, 64, 1, 1}));
  EXPECT_EQ(shape(step, mean.outputs[0]), (std::vector<int64_t>{1, 64, 12, 48}));
  EXPECT_EQ(mean.attrs.at("input_size"), nlohmann::json({12, 48}));
}

}  // namespace
}  // namespace aoe::training::test
