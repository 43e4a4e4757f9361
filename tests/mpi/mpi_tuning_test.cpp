// OPAT under mpirun through the real aoe-host on the simulator, whose
// timings are deterministic: the ranks tune the same tasks into the same
// bank keys as one process does, rank 0 alone writes the result file, a rank
// on another device is refused, and Ctrl-C leaves a valid result file.
#include <sys/types.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <regex>
#include <set>
#include <thread>

#include "aoe_host_fixture.h"

namespace aoe::test {
namespace {

using nlohmann::json;

std::set<std::string> bank_files(const std::filesystem::path& bank) {
  std::set<std::string> out;
  if (!std::filesystem::exists(bank)) return out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(bank))
    if (e.path().extension() == ".json") out.insert(std::filesystem::relative(e.path(), bank).string());
  return out;
}

// The ops (subgraphs) a result file's section says were tuned.
std::set<std::string> tuned_tasks(const json& section) {
  std::set<std::string> out;
  for (const auto& op : section.value("opat_tuned_operators", json::array())) out.insert(op["op_name"].get<std::string>());
  for (const auto& sg : section.value("sgat_tuned_subgraphs", json::array())) out.insert(sg["repo_key"].get<std::string>());
  return out;
}

// The pid of the aoe-host rank `rank` whose bank is `bank`, read from /proc; 0 when none.
pid_t rank_pid(int rank, const std::filesystem::path& bank) {
  const std::string want_rank = "OMPI_COMM_WORLD_RANK=" + std::to_string(rank), want_bank = "TUNE_BANK_PATH=" + bank.string();
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "environ", std::ios::binary);
    bool rank_found = false, bank_found = false;
    for (std::string var; std::getline(in, var, '\0');) {
      rank_found |= var == want_rank;
      bank_found |= var == want_bank;
    }
    if (rank_found && bank_found && read_text(e.path() / "comm").rfind("aoe-host", 0) == 0) return std::stoi(name);
  }
  return 0;
}

// How many distinct tasks the progress lines name.
size_t tasks_under_way(const std::string& err) {
  std::set<std::string> tasks;
  const std::regex task(R"(\[task [0-9]+/[0-9]+\])");
  for (auto it = std::sregex_iterator(err.begin(), err.end(), task); it != std::sregex_iterator(); ++it)
    tasks.insert(it->str());
  return tasks.size();
}

size_t count_of(const std::string& text, const std::string& word) {
  size_t n = 0;
  for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
  return n;
}

class MpiTuningTest : public AoeHostTest {
 protected:
  void SetUp() override {
    AoeHostTest::SetUp();
    if (std::string(AOE_MPIEXEC).empty()) GTEST_SKIP() << "mpirun or MPI not found at configure time: not tested";
  }

  // mpirun with the test's bank, HOME and scratch folder; `ranks` is a list
  // of (count, aoe-host arguments) joined by ':' as mpirun's MPMD form.
  std::unique_ptr<ChildProcess> start_mpirun(const std::vector<std::pair<int, std::vector<std::string>>>& ranks,
                                            const std::vector<std::string>& mpirun_options = {}) const {
    std::vector<std::string> argv = {AOE_MPIEXEC, "--allow-run-as-root", "--oversubscribe", "-x", "TUNE_BANK_PATH",
                                     "-x", "HOME"};
    argv.insert(argv.end(), mpirun_options.begin(), mpirun_options.end());
    for (size_t i = 0; i < ranks.size(); ++i) {
      if (i) argv.push_back(":");
      argv.insert(argv.end(), {"-np", std::to_string(ranks[i].first), AOE_HOST_BINARY});
      argv.insert(argv.end(), ranks[i].second.begin(), ranks[i].second.end());
    }
    // Open MPI is built without frame pointers: under AddressSanitizer, only
    // the slow unwinder reaches its frames, which the suppressions name. Even
    // so, what its plugins allocate through dlopen is not always matched, so
    // leaks are not checked in the ranks: the single-process tests check aoe's.
    const char* asan = std::getenv("ASAN_OPTIONS");
    return std::make_unique<ChildProcess>(argv, dir_,
                                          std::map<std::string, std::string>{
                                              {"TUNE_BANK_PATH", bank_.string()},
                                              {"HOME", dir_.string()},
                                              {"OMPI_ALLOW_RUN_AS_ROOT", "1"},
                                              {"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"},
                                              {"ASAN_OPTIONS", std::string(asan ? asan : "") + ":fast_unwind_on_malloc=0:detect_leaks=0"}});
  }
  ProcessResult mpirun(int ranks, const std::vector<std::string>& args) const {
    return start_mpirun({{ranks, args}})->wait(240);
  }

