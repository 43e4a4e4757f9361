// Every op of the OCR-style models (ConvTranspose, Resize, standalone
// BatchNormalization, Concat, Split, HardSwish, HardSigmoid, ...) is tuned or timed on
// the simulator and on the cpu device: nothing is left out of the model
// time, and the result file says so.
#include <map>
#include <set>

#include "aoe_host_fixture.h"

namespace aoe::test {
namespace {

using nlohmann::json;

std::set<std::string> op_types(const json& opat) {
  std::set<std::string> out;
  for (const auto& op : opat["opat_tuned_operators"]) out.insert(op["op_type"].get<std::string>());
  return out;
}

void expect_all_covered(const json& opat, const std::string& where) {
  EXPECT_EQ(opat["opat_tuning_result"], "tuning successful") << where << opat.dump(2);
  EXPECT_TRUE(opat["untimed_operators"].empty()) << where << opat["untimed_operators"].dump();
  EXPECT_TRUE(opat["unsupported_operators"].empty()) << where << opat["unsupported_operators"].dump(2);
  EXPECT_GT(opat["model_baseline_performance(ms)"].get<double>(), 0) << where;
}

TEST_F(AoeHostTest, OcrDetectorIsCoveredOnSimulatorAndCpu) {
  for (const std::string device : {"ascend910", "cpu"}) {
    const auto r = tune("ocr_det.onnx", {"--device", device, "--budget", "1"});
    ASSERT_EQ(r.exit_code, 0) << device << r.err;
    const json opat = only_result()["OPAT"];
    expect_all_covered(opat, device + ": ");
    const auto types = op_types(opat);
    for (const char* t : {"ConvTranspose", "Resize", "BatchNormalization", "Concat", "Sigmoid", "Conv"})
      EXPECT_TRUE(types.count(t)) << device << " did not tune or time " << t;
    EXPECT_EQ(r.err.find("not tuned, the device does not run them"), std::string::npos) << r.err;
    for (const auto& f : result_files()) std::filesystem::remove(f);
  }
}

// The detector runs whole on the cpu device: its standalone BatchNormalization
// after the Concat, its Resizes and its ConvTransposes (each reading another
// kernel's output) match the reference.
TEST_F(AoeHostTest, OcrDetectorRunsWholeOnTheCpu) {
  const auto r = aoe_host({"run", "--device", "cpu", "--model", model("ocr_det.onnx").string(), "--threads", "1",
                           "--iterations", "1", "--check"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("check: outputs match the reference"), std::string::npos) << r.out;
}

TEST_F(AoeHostTest, OcrClassifierIsCoveredOnSimulatorAndCpu) {
  for (const std::string device : {"ascend910", "cpu"}) {
    const auto r = tune("ocr_cls.onnx", {"--device", device, "--budget", "1"});
    ASSERT_EQ(r.exit_code, 0) << device << r.err;
    const json opat = only_result()["OPAT"];
    expect_all_covered(opat, device + ": ");
    const auto types = op_types(opat);
    for (const char* t : {"Split", "Concat", "GlobalAveragePool", "ReduceMean", "Softmax", "Gemm"})
      EXPECT_TRUE(types.count(t)) << device << " did not tune or time " << t;
    for (const auto& f : result_files()) std::filesystem::remove(f);
  }
}

TEST_F(AoeHostTest, SubgraphTuningCoversTheOcrDetectorOnTheSimulator) {
  const auto r = aoe_host({"--plugin", "sgat", "--device", "ascend910", "--model", model("ocr_det.onnx").string(),
                           "--budget", "2"});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const json sgat = only_result()["SGAT"];
  EXPECT_EQ(sgat["sgat_tuning_result"], "tuning successful") << sgat.dump(2);
  EXPECT_TRUE(sgat["untimed_operators"].empty()) << sgat["untimed_operators"].dump();
  EXPECT_GT(sgat["model_baseline_performance(ms)"].get<double>(), 0);
}

// An op the device has no kernel for is named in untimed_operators, and the
// model time is what the rest took.
TEST_F(AoeHostTest, ResultFileNamesWhatNoDeviceTimed) {
  std::ofstream(dir_ / "ops.json") << R"([
    {"op": "StringNormalizer", "name": "pick", "input_desc": [{"shape": [8, 32], "type": "float32"}],
     "output_desc": [{"shape": [8, 32], "type": "float32"}]},
    {"op": "Relu", "name": "act", "input_desc": [{"shape": [8, 32], "type": "float32"}],
     "output_desc": [{"shape": [8, 32], "type": "float32"}]}])";
  const auto r = aoe_host({"--plugin", "opat", "--device", "cpu", "--singleop", (dir_ / "ops.json").string(),
                           "--budget", "2"});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const json opat = only_result()["OPAT"];
  EXPECT_EQ(opat["untimed_operators"], json::array({"pick"})) << opat.dump(2);
  EXPECT_GT(opat["model_baseline_performance(ms)"].get<double>(), 0);
  EXPECT_NE(r.err.find("not tuned, the device does not run them: StringNormalizer x1"), std::string::npos) << r.err;
}

// A 1-D pool is timed on the simulator as a 2-D one of height 1, a 3-D one
// as 2-D pools over the depth slices under each output slice; a pool over
// four spatial axes is listed with the reason, and the run goes on.
TEST_F(AoeHostTest, PoolsOfOneToThreeDimensionsAreTimedAndOfFourListed) {
  std::ofstream(dir_ / "ops.json") << R"([
    {"op": "MaxPool", "name": "pool1d", "input_desc": [{"shape": [1, 16, 64], "type": "float16"}],
     "output_desc": [{"shape": [1, 16, 32], "type": "float16"}],
     "attr": [{"name": "kernel_shape", "value": [2]}, {"name": "strides", "value": [2]}]},
    {"op": "AveragePool", "name": "pool3d", "input_desc": [{"shape": [1, 3, 8, 8, 8], "type": "float16"}],
     "output_desc": [{"shape": [1, 3, 4, 4, 4], "type": "float16"}],
     "attr": [{"name": "kernel_shape", "value": [2, 2, 2]}, {"name": "strides", "value": [2, 2, 2]}]},
    {"op": "MaxPool", "name": "pool4d", "input_desc": [{"shape": [1, 3, 4, 4, 4, 4], "type": "float16"}],
     "output_desc": [{"shape": [1, 3, 2, 2, 2, 2], "type": "float16"}],
     "attr": [{"name": "kernel_shape", "value": [2, 2, 2, 2]}, {"name": "strides", "value": [2, 2, 2, 2]}]}])";
  const auto r = aoe_host({"--plugin", "opat", "--device", "ascend910", "--singleop", (dir_ / "ops.json").string(),
                           "--budget", "2"});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const json opat = only_result()["OPAT"];
  EXPECT_EQ(opat["opat_tuning_result"], "tuning successful") << opat.dump(2);
  std::map<std::string, std::string> reasons;
  for (const auto& op : opat["unsupported_operators"]) reasons[op["op_name"].get<std::string>()] = op["reason"];
  ASSERT_EQ(reasons.size(), 1u) << opat["unsupported_operators"].dump(2);
  EXPECT_NE(reasons["pool4d"].find("6-D is not"), std::string::npos) << reasons["pool4d"];
  EXPECT_TRUE(op_types(opat).count("MaxPool")) << opat.dump(2);
  EXPECT_TRUE(op_types(opat).count("AveragePool")) << opat.dump(2);
}

