// AOE's flags as AOE users pass them: the job type without --plugin, names
// in any case, RL,GA per op class, a named result file, the exit code of a
// failed run, and AOE options aoe-host does not take refused by name.
#include <regex>
#include <set>

#include "aoe_host_fixture.h"

namespace aoe::test {
namespace {

using nlohmann::json;

TEST_F(AoeHostTest, AoeStyleCommandLineTunesOperatorsWithGaForCubeAndRlForVectorOps) {
  // No --plugin, no --job_type: operator tuning, as MindSpore's aoe_config defaults.
  const auto file = dir_ / "out" / "result.json";
  const auto r = aoe_host({"--model", model("bert_layer.onnx").string(), "--device", "Ascend910", "--searcher",
                           "RL,GA", "--budget", "4", "--log_level", "INFO", "--result_file", file.string()});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  EXPECT_TRUE(result_files().empty()) << "--result_file names the only result file";
  const json opat = result_sections(read_json(file))["OPAT"];
  size_t cube = 0, vector = 0;
  for (const auto& op : opat["opat_tuned_operators"]) {
    const std::string type = op["op_type"], searcher = op["searcher"];
    const bool is_cube = type == "MatMul" || type == "Gemm";
    EXPECT_EQ(searcher, is_cube ? "ga" : "rl") << op.dump();
    (is_cube ? cube : vector) += 1;
  }
  // The layer's projections and attention MatMuls; its Transposes, Softmax and LayerNorms.
  EXPECT_GE(cube, 4u);
  EXPECT_GE(vector, 3u);
  EXPECT_NE(r.err.find("(ga), bank:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(rl), bank:"), std::string::npos) << r.err;
}

TEST_F(AoeHostTest, SearcherPerClassByName) {
  const auto r = tune("bert_layer.onnx", {"--searcher", "vector=Random,cube=sa", "--budget", "4"});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const auto result = only_result();  // a loop over a temporary's member would outlive it
  for (const auto& op : result["OPAT"]["opat_tuned_operators"])
    EXPECT_EQ(op["searcher"], op["op_type"] == "MatMul" || op["op_type"] == "Gemm" ? "sa" : "random") << op.dump();
}

// Without --searcher: on an Ascend SoC rl tunes the cube ops and the
// surrogate the rest; elsewhere the surrogate tunes every op.
TEST_F(AoeHostTest, DefaultSearchersFollowTheDeviceAndTheOpClass) {
  const auto ascend = tune("bert_layer.onnx", {"--budget", "4"});
  ASSERT_EQ(ascend.exit_code, 0) << ascend.err;
  const auto on_ascend = only_result();
  size_t cube = 0;
  for (const auto& op : on_ascend["OPAT"]["opat_tuned_operators"]) {
    const bool is_cube = op["op_type"] == "MatMul" || op["op_type"] == "Gemm";
    EXPECT_EQ(op["searcher"], is_cube ? "rl" : "surrogate") << op.dump();
    cube += is_cube;
  }
  EXPECT_GE(cube, 4u);
  for (const auto& f : result_files()) std::filesystem::remove(f);

  const auto cpu = tune("mlp.onnx", {"--device", "cpu", "--budget", "2"});
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  const auto on_cpu = only_result();
  EXPECT_FALSE(on_cpu["OPAT"]["opat_tuned_operators"].empty());
  for (const auto& op : on_cpu["OPAT"]["opat_tuned_operators"]) EXPECT_EQ(op["searcher"], "surrogate") << op.dump();
}

TEST_F(AoeHostTest, UnreadableSearcherListsAreRefusedNamingTheItem) {
  for (const auto& [choice, says] : std::vector<std::pair<std::string, std::string>>{
           {"ga,sa", "'sa' in a list says no op class"},
           {"cube=ga,cube=rl", "cube ops are given two searchers"},
           {"matrix=ga", "'matrix' is not an op class"}}) {
    const auto r = tune("mlp.onnx", {"--searcher", choice});
    EXPECT_EQ(r.exit_code, 2) << choice << "\n" << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  }
  const auto missing = tune("mlp.onnx", {"--searcher", "cube=nosuch"});
  EXPECT_EQ(missing.exit_code, 3) << missing.err;
  EXPECT_NE(missing.err.find("no searcher named 'nosuch'"), std::string::npos) << missing.err;
}

TEST_F(AoeHostTest, JobTypeSelectsTheModeAndModeNamesTakeAnyCase) {
  const auto r = aoe_host({"--plugin", "SGAT", "--model", model("mlp.onnx").string(), "--budget", "4"});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  EXPECT_TRUE(only_result().contains("SGAT"));
}

TEST_F(AoeHostTest, AoeOptionsNotSupportedAreRefusedByName) {
  const auto weight = tune("mlp.onnx", {"--weight", "x.caffemodel"});
  EXPECT_EQ(weight.exit_code, 2);
  EXPECT_NE(weight.err.find("is a Caffe model's weights: pass --framework 0"), std::string::npos) << weight.err;
  const auto mindspore = tune("mlp.onnx", {"--framework", "1"});
  EXPECT_EQ(mindspore.exit_code, 2);
  EXPECT_NE(mindspore.err.find("framework 1 (MindSpore) is not read yet"), std::string::npos) << mindspore.err;
  const auto onnx_as_tensorflow = tune("mlp.onnx", {"--framework", "3"});
  EXPECT_NE(onnx_as_tensorflow.exit_code, 0);
  EXPECT_NE(onnx_as_tensorflow.err.find("not a GraphDef (it has no node)"), std::string::npos) << onnx_as_tensorflow.err;
  const auto om = tune("mlp.onnx", {"--output", "m.om"});
  EXPECT_EQ(om.exit_code, 2);
  EXPECT_NE(om.err.find("no offline (.om) model"), std::string::npos) << om.err;
  const auto device = tune("mlp.onnx", {}, {{"ASCEND_DEVICE_ID", "3"}});
  EXPECT_EQ(device.exit_code, 2);
  EXPECT_NE(device.err.find("has only device 0"), std::string::npos) << device.err;
  EXPECT_EQ(tune("mlp.onnx", {"--budget", "4"}, {{"ASCEND_DEVICE_ID", "0"}}).exit_code, 0);
  EXPECT_TRUE(result_files().size() == 1);
}

// The command line of AOE's quick start, on the Caffe version of conv_block:
// the same tasks, so the same bank entries, as the ONNX one.
TEST_F(AoeHostTest, CaffeModelsTuneAsAoesQuickStartTunesThem) {
  const auto onnx = tune("conv_block.onnx", {"--budget", "4"});
  ASSERT_EQ(onnx.exit_code, 0) << onnx.err;
  std::set<std::string> onnx_tasks;
  const auto from_onnx = only_result();
  for (const auto& op : from_onnx["OPAT"]["opat_tuned_operators"]) onnx_tasks.insert(op["signature_hash"].get<std::string>());
  for (const auto& f : result_files()) std::filesystem::remove(f);

  const auto caffe = aoe_host({"--framework", "0", "--model", model("conv_block.prototxt").string(), "--weight",
                               model("conv_block.caffemodel").string(), "--job_type", "2", "--device", "ascend910",
                               "--budget", "4"},
                              {{"TUNE_BANK_PATH", (dir_ / "caffe_bank").string()}});
  ASSERT_EQ(caffe.exit_code, 0) << caffe.err;
  std::set<std::string> caffe_tasks;
  const auto from_caffe = only_result();
  for (const auto& op : from_caffe["OPAT"]["opat_tuned_operators"]) caffe_tasks.insert(op["signature_hash"].get<std::string>());
  EXPECT_EQ(caffe_tasks, onnx_tasks);
  EXPECT_EQ(caffe_tasks.size(), 2u);

  // A prototxt taken for ONNX, and a caffemodel of another network, are the user's to fix.
  const auto unflagged = aoe_host({"--model", model("conv_block.prototxt").string(), "--budget", "4"});
  EXPECT_EQ(unflagged.exit_code, 2) << unflagged.err;
  EXPECT_NE(unflagged.err.find("is a Caffe prototxt: pass --framework 0"), std::string::npos) << unflagged.err;
  const auto mismatched = aoe_host({"--framework", "0", "--model", model("conv_block.prototxt").string(), "--weight",
                                    model("mlp.caffemodel").string(), "--budget", "4"});
  EXPECT_NE(mismatched.exit_code, 0);
  EXPECT_NE(mismatched.err.find("Caffe layer 'conv1' (Convolution)"), std::string::npos) << mismatched.err;
}

TEST_F(AoeHostTest, HelpListsTheAcceptedValuesOfEachOption) {
  const auto r = aoe_host({"--help"});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(--job_type .*one of 1, 2, 4)"))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(--device .*loaded: .*ascend910.*cpu)"))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(--searcher .*loaded: .*ga.*rl)"))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(--plugin .*loaded: gdat, opat, sgat)"))) << r.out;
}

}  // namespace
}  // namespace aoe::test