  // The serial run's tuned ops and bank files, then the same under `ranks`.
  void expect_same_as_serial(int ranks, const std::string& mode = "opat") {
    std::vector<std::string> args =
        tune_args("bert_layer.onnx", {"--budget", "8", "--warm_start", "false", "--searcher", "random"});
    args[1] = mode;
    const std::string section = mode == "opat" ? "OPAT" : "SGAT";
    const auto serial = aoe_host(args);
    ASSERT_EQ(serial.exit_code, 0) << serial.err;
    const json alone = only_result()[section];
    const auto alone_bank = bank_files(bank_);
    if (mode == "opat") ASSERT_FALSE(alone_bank.empty());  // SGAT keeps the defaults at this budget
    std::filesystem::remove_all(bank_);
    for (const auto& f : result_files()) std::filesystem::remove(f);

    const auto r = mpirun(ranks, args);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    const auto files = result_files();
    ASSERT_EQ(files.size(), 1u) << "rank 0 alone writes the result file\n" << r.err;
    const json shared = only_result()[section];
    EXPECT_EQ(shared[mode + "_tuning_result"], "tuning successful");
    EXPECT_EQ(tuned_tasks(shared), tuned_tasks(alone));
    EXPECT_EQ(shared["repo_summary"], alone["repo_summary"]);
    EXPECT_EQ(bank_files(bank_), alone_bank);
    // Every task tuned once, by some rank, and every rank given some.
    ASSERT_EQ(shared["mpi"]["ranks"], ranks) << shared.dump(2);
    size_t total = 0;
    for (const auto& n : shared["mpi"]["tasks_per_rank"]) {
      EXPECT_GT(n.get<size_t>(), 0u) << shared["mpi"].dump();
      total += n.get<size_t>();
    }
    if (mode == "opat") EXPECT_EQ(total, shared["opat_tuned_operators"].size() + shared["unsupported_operators"].size());
    EXPECT_EQ(count_of(r.err, "process finished"), 1u) << r.err;  // rank 0's end line, once
  }
};

TEST_F(MpiTuningTest, TwoRanksTuneWhatOneProcessTunes) { expect_same_as_serial(2); }

TEST_F(MpiTuningTest, ThreeOversubscribedRanksTuneWhatOneProcessTunes) { expect_same_as_serial(3); }

TEST_F(MpiTuningTest, TwoRanksTuneTheSubgraphsOneProcessTunes) { expect_same_as_serial(2, "sgat"); }

TEST_F(MpiTuningTest, RankOnAnotherDeviceIsRefusedBeforeTuning) {
  const auto r = start_mpirun({{1, tune_args("mlp.onnx", {"--searcher", "random"})},
                             {1, tune_args("mlp.onnx", {"--searcher", "random", "--device", "ascend310"})}})->wait(120);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("rank 1 tunes for device ascend310"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("rank 0 for device ascend910"), std::string::npos) << r.err;
  EXPECT_TRUE(bank_files(bank_).empty());
  EXPECT_EQ(only_result()["OPAT"]["opat_tuning_result"], "tuning failed");
}

// Open MPI ends the job when a rank dies, unless recovery is on; then rank 0
// hears nothing more from the rank and hands its task to another.
TEST_F(MpiTuningTest, KilledRanksTaskIsTunedByAnother) {
  const std::string forever = std::string(AOE_TEST_PLUGINS_DIR) + "/forever";
  const auto args = tune_args("mlp.onnx", {"--searcher", "forever", "--plugin-dir", forever, "--budget", "100000000",
                                           "--time_limit", "2", "--rank_timeout", "2"});
  auto child = start_mpirun({{2, args}}, {"--mca", "orte_enable_recovery", "1"});
  pid_t worker = 0;
  for (int i = 0; i < 3000 && (worker = rank_pid(1, bank_)) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_NE(worker, 0) << child->err_so_far();
  // Killed once both ranks search: two tasks under way.
  for (int i = 0; i < 3000 && tasks_under_way(child->err_so_far()) < 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(::kill(worker, SIGKILL), 0);
  const auto r = child->wait(120);
  EXPECT_NE(r.err.find("rank 1 was lost while tuning it"), std::string::npos) << r.err;
  const json opat = only_result()["OPAT"];
  EXPECT_EQ(opat["opat_tuning_result"], "tuning successful") << opat.dump(2);
  EXPECT_EQ(opat["opat_tuned_operators"].size(), 3u) << opat.dump(2);  // the lost task too, by rank 0
  EXPECT_EQ(opat["mpi"]["tasks_per_rank"][0], 3) << opat.dump(2);
}

TEST_F(MpiTuningTest, CtrlCLeavesAnIncompleteResultFile) {
  const std::string forever = std::string(AOE_TEST_PLUGINS_DIR) + "/forever";
  auto child = start_mpirun({{2, tune_args("mlp.onnx", {"--searcher", "forever", "--plugin-dir", forever, "--budget",
                                                        "100000000", "--time_limit", "60"})}});
  for (int i = 0; i < 6000 && child->err_so_far().find("[task ") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  child->signal(SIGINT);
  const auto r = child->wait(60);
  EXPECT_NE(r.exit_code, 0) << failure_text(r);
  EXPECT_EQ(only_result()["OPAT"]["opat_tuning_result"], "tuning incomplete") << r.err;
}

}  // namespace
}  // namespace aoe::test
