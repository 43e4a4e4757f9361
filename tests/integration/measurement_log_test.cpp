// measurements.jsonl, read back against the result file of the same run: a
// line per measured candidate, each task's count and best time as reported.
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "aoe_host_fixture.h"

namespace aoe::test {
namespace {

using nlohmann::json;

// Every line of the run's one measurements.jsonl, by task.
std::map<std::string, std::vector<json>> logged_by_task(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> logs;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir / "aoe_workspace"))
    if (e.path().filename() == "measurements.jsonl") logs.push_back(e.path());
  EXPECT_EQ(logs.size(), 1u);
  std::map<std::string, std::vector<json>> out;
  if (logs.empty()) return out;
  std::ifstream in(logs.front());
  for (std::string line; std::getline(in, line);) {
    const json j = json::parse(line);
    for (const char* field : {"task", "signature", "searcher", "evaluation", "seed", "config", "status", "wall_time_s"})
      EXPECT_TRUE(j.contains(field)) << field << ": " << line;
    if (j["status"] == "ok") EXPECT_TRUE(j.contains("time_us") && j.contains("repeats")) << line;
    out[j["task"].get<std::string>()].push_back(j);
  }
  return out;
}

double fastest(const std::vector<json>& lines) {
  double best = 1e300;
  for (const auto& l : lines)
    if (l["status"] == "ok") best = std::min(best, l["time_us"].get<double>());
  return best;
}

TEST_F(AoeHostTest, OpatLogsEveryMeasurementAsTheResultCountsThem) {
  ASSERT_EQ(tune("bert_ffn.onnx", {"--budget", "16"}).exit_code, 0);
  const json result = only_result()["OPAT"];
  const auto logged = logged_by_task(dir_);
  size_t searched = 0;
  for (const auto& op : result["opat_tuned_operators"]) {
    const std::string name = op["op_name"];
    const auto& lines = logged.count(name) ? logged.at(name) : std::vector<json>{};
    ASSERT_EQ(lines.size(), op["evaluations"].get<size_t>()) << name;
    if (lines.empty()) continue;
    ++searched;
    for (size_t i = 0; i < lines.size(); ++i) {
      EXPECT_EQ(lines[i]["evaluation"], i + 1) << name;
      EXPECT_EQ(lines[i]["signature"], op["signature_hash"]) << name;
      EXPECT_EQ(lines[i]["searcher"], op["searcher"]) << name;
    }
    // The simulator times a config the same each time: the best logged is the result's.
    if (op["repo"] == "add") EXPECT_DOUBLE_EQ(fastest(lines), op["performance_after_tune(us)"].get<double>()) << name;
  }
  EXPECT_GE(searched, 2u);
  EXPECT_EQ(logged.size(), searched);
}

TEST_F(AoeHostTest, SgatLogsEveryMeasurementOfEachSubgraph) {
  const auto r = aoe_host({"--plugin", "sgat", "--device", "ascend910", "--model", model("conv_block.onnx").string(),
                           "--budget", "8"});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const json result = only_result()["SGAT"];
  const auto logged = logged_by_task(dir_);
  ASSERT_FALSE(result["sgat_tuned_subgraphs"].empty());
  size_t total = 0;
  for (const auto& s : result["sgat_tuned_subgraphs"]) {
    const std::string name = s["subgraph_name"];
    const size_t count = logged.count(name) ? logged.at(name).size() : 0;
    EXPECT_EQ(count, s["evaluations"].get<size_t>()) << name << "\n" << result.dump(2);
    total += count;
  }
  EXPECT_GT(total, 0u);
}

}  // namespace
}  // namespace aoe::test
