// The bank's layout through the real binary: a folder per kind as AOE keeps
// them, banks of the old mixed layout moved into it, and the index that
// spares queries from opening every entry.
#include <fstream>
#include <set>
#include <thread>

#include "aoe_host_fixture.h"

namespace aoe::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kClusters = AOE_GDAT_CLUSTERS_DIR;

std::vector<fs::path> json_files(const fs::path& dir, bool recursive = false) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  if (recursive) {
    for (const auto& e : fs::recursive_directory_iterator(dir))
      if (e.path().extension() == ".json") out.push_back(e.path());
  } else {
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".json") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::set<std::string> names(const std::vector<fs::path>& files) {
  std::set<std::string> out;
  for (const auto& f : files) out.insert(f.filename().string());
  return out;
}

// The entry files a SoC folder's index lists, and the count its last stamp gives.
struct Indexed {
  std::set<std::string> files;
  long stamped = -1;
};
// index.tsv's stamp, and the files its parts (part-*.tsv) list.
Indexed read_index(const fs::path& soc_dir) {
  Indexed out;
  const fs::path dir = soc_dir / ".index";
  if (!fs::is_directory(dir)) return out;
  for (const auto& f : fs::directory_iterator(dir)) {
    const std::string name = f.path().filename().string();
    if (name != "index.tsv" && name.rfind("part-", 0) != 0) continue;
    std::ifstream in(f.path());
    for (std::string line; std::getline(in, line);) {
      std::vector<std::string> cells;
      std::stringstream cut(line);
      for (std::string cell; std::getline(cut, cell, '\t');) cells.push_back(cell);
      if (cells.size() >= 2 && (cells[0] == "E" || cells[0] == "X")) out.files.insert(cells[1]);
      if (cells.size() == 4 && cells[0] == "S") out.stamped = std::stol(cells[2]);
    }
  }
  return out;
}

json matmul(int m, int n) {
  return {{"op", "MatMul"},
          {"name", "qkv"},
          {"input_desc", {{{"shape", {m, 768}}, {"type", "float16"}},
                          {{"shape", {768, n}}, {"type", "float16"}, {"const", true}}}},
          {"output_desc", {{{"shape", {m, n}}, {"type", "float16"}}}}};
}

class BankTest : public AoeHostTest {
 protected:
  ProcessResult sgat(const std::string& model) const {
    return aoe_host({"--job_type", "1", "--device", "ascend910", "--model", AoeHostTest::model(model).string(),
                     "--budget", "24"});
  }
  ProcessResult gdat(const std::string& model) const {
    return aoe_host({"--plugin", "gdat", "--model", AoeHostTest::model(model).string(), "--cluster",
                     (kClusters / "ascend910_8p_hccs.yaml").string(), "--budget", "200"});
  }
  json take_result(const std::string& section) {
    auto files = result_files();
    std::sort(files.begin(), files.end());
    EXPECT_FALSE(files.empty());
    const json out = files.empty() ? json::object() : result_sections(read_json(files.back())).value(section, json::object());
    for (const auto& f : files) fs::remove(f);
    return out;
  }
  // OPAT on single ops of the simulator; err gets the run's log.
  json tune_ops(const json& ops, std::vector<std::string> extra = {}, std::string* err = nullptr,
                const std::string& budget = "24", const std::string& searcher = "random") {
    const auto file = dir_ / ("ops_" + std::to_string(runs_++) + ".json");
    std::ofstream(file) << ops.dump();
    std::vector<std::string> args = {"--plugin", "opat", "--device", "ascend910", "--singleop", file.string(),
                                     "--budget", budget, "--searcher", searcher};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = aoe_host(args);
    EXPECT_EQ(r.exit_code, 0) << failure_text(r);
    if (err) *err = r.err;
    return take_result("OPAT");
  }
  // The op's best config banked, as a long tuning would.
  void bank_op(const json& op, std::vector<std::string> extra = {}) {
    const json opat = tune_ops(json::array({op}), std::move(extra), nullptr, "2000000", "exhaustive");
    EXPECT_EQ(opat["opat_tuned_operators"][0]["repo"], "add") << opat.dump(2);
  }
  static int seeds(const json& opat) { return opat["opat_tuned_operators"][0]["warm_start"]["seeds"].get<int>(); }

  int runs_ = 0;
};

