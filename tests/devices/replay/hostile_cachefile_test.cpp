// Cachefiles that would make the replay device inflate without end, and real
// ones that do not name their device.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "aoe/sdk/error.h"
#include "aoe/sdk/path_component.h"
#include "cachefile.h"
#include "replay_device.h"

namespace aoe::replay {
namespace {

namespace fs = std::filesystem;

std::string gzip(const std::string& bytes) {
  z_stream z{};
  deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, bytes.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

const char* const kSpace = R"({"device_name": "", "kernel_name": "k",
    "tune_params_keys": ["bx"], "tune_params": {"bx": [16, 32]},
    "cache": {"16": {"bx": 16, "time": 1.0}, "32": {"bx": 32, "time": 2.0}}})";

class HostileCachefile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("aoe_hostile_cachefile_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path write(const std::string& name, const std::string& bytes) const {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
    return dir_ / name;
  }
  fs::path dir_;
};

TEST_F(HostileCachefile, InflatingPastTheLimitStopsWithAClearError) {
  // 64 MiB of spaces in well under a megabyte: inflated only up to the limit.
  const fs::path bomb = write("bomb_A100.json.gz", gzip(std::string(64 << 20, ' ')));
  ASSERT_LT(fs::file_size(bomb), 1u << 20);
  try {
    read_cachefile(bomb, 8 << 20);
    ADD_FAILURE() << "inflated";
  } catch (const sdk::Error& e) {
    const std::string why = e.what();
    EXPECT_NE(why.find(bomb.string()), std::string::npos) << why;
    EXPECT_NE(why.find("inflates to more than 8 MiB"), std::string::npos) << why;
    EXPECT_NE(why.find("max_inflated_mb"), std::string::npos) << why;
  }
}

TEST_F(HostileCachefile, ThePlainFileLimitHoldsToo) {
  const fs::path big = write("big_A100.json", std::string(2 << 20, ' '));
  EXPECT_THROW(read_cachefile(big, 1 << 20), sdk::Error);
}

TEST_F(HostileCachefile, TheLimitIsAnOptionInMib) {
  const fs::path bomb = write("bomb_A100.json.gz", gzip(std::string(3 << 20, ' ') + kSpace));
  EXPECT_THROW(ReplayDevice(ReplayOptions::parse({{"cachefile", bomb.string()}, {"max_inflated_mb", 2}}, "replay")),
               sdk::Error);
  EXPECT_NO_THROW(ReplayDevice(ReplayOptions::parse({{"cachefile", bomb.string()}, {"max_inflated_mb", 4}}, "replay")));
  EXPECT_THROW(ReplayOptions::parse({{"cachefile", bomb.string()}, {"max_inflated_mb", 0}}, "replay"), sdk::Error);
  EXPECT_EQ(ReplayOptions::parse({{"cachefile", bomb.string()}}, "replay").max_bytes, uint64_t{1} << 30);
}

