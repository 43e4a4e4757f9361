// `aoe-host export kernel_tuner`: a task's measurements as a Kernel Tuner
// cachefile, replayed by the replay device to the same best config and time.
#include <map>

#include "aoe_host_fixture.h"

namespace aoe::test {
namespace {

using nlohmann::json;

std::filesystem::path only_workspace(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> found;
  for (const auto& e : std::filesystem::directory_iterator(dir / "aoe_workspace")) found.push_back(e.path());
  EXPECT_EQ(found.size(), 1u);
  return found.empty() ? std::filesystem::path() : found.front();
}

TEST_F(AoeHostTest, KernelTunerExportReplaysToTheSameBest) {
  // A budget at which the search beats the 3x3 conv's default tiling.
  ASSERT_EQ(tune("conv_block.onnx", {"--budget", "32"}).exit_code, 0);
  const json op = only_result()["OPAT"]["opat_tuned_operators"][0];
  ASSERT_EQ(op["repo"], "add") << op.dump(2);
  const auto workspace = only_workspace(dir_);
  for (const auto& f : result_files()) std::filesystem::remove(f);

  // The task's lines of the log: the best config and time, and how many configs.
  json best;
  std::map<std::string, int> configs;
  std::ifstream log(workspace / "measurements.jsonl");
  for (std::string text; std::getline(log, text);) {
    const json line = json::parse(text);
    if (line["signature"] != op["signature_hash"]) continue;
    configs[line["config"].dump()]++;
    if (line["status"] == "ok" && (best.is_null() || line["time_us"] < best["time_us"])) best = line;
  }
  ASSERT_FALSE(best.is_null());

  const auto cachefile = dir_ / "conv.json";
  const auto exported = aoe_host({"export", "kernel_tuner", workspace.string(), "--task",
                                  op["signature_hash"].get<std::string>(), "-o", cachefile.string()});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const json kt = read_json(cachefile);
  EXPECT_EQ(kt["kernel_name"], op["op_type"]);
  EXPECT_EQ(kt["device_name"], "Ascend910");
  EXPECT_EQ(kt["tune_params_keys"].size(), best["config"].size());
  EXPECT_EQ(kt["cache"].size(), configs.size());
  for (const auto& [key, entry] : kt["cache"].items())
    for (const auto& name : kt["tune_params_keys"]) EXPECT_TRUE(entry.contains(name.get<std::string>())) << key;

  // Every recorded config, replayed exhaustively: the same best as the tuning run measured. A
  // searcher ends after 50 x budget proposals, and the knobs' product holds unrecorded configs.
  size_t product = 1;
  for (const auto& [name, values] : kt["tune_params"].items()) product *= values.size();
  const size_t budget = std::max(configs.size(), product / 50 + 1);
  std::ofstream(dir_ / "op.json") << json({{"op", op["op_type"]}}).dump();
  const auto replayed = aoe_host({"--plugin", "opat", "--device", "replay", "--device_options",
                                  json({{"cachefile", cachefile.string()}}).dump(), "--singleop",
                                  (dir_ / "op.json").string(), "--searcher", "exhaustive", "--budget",
                                  std::to_string(budget), "--warm_start", "false"});
  ASSERT_EQ(replayed.exit_code, 0) << replayed.err;
  const json replay_op = only_result()["OPAT"]["opat_tuned_operators"][0];
  EXPECT_EQ(replay_op["config"], best["config"]) << replay_op.dump(2);
  EXPECT_NEAR(replay_op["performance_after_tune(us)"].get<double>(), best["time_us"].get<double>(),
              1e-9 * best["time_us"].get<double>());
  EXPECT_NEAR(replay_op["performance_before_tune(us)"].get<double>(), op["performance_before_tune(us)"].get<double>(),
              1e-9 * op["performance_before_tune(us)"].get<double>());
}

// A cache Kernel Tuner is still writing (or whose run was interrupted) has
// no closing braces; the replay device tunes on the entries it holds.
TEST_F(AoeHostTest, ACacheKernelTunerLeftOpenReplaysItsEntries) {
  const auto cachefile = dir_ / "open_A4000.json";
  std::ofstream(cachefile) << R"({
"schema_version": "1.0.0",
"device_name": "NVIDIA RTX A4000",
"kernel_name": "vector_add",
"problem_size": [10000000],
"tune_params_keys": ["block_size_x"],
"tune_params": {"block_size_x": [64, 128, 256, 512]},
"objective": "time",
"cache": {
"64": {"block_size_x": 64, "time": 1.42, "compile_time": 610.0, "benchmark_time": 30.0},
"128": {"block_size_x": 128, "time": 1.21, "compile_time": 605.0, "benchmark_time": 28.0},
"256": {"block_size_x": 256, "time": 1.33, "compile_time": 598.0, "benchmark_time": 29.0},
)";
  std::ofstream(dir_ / "op.json") << json({{"op", "vector_add"}}).dump();
  const auto r = aoe_host({"--plugin", "opat", "--device", "replay", "--device_options",
                           json({{"cachefile", cachefile.string()}}).dump(), "--singleop", (dir_ / "op.json").string(),
                           "--searcher", "exhaustive", "--budget", "8", "--warm_start", "false"});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const json op = only_result()["OPAT"]["opat_tuned_operators"][0];
  EXPECT_NEAR(op["performance_after_tune(us)"].get<double>(), 1210, 1e-6) << op.dump(2);
}

TEST_F(AoeHostTest, KernelTunerExportNamesAMissingTask) {
  ASSERT_EQ(tune("conv_block.onnx", {"--budget", "4"}).exit_code, 0);
  const auto r = aoe_host({"export", "kernel_tuner", only_workspace(dir_).string(), "--task", "nosuchop", "-o",
                           (dir_ / "x.json").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no task 'nosuchop'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("conv1/Conv"), std::string::npos) << r.err;  // the tasks there are, listed
  EXPECT_FALSE(std::filesystem::exists(dir_ / "x.json"));
}

}  // namespace
}  // namespace aoe::test
