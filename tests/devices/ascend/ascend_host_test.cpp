// aoe-host with the ascend device: listed as unavailable and refused with
// the reason where there is no libascendcl.so; against the test double, an
// OPAT run end to end, its result file and a bank keyed by the mapped SoC.
#include <set>

#include "aoe_host_fixture.h"

namespace aoe::test {
namespace {

using nlohmann::json;

const std::string kMissing = "unavailable: libascendcl.so not found (set ASCEND_HOME_PATH)";

std::set<std::string> folders(const std::filesystem::path& dir) {
  std::set<std::string> out;
  if (std::filesystem::exists(dir))
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.is_directory()) out.insert(e.path().filename().string());
  return out;
}

class AscendHost : public AoeHostTest {
 protected:
  // The double where CANN keeps the library, $ASCEND_HOME_PATH/lib64.
  std::map<std::string, std::string> with_double(std::map<std::string, std::string> env = {}) const {
    env.emplace("ASCEND_HOME_PATH", AOE_ACL_DOUBLE_HOME);
    env.emplace("ACL_DOUBLE_SOC", "Ascend910ProB");
    return env;
  }
  // ASCEND_HOME_PATH at a folder with no lib64: nothing to find.
  std::map<std::string, std::string> without_library() const { return {{"ASCEND_HOME_PATH", dir_.string()}}; }

  // Every config of the device's spaces (8 each) is measured: the outcome is the spaces' optimum.
  static std::vector<std::string> tune_ascend(const std::string& model, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"--plugin", "opat", "--device", "ascend", "--model", AoeHostTest::model(model).string(),
                                     "--searcher", "exhaustive", "--budget", "8"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }
};

TEST_F(AscendHost, ListsAscendAsUnavailableWithoutLibascendcl) {
  const auto r = aoe_host({"plugins"}, without_library());
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const auto row = r.out.find("\nascend ");
  ASSERT_NE(row, std::string::npos) << r.out;
  EXPECT_NE(r.out.find(kMissing, row), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("refused"), std::string::npos) << r.out;
}

TEST_F(AscendHost, ARunOnAscendWithoutLibascendclExitsSayingWhy) {
  const auto r = aoe_host(tune_ascend("mlp.onnx"), without_library());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find(kMissing), std::string::npos) << r.err;
  EXPECT_TRUE(result_files().empty());
}

TEST_F(AscendHost, ListsTheLibraryFoundThroughAscendHomePath) {
  const auto r = aoe_host({"plugins"}, with_double());
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  EXPECT_NE(r.out.find(std::string(AOE_ACL_DOUBLE_HOME) + "/lib64/libascendcl.so"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(kMissing), std::string::npos) << r.out;
}

TEST_F(AscendHost, TunesAModelEndToEndIntoABankKeyedByTheMappedSoc) {
  const auto r = aoe_host(tune_ascend("mlp.onnx"), with_double());
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  EXPECT_NE(r.err.find("6 nodes fused into 3 ops"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("process finished. Performance improved by"), std::string::npos) << r.err;
  const json result = only_result();
  EXPECT_EQ(result["basic"]["soc_version"], "Ascend910");
  const json opat = result["OPAT"];
  EXPECT_EQ(opat["opat_tuning_result"], "tuning successful") << opat.dump(2);
  EXPECT_EQ(opat["repo_summary"]["total_num"], 3);
  EXPECT_EQ(opat["repo_summary"]["repo_add_num"], 3);
  for (const auto& op : opat["opat_tuned_operators"])
    EXPECT_LT(op["performance_after_tune(us)"].get<double>(), op["performance_before_tune(us)"].get<double>()) << op.dump();
  EXPECT_EQ(folders(bank_ / "op"), std::set<std::string>{"Ascend910"});
  // The simulator of the same chip files its tunings under the same soc_version.
  for (const auto& f : result_files()) std::filesystem::remove(f);
  const auto sim = tune("mlp.onnx", {"--searcher", "exhaustive", "--budget", "1"},
                        {{"TUNE_BANK_PATH", (dir_ / "sim_bank").string()}});
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  EXPECT_EQ(only_result()["basic"]["soc_version"], "Ascend910");
}

TEST_F(AscendHost, ASecondRunHitsTheBank) {
  ASSERT_EQ(aoe_host(tune_ascend("mlp.onnx"), with_double()).exit_code, 0);
  for (const auto& f : result_files()) std::filesystem::remove(f);
  const auto r = aoe_host(tune_ascend("mlp.onnx"), with_double());
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const json summary = only_result()["OPAT"]["repo_summary"];
  EXPECT_EQ(summary["repo_hit_num"], 3) << summary.dump();
  EXPECT_EQ(summary["repo_add_num"], 0) << summary.dump();
}

TEST_F(AscendHost, FailingCandidatesAreRecordedAndTheRunGoesOn) {
  const auto r = aoe_host(tune_ascend("conv_block.onnx"),
                          with_double({{"ACL_DOUBLE_FAULTS", "compile:Conv2D:FRACTAL_Z,run:Conv2D:NC1HWC0"}}));
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const json opat = only_result()["OPAT"];
  EXPECT_EQ(opat["repo_summary"]["total_num"], 2) << opat.dump(2);
  // With both faster formats failing, only the implementation mode is left: the default stays best.
  EXPECT_EQ(opat["repo_summary"]["repo_unsatisfied_num"], 2) << opat.dump(2);
}

// ASCEND_DEVICE_ID picks the NPU as CANN's tools take it; --device_id the
// device was not told of is refused, naming how to give it.
TEST_F(AscendHost, AscendDeviceIdPicksTheNpu) {
  const auto second = aoe_host(tune_ascend("mlp.onnx"), with_double({{"ACL_DOUBLE_DEVICE_COUNT", "2"}, {"ASCEND_DEVICE_ID", "1"}}));
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const auto beyond = aoe_host(tune_ascend("mlp.onnx"), with_double({{"ACL_DOUBLE_DEVICE_COUNT", "2"}, {"ASCEND_DEVICE_ID", "2"}}));
  EXPECT_NE(beyond.exit_code, 0);
  const auto flag_only = aoe_host(tune_ascend("mlp.onnx", {"--device_id", "1"}), with_double({{"ACL_DOUBLE_DEVICE_COUNT", "2"}}));
  EXPECT_EQ(flag_only.exit_code, 2) << flag_only.err;
  EXPECT_NE(flag_only.err.find("opened device 0; give the number as ASCEND_DEVICE_ID"), std::string::npos) << flag_only.err;
}

}  // namespace
}  // namespace aoe::test
