// OPAT's warm start through the real binary: a new shape's search opens with
// configs banked for the same op type on nearby shapes, and nothing else.
#include <fstream>
#include <set>

#include "aoe_host_fixture.h"

namespace aoe::test {
namespace {

using nlohmann::json;

std::set<std::filesystem::path> bank_files(const std::filesystem::path& bank) {
  std::set<std::filesystem::path> out;
  if (!std::filesystem::exists(bank)) return out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(bank))
    if (e.path().extension() == ".json") out.insert(e.path());
  return out;
}

// An AOE single-op description of a MatMul of m x 768 by 768 x n, in fp16.
json matmul(int m, int n, const std::string& name = "qkv") {
  return {{"op", "MatMul"},
          {"name", name},
          {"input_desc", {{{"shape", {m, 768}}, {"type", "float16"}},
                          {{"shape", {768, n}}, {"type", "float16"}, {"const", true}}}},
          {"output_desc", {{{"shape", {m, n}}, {"type", "float16"}}}}};
}

json softmax(int rows, int cols) {
  return {{"op", "Softmax"},
          {"name", "probs"},
          {"input_desc", {{{"shape", {rows, cols}}, {"type", "float16"}}}},
          {"output_desc", {{{"shape", {rows, cols}}, {"type", "float16"}}}},
          {"attr", {{{"name", "axis"}, {"value", -1}}}}};
}

class WarmStartTest : public AoeHostTest {
 protected:
  // Tunes the ops on the simulator into the test's bank; the result file is
  // read and removed, so every run's is the only one.
  json tune_ops(const json& ops, std::vector<std::string> extra = {}, std::string* err = nullptr,
                const std::string& budget = std::to_string(kBudget), const std::string& searcher = "random") {
    const auto file = dir_ / ("ops_" + std::to_string(runs_++) + ".json");
    std::ofstream(file) << ops.dump();
    std::vector<std::string> args = {"--plugin", "opat", "--device", "ascend910", "--singleop", file.string(),
                                     "--budget", budget, "--searcher", searcher};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = aoe_host(args);
    EXPECT_EQ(r.exit_code, 0) << failure_text(r);
    if (err) *err = r.err;
    const json result = only_result();
    for (const auto& f : result_files()) std::filesystem::remove(f);
    return result.value("OPAT", json::object());
  }

  // Banks each op's best config, as tuning at length does: the simulator's
  // defaults are good, and a short search seldom beats them.
  json bank_ops(const json& ops) {
    const json opat = tune_ops(ops, {}, nullptr, "2000000", "exhaustive");
    for (const auto& tuned : opat["opat_tuned_operators"]) EXPECT_EQ(tuned["repo"], "add") << opat.dump(2);
    return opat;
  }

  static const json& op(const json& opat, size_t i) { return opat["opat_tuned_operators"][i]; }

  static constexpr int kBudget = 24;

