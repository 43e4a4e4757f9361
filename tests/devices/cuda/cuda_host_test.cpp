// aoe-host with the cuda device against the test double of the driver,
// NVRTC and NVML: listed as unavailable (and refused) without a driver or
// a GPU; Kernel Tuner problems tuned live through the worker processes,
// every fault a GPU can show survived as that candidate's result, the
// whole space recorded as Kernel Tuner's cachefile and replayed to the same
// best; a model's GEMMs tuned into a bank under the GPU's name.
#include <map>
#include <set>

#include "aoe_host_fixture.h"

namespace aoe::test {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const fs::path kProblems = AOE_CUDA_PROBLEMS;

class CudaHost : public AoeHostTest {
 protected:
  // The double where a CUDA toolkit keeps the libraries.
  static std::map<std::string, std::string> with_double(std::map<std::string, std::string> env = {}) {
    env.emplace("CUDA_HOME", AOE_CUDA_DOUBLE_HOME);
    return env;
  }

  // An exhaustive OPAT run of one kernel of a problem.
  ProcessResult tune_problem(const std::string& kernel, json options, std::map<std::string, std::string> env,
                             std::vector<std::string> extra = {}) const {
    std::ofstream(dir_ / "op.json") << json({{"op", kernel}}).dump();
    std::vector<std::string> args = {"--plugin", "opat", "--device", "cuda", "--device_options", options.dump(),
                                     "--singleop", (dir_ / "op.json").string(), "--searcher", "exhaustive",
                                     "--budget", "64"};
    args.insert(args.end(), extra.begin(), extra.end());
    return aoe_host(args, with_double(std::move(env)));
  }

  // The run's measurements.jsonl lines.
  std::vector<json> measurements() const { return measurement_lines(dir_ / "aoe_workspace"); }
};

TEST_F(CudaHost, ListsCudaAsUnavailableWithoutADriver) {
  const auto r = aoe_host({"plugins"}, {{"CUDA_HOME", dir_.string()}});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const auto row = r.out.find("\ncuda ");
  ASSERT_NE(row, std::string::npos) << r.out;
  // The row, and the summary on the line under it.
  const auto summary = r.out.find('\n', row + 1);
  const std::string line = r.out.substr(row + 1, r.out.find('\n', summary + 1) - row - 1);
  if (line.find("unavailable") == std::string::npos) GTEST_SKIP() << "this machine has a CUDA driver: " << line;
  EXPECT_NE(line.find("libcuda.so.1"), std::string::npos) << line;
  const auto run = tune_problem("faulty_kernel", {{"problem", (kProblems / "faulty.json").string()}},
                                {{"CUDA_HOME", dir_.string()}});
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find("libcuda.so.1"), std::string::npos) << run.err;
}

TEST_F(CudaHost, ListsTheGpuTheWorkerOpened) {
  const auto r = aoe_host({"plugins"}, with_double());
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  EXPECT_NE(r.out.find("AOE Double GPU (sm_90) through " + std::string(AOE_CUDA_DOUBLE_HOME)), std::string::npos)
      << r.out;
}

TEST_F(CudaHost, WithoutAGpuTheListingAndARunSayWhy) {
  const std::map<std::string, std::string> no_gpu = {{"AOE_CUDA_DOUBLE_DEVICES", "0"}};
  const auto listed = aoe_host({"plugins"}, with_double(no_gpu));
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find("unavailable: cannot open the GPU"), std::string::npos) << listed.out;
  const auto run = tune_problem("faulty_kernel", {{"problem", (kProblems / "faulty.json").string()}}, no_gpu);
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find("cannot open the GPU"), std::string::npos) << run.err;
  EXPECT_TRUE(result_files().empty());
}

// Each fault of problems/faulty.cu, injected by the double as a GPU shows it,
// is that config's result; the run goes on and keeps the best good config.
TEST_F(CudaHost, EveryFaultIsTheCandidatesResultAndTheRunGoesOn) {
  const std::map<std::string, std::string> faults = {
      {"AOE_CUDA_DOUBLE_FAULTS",
       "compile_error@fault=1;illegal_address@fault=2;hang@fault=3;too_many_resources@fault=4"}};
  const auto r = tune_problem("faulty_kernel", {{"problem", (kProblems / "faulty.json").string()}, {"timeout_s", 3}},
                              faults);
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const json op = only_result()["OPAT"]["opat_tuned_operators"][0];
  EXPECT_EQ(op["config"]["fault"], 0) << op.dump(2);
  EXPECT_EQ(op["config"]["block_size_x"], 128) << op.dump(2);
  std::map<int64_t, std::set<std::string>> status_by_fault;
  std::map<int64_t, std::string> message_by_fault;
  for (const auto& m : measurements()) {
    const int64_t fault = m["config"]["fault"].get<int64_t>();
    status_by_fault[fault].insert(m["status"].get<std::string>());
    message_by_fault[fault] = m.value("message", "");
  }
  EXPECT_EQ(status_by_fault[0], std::set<std::string>{"ok"});
  // Each timing says the clock and temperature NVML read as it ran.
  EXPECT_NE(message_by_fault[0].find("sm clock 1980 MHz, 40 C"), std::string::npos) << message_by_fault[0];
  EXPECT_EQ(status_by_fault[1], std::set<std::string>{"build_failed"});
  EXPECT_NE(message_by_fault[1].find("compile_error"), std::string::npos) << message_by_fault[1];
  EXPECT_EQ(status_by_fault[2], std::set<std::string>{"run_failed"});
  EXPECT_NE(message_by_fault[2].find("ILLEGAL_ADDRESS"), std::string::npos) << message_by_fault[2];
  EXPECT_EQ(status_by_fault[3], std::set<std::string>{"timeout"});
  EXPECT_EQ(status_by_fault[4], std::set<std::string>{"run_failed"});
  EXPECT_NE(message_by_fault[4].find("too many resources"), std::string::npos) << message_by_fault[4];
  EXPECT_EQ(status_by_fault[5], std::set<std::string>{"wrong_result"});
}