// Kernel Tuner appends each entry as it measures it and closes the cache
// only when tuning ends: an interrupted run leaves it open.
TEST_F(HostileCachefile, ACacheKernelTunerLeftOpenIsReadAsItReadsIt) {
  const std::string head = R"({
"schema_version": "1.0.0",
"device_name": "Testing",
"kernel_name": "k",
"problem_size": [4096],
"tune_params_keys": ["bx"],
"tune_params": {"bx": [16, 32, 64]},
"objective": "time",
"cache": {
"16": {"bx": 16, "time": 1.0, "compile_time": 900.0, "benchmark_time": 120.0},
"32": {"bx": 32, "time": 2.0, "compile_time": 800.0, "benchmark_time": 140.0})";
  for (const std::string& tail : {std::string("\n"), std::string(",\n"), std::string(",")}) {
    const auto c = read_cachefile(write("open_Testing.json", head + tail));
    EXPECT_TRUE(c.left_open);
    ASSERT_EQ(c.records.size(), 2u);
    EXPECT_EQ(c.records[1].key, "32");
  }
  EXPECT_TRUE(read_cachefile(write("gz_Testing.json.gz", gzip(head + ",\n"))).left_open);
  EXPECT_FALSE(read_cachefile(write("closed_Testing.json", head + "\n}\n}\n")).left_open);
  // The device says so.
  const ReplayDevice device(ReplayOptions::parse({{"cachefile", (dir_ / "open_Testing.json").string()}}, "replay"));
  EXPECT_EQ(device.describe()["cachefile_left_open"], true);
  // An entry cut off mid-write is not one Kernel Tuner wrote: the parse error, naming the file.
  const auto cut = write("cut_Testing.json", head + ",\n\"64\": {\"bx\": 64, \"ti");
  try {
    read_cachefile(cut);
    ADD_FAILURE() << "read a cut entry";
  } catch (const sdk::Error& e) {
    EXPECT_NE(std::string(e.what()).find(cut.string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos) << e.what();
  }
}

TEST_F(HostileCachefile, AnEmptyDeviceNameIsTakenFromTheFileName) {
  const fs::path file = write("convolution_milo_A4000.json.gz", gzip(kSpace));
  EXPECT_EQ(read_cachefile(file).device_name, "A4000");
  ReplayDevice device(ReplayOptions::parse({{"cachefile", file.string()}}, "replay"));
  EXPECT_EQ(device.describe().at("soc_version"), "A4000");
  EXPECT_EQ(device_name_from_file("convolution_MI50.json"), "MI50");
  EXPECT_EQ(device_name_from_file("V100.json"), "V100");
  // Kernel Tuner's own test files: the last part names no GPU.
  EXPECT_EQ(device_name_from_file("invalid_missing_device_name.json"), "");
  EXPECT_EQ(device_name_from_file("t4_cache.json"), "");
}

// No device_name in the file or its name: the option names it, or the device says to give it.
TEST_F(HostileCachefile, AGpuNamedNowhereIsAskedFor) {
  const fs::path file = write("t4_cache.json", kSpace);
  try {
    ReplayDevice(ReplayOptions::parse({{"cachefile", file.string()}}, "replay"));
    ADD_FAILURE() << "named a GPU";
  } catch (const sdk::Error& e) {
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("give the GPU it was recorded on with the option device_name"), std::string::npos)
        << e.what();
  }
  const ReplayDevice named(ReplayOptions::parse({{"cachefile", file.string()}, {"device_name", "T4"}}, "replay"));
  EXPECT_EQ(named.describe().at("soc_version"), "T4");
}

