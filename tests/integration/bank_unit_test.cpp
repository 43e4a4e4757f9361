// The bank's classes called directly: the layout per kind, the old layout's
// migration, and the index kept right whatever happens to its folder.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>

#include "bank.h"
#include "bank_index.h"

namespace aoe::host {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// 16 hex digits, as the bank's hashes are: MatMul 3 -> "00000000000ca003".
std::string hash_of(const std::string& op_type, int n) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%08x%08x", op_type == "MatMul" ? 0u : op_type == "Conv2D" ? 0xc0u : 0x5bu,
                static_cast<unsigned>(n));
  return hex;
}
std::string file_of(const std::string& op_type, int n) { return hash_of(op_type, n) + ".s1.json"; }

json op_entry(const std::string& op_type, int n, double after_us, const std::string& soc = "Ascend910") {
  const std::string signature = json{{"op_type", op_type}, {"n", n}}.dump();
  return {{"key",
           {{"kind", "op"}, {"op_type", op_type}, {"soc_version", soc}, {"space_version", "1"},
            {"signature", signature}, {"hash", hash_of(op_type, n)}}},
          {"op_type", op_type},
          {"config", {{"tile", n}}},
          {"before_us", after_us * 2},
          {"after_us", after_us}};
}

json graph_entry(int n, double after_us) {
  json e = op_entry("Subgraph", n, after_us);
  e["key"]["kind"] = "graph";
  e["key"].erase("op_type");
  return e;
}

void write_file(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

std::set<std::string> names(const std::vector<Bank::Entry>& entries) {
  std::set<std::string> out;
  for (const auto& e : entries) out.insert(e.file.filename().string());
  return out;
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::set<std::string> json_files(const fs::path& dir) {
  std::set<std::string> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& f : fs::directory_iterator(dir))
    if (f.path().extension() == ".json") out.insert(f.path().filename().string());
  return out;
}

const json kMatMulQuery = {{"kind", "op"}, {"soc_version", "Ascend910"}, {"space_version", "1"}, {"op_type", "MatMul"}};

class BankUnitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("aoe_bank_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  std::vector<Bank::Entry> select(const Bank& bank, const json& query, std::vector<fs::path>* skipped = nullptr) {
    return bank.select(query, [&](const fs::path& file, const std::string&) {
      if (skipped) skipped->push_back(file);
    });
  }
  fs::path dir_;
};

TEST_F(BankUnitTest, EachKindHasItsFolderUnderEachRoot) {
  EXPECT_EQ(Bank::default_root("op", "/r", "/c", "/h"), fs::path("/r/op"));
  EXPECT_EQ(Bank::default_root("graph", "", "/c", "/h"), fs::path("/c/aoe_data/graph"));
  EXPECT_EQ(Bank::default_root("gradient", "", "", "/h"), fs::path("/h/Ascend/latest/data/aoe/custom/gradient"));
  EXPECT_EQ(Bank::default_root("op", "", "", "/h"), fs::path("/h/Ascend/latest/data/aoe/custom/op"));
  const Bank bank = Bank::configured("graph", "/r", "", "/h");
  EXPECT_EQ(bank.root(), fs::path("/r/graph"));
  EXPECT_EQ(bank.kind(), "graph");
  for (const char* name : {"op", "graph", "gradient", "aoe_data"}) EXPECT_TRUE(Bank::is_layout_folder(name)) << name;
  EXPECT_FALSE(Bank::is_layout_folder("Ascend910"));
}