  int runs_ = 0;
};

TEST_F(WarmStartTest, ANearbyShapeOpensWithWhatTheBankLearnt) {
  const json first = bank_ops(json::array({matmul(128, 2304)}));
  EXPECT_EQ(op(first, 0)["warm_start"]["seeds"], 0) << "an empty bank has nothing to offer";

  std::string err;
  const json second = tune_ops(json::array({matmul(256, 2304)}), {}, &err);
  const json& tuned = op(second, 0);
  ASSERT_GT(tuned["warm_start"]["seeds"].get<int>(), 0) << second.dump(2);
  EXPECT_LE(tuned["warm_start"]["seeds"].get<int>(), 4);  // a few of the budget of 24
  EXPECT_GT(tuned["warm_start"]["best_seed_us"].get<double>(), 0);
  EXPECT_GE(tuned["warm_start"]["best_seed_us"].get<double>(), tuned["performance_after_tune(us)"].get<double>());
  EXPECT_EQ(tuned["evaluations"], kBudget) << "seeds spend the budget, not more";
  EXPECT_NE(err.find("warm start: " + std::to_string(tuned["warm_start"]["seeds"].get<int>()) + " config"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find(" from banked MatMul of nearby shapes"), std::string::npos) << err;

  // Whatever the new shape banked stands beside the first entry, whole.
  const auto files = bank_files(bank_);
  ASSERT_EQ(files.size(), tuned["repo"] == "add" ? 2u : 1u) << tuned.dump(2);
  for (const auto& f : files) {
    const json entry = read_json(f);
    EXPECT_EQ(entry["key"]["op_type"], "MatMul") << f;
    EXPECT_LE(entry["after_us"].get<double>(), entry["before_us"].get<double>()) << f;
    EXPECT_TRUE(entry["config"].is_object()) << f;
  }

  // An exact bank hit opens no search, so there is nothing to seed.
  const json again = tune_ops(json::array({matmul(128, 2304)}));
  EXPECT_EQ(op(again, 0)["repo"], "reserved");
  EXPECT_FALSE(op(again, 0).contains("warm_start")) << again.dump(2);
}

TEST_F(WarmStartTest, LaterOpsOfOneRunOpenWithTheEarlierOnes) {
  const json opat = bank_ops(json::array({matmul(128, 3072, "ffn_up"), matmul(256, 3072, "ffn_up_longer")}));
  EXPECT_EQ(op(opat, 0)["warm_start"]["seeds"], 0);
  EXPECT_GT(op(opat, 1)["warm_start"]["seeds"].get<int>(), 0) << opat.dump(2);
}

TEST_F(WarmStartTest, OptionOffOpensWithNone) {
  bank_ops(json::array({matmul(128, 2304)}));
  std::string err;
  const json off = tune_ops(json::array({matmul(256, 2304)}), {"--warm_start", "false"}, &err);
  EXPECT_EQ(op(off, 0)["warm_start"]["seeds"], 0) << off.dump(2);
  EXPECT_EQ(err.find("warm start:"), std::string::npos) << err;
  // Given alone, the option means on.
  std::filesystem::remove_all(bank_);
  bank_ops(json::array({matmul(128, 2304)}));
  const json on = tune_ops(json::array({matmul(256, 2304)}), {"--warm_start"});
  EXPECT_GT(op(on, 0)["warm_start"]["seeds"].get<int>(), 0) << on.dump(2);
}

TEST_F(WarmStartTest, AnotherOpTypeOpensWithNone) {
  bank_ops(json::array({matmul(128, 2304)}));
  const json opat = tune_ops(json::array({softmax(128, 2304)}));
  ASSERT_EQ(opat["opat_tuned_operators"].size(), 1u) << opat.dump(2);
  EXPECT_EQ(op(opat, 0)["warm_start"]["seeds"], 0) << opat.dump(2);
}

TEST_F(WarmStartTest, ACorruptNeighbourIsReportedLeftOutAndKept) {
  bank_ops(json::array({matmul(128, 2304)}));
  const auto healthy = bank_files(bank_);
  ASSERT_EQ(healthy.size(), 1u);
  bank_ops(json::array({matmul(512, 2304)}));
  auto files = bank_files(bank_);
  ASSERT_EQ(files.size(), 2u);
  files.erase(*healthy.begin());
  const auto corrupt = *files.begin();
  std::ofstream(corrupt) << "{ not json";
  const auto stray = healthy.begin()->parent_path() / "ffffffffffffffff.s1.json";
  std::ofstream(stray) << R"({"key": "not an object", "after_us": 1})";

  std::string err;
  const json opat = tune_ops(json::array({matmul(256, 2304)}), {}, &err);
  EXPECT_EQ(opat["opat_tuning_result"], "tuning successful");
  EXPECT_GT(op(opat, 0)["warm_start"]["seeds"].get<int>(), 0) << opat.dump(2);
  EXPECT_NE(err.find(corrupt.string()), std::string::npos) << err;
  EXPECT_NE(err.find(stray.string()), std::string::npos) << err;
  EXPECT_EQ(read_text(corrupt), "{ not json");
}

}  // namespace
}  // namespace aoe::test