TEST_F(BankTest, EachKindKeepsItsEntriesInItsOwnFolder) {
  ASSERT_EQ(tune("mlp.onnx").exit_code, 0);
  const auto s = sgat("bert_layer.onnx");
  ASSERT_EQ(s.exit_code, 0) << s.err;
  const auto g = gdat("resnet50.onnx");
  ASSERT_EQ(g.exit_code, 0) << g.err;
  EXPECT_FALSE(json_files(bank_ / "op/Ascend910").empty());
  EXPECT_FALSE(json_files(bank_ / "graph/Ascend910").empty());
  EXPECT_EQ(json_files(bank_ / "gradient/ascend910-8p").size(), 1u);
  for (const char* kind : {"op", "graph", "gradient"})
    for (const auto& f : json_files(bank_ / kind, true)) EXPECT_EQ(read_json(f)["key"]["kind"], kind) << f;
  // Nothing beside the kinds' folders.
  for (const auto& e : fs::directory_iterator(bank_)) {
    const auto name = e.path().filename().string();
    EXPECT_TRUE(name == "op" || name == "graph" || name == "gradient") << e.path();
  }
}

TEST_F(BankTest, ABankOfTheOldLayoutIsMovedAndHit) {
  ASSERT_EQ(tune("mlp.onnx").exit_code, 0);
  const int added = take_result("OPAT")["repo_summary"]["repo_add_num"].get<int>();
  ASSERT_GT(added, 0);
  // As an older aoe-host left it: <bank>/<soc>/ with every kind.
  fs::create_directories(bank_ / "Ascend910");
  for (const auto& f : json_files(bank_ / "op/Ascend910")) fs::rename(f, bank_ / "Ascend910" / f.filename());
  fs::remove_all(bank_ / "op");
  const auto corrupt = bank_ / "Ascend910/0123456789abcdef.s1.json";
  std::ofstream(corrupt) << "{ not json";

  const auto r = tune("mlp.onnx");
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const json opat = take_result("OPAT");
  EXPECT_EQ(opat["repo_summary"]["repo_hit_num"], added) << opat.dump(2);
  EXPECT_EQ(json_files(bank_ / "op/Ascend910").size(), size_t(added));
  EXPECT_EQ(json_files(bank_ / "Ascend910"), std::vector<fs::path>{corrupt});
  EXPECT_EQ(read_text(corrupt), "{ not json");
  EXPECT_NE(r.err.find(corrupt.string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("moved " + std::to_string(added) + " op entries from " + (bank_ / "Ascend910").string()),
            std::string::npos)
      << r.err;
}

TEST_F(BankTest, OtherKindsOfTheOldLayoutWaitForTheirOwnRun) {
  ASSERT_EQ(gdat("resnet50.onnx").exit_code, 0);
  take_result("GDAT");
  auto entries = json_files(bank_ / "gradient/ascend910-8p");
  ASSERT_EQ(entries.size(), 1u);
  const auto old = bank_ / "ascend910-8p" / entries[0].filename();
  fs::create_directories(old.parent_path());
  fs::rename(entries[0], old);
  fs::remove_all(bank_ / "gradient");

  ASSERT_EQ(tune("mlp.onnx").exit_code, 0);  // OPAT: the gradient entry stays
  take_result("OPAT");
  EXPECT_TRUE(fs::exists(old));
  const auto r = gdat("resnet50.onnx");
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  EXPECT_EQ(take_result("GDAT")["repo_entry"]["outcome"], "hit");
  EXPECT_FALSE(fs::exists(old));
  EXPECT_TRUE(fs::exists(bank_ / "gradient/ascend910-8p" / old.filename()));
  EXPECT_NE(r.err.find("moved 1 gradient entries"), std::string::npos) << r.err;
}

TEST_F(BankTest, CachePathAlonePutsEntriesUnderAoeData) {
  const auto cache = dir_ / "cache";
  const auto r = tune("mlp.onnx", {}, {{"TUNE_BANK_PATH", ""}, {"ASCEND_CACHE_PATH", cache.string()}});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const auto added = take_result("OPAT")["repo_summary"]["repo_add_num"].get<size_t>();
  ASSERT_GT(added, 0u);
  EXPECT_EQ(json_files(cache / "aoe_data/op/Ascend910").size(), added);
  EXPECT_EQ(json_files(cache, true).size(), added);
  EXPECT_FALSE(fs::exists(bank_));
}

TEST_F(BankTest, ShowAndMergeTakeEitherRootAndKeepKindsApart) {
  ASSERT_EQ(tune("mlp.onnx", {"--bank_path", (dir_ / "a").string()}).exit_code, 0);
  ASSERT_EQ(sgat("bert_layer.onnx").exit_code, 0);  // into bank_: graph and op entries
  const auto ops_a = json_files(dir_ / "a/op/Ascend910").size();
  for (const auto& dir : {dir_ / "a", dir_ / "a/op"}) {
    const auto r = aoe_host({"bank", "show", dir.string()});
    ASSERT_EQ(r.exit_code, 0) << failure_text(r);
    EXPECT_NE(r.out.find(": " + std::to_string(ops_a) + " entries (Ascend910)"), std::string::npos) << r.out;
  }
  // An old-layout bank given to merge: its kinds go apart in OUT.
  fs::create_directories(dir_ / "old/Ascend910");
  for (const auto& f : json_files(bank_, true)) fs::copy_file(f, dir_ / "old/Ascend910" / f.filename());
  const auto r = aoe_host({"bank", "merge", (dir_ / "a/op").string(), (dir_ / "old").string(), "-o",
                           (dir_ / "out").string()});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  // kind/file of every entry a bank holds in the new layout.
  const auto kinds_and_names = [](const fs::path& root) {
    std::set<std::string> out;
    for (const auto& f : json_files(root, true))
      out.insert(f.parent_path().parent_path().filename().string() + "/" + f.filename().string());
    return out;
  };
  auto expected = kinds_and_names(dir_ / "a");
  for (const auto& k : kinds_and_names(bank_)) expected.insert(k);
  EXPECT_EQ(kinds_and_names(dir_ / "out"), expected);
  for (const char* kind : {"op", "graph"}) {
    ASSERT_FALSE(json_files(dir_ / "out" / kind / "Ascend910").empty()) << kind;
    for (const auto& f : json_files(dir_ / "out" / kind, true)) EXPECT_EQ(read_json(f)["key"]["kind"], kind) << f;
    EXPECT_EQ(read_index(dir_ / "out" / kind / "Ascend910").files, names(json_files(dir_ / "out" / kind / "Ascend910")));
  }
}

// A foreign bank's key names a folder in the old layout: one that leads out
// of OUT stops the merge, naming the entry, before anything is written.
TEST_F(BankTest, AMergedKeyThatLeadsOutOfTheBankIsRefusedNamingTheEntry) {
  ASSERT_EQ(tune("mlp.onnx", {"--bank_path", (dir_ / "a").string()}).exit_code, 0);
  const auto good = json_files(dir_ / "a/op/Ascend910");
  ASSERT_FALSE(good.empty());
  for (const std::string& soc : std::vector<std::string>{"../../escaped", "..", "/tmp/abs", "a/b", std::string(200, 'x')}) {
    fs::remove_all(dir_ / "crafted");
    fs::create_directories(dir_ / "crafted/Ascend910");
    json entry = read_json(*good.begin());
    entry["key"]["soc_version"] = soc;
    const auto evil = dir_ / "crafted/Ascend910/00000000deadbeef.s1.json";
    std::ofstream(evil) << entry.dump(2);
    fs::remove_all(dir_ / "out");
    const auto r = aoe_host({"bank", "merge", (dir_ / "a").string(), (dir_ / "crafted").string(), "-o",
                             (dir_ / "out/inner").string()});
    EXPECT_NE(r.exit_code, 0) << soc;
    EXPECT_NE(r.err.find(evil.string()), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("cannot name a folder"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "escaped")) << soc;
    EXPECT_TRUE(json_files(dir_ / "out", true).empty()) << soc;
  }
}

TEST_F(BankTest, AnIndexDeletedOrCorruptIsRebuilt) {
  bank_op(matmul(128, 2304));
  const auto folder = bank_ / "op/Ascend910";
  const auto index = folder / ".index/index.tsv";
  ASSERT_TRUE(fs::exists(index));
  EXPECT_EQ(read_index(folder).files, names(json_files(folder)));
  int rows = 256;
  for (const std::string damage : {"delete", "garbage", "cut"}) {
    if (damage == "delete") fs::remove(index);
    if (damage == "garbage") std::ofstream(index) << "garbage\n";
    if (damage == "cut") {
      const auto text = read_text(index);
      std::ofstream(index) << text.substr(0, text.size() - 2);
    }
    const json opat = tune_ops(json::array({matmul(rows, 2304)}));
    rows *= 2;
    EXPECT_GT(seeds(opat), 0) << damage << "\n" << opat.dump(2);
    const auto indexed = read_index(folder);
    EXPECT_EQ(indexed.files, names(json_files(folder))) << damage;
    EXPECT_EQ(indexed.stamped, long(json_files(folder).size())) << damage;
  }
}

TEST_F(BankTest, AnEntryCopiedInBehindTheIndexIsFound) {
  bank_op(matmul(128, 2304));
  bank_op(matmul(128, 3072), {"--bank_path", (dir_ / "other").string()});
  const auto copied = json_files(dir_ / "other/op/Ascend910");
  ASSERT_EQ(copied.size(), 1u);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // past the folder's timestamp tick
  fs::copy_file(copied[0], bank_ / "op/Ascend910" / copied[0].filename());
  std::string err;
  tune_ops(json::array({matmul(256, 2304)}), {"--log_level", "debug"}, &err);
  EXPECT_NE(err.find("warm start: 2 banked MatMul"), std::string::npos) << err;
  EXPECT_EQ(read_index(bank_ / "op/Ascend910").files.count(copied[0].filename().string()), 1u);
}

TEST_F(BankTest, TwoProcessesRecordingKeepTheIndexWhole) {
  // rl with this seed beats the simulator's defaults on both models.
  const std::vector<std::string> searcher = {"--seed", "3", "--searcher", "rl"};
  auto a = start_aoe_host(tune_args("mlp.onnx", searcher));
  auto b = start_aoe_host(tune_args("bert_ffn.onnx", searcher));
  ASSERT_EQ(a->wait().exit_code, 0);
  ASSERT_EQ(b->wait().exit_code, 0);
  const auto folder = bank_ / "op/Ascend910";
  const auto files = names(json_files(folder));
  ASSERT_GT(files.size(), 3u);
  const auto indexed = read_index(folder);
  EXPECT_EQ(indexed.files, files);
  EXPECT_EQ(indexed.stamped, long(files.size()));
}

// Both processes search the same tasks and record them into one empty bank
// at once: every entry reads whole, the bank holds one entry per task either
// run banked, the faster of the two, and the index counts what is on disk.
TEST_F(BankTest, TwoProcessesTuningTheSameModelLoseNothing) {
  auto a = start_aoe_host(tune_args("bert_ffn.onnx", {"--seed", "3", "--searcher", "rl"}));
  auto b = start_aoe_host(tune_args("bert_ffn.onnx", {"--seed", "4", "--searcher", "random"}));
  const auto ra = a->wait(), rb = b->wait();
  ASSERT_EQ(ra.exit_code, 0) << ra.err;
  ASSERT_EQ(rb.exit_code, 0) << rb.err;
  const auto results = result_files();
  ASSERT_EQ(results.size(), 2u);

  std::map<std::string, double> banked_by_runs;  // signature hash -> the faster time a run banked
  for (const auto& file : results) {
    json opat;
    for (const auto& section : read_json(file))
      if (section.contains("OPAT")) opat = section["OPAT"];
    ASSERT_EQ(opat["opat_tuning_result"], "tuning successful") << opat.dump(2);
    const json& s = opat["repo_summary"];
    EXPECT_EQ(s["total_num"].get<int>(),
              s["repo_add_num"].get<int>() + s["repo_hit_num"].get<int>() + s["repo_unsatisfied_num"].get<int>());
    for (const auto& op : opat["opat_tuned_operators"]) {
      if (op["repo"] != "add" && op["repo"] != "update") continue;
      const auto hash = op["signature_hash"].get<std::string>();
      const double us = op["performance_after_tune(us)"].get<double>();
      banked_by_runs[hash] = banked_by_runs.count(hash) ? std::min(banked_by_runs[hash], us) : us;
    }
  }
  ASSERT_FALSE(banked_by_runs.empty());

  const auto folder = bank_ / "op/Ascend910";
  std::map<std::string, double> in_bank;
  for (const auto& f : json_files(folder)) {
    json entry;
    ASSERT_NO_THROW(entry = read_json(f)) << f;
    const auto hash = entry["key"]["hash"].get<std::string>();
    EXPECT_FALSE(in_bank.count(hash)) << "two entries for " << hash;
    in_bank[hash] = entry["after_us"].get<double>();
  }
  ASSERT_EQ(in_bank.size(), banked_by_runs.size());
  for (const auto& [hash, us] : banked_by_runs) {
    ASSERT_TRUE(in_bank.count(hash)) << hash << " was banked by a run and is missing";
    EXPECT_DOUBLE_EQ(in_bank[hash], us) << hash;
  }
  const auto indexed = read_index(folder);
  EXPECT_EQ(indexed.files, names(json_files(folder)));
  EXPECT_EQ(indexed.stamped, long(in_bank.size()));
  for (const auto& name : fs::directory_iterator(folder))
    EXPECT_EQ(name.path().filename().string().find(".tmp"), std::string::npos) << name.path();
}

}  // namespace
}  // namespace aoe::test