// The faults of Kernel Tuner's own invalid test cachefiles, each named with its entry.
TEST_F(HostileCachefile, WhatKernelTunerWouldNotHaveWrittenIsRefusedByName) {
  const std::string head = R"({"device_name": "A100", "kernel_name": "k", "tune_params_keys": ["bx", "by"],
      "tune_params": {"bx": [16, 32], "by": [1, 2]},)";
  const std::string good = R"("16,1": {"bx": 16, "by": 1, "time": 3.9, "times": [3.9, 4.0]})";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"("schema_version": "20.9.8", "cache": {)" + good + "}}", "has schema_version \"20.9.8\""},
      {R"("schema_version": 1, "cache": {)" + good + "}}", "has schema_version 1;"},
      {R"("cache": {"16,,,,,1": {"bx": 16, "by": 1, "time": 3.9}}})",
       "entry \"16,,,,,1\" records the values 16, 1, which its key does not name"},
      {R"("cache": {"32,1": {"bx": 16, "by": 1, "time": 3.9}}})", "entry \"32,1\" records the values 16, 1"},
      {R"("cache": {"16,1": {"bx": 16, "by": 1, "times": [3.9]}}})", "entry \"16,1\" has no \"time\""},
      {R"("cache": {"16,1": {"bx": 16, "by": 1, "time": 3.9, "times": "Invalid"}}})",
       "entry \"16,1\" has \"times\" that are not a list: \"Invalid\""},
      {R"("cache": {"16,1": {"bx": 16, "by": 1, "time": 3.9, "times": [3.9, "x"]}}})",
       "entry \"16,1\" has a \"times\" value that is not a number: \"x\""},
      {R"("objective": 5, "cache": {)" + good + "}}", "has a \"objective\" that is not a name"},
  };
  for (const auto& [body, why] : cases) {
    SCOPED_TRACE(body);
    const fs::path file = write("bad_A100.json", head + body);
    try {
      read_cachefile(file);
      ADD_FAILURE() << "accepted";
    } catch (const sdk::Error& e) {
      EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  }
  const std::string keys_text = R"({"device_name": "A100", "kernel_name": "k", "tune_params_keys": "Invalid",
      "tune_params": {"bx": [16]}, "cache": {"16": {"bx": 16, "time": 1.0}}})";
  try {
    read_cachefile(write("keys_A100.json", keys_text));
    ADD_FAILURE() << "accepted";
  } catch (const sdk::Error& e) {
    EXPECT_NE(std::string(e.what()).find("has a \"tune_params_keys\" that is not a list of names"), std::string::npos)
        << e.what();
  }
  // Keys as Kernel Tuner prints its values: Python's floats, True and False, strings as they are.
  const std::string typed = R"({"device_name": "A100", "kernel_name": "k", "tune_params_keys": ["f", "b", "s"],
      "tune_params": {"f": [2.45, 0.1], "b": [true, false], "s": ["row", "col"]},
      "cache": {"2.45,True,row": {"f": 2.45, "b": true, "s": "row", "time": 1.0},
                "0.1,False,col": {"f": 0.10000000149011612, "b": false, "s": "col", "time": 2.0}}})";
  EXPECT_EQ(read_cachefile(write("typed_A100.json", typed)).records.size(), 2u);
  // An object parameter Kernel Tuner leaves out of the key (its open_cache_looks_like_closed.json).
  const std::string object = R"({"device_name": "A100", "kernel_name": "k", "tune_params_keys": ["bx", "o"],
      "tune_params": {"bx": [16], "o": [{}]}, "cache": {"16": {"bx": 16, "o": {}, "time": 1.0}}})";
  EXPECT_EQ(read_cachefile(write("object_A100.json", object)).records.size(), 1u);
}

TEST_F(HostileCachefile, TheDeviceNameOptionNamesTheDevice) {
  const fs::path file = write("space.json", kSpace);
  ReplayDevice device(ReplayOptions::parse({{"cachefile", file.string()}, {"device_name", "RTX 4090"}}, "replay"));
  EXPECT_EQ(device.describe().at("soc_version"), "RTX_4090");
  EXPECT_EQ(device.describe().at("device_name"), "RTX 4090");
}

// A device name is a name, not a path: what would lead out of the bank's
// folder is replaced before it becomes the bank's soc_version.
TEST_F(HostileCachefile, ADeviceNameThatLeadsOutOfTheBankBecomesOneHarmlessFolder) {
  const std::string sneaky = std::string(kSpace).replace(std::string(kSpace).find("\"\""), 2, "\"../../etc/x\"");
  ReplayDevice device(ReplayOptions::parse({{"cachefile", write("s.json", sneaky).string()}}, "replay"));
  const auto soc = device.describe().at("soc_version").get<std::string>();
  EXPECT_EQ(soc, "_._.._etc_x");
  EXPECT_TRUE(sdk::safe_path_component(soc));
  EXPECT_EQ(sdk::path_component_from(".hidden"), "_hidden");
  EXPECT_EQ(sdk::path_component_from(std::string(300, 'a')).size(), 128u);
}

TEST_F(HostileCachefile, ADeviceNameThatIsNoNameIsStillRefused) {
  const std::string numbered = std::string(kSpace).replace(std::string(kSpace).find("\"\""), 2, "7");
  EXPECT_THROW(read_cachefile(write("n_A100.json", numbered)), sdk::Error);
}

}  // namespace
}  // namespace aoe::replay