// The ops of detectors, audio front ends and ONNX's training domain are
// tuned on the simulator: NonMaxSuppression (its box limit a constant),
// RoiAlign, NonZero, MeanVarianceNormalization, DFT and Momentum over two
// weights; none is listed.
TEST_F(AoeHostTest, DetectionAudioAndOptimizerOpsAreTunedOnTheSimulator) {
  std::ofstream(dir_ / "ops.json") << R"([
    {"op": "NonMaxSuppression", "name": "nms",
     "input_desc": [{"shape": [1, 200, 4], "type": "float32"}, {"shape": [1, 4, 200], "type": "float32"},
                    {"shape": [1], "type": "int64"}],
     "output_desc": [{"shape": [80, 3], "type": "int64"}],
     "attr": [{"name": "max_output_boxes_per_class", "value": 20}]},
    {"op": "RoiAlign", "name": "align",
     "input_desc": [{"shape": [1, 64, 32, 32], "type": "float32"}, {"shape": [50, 4], "type": "float32"},
                    {"shape": [50], "type": "int64"}],
     "output_desc": [{"shape": [50, 64, 7, 7], "type": "float32"}],
     "attr": [{"name": "output_height", "value": 7}, {"name": "output_width", "value": 7},
              {"name": "sampling_ratio", "value": 2}]},
    {"op": "NonZero", "name": "mask", "input_desc": [{"shape": [64, 64], "type": "bool"}],
     "output_desc": [{"shape": [2, 4096], "type": "int64"}]},
    {"op": "MeanVarianceNormalization", "name": "mvn", "input_desc": [{"shape": [2, 16, 32, 32], "type": "float32"}],
     "output_desc": [{"shape": [2, 16, 32, 32], "type": "float32"}]},
    {"op": "DFT", "name": "spectrum", "input_desc": [{"shape": [4, 256, 1], "type": "float32"}],
     "output_desc": [{"shape": [4, 129, 2], "type": "float32"}],
     "attr": [{"name": "axis", "value": 1}, {"name": "onesided", "value": 1}]},
    {"op": "Momentum", "name": "update",
     "input_desc": [{"shape": [], "type": "float32"}, {"shape": [], "type": "int64"},
                    {"shape": [64, 64], "type": "float32"}, {"shape": [64], "type": "float32"},
                    {"shape": [64, 64], "type": "float32"}, {"shape": [64], "type": "float32"},
                    {"shape": [64, 64], "type": "float32"}, {"shape": [64], "type": "float32"}],
     "output_desc": [{"shape": [64, 64], "type": "float32"}, {"shape": [64], "type": "float32"},
                     {"shape": [64, 64], "type": "float32"}, {"shape": [64], "type": "float32"}],
     "attr": [{"name": "alpha", "value": 0.9}, {"name": "beta", "value": 1.0}, {"name": "mode", "value": "standard"},
              {"name": "norm_coefficient", "value": 0.0}]}])";
  const auto r = aoe_host({"--plugin", "opat", "--device", "ascend910", "--singleop", (dir_ / "ops.json").string(),
                           "--budget", "2"});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const json opat = only_result()["OPAT"];
  expect_all_covered(opat, "ascend910: ");
  const auto types = op_types(opat);
  for (const char* t : {"NonMaxSuppression", "RoiAlign", "NonZero", "MeanVarianceNormalization", "DFT", "Momentum"})
    EXPECT_TRUE(types.count(t)) << "did not tune or time " << t << ": " << opat.dump(2);
}

