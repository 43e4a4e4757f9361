// --searcher_options through the real binary: hyperparameters reach the
// searcher and steer it; an unknown key or a bad value stops the run before
// any tuning, naming the searcher and the key.
#include <fstream>
#include <string>
#include <vector>

#include "aoe_host_fixture.h"

namespace aoe::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The configs measured, in order, over every task of the run under `dir`.
std::vector<json> measured_configs(const fs::path& dir) {
  std::vector<json> out;
  for (const auto& line : measurement_lines(dir)) out.push_back(line["config"]);
  return out;
}

class SearcherOptions : public AoeHostTest {
 protected:
  // conv_block's two convs with GA on the simulator, in a folder and bank of their own.
  ProcessResult run_in(const std::string& name, const std::string& options) const {
    const fs::path dir = dir_ / name;
    return aoe_host({"--plugin", "opat", "--device", "ascend910", "--model", model("conv_block.onnx").string(),
                     "--searcher", "ga", "--budget", "24", "--searcher_options", options, "--work_path", dir.string(),
                     "--bank_path", (dir / "bank").string()});
  }
};

TEST_F(SearcherOptions, ReachTheSearcherAndSteerIt) {
  ASSERT_EQ(run_in("a", R"({"population": 4})").exit_code, 0);
  ASSERT_EQ(run_in("b", R"({"ga": {"population": 4}})").exit_code, 0);
  ASSERT_EQ(run_in("c", R"({"population": 16, "mutation": 0.5})").exit_code, 0);
  const auto a = measured_configs(dir_ / "a"), b = measured_configs(dir_ / "b"), c = measured_configs(dir_ / "c");
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a, b);  // the same options, flat or keyed by the searcher's name
  EXPECT_NE(a, c);  // other options, another search
}

TEST_F(SearcherOptions, AnUnknownKeyStopsTheRunNamingItAndTheSearcher) {
  const auto r = run_in("x", R"({"populaton": 8})");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("unknown key 'populaton'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ga takes population"), std::string::npos) << r.err;
  EXPECT_TRUE(result_files().empty());
  EXPECT_FALSE(fs::exists(dir_ / "x" / "bank" / "op"));
}

TEST_F(SearcherOptions, AValueOutOfRangeOrOfTheWrongKindIsRefused) {
  for (const std::string bad : {R"({"population": -1})", R"({"population": 1e12})", R"({"population": 2.5})",
                                R"({"crossover": "high"})", R"([1, 2])", "not json"}) {
    const auto r = run_in("x", bad);
    EXPECT_EQ(r.exit_code, 2) << bad << "\n" << r.err;
    EXPECT_NE(r.err.find("searcher_options"), std::string::npos) << bad << "\n" << r.err;
  }
}

// One flat object goes to every searcher used: on the simulator's defaults
// (rl for the convs) a GA key is refused by rl, by name.
TEST_F(SearcherOptions, AFlatObjectGoesToEverySearcherUsed) {
  const auto r = aoe_host({"--plugin", "opat", "--device", "ascend910", "--model", model("conv_block.onnx").string(),
                           "--searcher_options", R"({"population": 8})"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("searcher_options for rl: unknown key 'population'"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace aoe::test
