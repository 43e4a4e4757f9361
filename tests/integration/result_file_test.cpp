// AOE's result files as AOE documents them, through the real binary: the
// shape (held to host/schema/aoe_result.schema.json), every percentage
// recomputed from its own figures, and AOE's flags.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <regex>

#include "aoe_host_fixture.h"

namespace aoe::test {
namespace {

using nlohmann::json;

// The validator's verdict on files: its exit code and what it printed.
ProcessResult validate(const std::vector<std::filesystem::path>& files, const std::filesystem::path& cwd) {
  std::vector<std::string> argv = {AOE_PYTHON, AOE_VALIDATE_SCRIPT, AOE_RESULT_SCHEMA};
  for (const auto& f : files) argv.push_back(f.string());
  return run_process(argv, cwd);
}

// AOE's formula: (before - after) / after, cut to two decimals.
std::string documented_percent(double before, double after) {
  const double v = after > 0 ? (before - after) / after * 100 : 0;
  char text[32];
  std::snprintf(text, sizeof text, "%.2f%%", std::trunc(v * 100 + (v < 0 ? -1e-6 : 1e-6)) / 100);
  return text;
}

// Every object holding a performance_improvement beside before/after figures
// (any unit), and the model's figure; returns how many it checked.
size_t check_percentages(const json& node, const std::string& where) {
  size_t checked = 0;
  if (node.is_object()) {
    for (const char* unit : {"(us)", "(ms)"}) {
      const std::string before = std::string("performance_before_tune") + unit, after = std::string("performance_after_tune") + unit;
      if (node.contains("performance_improvement") && node.contains(before) && node.contains(after)) {
        EXPECT_EQ(node["performance_improvement"], documented_percent(node[before], node[after])) << where << node.dump();
        ++checked;
      }
    }
    if (node.contains("model_performance_improvement") && node.contains("model_baseline_performance(ms)")) {
      EXPECT_EQ(node["model_performance_improvement"],
                documented_percent(node["model_baseline_performance(ms)"], node["model_result_performance(ms)"]))
          << where;
      ++checked;
    }
  }
  if (node.is_structured())
    for (const auto& [key, child] : node.items()) checked += check_percentages(child, where + "/" + key);
  return checked;
}

class ResultFileTest : public AoeHostTest {
 protected:
  // Runs aoe-host, expects exit_code, and moves its result file to `name`.
  std::filesystem::path run_into(const std::string& name, const std::vector<std::string>& args, int exit_code) {
    const auto r = aoe_host(args);
    EXPECT_EQ(r.exit_code, exit_code) << r.err;
    const auto files = result_files();
    EXPECT_EQ(files.size(), 1u) << r.err;
    const auto kept = dir_ / name;
    if (!files.empty()) std::filesystem::rename(files.front(), kept);
    return kept;
  }
};

TEST_F(ResultFileTest, OpatAndSgatFilesMatchTheDocumentedShapes) {
  const auto opat = run_into("opat.json", tune_args("mlp.onnx"), 0);
  const auto sgat = run_into("sgat.json", {"--job_type", "1", "--model", model("bert_layer.onnx").string(), "--budget", "24"}, 0);
  // Every candidate of the cpu crashes: each op fails, the run says so and exits 1.
  const auto failed = run_into("failed.json",
                               {"--model", model("mlp.onnx").string(), "--device", "cpu", "--budget", "2",
                                "--device_options", R"({"fault": "crash", "fault_every": 1, "max_seconds": 0.05})"},
                               1);
  const auto v = validate({opat, sgat, failed}, dir_);
  if (v.exit_code == 77) GTEST_SKIP() << v.out;
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;

  const json top = read_json(opat);
  ASSERT_TRUE(top.is_array());
  EXPECT_TRUE(top[0].contains("basic"));
  EXPECT_TRUE(top[1].contains("OPAT"));
  const json f = result_sections(read_json(failed))["OPAT"];
  EXPECT_EQ(f["opat_tuning_result"], "tuning failed");
  ASSERT_EQ(f["tuning_failed_operators"].size(), 3u) << f.dump(2);
  for (const auto& name : f["tuning_failed_operators"]) EXPECT_TRUE(name.is_string()) << f.dump(2);
  const json s = result_sections(read_json(sgat))["SGAT"];
  ASSERT_FALSE(s["repo_modified_subgraphs"]["add_repo_subgraphs"].empty()) << s.dump(2);
  for (const auto& sg : s["repo_modified_subgraphs"]["add_repo_subgraphs"]) {
    EXPECT_TRUE(std::regex_match(sg["repo_key"].get<std::string>(), std::regex("[0-9]+"))) << sg.dump();
    EXPECT_EQ(std::to_string(std::stoull(sg["bank_entry"].get<std::string>(), nullptr, 16)), sg["repo_key"].get<std::string>());
  }
}

TEST_F(ResultFileTest, TheSchemaRefusesTheShapesAoeDoesNotWrite) {
  const auto opat = run_into("opat.json", tune_args("mlp.onnx"), 0);
  const json sections = result_sections(read_json(opat));
  auto write = [&](const std::string& name, const json& content) {
    std::ofstream(dir_ / name) << content.dump(2);
    return dir_ / name;
  };
  // One object instead of a list; the modified operators as an object; a
  // failed list in a successful run; an improvement with three decimals.
  json modified_as_object = sections;
  modified_as_object["OPAT"]["repo_modified_operators"] = {{"add_repo_operators", json::array()}};
  json failed_listed = sections;
  failed_listed["OPAT"]["tuning_failed_operators"] = json::array();
  json three_decimals = sections;
  three_decimals["OPAT"]["model_performance_improvement"] = "1.234%";
  auto as_list = [](const json& s) { return json::array({{{"basic", s["basic"]}}, {{"OPAT", s["OPAT"]}}}); };
  for (const auto& bad : {write("object.json", sections), write("modified.json", as_list(modified_as_object)),
                          write("failed.json", as_list(failed_listed)), write("decimals.json", as_list(three_decimals))}) {
    const auto v = validate({bad}, dir_);
    if (v.exit_code == 77) GTEST_SKIP() << v.out;
    EXPECT_EQ(v.exit_code, 1) << bad << " passed the schema";
  }
  EXPECT_EQ(validate({write("same.json", as_list(sections))}, dir_).exit_code, 0);
}

TEST_F(ResultFileTest, EveryPercentageIsBeforeMinusAfterOverAfter) {
  const auto opat = run_into("opat.json", tune_args("mlp.onnx"), 0);
  const auto sgat = run_into("sgat.json", {"--job_type", "1", "--model", model("bert_layer.onnx").string(), "--budget", "24"}, 0);
  // Tuned again with a larger budget: entries may be updated, and figures differ.
  const auto again = run_into("again.json", tune_args("mlp.onnx", {"--budget", "200", "--seed", "5", "--repeat_tune"}), 0);
  EXPECT_GE(check_percentages(read_json(opat), "opat"), 4u);
  EXPECT_GE(check_percentages(read_json(sgat), "sgat"), 4u);
  check_percentages(read_json(again), "again");
  // The end line prints the file's own figure.
  const auto r = aoe_host(tune_args("mlp.onnx", {"--result_file", (dir_ / "named.json").string(), "--bank_path",
                                                 (dir_ / "fresh").string()}));
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const json named = result_sections(read_json(dir_ / "named.json"))["OPAT"];
  EXPECT_NE(r.err.find("Performance improved by " + named["model_performance_improvement"].get<std::string>()),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace aoe::test