// A training step's kernels as single ops (docs/training.md): each tuned
// or timed on the cpu device, every candidate checked there against its
// reference, none left out.
TEST_F(AoeHostTest, TrainingStepKernelsAreTunedOnTheCpu) {
  std::ofstream(dir_ / "step.json") << R"([
    {"op": "Conv2DBackpropFilter", "name": "conv1_dw",
     "input_desc": [{"shape": [2, 8, 14, 14], "type": "float32"}, {"shape": [2, 16, 7, 7], "type": "float32"}],
     "output_desc": [{"shape": [16, 8, 3, 3], "type": "float32"}],
     "attr": [{"name": "kernel_shape", "value": [3, 3]}, {"name": "strides", "value": [2, 2]},
              {"name": "pads", "value": [1, 1, 1, 1]}]},
    {"op": "Conv2DBackpropInput", "name": "conv1_dx",
     "input_desc": [{"shape": [2, 16, 7, 7], "type": "float32"}, {"shape": [16, 8, 3, 3], "type": "float32"}],
     "output_desc": [{"shape": [2, 8, 14, 14], "type": "float32"}],
     "attr": [{"name": "kernel_shape", "value": [3, 3]}, {"name": "strides", "value": [2, 2]},
              {"name": "pads", "value": [1, 1, 1, 1]}, {"name": "input_size", "value": [14, 14]}]},
    {"op": "BatchMatMul", "name": "fc_dw",
     "input_desc": [{"shape": [32, 64], "type": "float32"}, {"shape": [32, 10], "type": "float32"}],
     "output_desc": [{"shape": [64, 10], "type": "float32"}],
     "attr": [{"name": "adj_x1", "value": 1}, {"name": "adj_x2", "value": 0}]},
    {"op": "BNTrainingUpdate", "name": "bn1",
     "input_desc": [{"shape": [2, 16, 7, 7], "type": "float32"}, {"shape": [16], "type": "float32"},
                    {"shape": [16], "type": "float32"}, {"shape": [16], "type": "float32"},
                    {"shape": [16], "type": "float32"}],
     "output_desc": [{"shape": [2, 16, 7, 7], "type": "float32"}, {"shape": [16], "type": "float32"},
                     {"shape": [16], "type": "float32"}],
     "attr": [{"name": "epsilon", "value": 0.001}]},
    {"op": "ApplyMomentum", "name": "conv1_update",
     "input_desc": [{"shape": [16, 8, 3, 3], "type": "float32"}, {"shape": [16, 8, 3, 3], "type": "float32"},
                    {"shape": [16, 8, 3, 3], "type": "float32"}],
     "output_desc": [{"shape": [16, 8, 3, 3], "type": "float32"}, {"shape": [16, 8, 3, 3], "type": "float32"}],
     "attr": [{"name": "lr", "value": 0.1}, {"name": "momentum", "value": 0.9}]}])";
  const auto r = aoe_host({"--plugin", "opat", "--device", "cpu", "--singleop", (dir_ / "step.json").string(),
                           "--budget", "4"});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const json opat = only_result()["OPAT"];
  expect_all_covered(opat, "cpu: ");
  const auto types = op_types(opat);
  for (const char* t : {"Conv2DBackpropFilter", "Conv2DBackpropInput", "BatchMatMul", "BNTrainingUpdate", "ApplyMomentum"})
    EXPECT_TRUE(types.count(t)) << "did not tune or time " << t << ": " << opat.dump(2);
}

}  // namespace
}  // namespace aoe::test
