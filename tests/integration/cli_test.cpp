// aoe-host through the real binary: listing, tuning, the bank across runs,
// configuration precedence, and errors on bad input.
#include <fstream>
#include <regex>
#include <set>

#include "aoe_host_fixture.h"

namespace aoe::test {
namespace {

// The SDK version the build is at, as a regex: the dot matched literally.
const std::string kSdk = std::regex_replace(AOE_SDK_VERSION, std::regex(R"(\.)"), R"(\.)");

using nlohmann::json;

TEST_F(AoeHostTest, VersionNamesHostAndSdk) {
  const auto r = aoe_host({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(aoe-host \d+\.\d+\.\d+ \(SDK )" + kSdk + R"(\))"))) << r.out;
}

TEST_F(AoeHostTest, HelpDocumentsExitCodes) {
  const auto r = aoe_host({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("Exit codes"), std::string::npos);
  EXPECT_NE(r.out.find("130"), std::string::npos);
}

TEST_F(AoeHostTest, PluginsListsTheBundledOnes) {
  const auto r = aoe_host({"plugins"});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(opat\s+tuning mode\s+\S+\s+)" + kSdk))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(random\s+searcher\s+\S+\s+)" + kSdk))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(ascend910\s+device\s+\S+\s+)" + kSdk))) << r.out;
  EXPECT_EQ(r.out.find("refused"), std::string::npos) << r.out;
}

TEST_F(AoeHostTest, PluginsShowsEachRefusalAndStillLoadsTheRest) {
  const std::string mixed = std::string(AOE_TEST_PLUGINS_DIR) + "/mixed";
  const auto r = aoe_host({"plugins", "--plugin-dir", mixed});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(sweep\s+searcher)"))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(ascend910\s+device)"))) << r.out;
  for (const char* refused : {"wrong_major", "newer_minor", "missing_entry", "throws_in_init", "not_a_library"})
    EXPECT_TRUE(std::regex_search(r.out, std::regex("refused " + mixed + "/libaoe_" + refused + "\\.so: \\S")))
        << refused << "\n" << r.out;
  EXPECT_NE(r.out.find("SDK 2.0"), std::string::npos) << r.out;
}

TEST_F(AoeHostTest, PluginsAsJsonForPrograms) {
  const std::string mixed = std::string(AOE_TEST_PLUGINS_DIR) + "/mixed";
  const auto r = aoe_host({"plugins", "--json", "--plugin-dir", mixed});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const auto listed = nlohmann::json::parse(r.out);
  std::set<std::string> devices;
  for (const auto& c : listed["components"]) {
    for (const char* field : {"name", "kind", "summary", "plugin", "version", "sdk", "path"})
      EXPECT_TRUE(c.contains(field)) << c.dump();
    if (c["kind"] == "device") devices.insert(c["name"].get<std::string>());
  }
  EXPECT_TRUE(devices.count("ascend910") && devices.count("cpu")) << r.out;
  EXPECT_EQ(listed["refused"].size(), 5u) << r.out;
  for (const auto& refusal : listed["refused"]) EXPECT_FALSE(refusal["reason"].get<std::string>().empty());
}