TEST_F(BankUnitTest, SelectOpensOnlyWhatTheIndexMatchesAndRecordKeepsItWhole) {
  const Bank bank(dir_ / "op");
  for (int n = 0; n < 20; ++n) bank.record(op_entry(n % 2 ? "MatMul" : "Conv2D", n, 10 + n));
  const auto index = dir_ / "op/Ascend910/.index/index.tsv";
  ASSERT_TRUE(fs::exists(index));
  EXPECT_EQ(select(bank, kMatMulQuery).size(), 10u);
  // A Conv2D file the index says is not a MatMul is never opened: made
  // unreadable, it is not reported to a MatMul query.
  write_file(dir_ / "op/Ascend910" / file_of("Conv2D", 0), "{ not json");
  std::vector<fs::path> skipped;
  EXPECT_EQ(select(Bank(dir_ / "op"), kMatMulQuery, &skipped).size(), 10u);
  EXPECT_TRUE(skipped.empty());
  // A fresh bank object reads the index the records left.
  BankIndex fresh(dir_ / "op/Ascend910");
  fresh.refresh(nullptr);
  EXPECT_EQ(fresh.size(), 20u);
}

// bank_nearest's answer: the entries of the query nearest in dims by the sum
// of |ln(a / b)|, ranked from the index alone.
TEST_F(BankUnitTest, NearestRanksByDimsFromTheIndexWithoutOpeningTheRest) {
  const Bank bank(dir_ / "op");
  const std::vector<std::vector<int64_t>> dims = {{64, 64}, {128, 64}, {16, 64}, {64, 60}, {-1, 64}, {64, 64, 1}};
  for (size_t n = 0; n < dims.size(); ++n) {
    json e = op_entry("MatMul", int(n), 10 + double(n));
    e["key"]["dims"] = dims[n];
    bank.record(e);
  }
  bank.record(op_entry("MatMul", 9, 1));  // no dims: not ranked
  const auto files = [&](size_t count) {
    std::vector<std::string> out;
    for (const auto& e : json::parse(bank.nearest_text(kMatMulQuery, {64, 64}, count, nullptr)))
      out.push_back(e["key"]["hash"]);
    return out;
  };
  // 64x64 itself, then 64x60 (ln 64/60), then 128 and 16 (ln 2 and ln 4):
  // -1 differs from 64 where a dim is unknown, and 3 dims are not 2.
  EXPECT_EQ(files(10), (std::vector<std::string>{hash_of("MatMul", 0), hash_of("MatMul", 3), hash_of("MatMul", 1),
                                                 hash_of("MatMul", 2)}));
  EXPECT_EQ(files(2), (std::vector<std::string>{hash_of("MatMul", 0), hash_of("MatMul", 3)}));
  // Entries beyond the answer are never opened: made unreadable, nothing is reported.
  write_file(dir_ / "op/Ascend910" / file_of("MatMul", 2), "{ not json");
  std::vector<fs::path> skipped;
  const Bank again(dir_ / "op");
  EXPECT_EQ(json::parse(again.nearest_text(kMatMulQuery, {64, 64}, 2, [&](const fs::path& f, const std::string&) {
              skipped.push_back(f);
            })).size(),
            2u);
  EXPECT_TRUE(skipped.empty());
}

// A family's query reads its family's part of the index alone: a large bank
// costs a run no more than the families it asks for.
TEST_F(BankUnitTest, AFamilyIsReadFromItsOwnPartOfTheIndex) {
  const Bank bank(dir_ / "op");
  const std::string a(16, 'a'), b(16, 'b');
  for (int n = 0; n < 6; ++n) {
    json e = op_entry("MatMul", n, 10 + n);
    e["key"]["family"] = n % 2 ? a : b;
    bank.record(e);
  }
  const fs::path parts = dir_ / "op/Ascend910/.index";
  ASSERT_TRUE(fs::exists(parts / ("part-" + a + ".tsv")));
  ASSERT_TRUE(fs::exists(parts / ("part-" + b + ".tsv")));
  // b's part made unreadable behind the index's back: asking for a does not notice.
  write_file(parts / ("part-" + b + ".tsv"), "not an index\n");
  json of_a = kMatMulQuery;
  of_a["family"] = a;
  EXPECT_EQ(select(Bank(dir_ / "op"), of_a).size(), 3u);
  EXPECT_EQ(read_text(parts / ("part-" + b + ".tsv")), "not an index\n");
  // Asking for every MatMul reads b's part, finds it stale and rebuilds it.
  EXPECT_EQ(select(Bank(dir_ / "op"), kMatMulQuery).size(), 6u);
  EXPECT_NE(read_text(parts / ("part-" + b + ".tsv")), "not an index\n");
  EXPECT_EQ(select(Bank(dir_ / "op"), of_a).size(), 3u);
}

