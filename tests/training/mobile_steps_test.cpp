// The training steps of mobilenet_v2, ocr_cls and ocr_det: the gradients of
// their activations (ReLU6 as Clip, HardSwish, HardSigmoid, Sigmoid), of
// ReduceMean, Resize and ConvTranspose.
#include <gtest/gtest.h>

#include "training_step_fixture.h"

namespace aoe::training::test {
namespace {

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

TEST(MobileSteps, OcrDetResizeAndConvTransposeGradients) {
  const auto step = step_of("ocr_det.onnx", fp32());
  const auto counts = op_counts(step);
  EXPECT_EQ(counts.at("HardSwishGrad"), 5u);
  EXPECT_EQ(counts.at("Relu6Grad"), 2u);
  EXPECT_EQ(counts.at("SigmoidGrad"), 1u);
  EXPECT_EQ(counts.at("ResizeNearestNeighborV2Grad"), 3u);
  EXPECT_EQ(counts.at("ResizeBilinearV2Grad"), 1u);
  EXPECT_EQ(kernel(step, "prob/Sigmoid/SigmoidGrad").inputs[1], "prob") << "the Sigmoid's y";
  const auto& linear = kernel(step, "neck.p3_up/Resize/ResizeBilinearV2Grad");
  EXPECT_EQ(shape(step, linear.inputs[0]), (std::vector<int64_t>{1, 24, 40, 40}));
  EXPECT_EQ(shape(step, linear.outputs[0]), (std::vector<int64_t>{1, 24, 20, 20}));
  EXPECT_EQ(linear.attrs.at("input_size"), nlohmann::json({20, 20}));
  // The head's last ConvTranspose, 18 -> 1 channels from 80 x 80 to 160 x 160.
  const auto& dx = kernel(step, "head.up2/ConvTranspose/Conv");
  EXPECT_EQ(dx.inputs[1], "head.up2.weight");
  EXPECT_EQ(shape(step, dx.inputs[0]), (std::vector<int64_t>{1, 1, 160, 160}));
  EXPECT_EQ(shape(step, dx.outputs[0]), (std::vector<int64_t>{1, 18, 80, 80}));
  EXPECT_EQ(dx.attrs.at("strides"), nlohmann::json({2, 2}));
  const auto& dw = kernel(step, "head.up2/ConvTranspose/Conv2DBackpropFilter");
  EXPECT_EQ(dw.inputs[0], dx.inputs[0]) << "dy as the Conv's x";
  EXPECT_EQ(shape(step, dw.inputs[1]), (std::vector<int64_t>{1, 18, 80, 80}));
  EXPECT_EQ(shape(step, dw.outputs[0]), (std::vector<int64_t>{18, 1, 2, 2}));
  EXPECT_EQ(shape(step, kernel(step, "head.up2/ConvTranspose/BiasAddGrad").outputs[0]), (std::vector<int64_t>{1}));
}

}  // namespace
}  // namespace aoe::training::test
