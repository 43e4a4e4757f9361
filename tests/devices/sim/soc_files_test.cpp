// SoCs as YAML files: the shipped ones, broken ones, user ones on AOE_SIM_SOC_PATH,
// and what the per-SoC figures do to a modelled time.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>

#include "aoe/sdk/device_client.h"
#include "aoe/sdk/error.h"
#include "aoe/sdk/plugin.h"
#include "op_tasks.h"
#include "sim_device.h"
#include "soc_files.h"

namespace aoe::sim {
namespace {

namespace fs = std::filesystem;

const char* const kPathVar = "AOE_SIM_SOC_PATH";

// Sets an environment variable for one test and puts back what was there.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::optional<std::string>& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) setenv(name, value->c_str(), 1);
    else unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_, old_->c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// A fresh directory per test, removed after it.
class SocFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("aoe_soc_files_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string shipped_text(const std::string& target) {
    for (const auto& dir : soc_search_path()) {
      std::ifstream in(dir / (target + ".yaml"));
      if (!in) continue;
      std::stringstream text;
      text << in.rdbuf();
      return text.str();
    }
    ADD_FAILURE() << "no shipped " << target << ".yaml";
    return {};
  }

  // The shipped ascend910 file with `edit` applied to each line (nullopt drops it).
  fs::path variant(const std::string& name,
                   const std::function<std::optional<std::string>(const std::string&)>& edit) const {
    std::istringstream in(shipped_text("ascend910"));
    const auto file = dir_ / (name + ".yaml");
    std::ofstream out(file);
    for (std::string line; std::getline(in, line);)
      if (auto kept = edit(line)) out << *kept << "\n";
    return file;
  }

  static std::optional<std::string> renamed(const std::string& line, const std::string& target) {
    return line.rfind("target:", 0) == 0 ? "target: " + target : line;
  }

  std::string error_of(const fs::path& file) const {
    try {
      load_soc_file(file);
    } catch (const sdk::Error& e) {
      EXPECT_EQ(e.code(), sdk::StatusCode::invalid_argument) << e.what();
      EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
      return e.what();
    }
    ADD_FAILURE() << file << " loaded";
    return {};
  }

