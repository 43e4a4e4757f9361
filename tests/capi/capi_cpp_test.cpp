// The C API through its C++ wrapper (aoe.hpp): two sessions of one process
// on their own banks, the bank after a cancelled tuning, errors as aoe::Error,
// a model run with its outputs and report.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>

#include "aoe.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

#include <cmath>
#include <cstdlib>

// An empty folder of this test's, from ctest.
fs::path work_root() {
  const char* dir = std::getenv("AOE_CAPI_WORK");
  return dir ? fs::path(dir) : fs::temp_directory_path() / "aoe_capi_cpp_test";
}

std::map<std::string, std::string> options_in(const fs::path& dir) {
  return {{"device", "ascend910"}, {"budget", "16"},
          {"work_path", dir.string()}, {"bank_path", (dir / "bank").string()}, {"log_level", "warn"}};
}

// The signatures of the operator bank's entries, read from its files.
std::set<std::string> banked_signatures(const fs::path& bank) {
  std::set<std::string> out;
  if (!fs::is_directory(bank / "op")) return out;
  for (const auto& file : fs::recursive_directory_iterator(bank / "op")) {
    // Entries are the JSON files of the SoC folders; the index lives in .index/.
    if (file.path().extension() != ".json" || file.path().parent_path().filename() == ".index") continue;
    std::ifstream in(file.path());
    const json entry = json::parse(in, nullptr, false);
    if (entry.is_object() && entry.contains("key")) out.insert(entry["key"].value("signature", ""));
  }
  return out;
}

json section_of(const std::string& result) {
  const json document = json::parse(result);
  EXPECT_EQ(document.size(), 2u);
  return document.at(1).at("OPAT");
}

TEST(CApiCpp, TwoSessionsTuneIntoTheirOwnBanks) {
  const fs::path a = work_root() / "a", b = work_root() / "b";
  aoe::Session first(options_in(a));
  aoe::Session second(options_in(b));
  const json result = json::parse(first.tune_file(AOE_MODEL, "opat"));
  EXPECT_EQ(result.at(0).at("basic").at("bank_path"), fs::absolute(a / "bank" / "op").lexically_normal().string())
      << result.dump(2);
  EXPECT_EQ(section_of(first.tune_file(AOE_MODEL, "opat"))["opat_tuning_result"], "tuning successful");

  const auto signatures = banked_signatures(a / "bank");
  ASSERT_FALSE(signatures.empty()) << "the first tuning banked nothing under " << a;
  const std::string signature = *signatures.begin();
  EXPECT_EQ(json::parse(first.bank_entries("op", signature)).size(), 1u);
  EXPECT_TRUE(json::parse(second.bank_entries("op", signature)).empty()) << "the second session sees the first's bank";

  second.tune_file(AOE_MODEL, "opat");
  EXPECT_EQ(banked_signatures(b / "bank"), signatures);
  const json entries = json::parse(second.bank_entries("op", signature));
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0]["key"]["signature"], signature);
  EXPECT_EQ(json::parse(first.bank_entries("op", signature)).size(), 1u);
}

TEST(CApiCpp, CancelledTuningLeavesAnIncompleteResultAndAReadableBank) {
  const fs::path dir = work_root() / "cancel";
  aoe::Session session(options_in(dir));
  std::atomic<int> reports{0};
  session.on_progress([&](const aoe_progress& p) {
    EXPECT_STREQ(p.stage, "task");
    // The first report cancels from another thread, and waits until it has.
    if (reports++ == 0) std::thread([&] { session.cancel(); }).join();
  });
  try {
    session.tune_file(AOE_MODEL, "opat");
    FAIL() << "a cancelled tuning returned as complete";
  } catch (const aoe::Error& e) {
    EXPECT_EQ(e.code(), AOE_STATUS_CANCELLED) << e.what();
    EXPECT_EQ(section_of(e.result())["opat_tuning_result"], "tuning incomplete");
  }
  EXPECT_GE(reports.load(), 1);
  // Whatever was banked before the cancel is whole and found again.
  for (const auto& signature : banked_signatures(dir / "bank")) {
    const json entries = json::parse(session.bank_entries("op", signature));
    ASSERT_EQ(entries.size(), 1u) << signature;
    EXPECT_GT(entries[0]["after_us"].get<double>(), 0.0);
  }
}

TEST(CApiCpp, ErrorsCarryAoesMessage) {
  try {
    aoe::Session session({{"searcher", "nosuchsearcher"}, {"parallel_num", "0x"}});
    FAIL() << "a malformed option was taken";
  } catch (const aoe::Error& e) {
    EXPECT_EQ(e.code(), AOE_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("parallel_num"), std::string::npos) << e.what();
  }
  aoe::Session session(options_in(work_root() / "errors"));
  try {
    session.tune_file((work_root() / "missing.onnx").string(), "opat");
    FAIL() << "a missing model was tuned";
  } catch (const aoe::Error& e) {
    EXPECT_EQ(e.code(), AOE_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("missing.onnx"), std::string::npos) << e.what();
  }
  EXPECT_THROW(session.bank_entries("kernels", "x"), aoe::Error);
}