TEST_F(BankUnitTest, AMissingOrCorruptIndexIsRebuilt) {
  {
    const Bank bank(dir_ / "op");
    for (int n = 0; n < 6; ++n) bank.record(op_entry("MatMul", n, 10 + n));
  }
  const auto index = dir_ / "op/Ascend910/.index/index.tsv";
  fs::remove(index);
  EXPECT_EQ(select(Bank(dir_ / "op"), kMatMulQuery).size(), 6u);
  EXPECT_TRUE(fs::exists(index));
  for (const char* garbage : {"garbage\n", "aoe-bank-index 1\nE\tMatMul0.s1.json\t1\t2", "aoe-bank-index 1\nS\t1\t0\t1\n"}) {
    write_file(index, garbage);
    EXPECT_EQ(select(Bank(dir_ / "op"), kMatMulQuery).size(), 6u) << garbage;
  }
  // The last line cut short, as by a writer that died appending.
  const std::string whole = [&] {
    std::ifstream in(index);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  write_file(index, whole.substr(0, whole.size() - 3));
  EXPECT_EQ(select(Bank(dir_ / "op"), kMatMulQuery).size(), 6u);
}

TEST_F(BankUnitTest, FilesAddedOrRemovedBehindTheIndexAreSeen) {
  const Bank bank(dir_ / "op");
  for (int n = 0; n < 4; ++n) bank.record(op_entry("MatMul", n, 10 + n));
  EXPECT_EQ(select(bank, kMatMulQuery).size(), 4u);
  // Copied in by hand, by the same bank object and by another, once the
  // folder's timestamp tick of the last record is over.
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  write_file(dir_ / "op/Ascend910" / file_of("MatMul", 99), op_entry("MatMul", 99, 5).dump());
  EXPECT_EQ(names(select(bank, kMatMulQuery)).count(file_of("MatMul", 99)), 1u);
  write_file(dir_ / "op/Ascend910" / file_of("MatMul", 98), op_entry("MatMul", 98, 5).dump());
  EXPECT_EQ(select(Bank(dir_ / "op"), kMatMulQuery).size(), 6u);
  fs::remove(dir_ / "op/Ascend910" / file_of("MatMul", 0));
  EXPECT_EQ(names(select(bank, kMatMulQuery)).count(file_of("MatMul", 0)), 0u);
  EXPECT_EQ(select(Bank(dir_ / "op"), kMatMulQuery).size(), 5u);
  // The index knows its folder again: a later process reads it, not the files.
  BankIndex later(dir_ / "op/Ascend910");
  later.refresh(nullptr);
  EXPECT_EQ(later.size(), 5u);
}

TEST_F(BankUnitTest, ACorruptEntryIsReportedEveryTimeAndKept) {
  const Bank bank(dir_ / "op");
  bank.record(op_entry("MatMul", 1, 10));
  const auto bad = dir_ / "op/Ascend910" / file_of("MatMul", 2);
  write_file(bad, "{ not json");
  for (int i = 0; i < 2; ++i) {
    std::vector<fs::path> skipped;
    EXPECT_EQ(select(bank, kMatMulQuery, &skipped).size(), 1u);
    ASSERT_EQ(skipped.size(), 1u);
    EXPECT_EQ(skipped[0], bad);
  }
  std::ifstream in(bad);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "{ not json");
  // Repaired, it is found again.
  write_file(bad, op_entry("MatMul", 2, 9).dump());
  EXPECT_EQ(select(Bank(dir_ / "op"), kMatMulQuery).size(), 2u);
}

