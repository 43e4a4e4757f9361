// Cachefiles that would make the replay device inflate without end, and real
// ones that do not name their device.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>

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
  EXPECT_EQ(device_name_from_file("plain.json"), "plain");
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