TEST_F(AoeHostTest, TwoPluginsWithOneNameIsAnErrorNamingBoth) {
  const std::string dir = AOE_TEST_PLUGINS_DIR;
  const auto r = tune("mlp.onnx", {"--searcher", "twin", "--plugin-dir", dir + "/duplicate_a", "--plugin-dir",
                                   dir + "/duplicate_b"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find(dir + "/duplicate_a/libaoe_duplicate_a.so"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(dir + "/duplicate_b/libaoe_duplicate_b.so"), std::string::npos) << r.err;
}

TEST_F(AoeHostTest, TunesTheMlpAndWritesAnAoeResult) {
  const auto r = tune("mlp.onnx");
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  // One line per tuned op with its before and after time; the three cube ops among them.
  const std::regex op_line(R"(\] (\S+) \((\w+) [^)]*\): ([0-9.]+) us -> ([0-9.]+) us)");
  int ops = 0, cube_ops = 0;
  for (std::sregex_iterator it(r.err.begin(), r.err.end(), op_line), end; it != end; ++it) {
    ++ops;
    cube_ops += (*it)[2] == "MatMul" || (*it)[2] == "Gemm";
    EXPECT_LE(std::stod((*it)[4]), std::stod((*it)[3])) << it->str();
  }
  EXPECT_EQ(cube_ops, 3) << r.err;
  EXPECT_NE(r.err.find("mlp process finished. Performance improved by"), std::string::npos) << r.err;

  const json result = only_result();
  EXPECT_EQ(result["basic"]["tuning_name"], "mlp");
  EXPECT_TRUE(result["basic"]["tuning_time(s)"].is_number());
  const json& opat = result["OPAT"];
  EXPECT_EQ(opat["opat_tuning_result"], "tuning successful");
  EXPECT_LT(opat["model_result_performance(ms)"].get<double>(), opat["model_baseline_performance(ms)"].get<double>());
  const json& s = opat["repo_summary"];
  EXPECT_EQ(s["total_num"], ops);
  EXPECT_EQ(s["total_num"].get<int>(), s["repo_add_num"].get<int>() + s["repo_hit_num"].get<int>() +
                                           s["repo_unsatisfied_num"].get<int>());
  EXPECT_EQ(s["repo_hit_num"].get<int>(), s["repo_update_num"].get<int>() + s["repo_reserved_num"].get<int>());
  // A fresh bank: every modified op was added.
  EXPECT_EQ(s["repo_add_num"].get<size_t>(), opat["repo_modified_operators"].size());
  for (const auto& op : opat["repo_modified_operators"]) {
    ASSERT_FALSE(op["tune_performance"].empty()) << op.dump();
    for (const auto& [tag, perf] : op["tune_performance"].items()) {
      EXPECT_TRUE(tag == "Format" || tag == "Schedule" || tag == "Impl") << tag;
      EXPECT_LT(perf["performance_after_tune(us)"].get<double>(), perf["performance_before_tune(us)"].get<double>());
      EXPECT_EQ(perf["update_mode"], "add") << op.dump();
    }
  }
  EXPECT_FALSE(opat.contains("tuning_failed_operators")) << "only a failed run lists failed ops";
  // Every added op left an entry in the bank, under the SoC's own folder of the op kind.
  size_t entries = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(bank_))
    if (e.path().extension() == ".json") ++entries;
  EXPECT_EQ(entries, s["repo_add_num"].get<size_t>());
  EXPECT_TRUE(std::filesystem::is_directory(bank_ / "op" / "Ascend910"));
}

TEST_F(AoeHostTest, SecondRunHitsTheBank) {
  ASSERT_EQ(tune("mlp.onnx").exit_code, 0);
  const json first = only_result()["OPAT"];
  for (const auto& f : result_files()) std::filesystem::remove(f);

  const auto r = tune("mlp.onnx");
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const json second = only_result()["OPAT"];
  EXPECT_EQ(second["repo_summary"]["repo_add_num"], 0);
  EXPECT_EQ(second["repo_summary"]["repo_hit_num"], first["repo_summary"]["repo_add_num"]);
  EXPECT_DOUBLE_EQ(second["model_result_performance(ms)"].get<double>(),
                   first["model_result_performance(ms)"].get<double>());
  for (const auto& op : second["opat_tuned_operators"])
    if (op["repo"] == "reserved") EXPECT_EQ(op["evaluations"], 0) << op.dump();
}

TEST_F(AoeHostTest, ResultGoesToAscendWorkPath) {
  const auto out = dir_ / "results";
  ASSERT_EQ(tune("mlp.onnx", {}, {{"ASCEND_WORK_PATH", out.string()}}).exit_code, 0);
  EXPECT_TRUE(result_files().empty());
  int found = 0;
  for (const auto& e : std::filesystem::directory_iterator(out))
    found += std::regex_match(e.path().filename().string(),
                              std::regex(R"(aoe_result_opat_\d{8}_\d{9}_pid\d+\.json)"));
  EXPECT_EQ(found, 1);
}

TEST_F(AoeHostTest, CommandLineBeatsEnvironmentBeatsConfigFile) {
  std::ofstream(dir_ / "aoe.yaml") << "device: no_such_device\nbudget: 4\nrepeat_tune: True\n";
  // The file's device would fail; the command line overrides it.
  auto r = tune("mlp.onnx", {"--config", "aoe.yaml", "--device", "ascend910"}, {{"REPEAT_TUNE", "False"}});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const json opat = only_result()["OPAT"];
  for (const auto& op : opat["opat_tuned_operators"]) EXPECT_LE(op["evaluations"].get<int>(), 24);
  // Without the override, the file's device is used and named in the error.
  r = aoe_host({"--config", "aoe.yaml", "--plugin", "opat", "--model", model("mlp.onnx").string()});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("no_such_device"), std::string::npos) << r.err;
}