  fs::path dir_;
};

double default_time_us(const std::string& component, const sdk::OpTask& task) {
  const SimDevice device(sdk::CreateArgs{component, nlohmann::json::object()});
  const auto model = device.model(task);
  return model->time_us(model->space().default_config);
}

TEST_F(SocFiles, EachShippedSocLoadsWithPlausibleValues) {
  const std::pair<const char*, const char*> shipped[] = {
      {"ascend910", "Ascend910"}, {"ascend910b", "Ascend910B2"}, {"ascend310", "Ascend310"}, {"ascend310p", "Ascend310P3"}};
  for (const auto& [target, soc_version] : shipped) {
    SCOPED_TRACE(target);
    const Soc s = load_soc(target);
    EXPECT_EQ(s.target, target);
    EXPECT_EQ(s.soc_version, soc_version);
    EXPECT_GT(s.ai_cores, 0);
    EXPECT_GT(s.clock_ghz, 0.3);
    EXPECT_LT(s.clock_ghz, 3.0);
    EXPECT_EQ(s.cube_m * s.cube_k * s.cube_n, 4096);
    EXPECT_GT(s.l0a_bytes, 0);
    EXPECT_GT(s.l0c_bytes, 0);
    EXPECT_GT(s.ub_bytes, 0);
    EXPECT_LE(s.l0a_bytes, s.l1_bytes);
    EXPECT_LE(s.l0b_bytes, s.l1_bytes);
    EXPECT_LT(s.l1_bytes, s.l2_bytes);
    EXPECT_GT(s.hbm_gbps, 0);
    EXPECT_GT(s.gm_to_l1_rate, 0);
    EXPECT_GT(s.ub_to_gm_rate, 0);
    EXPECT_EQ(sim::describe(s).at("soc_version"), soc_version);
  }
}

TEST_F(SocFiles, EachComponentDescribesItsOwnSoc) {
  EXPECT_EQ(SimDevice(sdk::CreateArgs{"ascend910b", {}}).describe().at("soc_version"), "Ascend910B2");
  EXPECT_EQ(SimDevice(sdk::CreateArgs{"ascend310", {}}).describe().at("ai_core_count"), 2);
  EXPECT_EQ(SimDevice(sdk::CreateArgs{"ascend310p", {}}).describe().at("soc_version"), "Ascend310P3");
}

TEST_F(SocFiles, AMissingKeyIsNamedWithTheFile) {
  const auto file = variant("ascend910", [](const std::string& line) -> std::optional<std::string> {
    if (line.rfind("l1_bytes:", 0) == 0) return std::nullopt;
    return line;
  });
  EXPECT_NE(error_of(file).find("key 'l1_bytes' is missing"), std::string::npos);
}

TEST_F(SocFiles, ABadValueIsNamedWithTheFile) {
  const auto text = variant("ascend910", [](const std::string& line) -> std::optional<std::string> {
    return line.rfind("ai_cores:", 0) == 0 ? "ai_cores: many" : line;
  });
  EXPECT_NE(error_of(text).find("key 'ai_cores' must be a number"), std::string::npos);
  const auto zero = variant("ascend910", [](const std::string& line) -> std::optional<std::string> {
    return line.rfind("ub_bytes:", 0) == 0 ? "ub_bytes: 0" : line;
  });
  EXPECT_NE(error_of(zero).find("key 'ub_bytes' must be > 0"), std::string::npos);
}

// The launch a block: the 30-core 910's file fits it to its profiles; the
// others leave the whole launch in launch_us. A negative one is refused.
TEST_F(SocFiles, TheLaunchGrowsWithTheBlocksWhereTheFileSaysSo) {
  EXPECT_EQ(load_soc("ascend910").block_launch_us, 0);
  EXPECT_EQ(load_soc("ascend910").launch_us_for(32), load_soc("ascend910").launch_us);
  const Soc s = load_soc("ascend910_30c");
  EXPECT_GT(s.block_launch_us, 0);
  EXPECT_NEAR(s.launch_us_for(30) - s.launch_us_for(1), 29 * s.block_launch_us, 1e-12);
  EXPECT_EQ(sim::describe(s).at("block_launch_us"), s.block_launch_us);
  const auto negative = variant("ascend910", [](const std::string& line) -> std::optional<std::string> {
    return line.rfind("block_launch_us:", 0) == 0 ? "block_launch_us: -0.1" : line;
  });
  EXPECT_NE(error_of(negative).find("key 'block_launch_us' must be >= 0"), std::string::npos);
}

// index_cycles came after the first SoC files: one without it still loads,
// its gathers paying no turn per index; a negative one is refused.
TEST_F(SocFiles, AFileWithoutIndexCyclesLoadsWithNone) {
  EXPECT_GT(load_soc("ascend910").index_cycles, 0);
  const auto without = variant("ascend910", [](const std::string& line) -> std::optional<std::string> {
    if (line.rfind("index_cycles:", 0) == 0) return std::nullopt;
    return line;
  });
  EXPECT_EQ(load_soc_file(without).index_cycles, 0);
  const auto negative = variant("ascend910", [](const std::string& line) -> std::optional<std::string> {
    return line.rfind("index_cycles:", 0) == 0 ? "index_cycles: -1" : line;
  });
  EXPECT_NE(error_of(negative).find("key 'index_cycles' must be >= 0"), std::string::npos);
}

// ub_contention came later too: the chip the profiles fitted ships it; a
// file without it (ascend910's) loads with none, double buffering hiding
// the shorter of a tile's copies and passes whole; a share outside [0, 1]
// is refused.
TEST_F(SocFiles, AFileWithoutUbContentionLoadsWithNone) {
  EXPECT_GT(load_soc("ascend910_30c").ub_contention, 0);
  EXPECT_EQ(load_soc("ascend910").ub_contention, 0);
  auto with = [&](const std::string& value) {
    return variant("ascend910", [&](const std::string& line) -> std::optional<std::string> {
      return line.rfind("index_cycles:", 0) == 0 ? line + "\nub_contention: " + value : line;
    });
  };
  EXPECT_EQ(load_soc_file(with("0.25")).ub_contention, 0.25);
  EXPECT_NE(error_of(with("-0.5")).find("key 'ub_contention' must be >= 0"), std::string::npos);
  EXPECT_NE(error_of(with("1.5")).find("key 'ub_contention' must be <= 1"), std::string::npos);
}

TEST_F(SocFiles, AnUnknownKeyOrAWrongNameOrBrokenYamlIsRefused) {
  const auto extra = variant("ascend910", [](const std::string& line) -> std::optional<std::string> {
    return line.rfind("l1_bytes:", 0) == 0 ? line + "\nl1_byte: 4" : line;
  });
  EXPECT_NE(error_of(extra).find("key 'l1_byte' is not a key"), std::string::npos);
  const auto misnamed = variant("other", [](const std::string& line) { return std::optional<std::string>(line); });
  EXPECT_NE(error_of(misnamed).find("rename the file to ascend910.yaml"), std::string::npos);
  const auto broken = variant("ascend910", [](const std::string& line) -> std::optional<std::string> {
    return line.rfind("ub_bytes:", 0) == 0 ? "ub_bytes: [262144" : line;
  });
  EXPECT_NE(error_of(broken).find("is not valid YAML"), std::string::npos);
}

// soc_version names the bank's folder for this SoC: one plain component or nothing.
TEST_F(SocFiles, ASocVersionThatLeadsOutOfTheBankIsRefused) {
  for (const std::string bad : {"../../tmp/x", "..", ".hidden", "Ascend 910"}) {
    const auto file = variant("ascend910", [&](const std::string& line) -> std::optional<std::string> {
      return line.rfind("soc_version:", 0) == 0 ? "soc_version: \"" + bad + "\"" : line;
    });
    EXPECT_NE(error_of(file).find("key 'soc_version' cannot name a bank folder"), std::string::npos) << bad;
  }
}

TEST_F(SocFiles, ASocOnTheSearchPathIsFoundAndPickedByAscendSim) {
  variant("mychip", [this](const std::string& line) -> std::optional<std::string> {
    if (line.rfind("ai_cores:", 0) == 0) return "ai_cores: 5";
    if (line.rfind("soc_version:", 0) == 0) return "soc_version: MyChip";
    return renamed(line, "mychip");
  });
  const char* old = std::getenv(kPathVar);
  ScopedEnv env(kPathVar, "/nonexistent:" + dir_.string() + ":" + (old ? old : ""));
  EXPECT_EQ(load_soc("mychip").ai_cores, 5);
  const auto d = SimDevice(sdk::CreateArgs{"ascend_sim", {{"soc", "mychip"}}}).describe();
  EXPECT_EQ(d.at("soc_version"), "MyChip");
  EXPECT_EQ(d.at("ai_core_count"), 5);
  // The shipped SoCs are still found after the user's directories.
  EXPECT_EQ(load_soc("ascend310").ai_cores, 2);
}

TEST_F(SocFiles, AscendSimTakesAPathToASocFile) {
  const auto file = variant("chip2", [this](const std::string& line) { return renamed(line, "chip2"); });
  ScopedEnv env(kPathVar, std::nullopt);
  const auto d = SimDevice(sdk::CreateArgs{"ascend_sim", {{"soc", file.string()}}}).describe();
  EXPECT_EQ(d.at("target"), "chip2");
}

TEST_F(SocFiles, TheSocOptionBelongsToAscendSimAlone) {
  auto code_of = [](const sdk::CreateArgs& args) {
    try {
      SimDevice device(args);
    } catch (const sdk::Error& e) {
      return std::make_pair(e.code(), std::string(e.what()));
    }
    return std::make_pair(sdk::StatusCode::ok, std::string());
  };
  const auto none = code_of({"ascend_sim", {}});
  EXPECT_EQ(none.first, sdk::StatusCode::invalid_argument);
  EXPECT_NE(none.second.find("needs option 'soc'"), std::string::npos) << none.second;
  const auto both = code_of({"ascend910", {{"soc", "ascend310"}}});
  EXPECT_EQ(both.first, sdk::StatusCode::invalid_argument);
  EXPECT_NE(both.second.find("use ascend_sim"), std::string::npos) << both.second;
  const auto unknown = code_of({"ascend_sim", {{"soc", "ascend999"}}});
  EXPECT_EQ(unknown.first, sdk::StatusCode::not_found);
  EXPECT_NE(unknown.second.find("ascend999.yaml"), std::string::npos) << unknown.second;
}

TEST_F(SocFiles, Ascend910bHasMoreComputeThanAscend310) {
  EXPECT_GT(load_soc("ascend910b").peak_flops_per_us(), 10 * load_soc("ascend310").peak_flops_per_us());
}

TEST_F(SocFiles, ALargeOpIsSlowerOnTwoCoresThanOnThirtyTwo) {
  const auto op = test::square(2048, 2048, 2048);
  const double on_310 = default_time_us("ascend310", op);
  const double on_910 = default_time_us("ascend910", op);
  EXPECT_GT(on_310, 4 * on_910) << on_310 << " us on ascend310, " << on_910 << " us on ascend910";
}

// What an installed plugin does: no AOE_SIM_SOC_PATH, files found beside the library.
TEST_F(SocFiles, ThePluginFindsItsShippedFilesBesideItself) {
  ScopedEnv env(kPathVar, std::nullopt);
  void* lib = dlopen(AOE_PLUGIN_FILE, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  using Init = aoe_status* (*)(const aoe_host_services*);
  using Query = const aoe_plugin_descriptor* (*)();
  using Create = aoe_status* (*)(const char*, const char*, void**);
  using Shutdown = void (*)();
  auto init = reinterpret_cast<Init>(dlsym(lib, "aoe_plugin_init"));
  auto query = reinterpret_cast<Query>(dlsym(lib, "aoe_plugin_query"));
  auto create = reinterpret_cast<Create>(dlsym(lib, "aoe_plugin_create"));
  auto shutdown = reinterpret_cast<Shutdown>(dlsym(lib, "aoe_plugin_shutdown"));
  ASSERT_TRUE(init && query && create && shutdown);

  // Statuses as plain strings: the test only needs to read one.
  aoe_host_services services{};
  services.struct_size = sizeof services;
  services.status_create = [](void*, int32_t, const char* message) {
    return reinterpret_cast<aoe_status*>(strdup(message));
  };
  services.status_code = [](const aoe_status*) { return int32_t{1}; };
  services.status_message = [](const aoe_status* s) { return reinterpret_cast<const char*>(s); };
  services.status_destroy = [](aoe_status* s) { std::free(s); };
  ASSERT_EQ(init(&services), nullptr);

  const aoe_device_vtable* vtable = nullptr;
  const aoe_plugin_descriptor* d = query();
  for (uint32_t i = 0; i < d->component_count; ++i)
    if (std::strcmp(d->components[i].name, "ascend310p") == 0)
      vtable = static_cast<const aoe_device_vtable*>(d->components[i].vtable);
  ASSERT_NE(vtable, nullptr);
  void* self = nullptr;
  aoe_status* status = create("ascend310p", "{}", &self);
  EXPECT_EQ(status, nullptr) << reinterpret_cast<const char*>(status);
  if (self) {
    const aoe_device_ref ref{sizeof(aoe_device_ref), self, vtable};
    EXPECT_EQ(sdk::DeviceClient(ref, sdk::Host(&services)).describe().at("soc_version"), "Ascend310P3");
    vtable->destroy(self);
  }
  if (status) services.status_destroy(status);
  shutdown();
  dlclose(lib);
}

}  // namespace
}  // namespace aoe::sim
