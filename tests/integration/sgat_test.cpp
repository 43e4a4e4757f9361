// SGAT through the real binary: the split into subgraphs, the subgraph bank
// across models, interruption and --reload, the CPU's output check, and
// SGAT then OPAT composing.
#include <signal.h>

#include <chrono>
#include <fstream>
#include <set>
#include <thread>

#include "aoe_host_fixture.h"

namespace aoe::test {
namespace {

using nlohmann::json;

std::vector<std::string> sgat_args(const std::string& model, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"--job_type", "1", "--device", "ascend910", "--model",
                                   std::string(AOE_MODELS_DIR) + "/" + model, "--budget", "24"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// SGAT on the cpu device, which runs every candidate for real.
std::vector<std::string> cpu_sgat_args(const std::string& model, const std::string& budget) {
  auto args = sgat_args(model, {"--budget", budget});
  args[3] = "cpu";
  return args;
}

std::vector<std::filesystem::path> files_named(const std::filesystem::path& dir, const std::string& suffix) {
  std::vector<std::filesystem::path> out;
  if (!std::filesystem::exists(dir)) return out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    const auto name = e.path().filename().string();
    if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// repo_key -> occurrences, from a result's tuned subgraphs.
std::map<std::string, json> by_repo_key(const json& sgat) {
  std::map<std::string, json> out;
  for (const auto& s : sgat["sgat_tuned_subgraphs"]) out[s["repo_key"].get<std::string>()] = s;
  return out;
}

void expect_count_invariants(const json& sgat) {
  const json& s = sgat["repo_summary"];
  EXPECT_EQ(s["total_num"].get<int>(),
            s["repo_add_num"].get<int>() + s["repo_hit_num"].get<int>() + s["repo_unsatisfied_num"].get<int>());
  EXPECT_EQ(s["repo_hit_num"].get<int>(), s["repo_update_num"].get<int>() + s["repo_reserved_num"].get<int>());
}

TEST_F(AoeHostTest, SgatSplitsResnetIntoBlocksDeterministically) {
  const auto first = aoe_host(sgat_args("resnet50.onnx", {"--budget", "4"}));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const auto results = result_files();
  ASSERT_EQ(results.size(), 1u);
  EXPECT_NE(results[0].filename().string().find("aoe_result_sgat_"), std::string::npos);
  const json sgat = result_sections(read_json(results[0]))["SGAT"];
  EXPECT_EQ(sgat["sgat_tuning_result"], "tuning successful") << sgat.dump(2);
  expect_count_invariants(sgat);
  // 16 bottleneck blocks (the stem joins the first, the head the last). In
  // each stage the blocks after the first are alike, except the last, which
  // carries the head: 9 distinct subgraphs.
  size_t occurrences = 0;
  for (const auto& s : sgat["sgat_tuned_subgraphs"]) occurrences += s["occurrences"].size();
  EXPECT_EQ(occurrences, 16u) << sgat.dump(2);
  EXPECT_EQ(sgat["sgat_tuned_subgraphs"].size(), 9u) << sgat.dump(2);
  EXPECT_NE(first.err.find("split into 16 subgraphs, 9 distinct"), std::string::npos) << first.err;
  ASSERT_EQ(files_named(dir_ / "aoe_workspace", "_sgat_plan.json").size(), 1u);

  // Another run, another bank: the same subgraphs under the same keys.
  for (const auto& f : results) std::filesystem::remove(f);
  const auto second = aoe_host(sgat_args("resnet50.onnx", {"--budget", "4"}), {{"TUNE_BANK_PATH", (dir_ / "other").string()}});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const json again = only_result()["SGAT"];
  const auto a = by_repo_key(sgat), b = by_repo_key(again);
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [key, s] : a) {
    ASSERT_TRUE(b.count(key)) << key;
    EXPECT_EQ(s["nodes"], b.at(key)["nodes"]);
  }
}

TEST_F(AoeHostTest, SgatBankHitsAcrossModelsThatShareBlocks) {
  const auto base = aoe_host(sgat_args("bert_base.onnx"));
  ASSERT_EQ(base.exit_code, 0) << base.err;
  const json tuned = only_result()["SGAT"];
  const auto tuned_keys = by_repo_key(tuned);
  for (const auto& f : result_files()) std::filesystem::remove(f);

  // One encoder layer: every subgraph of it is one of bert_base's.
  const auto layer = aoe_host(sgat_args("bert_layer.onnx"));
  ASSERT_EQ(layer.exit_code, 0) << layer.err;
  const json hit = only_result()["SGAT"];
  expect_count_invariants(hit);
  ASSERT_FALSE(hit["sgat_tuned_subgraphs"].empty());
  for (const auto& s : hit["sgat_tuned_subgraphs"]) {
    const auto key = s["repo_key"].get<std::string>();
    EXPECT_TRUE(tuned_keys.count(key)) << key;
    // Added or found better in the first run: a hit now; unsatisfied stays so.
    const auto before = tuned_keys.count(key) ? tuned_keys.at(key)["repo"].get<std::string>() : "";
    if (before == "add") EXPECT_EQ(s["repo"], "reserved") << s.dump(2);
    if (before == "add") EXPECT_EQ(s["evaluations"], 0) << s.dump(2);
  }
  EXPECT_EQ(hit["repo_summary"]["repo_add_num"], 0);
}

TEST_F(AoeHostTest, SgatReloadContinuesWithoutMeasuringAgain) {
  const std::string forever = std::string(AOE_TEST_PLUGINS_DIR) + "/forever";
  // Slow enough (20 ms a batch of 8) that the interruption lands mid-search.
  const std::vector<std::string> search = {"--searcher", "forever", "--plugin-dir", forever, "--budget", "400"};
  auto extra = search;
  auto child = start_aoe_host(sgat_args("conv_block.onnx", extra));
  // Interrupt once some of the search is done.
  for (int i = 0; i < 6000 && child->err_so_far().find("evaluations") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  child->signal(SIGINT);
  const auto r = child->wait(60);
  ASSERT_EQ(r.exit_code, 130) << r.err;
  EXPECT_EQ(only_result()["SGAT"]["sgat_tuning_result"], "tuning incomplete");
  const auto journals = files_named(dir_ / "aoe_workspace", "journal.jsonl");
  ASSERT_EQ(journals.size(), 1u);
  for (const auto& f : result_files()) std::filesystem::remove(f);

  extra.push_back("--reload");
  const auto reloaded = aoe_host(sgat_args("conv_block.onnx", extra));
  ASSERT_EQ(reloaded.exit_code, 0) << reloaded.err;
  EXPECT_NE(reloaded.err.find("reload: "), std::string::npos) << reloaded.err;
  const json resumed = only_result()["SGAT"];
  EXPECT_EQ(resumed["sgat_tuning_result"], "tuning successful");
  uint64_t replayed = 0;
  for (const auto& s : resumed["sgat_tuned_subgraphs"]) replayed += s["replayed_evaluations"].get<uint64_t>();
  EXPECT_GT(replayed, 0u) << resumed.dump(2);
  // The same workspace, no second one.
  EXPECT_EQ(files_named(dir_ / "aoe_workspace", "journal.jsonl").size(), 1u);
  for (const auto& f : result_files()) std::filesystem::remove(f);

  // Uninterrupted, from scratch: the same strategies and times.
  const auto fresh = aoe_host(sgat_args("conv_block.onnx", search), {{"TUNE_BANK_PATH", (dir_ / "fresh").string()}});
  ASSERT_EQ(fresh.exit_code, 0) << fresh.err;
  const auto x = by_repo_key(resumed), y = by_repo_key(only_result()["SGAT"]);
  ASSERT_EQ(x.size(), y.size());
  for (const auto& [key, s] : x) {
    EXPECT_DOUBLE_EQ(s["performance_after_tune(ms)"].get<double>(), y.at(key)["performance_after_tune(ms)"].get<double>());
    EXPECT_EQ(s["decisions"], y.at(key)["decisions"]);
  }
}

// The journal of a job on one SoC answers nothing for a reload on another:
// the same subgraph and config measure differently there.
TEST_F(AoeHostTest, SgatReloadOnAnotherSocMeasuresAgain) {
  const auto first = aoe_host(sgat_args("conv_block.onnx"));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  for (const auto& f : result_files()) std::filesystem::remove(f);

  auto other = sgat_args("conv_block.onnx", {"--reload"});
  other[3] = "ascend910b";
  const auto r = aoe_host(other, {{"TUNE_BANK_PATH", (dir_ / "other_bank").string()}});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  EXPECT_NE(r.err.find("reload: 0 measurements"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("of another model, device or SoC kept and not used"), std::string::npos) << r.err;
  const json sgat = only_result()["SGAT"];
  ASSERT_FALSE(sgat["sgat_tuned_subgraphs"].empty());
  for (const auto& s : sgat["sgat_tuned_subgraphs"]) EXPECT_EQ(s["replayed_evaluations"], 0) << s.dump(2);
  for (const auto& f : result_files()) std::filesystem::remove(f);

  // Back on the first SoC, its measurements answer again.
  const auto again = aoe_host(sgat_args("conv_block.onnx", {"--reload"}), {{"TUNE_BANK_PATH", (dir_ / "b3").string()}});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const json back = only_result()["SGAT"];  // a loop over a temporary's member would outlive it
  uint64_t replayed = 0;
  for (const auto& s : back["sgat_tuned_subgraphs"]) replayed += s["replayed_evaluations"].get<uint64_t>();
  EXPECT_GT(replayed, 0u);
}

TEST_F(AoeHostTest, SgatReloadWithoutAnEarlierJobSaysWhatToDo) {
  const auto r = aoe_host(sgat_args("conv_block.onnx", {"--reload"}));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("no earlier workspace of model conv_block"), std::string::npos) << r.err;
}

TEST_F(AoeHostTest, SgatOnTheCpuChecksEveryCandidatesOutput) {
  auto args = cpu_sgat_args("conv_block.onnx", "6");
  const auto ok = aoe_host(args);
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  const json sgat = only_result()["SGAT"];
  EXPECT_EQ(sgat["sgat_tuning_result"], "tuning successful");
  EXPECT_FALSE(sgat["sgat_tuned_subgraphs"].empty()) << sgat.dump(2);
  EXPECT_FALSE(sgat.contains("tuning_failed_subgraphs")) << sgat.dump(2);
  for (const auto& f : result_files()) std::filesystem::remove(f);

  // Every candidate computes a wrong answer: none is accepted, the run says
  // "tuning failed" as AOE does, lists the subgraphs by name and exits 1.
  args.insert(args.end(), {"--device_options", R"({"fault": "wrong", "fault_every": 1})"});
  const auto wrong = aoe_host(args, {{"TUNE_BANK_PATH", (dir_ / "other").string()}});
  EXPECT_EQ(wrong.exit_code, 1) << wrong.err;
  const json bad = only_result()["SGAT"];
  EXPECT_EQ(bad["sgat_tuning_result"], "tuning failed");
  ASSERT_TRUE(bad.contains("tuning_failed_subgraphs")) << bad.dump(2) << wrong.err;
  ASSERT_FALSE(bad["tuning_failed_subgraphs"].empty()) << bad.dump(2);
  const std::string first = bad["tuning_failed_subgraphs"][0];
  bool reason_given = false;
  for (const auto& s : bad["sgat_tuned_subgraphs"])
    if (s["subgraph_name"] == first)
      reason_given = s["repo"] == "failed" && s["reason"].get<std::string>().find("wrong_result") != std::string::npos;
  EXPECT_TRUE(reason_given) << bad.dump(2);
}

// The strategies of a transformer layer on the cpu include its attention
// core as one kernel; SGAT tries each decision alone first, so that one is
// measured, and every candidate passes the cpu's output check.
TEST_F(AoeHostTest, SgatOnTheCpuTriesTheAttentionCoreAsOneKernel) {
  const auto r = aoe_host(cpu_sgat_args("bert_layer.onnx", "16"));
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const json sgat = only_result()["SGAT"];
  EXPECT_FALSE(sgat.contains("tuning_failed_subgraphs")) << sgat.dump(2);
  const auto plans = files_named(dir_, "_sgat_plan.json");
  ASSERT_EQ(plans.size(), 1u);
  std::ifstream in(plans[0]);
  const json plan = json::parse(in);
  bool offered = false;
  for (const auto& sg : plan["subgraphs"])
    for (const auto& [knob, value] : sg["config"].items())
      offered = offered || knob == "fuse:encoder.layer.0/attention.self/probs/Softmax";
  EXPECT_TRUE(offered) << plan.dump(2);

  const auto journals = files_named(dir_, "journal.jsonl");
  ASSERT_EQ(journals.size(), 1u);
  std::ifstream lines(journals[0]);
  size_t measured = 0;
  for (std::string line; std::getline(lines, line); ++measured)
    EXPECT_EQ(json::parse(line)["status"], 0) << line;
  EXPECT_GE(measured, 9u) << "the default's 8 single changes in the attention block, and more";
}

TEST_F(AoeHostTest, OpatAfterSgatFollowsItsStrategy) {
  const auto sgat = aoe_host(sgat_args("bert_layer.onnx"));
  ASSERT_EQ(sgat.exit_code, 0) << sgat.err;
  const json tuned = only_result()["SGAT"];
  const int stored = tuned["repo_summary"]["repo_add_num"].get<int>();
  ASSERT_GT(stored, 0) << tuned.dump(2);
  // No operator bank yet: the default strategy is the subgraph untuned.
  for (const auto& sg : tuned["sgat_tuned_subgraphs"])
    EXPECT_EQ(sg["performance_untuned(ms)"], sg["performance_before_tune(ms)"]) << sg.dump(2);
  for (const auto& f : result_files()) std::filesystem::remove(f);

  const auto opat = aoe_host(tune_args("bert_layer.onnx"));
  ASSERT_EQ(opat.exit_code, 0) << opat.err;
  EXPECT_NE(opat.err.find("following the subgraph bank's strategy for " + std::to_string(stored)), std::string::npos)
      << opat.err;
  for (const auto& f : result_files()) std::filesystem::remove(f);

  // Timed with both banks: the untuned model beside the tuned one, which
  // now runs OPAT's tilings inside SGAT's strategies.
  const auto timed = aoe_host(sgat_args("bert_layer.onnx", {"--budget", "0"}));
  ASSERT_EQ(timed.exit_code, 0) << timed.err;
  const json both = only_result()["SGAT"];
  EXPECT_GT(both["model_untuned_performance(ms)"].get<double>(), both["model_result_performance(ms)"].get<double>())
      << both.dump(2);
}

}  // namespace
}  // namespace aoe::test
