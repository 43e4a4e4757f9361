// load_caffe against the generated Caffe models and prototxts written here:
// both layer forms, in-place layers, Caffe's rounding, and bad files named.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "aoe/sdk/error.h"
#include "frontend/caffe_frontend.h"
#include "graph_queries.h"

namespace aoe::host {
namespace {

using test::node_named;
using test::op_types;

namespace fs = std::filesystem;
using sdk::Error;
using Shape = std::vector<int64_t>;

const fs::path kModels = AOE_MODELS_DIR;

class CaffeFrontend : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("aoe_caffe_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& text) const {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p;
  }

  // load_caffe's error text, or "" when it loads.
  static std::string error_of(const fs::path& prototxt, const std::optional<fs::path>& weights = {},
                              const InputShapes& shapes = {}) {
    try {
      load_caffe(prototxt, weights, shapes);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
};

TEST_F(CaffeFrontend, ConvBlockReadsAsItsOnnxTwin) {
  const auto g = load_caffe(kModels / "conv_block.prototxt", kModels / "conv_block.caffemodel");
  // BatchNorm and Scale in place become one BatchNormalization.
  EXPECT_EQ(op_types(g), (std::vector<std::string>{"Conv", "BatchNormalization", "Relu", "Conv", "Add", "Relu"}));
  EXPECT_EQ(g.inputs, std::vector<std::string>{"x"});
  EXPECT_EQ(g.tensor("conv2").shape, (Shape{1, 64, 56, 56}));
  EXPECT_EQ(g.tensor("conv1/weight").shape, (Shape{64, 64, 3, 3}));
  EXPECT_TRUE(g.tensor("conv1/weight").constant);
  EXPECT_TRUE(g.tensor("bn1_scale/bias").constant);
  EXPECT_EQ(node_named(g, "conv1").attrs["pads"], nlohmann::json({1, 1, 1, 1}));
  EXPECT_EQ(g.outputs, std::vector<std::string>{"y"});
}

TEST_F(CaffeFrontend, APrototxtAloneGivesTheSameGraph) {
  const auto with = load_caffe(kModels / "conv_block.prototxt", kModels / "conv_block.caffemodel");
  const auto without = load_caffe(kModels / "conv_block.prototxt", std::nullopt);
  EXPECT_EQ(nlohmann::json(with), nlohmann::json(without));
}

TEST_F(CaffeFrontend, TheV1LayersFormWithOldInputDims) {
  const auto p = write("v1.prototxt", R"(
name: "old"
input: "data"
input_dim: 1 input_dim: 3 input_dim: 32 input_dim: 32
layers { name: "conv" type: CONVOLUTION bottom: "data" top: "conv"
         convolution_param { num_output: 8 kernel_size: 3 stride: 2 pad: 1 weight_filler { type: "xavier" } }
         blobs_lr: 1 }
layers { name: "relu" type: RELU bottom: "conv" top: "conv" }
layers { name: "pool" type: POOLING bottom: "conv" top: "pool" pooling_param { pool: AVE kernel_size: 3 stride: 2 } }
layers { name: "fc" type: INNER_PRODUCT bottom: "pool" top: "fc" inner_product_param { num_output: 10 } }
layers { name: "loss" type: SOFTMAX_LOSS bottom: "fc" bottom: "label" top: "loss" }
)");
  const auto g = load_caffe(p, std::nullopt);
  EXPECT_EQ(op_types(g), (std::vector<std::string>{"Conv", "Relu", "AveragePool", "Flatten", "Gemm"}));
  // 32 -> 16 by the conv; Caffe rounds the pooled 7.5 up to 8 where ONNX would round down.
  EXPECT_EQ(g.tensor("pool").shape, (Shape{1, 8, 8, 8}));
  EXPECT_EQ(node_named(g, "pool").attrs.value("ceil_mode", 0), 1);
  EXPECT_EQ(g.tensor("fc").shape, (Shape{1, 10}));
}

// The forks' depthwise convolution types take one group per channel, whatever `group` says.
TEST_F(CaffeFrontend, AForksDepthwiseConvolutionHasAGroupPerChannel) {
  const auto p = write("dw.prototxt", R"(
layer { name: "in" type: "Input" top: "x" input_param { shape { dim: 1 dim: 6 dim: 8 dim: 8 } } }
layer { name: "dw" type: "ConvolutionDepthwise" bottom: "x" top: "dw" convolution_param { num_output: 6 kernel_size: 3 pad: 1 } }
layer { name: "dw2" type: "DepthwiseConvolution" bottom: "dw" top: "dw2" convolution_param { num_output: 12 kernel_size: 3 stride: 2 } }
)");
  const auto g = load_caffe(p, std::nullopt);
  EXPECT_EQ(node_named(g, "dw").attrs.value("group", 0), 6);
  EXPECT_EQ(node_named(g, "dw2").attrs.value("group", 0), 6);
  EXPECT_EQ(g.tensor("dw2/weight").shape, (Shape{12, 1, 3, 3}));
  EXPECT_EQ(g.tensor("dw2").shape, (Shape{1, 12, 3, 3}));
}

TEST_F(CaffeFrontend, TrainingLayersAndTrainingPhaseAreLeftOut) {
  const auto p = write("train.prototxt", R"(
layer { name: "data" type: "Data" top: "data" top: "label" include { phase: TRAIN } }
layer { name: "input" type: "Input" top: "data" include { phase: TEST } input_param { shape { dim: 2 dim: 16 } } }
layer { name: "fc" type: "InnerProduct" bottom: "data" top: "fc" inner_product_param { num_output: 4 } }
layer { name: "drop" type: "Dropout" bottom: "fc" top: "fc" }
layer { name: "prob" type: "Softmax" bottom: "fc" top: "prob" }
layer { name: "acc" type: "Accuracy" bottom: "fc" bottom: "label" top: "acc" include { phase: TEST } }
)");
  const auto g = load_caffe(p, std::nullopt);
  EXPECT_EQ(op_types(g), (std::vector<std::string>{"Gemm", "Softmax"}));
  EXPECT_EQ(g.outputs, std::vector<std::string>{"prob"});
}

TEST_F(CaffeFrontend, BadNetworksAreErrorsNamingTheLayer) {
  const std::string input = R"(layer { name: "in" type: "Input" top: "x" input_param { shape { dim: 1 dim: 4 dim: 8 dim: 8 } } }
)";
  const auto missing = write("missing.prototxt", input + R"(layer { name: "c" type: "Convolution" bottom: "nothing" top: "c" convolution_param { num_output: 4 kernel_size: 1 } })");
  EXPECT_NE(error_of(missing).find("layer 'c' (Convolution)"), std::string::npos) << error_of(missing);
  EXPECT_NE(error_of(missing).find("reads bottom 'nothing'"), std::string::npos) << error_of(missing);

  const auto unknown = write("unknown.prototxt", input + R"(layer { name: "roi" type: "ROIPooling" bottom: "x" top: "r" })");
  EXPECT_NE(error_of(unknown).find("layer 'roi' (ROIPooling)"), std::string::npos) << error_of(unknown);
  EXPECT_NE(error_of(unknown).find("type aoe does not read"), std::string::npos) << error_of(unknown);

  const auto groups = write("groups.prototxt", input + R"(layer { name: "g" type: "Convolution" bottom: "x" top: "g" convolution_param { num_output: 6 group: 4 kernel_size: 1 } })");
  EXPECT_NE(error_of(groups).find("must divide by the groups"), std::string::npos) << error_of(groups);

  const auto garbled = write("garbled.prototxt", "layer { name: \"x\" type: ");
  EXPECT_NE(error_of(garbled).find("cannot read Caffe prototxt"), std::string::npos) << error_of(garbled);
  EXPECT_NE(error_of(garbled).find("line 1"), std::string::npos) << error_of(garbled);

  const auto huge = write("huge.prototxt", R"(layer { name: "in" type: "Input" top: "x" input_param { shape { dim: 100000000 dim: 100000000 } } })");
  EXPECT_NE(error_of(huge).find("over 2^40 elements"), std::string::npos) << error_of(huge);
}

TEST_F(CaffeFrontend, WeightsOfAnotherNetworkAreRefusedNamingTheBlob) {
  // mlp's caffemodel has no layer 'conv1'; conv_block's has, but of other shapes than this prototxt's.
  EXPECT_NE(error_of(kModels / "conv_block.prototxt", kModels / "mlp.caffemodel").find("layer 'conv1' (Convolution)"),
            std::string::npos);
  const auto wider = write("wider.prototxt", R"(layer { name: "x" type: "Input" top: "x" input_param { shape { dim: 1 dim: 32 dim: 56 dim: 56 } } }
layer { name: "conv1" type: "Convolution" bottom: "x" top: "conv1" convolution_param { num_output: 64 bias_term: false kernel_size: 3 pad: 1 } })");
  const std::string e = error_of(wider, kModels / "conv_block.caffemodel");
  EXPECT_NE(e.find("layer 'conv1'"), std::string::npos) << e;
  EXPECT_NE(e.find("[64,64,3,3] in the caffemodel, but the prototxt makes it [64,32,3,3]"), std::string::npos) << e;
  EXPECT_NE(error_of(kModels / "conv_block.prototxt", dir_ / "absent.caffemodel").find("--weight"), std::string::npos);
  const auto junk = write("junk.caffemodel", "\xff\xff\xff not protobuf");
  EXPECT_NE(error_of(kModels / "conv_block.prototxt", junk).find("cannot parse Caffe weights"), std::string::npos);
}

TEST_F(CaffeFrontend, AnInputWithoutAShapeNeedsInputShape) {
  const auto p = write("data.prototxt", R"(layer { name: "data" type: "Data" top: "data" top: "label" }
layer { name: "fc" type: "InnerProduct" bottom: "data" top: "fc" inner_product_param { num_output: 4 } })");
  EXPECT_NE(error_of(p).find("give it with --input_shape"), std::string::npos) << error_of(p);
  const auto g = load_caffe(p, std::nullopt, {{"data", {2, 3, 4, 4}}});
  EXPECT_EQ(g.tensor("fc").shape, (Shape{2, 4}));
  EXPECT_NE(error_of(p, {}, {{"image", {1, 2}}}).find("not an input"), std::string::npos);
}

}  // namespace
}  // namespace aoe::host
