// SGAT --training through the real binary: the training step's subgraphs
// (forward, loss, backward, optimizer) tuned on the simulator and on the cpu
// device, each named with the forward ops it comes from in the result file
// and the measurements, banked, and found in the bank by a second run.
#include <filesystem>
#include <fstream>
#include <set>

#include "aoe_host_fixture.h"

namespace aoe::test {
namespace {

using nlohmann::json;

std::vector<std::string> sgat_training(const std::string& device, const std::filesystem::path& model,
                                       const std::string& budget) {
  return {"--plugin", "sgat", "--device", device, "--model", model.string(), "--training", "--budget", budget};
}

// Every phase has subgraphs; the backward's and optimizer's name forward
// ops the forward's subgraphs run; a subgraph is tuned, or listed untuned
// with the device's reason, and none failed.
void expect_step_subgraphs(const json& sgat) {
  ASSERT_TRUE(sgat.contains("training_step")) << sgat.dump(1);
  const json& phases = sgat["training_step"]["phases"];
  for (const char* phase : {"forward", "loss", "backward", "optimizer"})
    EXPECT_GT(phases[phase]["subgraphs"].get<int>(), 0) << phase << ": " << phases.dump(1);
  EXPECT_NE(sgat["sgat_tuning_result"], "tuning failed") << sgat.dump(1);
  std::set<std::string> forward_ops;
  for (const auto& s : sgat["sgat_tuned_subgraphs"])
    if (s["phase"] == "forward")
      for (const auto& op : s["forward_ops"]) forward_ops.insert(op.get<std::string>());
  ASSERT_FALSE(forward_ops.empty());
  std::set<std::string> later_phases;
  for (const auto& s : sgat["sgat_tuned_subgraphs"]) {
    ASSERT_TRUE(s.contains("phase") && s.contains("forward_ops")) << s.dump(1);
    EXPECT_NE(s["repo"], "failed") << s.dump(1);
    if (s["repo"] == "untuned") EXPECT_FALSE(s["reason"].get<std::string>().empty()) << s.dump(1);
    const std::string phase = s["phase"];
    const std::string name = s["subgraph_name"];
    EXPECT_NE(name.find(" " + phase + ": "), std::string::npos) << name;
    if (phase != "backward" && phase != "optimizer") continue;
    later_phases.insert(phase);
    ASSERT_FALSE(s["forward_ops"].empty()) << s.dump(1);
    for (const auto& op : s["forward_ops"]) EXPECT_TRUE(forward_ops.count(op.get<std::string>())) << op << " in " << name;
    const std::string first = s["forward_ops"][0];
    EXPECT_NE(name.find(first.substr(0, first.find('+'))), std::string::npos) << name << " does not name " << first;
  }
  EXPECT_EQ(later_phases, (std::set<std::string>{"backward", "optimizer"}));
}

// The step's tuned figures: before and after of every phase, and of the step.
void expect_step_timed(const json& sgat) {
  double before = 0;
  for (const auto& [phase, figures] : sgat["training_step"]["phases"].items())
    before += figures["performance_before_tune(ms)"].get<double>();
  EXPECT_GT(before, 0);
  EXPECT_NEAR(before, sgat["model_baseline_performance(ms)"].get<double>(), 1e-9 + before * 1e-9);
  EXPECT_LE(sgat["model_result_performance(ms)"].get<double>(), sgat["model_baseline_performance(ms)"].get<double>());
}

TEST_F(AoeHostTest, SgatTunesTheTrainingStepOfConvBlockOnTheSimulatorThenStartsFromTheBank) {
  const auto first = aoe_host(sgat_training("ascend910", model("conv_block.onnx"), "16"));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE((first.err + first.out).find("training step (momentum, mixed precision)"), std::string::npos) << first.err;
  const json tuned = only_result()["SGAT"];
  expect_step_subgraphs(tuned);
  expect_step_timed(tuned);
  // The simulator times every kernel of the step.
  EXPECT_TRUE(tuned["unsupported_subgraphs"].empty()) << tuned["unsupported_subgraphs"].dump(1);
  EXPECT_EQ(tuned["sgat_tuning_result"], "tuning successful");
  std::set<std::string> added;
  for (const auto& s : tuned["sgat_tuned_subgraphs"])
    if (s["repo"] == "add") added.insert(s["bank_entry"].get<std::string>());
  ASSERT_FALSE(added.empty()) << "no subgraph of the step was banked: " << tuned.dump(1);
  bool backward_banked = false;
  for (const auto& s : tuned["sgat_tuned_subgraphs"])
    backward_banked = backward_banked || (s["repo"] == "add" && s["phase"] != "forward");
  EXPECT_TRUE(backward_banked) << "only forward subgraphs gained: " << tuned.dump(1);

  // The measurements name each later phase's subgraph with its forward ops.
  bool named = false;
  for (const auto& line : measurement_lines(dir_ / "aoe_workspace"))
    if (line["task"].get<std::string>().find(" backward: ") != std::string::npos)
      named = named || (line.contains("forward_op") && !line["forward_op"].get<std::string>().empty());
  EXPECT_TRUE(named) << "no measurement of a backward subgraph names its forward ops";

  for (const auto& f : result_files()) std::filesystem::remove(f);
  const auto second = aoe_host(sgat_training("ascend910", model("conv_block.onnx"), "16"));
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const json again = only_result()["SGAT"];
  for (const auto& s : again["sgat_tuned_subgraphs"])
    if (added.count(s["bank_entry"].get<std::string>())) {
      EXPECT_EQ(s["repo"], "reserved") << s.dump(1);
      EXPECT_EQ(s["evaluations"], 0) << s.dump(1);
    }
  EXPECT_EQ(again["repo_summary"]["repo_add_num"], 0) << again["repo_summary"].dump();
  EXPECT_EQ(again["repo_summary"]["repo_hit_num"].get<size_t>(), added.size()) << again["repo_summary"].dump();
}

TEST_F(AoeHostTest, SgatTunesTheTrainingStepOfConvBlockOnTheCpu) {
  const auto r = aoe_host(sgat_training("cpu", model("conv_block.onnx"), "4"));
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  EXPECT_NE((r.err + r.out).find("training step (momentum, fp32)"), std::string::npos) << r.err;
  const json sgat = only_result()["SGAT"];
  expect_step_subgraphs(sgat);
  expect_step_timed(sgat);
}

TEST_F(AoeHostTest, SgatTunesTheTrainingStepOfTheMlpOnBothDevicesWithEachOptimizer) {
  for (const std::string device : {"ascend910", "cpu"})
    for (const std::string optimizer : {"momentum", "adam", "lamb"}) {
      SCOPED_TRACE(device + " " + optimizer);
      for (const auto& f : result_files()) std::filesystem::remove(f);
      auto args = sgat_training(device, model("mlp.onnx"), "4");
      args.insert(args.end(), {"--optimizer", optimizer});
      const auto r = aoe_host(args);
      ASSERT_EQ(r.exit_code, 0) << failure_text(r);
      const json sgat = only_result()["SGAT"];
      expect_step_subgraphs(sgat);
      EXPECT_EQ(sgat["training_step"]["optimizer"], optimizer);
    }
}

// A transformer layer: its attention and GELU gradients in subgraphs too.
TEST_F(AoeHostTest, SgatTunesTheTrainingStepOfBertLayerOnTheSimulator) {
  const auto r = aoe_host(sgat_training("ascend910", model("bert_layer.onnx"), "4"));
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const json sgat = only_result()["SGAT"];
  expect_step_subgraphs(sgat);
  expect_step_timed(sgat);
}

// On the cpu every subgraph is checked against its nodes run one by one:
// the forward's attention leaves its probabilities and merged context to the
// backward, outputs that inference never checks.
TEST_F(AoeHostTest, SgatTunesTheTrainingStepOfBertLayerOnTheCpu) {
  const auto r = aoe_host(sgat_training("cpu", model("bert_layer.onnx"), "2"));
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const json sgat = only_result()["SGAT"];
  expect_step_subgraphs(sgat);
  for (const auto& s : sgat["sgat_tuned_subgraphs"]) EXPECT_NE(s["repo"], "untuned") << s.dump(1);
}

// The cpu device tunes no float16 kernel: in mixed precision the subgraphs
// of float16 activations are listed untuned with its reason, the float32
// updates are tuned, and the run is no failure.
TEST_F(AoeHostTest, SgatTrainingListsWhatTheDeviceCannotTimeUntunedWithTheReason) {
  auto args = sgat_training("cpu", model("mlp.onnx"), "2");
  args.insert(args.end(), {"--training_precision", "mixed"});
  const auto r = aoe_host(args);
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const json sgat = only_result()["SGAT"];
  EXPECT_EQ(sgat["sgat_tuning_result"], "tuning successful") << sgat.dump(1);
  EXPECT_FALSE(sgat.contains("tuning_failed_subgraphs")) << sgat.dump(1);
  size_t untuned = 0, tuned = 0;
  for (const auto& s : sgat["sgat_tuned_subgraphs"]) {
    if (s["repo"] == "untuned") {
      ++untuned;
      EXPECT_NE(s["reason"].get<std::string>().find("float16"), std::string::npos) << s.dump(1);
    } else {
      ++tuned;
      EXPECT_EQ(s["phase"], "optimizer") << s.dump(1);
    }
  }
  EXPECT_GT(untuned, 0u);
  EXPECT_GT(tuned, 0u);
  EXPECT_EQ(sgat["unsupported_subgraphs"].size(), untuned);
  EXPECT_EQ(sgat["training_step"]["phases"]["backward"]["untuned"], sgat["training_step"]["phases"]["backward"]["subgraphs"]);
  EXPECT_FALSE(sgat["untimed_operators"].empty());
}

// What the step cannot derive is the user's to fix, as for OPAT.
TEST_F(AoeHostTest, SgatTrainingRefusesAnUnknownOptimizerNamingIt) {
  auto args = sgat_training("ascend910", model("conv_block.onnx"), "4");
  args.insert(args.end(), {"--optimizer", "sgd"});
  const auto r = aoe_host(args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("momentum, adam, lamb"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace aoe::test