// `training` is a key as the others are: it reaches the mode, here SGAT,
// which tunes the subgraphs of the step with the optimizer's updates.
TEST(CApiCpp, TrainingIsAnOptionKey) {
  auto options = options_in(work_root() / "training");
  options["training"] = "true";
  options["optimizer"] = "adam";
  aoe::Session session(options);
  const json result = json::parse(session.tune_file(AOE_MODEL, "sgat"));
  ASSERT_EQ(result.size(), 2u) << result.dump(1);
  const json& sgat = result.at(1).at("SGAT");
  EXPECT_EQ(sgat["training_step"]["optimizer"], "adam") << sgat.dump(1);
  EXPECT_GT(sgat["training_step"]["phases"]["optimizer"]["subgraphs"].get<int>(), 0) << sgat.dump(1);
  bool backward = false;
  for (const auto& s : sgat["sgat_tuned_subgraphs"]) backward = backward || s.value("phase", "") == "backward";
  EXPECT_TRUE(backward) << sgat.dump(1);
  options["optimizer"] = "sgd";
  EXPECT_THROW(aoe::Session{options}, aoe::Error);
}

TEST(CApiCpp, RunsTheModelAndRefusesAnInputOfAnotherShape) {
  const fs::path dir = work_root() / "run";
  aoe::Session session({{"device", "cpu"}, {"iterations", "3"}, {"threads", "1"}, {"work_path", dir.string()},
                        {"bank_path", (dir / "bank").string()}, {"log_level", "warn"}});
  aoe::Tensor x{{8, 256}, std::vector<float>(8 * 256)};
  for (size_t i = 0; i < x.data.size(); ++i) x.data[i] = static_cast<float>(i % 13) / 13.0f - 0.5f;
  const aoe::RunResult result = session.run_file(AOE_MODEL, {{"x", x}});
  ASSERT_EQ(result.outputs.size(), 1u);
  const aoe::Tensor& y = result.outputs.at("y");
  EXPECT_EQ(y.dims, (std::vector<int64_t>{8, 64}));
  EXPECT_EQ(y.data.size(), 8u * 64u);
  // The same input again: the same outputs, and the report written to the work folder is the one returned.
  EXPECT_EQ(session.run_file(AOE_MODEL, {{"x", x}}).outputs.at("y").data, y.data);
  const json report = json::parse(result.report);
  EXPECT_EQ(report["latency_ms"]["runs"], 3) << report.dump(2);
  EXPECT_EQ(report["bank"]["hit"], 0) << "an empty bank: every kernel ran its default";
  std::ifstream written(dir / "aoe_run_mlp.json");
  EXPECT_EQ(json::parse(written)["model"], "mlp");

  x.dims = {256, 8};
  try {
    session.run_file(AOE_MODEL, {{"x", x}});
    FAIL() << "an input of another shape was run";
  } catch (const aoe::Error& e) {
    EXPECT_EQ(e.code(), AOE_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("input 'x'"), std::string::npos) << e.what();
  }
}

// The same model on the cuda device, through its test double: the run's
// outputs match the cpu device's, and its report is the GPU's.
TEST(CApiCpp, RunsTheModelOnTheCudaDevice) {
  const fs::path dir = work_root() / "run_cuda";
  ::setenv("CUDA_HOME", AOE_CUDA_DOUBLE_HOME, 1);
  ::setenv("XDG_CACHE_HOME", (dir / "cache").c_str(), 1);
  aoe::Tensor x{{8, 256}, std::vector<float>(8 * 256)};
  for (size_t i = 0; i < x.data.size(); ++i) x.data[i] = static_cast<float>(i % 7) / 7.0f - 0.5f;
  const auto run_on = [&](const std::string& device) {
    aoe::Session session({{"device", device}, {"iterations", "2"}, {"check", "true"}, {"work_path", (dir / device).string()},
                          {"bank_path", (dir / "bank").string()}, {"log_level", "warn"}});
    return session.run_file(AOE_MODEL, {{"x", x}});
  };
  const aoe::RunResult gpu = run_on("cuda"), cpu = run_on("cpu");
  const json report = json::parse(gpu.report);
  EXPECT_EQ(report["device"], "cuda");
  EXPECT_TRUE(report["check"]["match"].get<bool>()) << report["check"].dump();
  const auto& got = gpu.outputs.at("y").data;
  const auto& want = cpu.outputs.at("y").data;
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-3 + 1e-4 * std::abs(want[i])) << i;
}

}  // namespace