TEST_F(BankUnitTest, RecordAllCountsAsRecordDoes) {
  const Bank out(dir_ / "out/op");
  out.record(op_entry("MatMul", 1, 10));
  const json faster = op_entry("MatMul", 1, 5), slower = op_entry("MatMul", 1, 20), fresh = op_entry("MatMul", 2, 7),
             fresh_slower = op_entry("MatMul", 2, 8);
  const auto counts = out.record_all({&slower, &faster, &fresh, &fresh_slower});
  EXPECT_EQ(counts.added, 1u);
  EXPECT_EQ(counts.replaced, 1u);
  EXPECT_EQ(counts.kept, 2u);
  EXPECT_EQ(out.lookup(faster["key"])->at("after_us"), 5);
  EXPECT_EQ(out.lookup(fresh["key"])->at("after_us"), 7);
  BankIndex index(dir_ / "out/op/Ascend910");
  index.refresh(nullptr);
  ASSERT_EQ(index.size(), 2u);
  EXPECT_EQ(index.find(file_of("MatMul", 1))->after_us, 5);
}

TEST_F(BankUnitTest, TheOldLayoutMovesKindByKind) {
  // <root>/<soc>/ held every kind.
  const fs::path root = dir_ / "bank";
  for (int n = 0; n < 3; ++n) write_file(root / "Ascend910" / file_of("MatMul", n),
                                         op_entry("MatMul", n, 10).dump());
  write_file(root / "Ascend910" / file_of("Subgraph", 7), graph_entry(7, 10).dump());
  write_file(root / "Ascend910/badbadbadbadbad0.s1.json", "{ not json");
  const Bank op = Bank::configured("op", root.string(), "", "/nowhere");
  EXPECT_EQ(select(op, kMatMulQuery).size(), 3u);
  EXPECT_EQ(json_files(root / "op/Ascend910").size(), 3u);
  EXPECT_EQ(json_files(root / "Ascend910"), (std::set<std::string>{file_of("Subgraph", 7), "badbadbadbadbad0.s1.json"}));
  const Bank graph = Bank::configured("graph", root.string(), "", "/nowhere");
  EXPECT_TRUE(graph.lookup(graph_entry(7, 10)["key"]).has_value());
  EXPECT_EQ(json_files(root / "graph/Ascend910"), std::set<std::string>{file_of("Subgraph", 7)});
  EXPECT_EQ(json_files(root / "Ascend910"), std::set<std::string>{"badbadbadbadbad0.s1.json"});
  // Under ASCEND_CACHE_PATH the new folders are in aoe_data.
  const fs::path cache = dir_ / "cache";
  write_file(cache / "Ascend310" / file_of("MatMul", 1), op_entry("MatMul", 1, 10, "Ascend310").dump());
  write_file(cache / "kernel_meta/te_conv2d_1.json", "{}");  // the cache's own files are no entries
  const Bank cached = Bank::configured("op", "", cache.string(), "/nowhere");
  EXPECT_TRUE(cached.lookup(op_entry("MatMul", 1, 10, "Ascend310")["key"]).has_value());
  EXPECT_TRUE(fs::exists(cache / "aoe_data/op/Ascend310" / file_of("MatMul", 1)));
  EXPECT_FALSE(fs::exists(cache / "Ascend310"));
  EXPECT_TRUE(fs::exists(cache / "kernel_meta/te_conv2d_1.json"));
}

TEST_F(BankUnitTest, AMigratedEntryDoesNotBeatAFasterOneAlreadyMoved) {
  const fs::path root = dir_ / "bank";
  const Bank now = Bank::configured("op", root.string(), "", "/nowhere");
  now.record(op_entry("MatMul", 1, 5));
  write_file(root / "Ascend910" / file_of("MatMul", 1), op_entry("MatMul", 1, 50).dump());
  write_file(root / "Ascend910" / file_of("MatMul", 2), op_entry("MatMul", 2, 50).dump());
  const Bank later = Bank::configured("op", root.string(), "", "/nowhere");
  EXPECT_EQ(later.lookup(op_entry("MatMul", 1, 0)["key"])->at("after_us"), 5);
  EXPECT_EQ(later.lookup(op_entry("MatMul", 2, 0)["key"])->at("after_us"), 50);
  EXPECT_EQ(select(later, kMatMulQuery).size(), 2u);
}

}  // namespace
}  // namespace aoe::host