TEST_F(AoeHostTest, UnknownConfigKeyNamesKeyAndFile) {
  std::ofstream(dir_ / "bad.yaml") << "budgett: 4\n";
  const auto r = tune("mlp.onnx", {"--config", "bad.yaml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("budgett"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("bad.yaml"), std::string::npos) << r.err;
}

TEST_F(AoeHostTest, BadValueNamesKeyAndSource) {
  const auto r = tune("mlp.onnx", {}, {{"REPEAT_TUNE", "perhaps"}});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("repeat_tune"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("REPEAT_TUNE"), std::string::npos) << r.err;
}

TEST_F(AoeHostTest, TruncatedModelIsAClearError) {
  const auto truncated = dir_ / "truncated.onnx";
  std::filesystem::copy_file(model("mlp.onnx"), truncated);
  std::filesystem::resize_file(truncated, std::filesystem::file_size(truncated) / 2);
  const auto r = aoe_host({"--plugin", "opat", "--model", truncated.string()});
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_NE(r.err.find("truncated.onnx"), std::string::npos) << r.err;
  EXPECT_TRUE(result_files().empty());
}

TEST_F(AoeHostTest, UnknownDeviceListsWhatThereIs) {
  const auto r = tune("mlp.onnx", {"--device", "ascend999"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("ascend999"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ascend910"), std::string::npos) << r.err;
}

TEST_F(AoeHostTest, UnknownSearcherStopsBeforeTuning) {
  const auto r = tune("mlp.onnx", {"--searcher", "telepathy"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("telepathy"), std::string::npos) << r.err;
  EXPECT_TRUE(result_files().empty());
}

TEST_F(AoeHostTest, JobTypeSelectsTheTuningMode) {
  const auto r = aoe_host({"--job_type", "2", "--model", model("mlp.onnx").string(), "--budget", "8"});
  EXPECT_EQ(r.exit_code, 0) << failure_text(r);
  EXPECT_GE(only_result()["OPAT"]["repo_summary"]["total_num"], 3);
}

TEST_F(AoeHostTest, SameSeedSameResult) {
  ASSERT_EQ(tune("mlp.onnx", {"--seed", "7", "--bank_path", (dir_ / "a").string()}).exit_code, 0);
  const json a = only_result()["OPAT"];
  for (const auto& f : result_files()) std::filesystem::remove(f);
  ASSERT_EQ(tune("mlp.onnx", {"--seed", "7", "--bank_path", (dir_ / "b").string()}).exit_code, 0);
  const json b = only_result()["OPAT"];
  EXPECT_EQ(a["opat_tuned_operators"], b["opat_tuned_operators"]);
}

}  // namespace
}  // namespace aoe::test
