// --training through the real binary: the options, SGAT taking it, the error for an op without a gradient rule, `aoe-host step`, and an
// OPAT run whose result file and measurements name each kernel's forward op.
#include <fstream>
#include <sstream>

#include "aoe_host_fixture.h"

namespace aoe::test {
namespace {

using nlohmann::json;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST_F(AoeHostTest, TrainingOptionsRefuseBadValuesNamingTheKey) {
  auto r = tune("conv_block.onnx", {"--training", "--optimizer", "sgd"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "optimizer") && has(r.err, "momentum, adam, lamb")) << r.err;
  r = tune("conv_block.onnx", {"--training", "--training_precision", "bf16"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "training_precision")) << r.err;
}

// SGAT takes --training as OPAT and GDAT do: it tunes the step's subgraphs
// (sgat_training_test.cpp tunes them further).
TEST_F(AoeHostTest, TrainingIsForOpatSgatAndGdat) {
  const auto r = aoe_host({"--plugin", "sgat", "--device", "ascend910", "--model", model("conv_block.onnx").string(),
                           "--training", "--budget", "2"});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  EXPECT_TRUE(has(r.err + r.out, "training step (momentum, mixed precision)")) << r.err;
  const json sgat = only_result()["SGAT"];
  EXPECT_GT(sgat["training_step"]["phases"]["backward"]["subgraphs"].get<int>(), 0) << sgat.dump(1);
}

// Every bundled model has its gradient rules: a Caffe net with a TanH after
// a trained Convolution stands for a model that lacks one.
TEST_F(AoeHostTest, TrainingFromAConfigFileReachesOpatWhichNamesAnOpWithoutAGradientRule) {
  std::ofstream(dir_ / "aoe.yaml") << "training: true\noptimizer: adam\n";
  std::ofstream(dir_ / "conv_tanh.prototxt")
      << "name: \"conv_tanh\"\n"
      << "layer { name: \"x\" type: \"Input\" top: \"x\" input_param { shape { dim: 1 dim: 4 dim: 8 dim: 8 } } }\n"
      << "layer { name: \"conv\" type: \"Convolution\" bottom: \"x\" top: \"conv\" "
         "convolution_param { num_output: 4 kernel_size: 1 } }\n"
      << "layer { name: \"tanh\" type: \"TanH\" bottom: \"conv\" top: \"y\" }\n";
  const auto r = aoe_host({"--plugin", "opat", "--device", "ascend910", "--model", (dir_ / "conv_tanh.prototxt").string(),
                           "--framework", "0", "--config", "aoe.yaml"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "no gradient rule for Tanh (node 'tanh')") && has(r.err, "Conv")) << r.err;
}

TEST_F(AoeHostTest, StepPrintsTheKernelsByTypeBesideAProfile) {
  std::ofstream(dir_ / "profile.csv") << "op_name,op_type,block_dim,inputs,outputs,measured_us\n"
                                      << "a,FusedDbnDw,32,x,y,1.0\nb,FusedDbnDw,32,x,y,1.0\nc,TransData,1,x,y,1.0\n";
  const auto r = aoe_host({"step", "--model", model("resnet50.onnx").string(), "--input_shape", "input:32,3,224,224",
                           (dir_ / "profile.csv").string()});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  std::istringstream lines(r.out);
  std::map<std::string, std::pair<int, int>> rows;
  std::string kernel;
  int step = 0, profile = 0;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    if (fields >> kernel >> step >> profile) rows[kernel] = {step, profile};
  }
  EXPECT_EQ(rows["FusedDbnDw"], std::make_pair(20, 2)) << r.out;
  EXPECT_EQ(rows["FusedMulApplyMomentum"], std::make_pair(161, 0)) << r.out;
  EXPECT_EQ(rows["TransData"], std::make_pair(0, 1)) << r.out;
}

TEST_F(AoeHostTest, TrainingRunNamesEachKernelsForwardOp) {
  const auto r = tune("conv_block.onnx", {"--training", "--budget", "4"});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  EXPECT_TRUE(has(r.err + r.out, "training step (momentum, mixed precision)")) << r.err;
  EXPECT_TRUE(has(r.err + r.out, "FusionOp_Conv2D_BNTrainingReduce x1") || has(r.err + r.out, "Conv2D x2")) << r.err;
  const json opat = only_result()["OPAT"];
  size_t derived = 0;
  for (const auto* list : {&opat["opat_tuned_operators"], &opat["unsupported_operators"]})
    for (const auto& op : *list) {
      ASSERT_TRUE(op.contains("forward_op")) << op;
      derived += op["op_name"] != op["forward_op"];
    }
  EXPECT_GT(derived, 5u) << opat.dump(1);
  for (const auto& line : measurement_lines(dir_ / "aoe_workspace")) EXPECT_TRUE(line.contains("forward_op")) << line;
  const auto checked = run_process({AOE_PYTHON, AOE_VALIDATE_SCRIPT, AOE_RESULT_SCHEMA, result_files().front().string()}, dir_);
  EXPECT_EQ(checked.exit_code, 0) << checked.out << checked.err;
}

}  // namespace
}  // namespace aoe::test