// The whole space recorded as Kernel Tuner's cachefile, then replayed by the
// replay device: the same best config and time.
TEST_F(CudaHost, ARecordingReplaysToTheSameBest) {
  const fs::path problem = kProblems / "convolution_small.json";
  const fs::path cachefile = dir_ / "convolution_small_double.json";
  const auto r = tune_problem("convolution_kernel", {{"problem", problem.string()}, {"cachefile", cachefile.string()}},
                              {}, {"--budget", "100000"});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const json tuned = only_result()["OPAT"]["opat_tuned_operators"][0];
  const json recorded = read_json(cachefile);
  EXPECT_EQ(recorded["device_name"], "AOE Double GPU");
  EXPECT_EQ(recorded["kernel_name"], "convolution_kernel");
  ASSERT_GT(recorded["cache"].size(), 8u);
  for (const auto& [key, entry] : recorded["cache"].items()) {
    EXPECT_TRUE(entry.contains("compile_time")) << key;
    if (entry["time"].is_number()) EXPECT_FALSE(entry["times"].empty()) << key;
  }
  for (const auto& f : result_files()) fs::remove(f);
  std::ofstream(dir_ / "op.json") << json({{"op", "convolution_kernel"}}).dump();
  const auto replayed = aoe_host({"--plugin", "opat", "--device", "replay", "--device_options",
                                  json({{"cachefile", cachefile.string()}, {"kernel", problem.string()}}).dump(),
                                  "--singleop", (dir_ / "op.json").string(), "--searcher", "exhaustive", "--budget",
                                  "100000", "--warm_start", "false"});
  ASSERT_EQ(replayed.exit_code, 0) << replayed.err;
  const json replay_op = only_result()["OPAT"]["opat_tuned_operators"][0];
  EXPECT_EQ(replay_op["config"], tuned["config"]) << replay_op.dump(2);
  EXPECT_NEAR(replay_op["performance_after_tune(us)"].get<double>(), tuned["performance_after_tune(us)"].get<double>(),
              1e-6 * tuned["performance_after_tune(us)"].get<double>());
}

TEST_F(CudaHost, AnUnwritableCachefileStopsTheRunBeforeAnythingIsMeasured) {
  const fs::path cachefile = dir_ / "no_such_folder" / "recording.json";
  const auto r = tune_problem("faulty_kernel",
                              {{"problem", (kProblems / "faulty.json").string()}, {"cachefile", cachefile.string()}}, {});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("cannot write " + (dir_ / "no_such_folder").string()), std::string::npos) << r.err;
  EXPECT_TRUE(result_files().empty());
}

// Compiles finishing out of order, on one worker or four, give every config the same result.
TEST_F(CudaHost, ParallelCompilesMatchEachResultToItsConfig) {
  std::map<int, std::map<std::string, std::string>> by_workers;
  for (int workers : {1, 4}) {
    const fs::path cachefile = dir_ / ("vector_add_" + std::to_string(workers) + ".json");
    const auto r = tune_problem("vector_add",
                                {{"problem", (kProblems / "vector_add.json").string()},
                                 {"cachefile", cachefile.string()},
                                 {"compile_workers", workers}},
                                {{"AOE_CUDA_DOUBLE_COMPILE_MS", "20"}}, {"--warm_start", "false"});
    ASSERT_EQ(r.exit_code, 0) << failure_text(r);
    const json recorded = read_json(cachefile);
    for (const auto& [key, entry] : recorded["cache"].items()) by_workers[workers][key] = entry["time"].dump();
    for (const auto& f : result_files()) fs::remove(f);
    fs::remove_all(bank_);  // so the second run measures rather than finds
  }
  EXPECT_EQ(by_workers[1], by_workers[4]);
  EXPECT_GT(by_workers[1].size(), 2u);
}

// A model's MatMuls tuned on the GPU into a bank under its name; the
// second run finds them all there.
TEST_F(CudaHost, TunesAModelsGemmsIntoABankUnderTheGpusName) {
  const std::vector<std::string> args = {"--plugin", "opat", "--device", "cuda", "--model",
                                         model("mlp.onnx").string(), "--budget", "8"};
  const auto first = aoe_host(args, with_double());
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const json result = only_result();
  EXPECT_EQ(result["basic"]["soc_version"], "AOE_Double_GPU");
  EXPECT_GT(result["OPAT"]["repo_summary"]["repo_add_num"].get<int>(), 0) << result["OPAT"].dump(2);
  EXPECT_TRUE(fs::is_directory(bank_ / "op" / "AOE_Double_GPU"));
  for (const auto& f : result_files()) fs::remove(f);
  const auto second = aoe_host(args, with_double());
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const json summary = only_result()["OPAT"]["repo_summary"];
  EXPECT_EQ(summary["repo_add_num"], 0) << summary.dump();
  EXPECT_GT(summary["repo_hit_num"].get<int>(), 0) << summary.dump();
}

}  // namespace
}  // namespace aoe::test
