// The replay device on the project's own recordings of simulator spaces (both
// of Kernel Tuner's layouts), on three spaces recorded on real GPUs (found
// through AOE_KERNEL_TUNER_DATA, skipped without it), and on small
// hand-written cachefiles: counts, exact times, failures, constraints, the
// simulated clock, and errors that name what is wrong.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <string>

#include <unistd.h>

#include "aoe/sdk/error.h"
#include "recorded_data.h"
#include "replay_device.h"

namespace aoe::replay {
namespace {

namespace fs = std::filesystem;
using sdk::Config;
using sdk::ResultStatus;

const fs::path kData = test::benchmark_hub_data();

// The README table of the data, and the kernel each file records.
struct Recording {
  const char* cachefile;
  const char* kernel;
  const char* op;
  const char* gpu;
  size_t recorded, compile_failed, runtime_failed;
  double space;
};
const Recording kRecordings[] = {
    {"convolution_milo_A100.json.gz", "convolution_milo.kernel.json", "convolution_kernel", "NVIDIA A100-PCIE-40GB",
     4362, 6, 155, 10240},
    {"convolution_milo_A4000.json.gz", "convolution_milo.kernel.json", "convolution_kernel", "NVIDIA RTX A4000", 4362,
     6, 155, 10240},
    {"dedispersion_milo_A4000.json.gz", "dedispersion_milo.kernel.json", "dedispersion_kernel", "NVIDIA RTX A4000",
     11130, 0, 0, 22272},
};

ReplayOptions options_for(const Recording& r, bool with_kernel) {
  ReplayOptions o;
  o.cachefile = kData / r.cachefile;
  if (with_kernel) o.kernel = kData / r.kernel;
  return o;
}

// Each recording is read once per way of reading it: they take a moment.
ReplayDevice& device(const Recording& r, bool with_kernel = true) {
  static std::map<std::pair<std::string, bool>, std::unique_ptr<ReplayDevice>> devices;
  auto& d = devices[{r.cachefile, with_kernel}];
  if (!d) d = std::make_unique<ReplayDevice>(options_for(r, with_kernel));
  return *d;
}

sdk::OpTask op(const std::string& type) {
  sdk::OpTask t;
  t.name = type;
  t.op_type = type;
  return t;
}

// Builds then measures one config, as a tuner does.
sdk::Measurement evaluate(ReplayTask& task, const Config& config) {
  const auto verdict = task.check(config);
  if (!verdict.ok()) return verdict;
  auto built = task.build(config);
  if (!built.candidate) return built.failure;
  return task.measure({built.candidate.get()}, {})[0];
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const sdk::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

class ScratchDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("replay_test_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path write(const std::string& name, const std::string& bytes) {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
    return dir_ / name;
  }
  static std::string bytes_of(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  fs::path dir_;
};

TEST(ReplayDevice, ReadsAllThreeSpaces) {
  AOE_REQUIRE_BENCHMARK_HUB_DATA();
  for (const auto& r : kRecordings)
    for (bool with_kernel : {true, false}) {
      SCOPED_TRACE(std::string(r.cachefile) + (with_kernel ? " with its kernel description" : " alone"));
      const RecordedSpace& s = device(r, with_kernel).recorded();
      EXPECT_EQ(s.counts().recorded, r.recorded);
      EXPECT_EQ(s.counts().compile_failed, r.compile_failed);
      EXPECT_EQ(s.counts().runtime_failed, r.runtime_failed);
      EXPECT_EQ(s.counts().invalid, 0u);
      EXPECT_EQ(s.counts().valid, r.recorded - r.compile_failed - r.runtime_failed);
      EXPECT_EQ(s.space().size(), r.space);
      std::vector<std::string> names;
      for (const auto& k : s.space().knobs) {
        names.push_back(k.name);
        EXPECT_EQ(k.kind, sdk::DomainKind::integer) << k.name;
        EXPECT_EQ(k.tag, sdk::KnobTag::schedule) << k.name;
        EXPECT_TRUE(std::is_sorted(k.values.begin(), k.values.end())) << k.name;
      }
      EXPECT_EQ(names, s.cachefile().keys);
      EXPECT_EQ(s.cachefile().device_name, r.gpu);
      EXPECT_EQ(s.cachefile().kernel_name, r.op);
      // Every record is reachable, and the optimum is the fastest of them.
      double fastest = 1e300;
      for (const auto& rec : s.cachefile().records) {
        ASSERT_TRUE(s.config_of(rec)) << rec.key;
        EXPECT_EQ(s.record(*s.config_of(rec)), &rec);
        if (rec.outcome == Outcome::timed) fastest = std::min(fastest, rec.time_ms);
      }
      EXPECT_EQ(s.optimum().time_ms, fastest);
      EXPECT_TRUE(s.check(s.space().default_config).ok());
    }
}

TEST(ReplayDevice, DescribesTheRecordedGpuAndKernel) {
  AOE_REQUIRE_BENCHMARK_HUB_DATA();
  const auto d = device(kRecordings[0]).describe();
  EXPECT_EQ(d.at("soc_version"), "NVIDIA_A100-PCIE-40GB");
  EXPECT_EQ(d.at("device_name"), "NVIDIA A100-PCIE-40GB");
  EXPECT_EQ(d.at("kernel"), "convolution_kernel");
  EXPECT_EQ(d.at("configs").at("recorded"), 4362);
  EXPECT_EQ(d.at("configs").at("valid"), 4201);
  EXPECT_EQ(d.at("configs").at("failed"), 161);
  EXPECT_EQ(d.at("fused_op_types"), nlohmann::json::array());
  EXPECT_NEAR(d.at("optimum").at("time_us").get<double>(), 553.6000076681376, 1e-9);
  EXPECT_TRUE(d.at("simulated_time_s").is_number());
}

// The default is the description's when it runs, else the cachefile's first
// timed config: an honest baseline, not the best.
TEST(ReplayDevice, TheDefaultIsTheDescriptionsOrTheFirstTimedConfig) {
  AOE_REQUIRE_BENCHMARK_HUB_DATA();
  const RecordedSpace& conv = device(kRecordings[0]).recorded();
  EXPECT_EQ(conv.space().describe(conv.space().default_config),
            (nlohmann::json{{"block_size_x", 16}, {"block_size_y", 16}, {"tile_size_x", 1}, {"tile_size_y", 1},
                            {"read_only", 0}, {"use_padding", 1}, {"use_shmem", 1}, {"use_cmem", 1},
                            {"filter_height", 15}, {"filter_width", 15}}));
  EXPECT_EQ(conv.default_source(), "the kernel description's Default");

  // Its Default (tile_size_x 1 with tile_stride_x 1) breaks one of its own conditions.
  const RecordedSpace& dedisp = device(kRecordings[2]).recorded();
  EXPECT_EQ(dedisp.record(dedisp.space().default_config)->key, "1,32,1,1,1,0,0,0");
  EXPECT_NE(dedisp.default_source().find("breaks condition \"tile_size_x > 1 or tile_stride_x == 0\""),
            std::string::npos)
      << dedisp.default_source();
  const RecordedSpace& alone = device(kRecordings[0], false).recorded();
  EXPECT_EQ(alone.record(alone.space().default_config)->key, alone.cachefile().records[0].key);
  for (const RecordedSpace* s : {&conv, &dedisp})
    EXPECT_GT(s->record(s->space().default_config)->time_ms, s->optimum().time_ms);
}

TEST(ReplayDevice, RecordedTimesComeBackExactly) {
  AOE_REQUIRE_BENCHMARK_HUB_DATA();
  for (const auto& r : kRecordings) {
    SCOPED_TRACE(r.cachefile);
    auto task = device(r).prepare_replay(op(r.op));
    const RecordedSpace& s = task->recorded();
    for (const auto& rec : s.cachefile().records) {
      if (rec.outcome != Outcome::timed) continue;
      const auto m = evaluate(*task, *s.config_of(rec));
      ASSERT_TRUE(m.ok()) << rec.key << ": " << m.message;
      ASSERT_EQ(m.time_us, rec.time_ms * 1000) << rec.key;
    }
  }
}

TEST(ReplayDevice, RecordedFailuresFailWithTheirStatus) {
  AOE_REQUIRE_BENCHMARK_HUB_DATA();
  auto task = device(kRecordings[0]).prepare_replay(op("convolution_kernel"));
  const RecordedSpace& s = task->recorded();
  size_t compile = 0, runtime = 0;
  for (const auto& rec : s.cachefile().records) {
    const Config c = *s.config_of(rec);
    if (rec.outcome == Outcome::compile_failed) {
      ASSERT_TRUE(task->check(c).ok());
      const auto built = task->build(c);
      EXPECT_EQ(built.candidate, nullptr);
      EXPECT_EQ(built.failure.status, ResultStatus::build_failed) << rec.key;
      EXPECT_EQ(built.failure.message, "recorded as CompilationFailedConfig");
      ++compile;
    } else if (rec.outcome == Outcome::runtime_failed) {
      auto built = task->build(c);
      ASSERT_NE(built.candidate, nullptr) << rec.key;
      const auto m = task->measure({built.candidate.get()}, {})[0];
      EXPECT_EQ(m.status, ResultStatus::run_failed) << rec.key;
      EXPECT_EQ(m.message, "recorded as RuntimeFailedConfig");
      ++runtime;
    }
  }
  EXPECT_EQ(compile, 6u);
  EXPECT_EQ(runtime, 155u);
}

TEST(ReplayDevice, ConfigsTheConditionsRejectOrNobodyRecordedAreInvalid) {
  AOE_REQUIRE_BENCHMARK_HUB_DATA();
  // block_size_x 64 with padding breaks "use_padding==0 or block_size_x % 32 != 0".
  const RecordedSpace& s = device(kRecordings[0]).recorded();
  const Config padded_64{64, 1, 1, 1, 0, 1, 1, 1, 15, 15};
  const auto verdict = s.check(padded_64);
  EXPECT_EQ(verdict.status, ResultStatus::invalid);
  EXPECT_EQ(verdict.message, "breaks condition \"use_padding==0 or block_size_x % 32 != 0\"");
  const auto alone = device(kRecordings[0], false).recorded().check(padded_64);
  EXPECT_EQ(alone.status, ResultStatus::invalid);
  EXPECT_EQ(alone.message, "not recorded in convolution_milo_A100.json.gz");
  EXPECT_EQ(s.check({64, 1, 1, 1, 0, 1, 1, 2, 15, 15}).message, "a value lies outside its knob's domain");
  auto task = device(kRecordings[0]).prepare_replay(op("convolution_kernel"));
  EXPECT_EQ(task->build(padded_64).failure.status, ResultStatus::invalid);
  EXPECT_EQ(task->simulated_time_s(), 0);
}

// Kernel Tuner measures only the configs its restrictions allow (and marks
// those the GPU refuses as InvalidConfig), so the description's conditions
// should accept exactly the measured configs.
TEST(ReplayDevice, TheDescriptionsConditionsAgreeWithTheRecording) {
  AOE_REQUIRE_BENCHMARK_HUB_DATA();
  for (const auto& r : kRecordings) {
    const auto d = device(r).recorded().constraint_disagreements();
    std::cout << "[          ] " << r.cachefile << " vs " << r.kernel
              << ": accepted but never measured " << d.accepted_unrecorded << ", accepted but recorded InvalidConfig "
              << d.accepted_recorded_invalid << ", rejected but measured " << d.rejected_recorded << "\n";
    EXPECT_EQ(d.total(), 0u) << r.cachefile;
  }
}

TEST(ReplayDevice, TheSimulatedClockSumsTheRecordedCosts) {
  AOE_REQUIRE_BENCHMARK_HUB_DATA();
  ReplayDevice& d = device(kRecordings[0]);
  const double device_before = d.simulated_time_s();
  const double described_before = d.describe().at("simulated_time_s").get<double>();
  auto task = d.prepare_replay(op("convolution_kernel"));
  const RecordedSpace& s = task->recorded();
  double expected_s = 0;
  size_t evaluated = 0;
  for (const auto& rec : s.cachefile().records) {
    if (evaluated++ % 7) continue;  // every outcome appears in a seventh of them
    const Config c = *s.config_of(rec);
    const double cost = (rec.compile_ms + rec.benchmark_ms + rec.framework_ms + rec.verification_ms) / 1000;
    EXPECT_DOUBLE_EQ(task->cost_s(c), cost);
    evaluate(*task, c);
    expected_s += cost;
  }
  EXPECT_GT(expected_s, 1000);
  EXPECT_NEAR(task->simulated_time_s(), expected_s, 1e-9 * expected_s);
  EXPECT_NEAR(d.simulated_time_s() - device_before, expected_s, 1e-9 * expected_s);
  EXPECT_NEAR(d.describe().at("simulated_time_s").get<double>() - described_before, expected_s, 1e-9 * expected_s);
  // What the tuner refuses without running costs nothing.
  const Config refused{64, 1, 1, 1, 0, 1, 1, 1, 15, 15};
  EXPECT_EQ(task->cost_s(refused), 0);
  evaluate(*task, refused);
  EXPECT_NEAR(task->simulated_time_s(), expected_s, 1e-9 * expected_s);
}

TEST(ReplayDevice, RecordedNoiseDrawsFromTheRecordedRepeats) {
  AOE_REQUIRE_BENCHMARK_HUB_DATA();
  auto with_noise = [](uint64_t seed) {
    ReplayOptions o = options_for(kRecordings[1], true);
    o.noise = ReplayOptions::Noise::recorded;
    o.seed = seed;
    return std::make_unique<ReplayDevice>(o);
  };
  auto a = with_noise(3), b = with_noise(3), c = with_noise(4);
  auto ta = a->prepare_replay(op("convolution_kernel")), tb = b->prepare_replay(op("convolution_kernel")),
       tc = c->prepare_replay(op("convolution_kernel"));
  const Record& rec = a->recorded().cachefile().records[0];  // its repeats spread 5.22 to 6.21 ms
  const Config config = *a->recorded().config_of(rec);
  const auto [lo, hi] = std::minmax_element(rec.times_ms.begin(), rec.times_ms.end());
  bool differs = false;
  for (int i = 0; i < 20; ++i) {
    const auto ma = evaluate(*ta, config), mb = evaluate(*tb, config), mc = evaluate(*tc, config);
    ASSERT_TRUE(ma.ok());
    EXPECT_EQ(ma.time_us, mb.time_us);
    EXPECT_GE(ma.time_us, *lo * 1000);
    EXPECT_LE(ma.time_us, *hi * 1000);
    EXPECT_EQ(ma.repeats, 5u);
    differs |= ma.time_us != mc.time_us;
  }
  EXPECT_TRUE(differs);
}

TEST(ReplayDevice, RunsOnlyTheRecordedKernel) {
  AOE_REQUIRE_BENCHMARK_HUB_DATA();
  const std::string e = error_of([] { device(kRecordings[0]).prepare(op("convolution")); });
  EXPECT_NE(e.find("'convolution_kernel'"), std::string::npos) << e;
  EXPECT_NE(e.find("'convolution'"), std::string::npos) << e;
  try {
    device(kRecordings[0]).prepare(op("convolution"));
  } catch (const sdk::Error& err) {
    EXPECT_EQ(err.code(), sdk::StatusCode::unsupported);
  }
}

TEST(ReplayOptions, AnOptionItDoesNotTakeIsNamed) {
  AOE_REQUIRE_BENCHMARK_HUB_DATA();
  const auto cache = (kData / kRecordings[0].cachefile).string();
  auto parse = [](nlohmann::json j) { ReplayOptions::parse(j, "replay"); };
  EXPECT_NE(error_of([&] { parse({{"cachefile", cache}, {"colour", 1}}); }).find("no option 'colour'"),
            std::string::npos);
  EXPECT_NE(error_of([&] { parse(nlohmann::json::object()); }).find("needs option 'cachefile'"), std::string::npos);
  EXPECT_NE(error_of([&] { parse({{"cachefile", cache}, {"noise", 0.1}}); }).find("option 'noise'"), std::string::npos);
  EXPECT_NE(error_of([&] { parse({{"cachefile", cache}, {"seed", -1}}); }).find("option 'seed'"), std::string::npos);
  EXPECT_NE(error_of([&] { parse({{"cachefile", 3}}); }).find("option 'cachefile'"), std::string::npos);
  const auto ok = ReplayOptions::parse({{"cachefile", cache}, {"noise", "recorded"}, {"seed", 9}}, "replay");
  EXPECT_EQ(ok.noise, ReplayOptions::Noise::recorded);
  EXPECT_EQ(ok.seed, 9u);
  EXPECT_FALSE(ok.kernel);
}

using ReplayFiles = ScratchDir;

TEST_F(ReplayFiles, ATruncatedGzipIsAnErrorNamingTheFile) {
  AOE_REQUIRE_BENCHMARK_HUB_DATA();
  const std::string whole = bytes_of(kData / kRecordings[0].cachefile);
  const fs::path cut = write("cut.json.gz", whole.substr(0, whole.size() / 2));
  ReplayOptions o;
  o.cachefile = cut;
  const std::string e = error_of([&] { ReplayDevice d(o); });
  EXPECT_NE(e.find(cut.string()), std::string::npos) << e;
  EXPECT_NE(e.find("truncated"), std::string::npos) << e;
}

TEST_F(ReplayFiles, ACorruptGzipIsAnErrorNamingTheFile) {
  AOE_REQUIRE_BENCHMARK_HUB_DATA();
  std::string bytes = bytes_of(kData / kRecordings[0].cachefile);
  for (size_t i = bytes.size() / 3; i < bytes.size() / 3 + 64; ++i) bytes[i] = static_cast<char>(bytes[i] ^ 0x5a);
  ReplayOptions o;
  o.cachefile = write("bad.json.gz", bytes);
  const std::string e = error_of([&] { ReplayDevice d(o); });
  EXPECT_NE(e.find(o.cachefile.string()), std::string::npos) << e;
  EXPECT_NE(e.find("corrupt"), std::string::npos) << e;

  o.cachefile = write("plain.json.gz", "{\"cache\": {}}");
  EXPECT_NE(error_of([&] { ReplayDevice d(o); }).find("is not gzip-compressed"), std::string::npos);
  o.cachefile = dir_ / "missing.json";
  EXPECT_NE(error_of([&] { ReplayDevice d(o); }).find("cannot open " + o.cachefile.string()), std::string::npos);
  o.cachefile = write("half.json", "{\"device_name\": ");
  EXPECT_NE(error_of([&] { ReplayDevice d(o); }).find(o.cachefile.string() + ": not valid JSON"), std::string::npos);
}

TEST_F(ReplayFiles, AKernelDescriptionOfOtherParametersIsRefused) {
  AOE_REQUIRE_BENCHMARK_HUB_DATA();
  ReplayOptions o = options_for(kRecordings[2], false);
  o.kernel = kData / kRecordings[0].kernel;
  const std::string e = error_of([&] { ReplayDevice d(o); });
  EXPECT_NE(e.find("convolution_milo.kernel.json"), std::string::npos) << e;
  EXPECT_NE(e.find("dedispersion_milo_A4000.json.gz"), std::string::npos) << e;
}

TEST_F(ReplayFiles, AConditionItCannotReadNamesTheFileAndTheExpression) {
  const fs::path kernel = write("k.kernel.json", R"({"ConfigurationSpace": {
      "TuningParameters": [{"Name": "bx", "Values": "[16, 32]"}, {"Name": "mode", "Values": "['a', 'b']"}],
      "Conditions": [{"Expression": "bx <= max_threads"}]}})");
  const fs::path cache = write("c.json", R"({"device_name": "GPU", "kernel_name": "k",
      "tune_params_keys": ["bx", "mode"], "tune_params": {"bx": [16, 32], "mode": ["a", "b"]},
      "cache": {"16,a": {"bx": 16, "mode": "a", "time": 1.0}}})");
  ReplayOptions o;
  o.cachefile = cache;
  o.kernel = kernel;
  const std::string e = error_of([&] { ReplayDevice d(o); });
  EXPECT_NE(e.find(kernel.string()), std::string::npos) << e;
  EXPECT_NE(e.find("\"bx <= max_threads\""), std::string::npos) << e;
}

// Non-integer values become labelled choices; InvalidConfig entries are
// invalid; without a description, only what was recorded is valid.
TEST_F(ReplayFiles, ReplaysASmallCachefileWithChoicesAndInvalidConfigs) {
  ReplayOptions o;
  o.cachefile = write("small.json", R"({"device_name": "Tiny GPU", "kernel_name": "k", "objective": "time",
      "tune_params_keys": ["bx", "mode", "f"],
      "tune_params": {"bx": [32, 16, 64], "mode": ["fast", "safe"], "f": [0.5, 1.0]},
      "cache": {
        "64,fast,0.5": {"bx": 64, "mode": "fast", "f": 0.5, "time": "InvalidConfig", "compile_time": 1, "benchmark_time": 0},
        "32,safe,1.0": {"bx": 32, "mode": "safe", "f": 1.0, "time": 2.5, "times": [2.0, 3.0], "compile_time": 100,
                        "benchmark_time": 20, "framework_time": 5, "verification_time": 1},
        "16,fast,0.5": {"bx": 16, "mode": "fast", "f": 0.5, "time": 1.25, "times": [1.25], "compile_time": 50,
                        "benchmark_time": 10}}})");
  ReplayDevice d(o);
  const auto& space = d.recorded().space();
  ASSERT_EQ(space.knobs.size(), 3u);
  EXPECT_EQ(space.knobs[0].values, (std::vector<int64_t>{16, 32, 64}));
  EXPECT_EQ(space.knobs[1].kind, sdk::DomainKind::categorical);
  EXPECT_EQ(space.knobs[1].labels, (std::vector<std::string>{"fast", "safe"}));
  EXPECT_EQ(space.knobs[2].labels, (std::vector<std::string>{"0.5", "1.0"}));
  EXPECT_EQ(space.describe(space.default_config), (nlohmann::json{{"bx", 32}, {"mode", "safe"}, {"f", "1.0"}}));
  EXPECT_EQ(d.recorded().check({64, 0, 0}).message, "recorded as InvalidConfig in small.json");
  EXPECT_EQ(d.recorded().check({64, 1, 0}).message, "not recorded in small.json");
  auto task = d.prepare_replay(op("k"));
  EXPECT_EQ(evaluate(*task, {16, 0, 0}).time_us, 1250);
  EXPECT_DOUBLE_EQ(task->simulated_time_s(), 0.060);
  EXPECT_EQ(evaluate(*task, {32, 1, 1}).time_us, 2500);
  EXPECT_DOUBLE_EQ(task->simulated_time_s(), 0.186);
  const auto described = d.describe();
  EXPECT_EQ(described.at("configs").at("invalid"), 1);
  EXPECT_EQ(described.at("configs").at("valid"), 2);
  EXPECT_EQ(described.at("optimum").at("config"), (nlohmann::json{{"bx", 16}, {"mode", "fast"}, {"f", "0.5"}}));
}

// Kernel Tuner's older layout as its own tuning runs wrote it: the parameters
// in the cachefile and no description, no objective, failures with no
// repeats, fields the device does not use (GFLOP/s, strategy_time), and the
// first entry a failure, so the default is the first config that ran.
TEST_F(ReplayFiles, ReplaysTheOlderLayoutWithFailuresAsItIs) {
  ReplayOptions o;
  o.cachefile = write("older_GPU.json", R"({"device_name": "Older GPU", "kernel_name": "older_kernel",
      "problem_size": [4096, 4096], "tune_params_keys": ["bx", "tile"], "tune_params": {"bx": [16, 32], "tile": [1, 2, 3]},
      "cache": {
        "16,1": {"bx": 16, "tile": 1, "time": "CompilationFailedConfig", "compile_time": 40.0,
                 "verification_time": 0, "benchmark_time": 0, "strategy_time": 0, "framework_time": 2.0},
        "16,2": {"bx": 16, "tile": 2, "time": 3.0, "times": [3.0, 3.0], "compile_time": 100.0, "verification_time": 0,
                 "benchmark_time": 30.0, "GFLOP/s": 12.5, "strategy_time": 9.0, "framework_time": 20.0},
        "32,1": {"bx": 32, "tile": 1, "time": "RuntimeFailedConfig", "compile_time": 50.0, "verification_time": 0,
                 "benchmark_time": 5.0, "strategy_time": 0, "framework_time": 1.0},
        "32,2": {"bx": 32, "tile": 2, "time": 2.0, "times": [1.5, 2.5], "compile_time": 80.0, "verification_time": 4.0,
                 "benchmark_time": 20.0, "GFLOP/s": 18.75, "strategy_time": 0, "framework_time": 10.0}}})");
  ReplayDevice d(o);
  const auto& recorded = d.recorded();
  EXPECT_EQ(recorded.space().size(), 6);
  EXPECT_EQ(recorded.counts().recorded, 4u);
  EXPECT_EQ(recorded.counts().valid, 2u);
  EXPECT_EQ(recorded.counts().compile_failed, 1u);
  EXPECT_EQ(recorded.counts().runtime_failed, 1u);
  EXPECT_EQ(recorded.cachefile().objective, "time");
  EXPECT_EQ(recorded.space().default_config, (Config{16, 2}));
  EXPECT_EQ(recorded.default_source(), "the first timed config in the cachefile");
  EXPECT_EQ(recorded.check({16, 3}).message, "not recorded in older_GPU.json");

  auto task = d.prepare_replay(op("older_kernel"));
  EXPECT_EQ(evaluate(*task, {16, 1}).status, ResultStatus::build_failed);
  EXPECT_DOUBLE_EQ(task->simulated_time_s(), 0.042);
  EXPECT_EQ(evaluate(*task, {32, 1}).status, ResultStatus::run_failed);
  EXPECT_DOUBLE_EQ(task->simulated_time_s(), 0.098);
  EXPECT_EQ(evaluate(*task, {16, 2}).time_us, 3000);  // strategy_time is the searcher's: not charged
  EXPECT_DOUBLE_EQ(task->simulated_time_s(), 0.248);
  EXPECT_EQ(evaluate(*task, {32, 2}).time_us, 2000);
  EXPECT_DOUBLE_EQ(task->cost_s({32, 2}), 0.114);
  const auto described = d.describe();
  EXPECT_EQ(described.at("soc_version"), "Older_GPU");
  EXPECT_EQ(described.at("problem_size"), (nlohmann::json{4096, 4096}));
  EXPECT_EQ(described.at("optimum").at("config"), (nlohmann::json{{"bx", 32}, {"tile", 2}}));
}

// The validation spaces of the data folder, in the older layout, as they are.
TEST(ReplayDevice, ReadsTheValidationSpacesWithoutDescriptions) {
  AOE_REQUIRE_BENCHMARK_HUB_DATA();
  const fs::path dir = kData / "validation";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "no validation/ folder in " << kData;
  struct Expected {
    const char* file;
    const char* kernel;
    size_t recorded, compile_failed, runtime_failed;
  };
  for (const Expected& e : {Expected{"convolution_RTX_2080_Ti.json.gz", "convolution_kernel", 6768, 1426, 86},
                            Expected{"gemm_RTX_2080_Ti.json.gz", "Xgemm", 17956, 0, 0},
                            Expected{"pnpoly_RTX_2080_Ti.json.gz", "cn_pnpoly", 4092, 0, 358}}) {
    ReplayOptions o;
    o.cachefile = dir / e.file;
    ReplayDevice d(o);
    const auto& counts = d.recorded().counts();
    EXPECT_EQ(d.recorded().cachefile().kernel_name, e.kernel);
    EXPECT_EQ(counts.recorded, e.recorded) << e.file;
    EXPECT_EQ(counts.compile_failed, e.compile_failed) << e.file;
    EXPECT_EQ(counts.runtime_failed, e.runtime_failed) << e.file;
    EXPECT_EQ(counts.valid, e.recorded - e.compile_failed - e.runtime_failed) << e.file;
    // Every recorded config is one of the space's, and valid: failures fail when run, not when checked.
    auto task = d.prepare_replay(op(e.kernel));
    for (const Record& r : d.recorded().cachefile().records) {
      const auto config = d.recorded().config_of(r);
      ASSERT_TRUE(config) << e.file << " " << r.key;
      ASSERT_TRUE(d.recorded().check(*config).ok()) << e.file << " " << r.key;
    }
    const Config& base = d.recorded().space().default_config;
    EXPECT_EQ(d.recorded().record(base)->outcome, Outcome::timed) << e.file;
    EXPECT_EQ(evaluate(*task, base).time_us, d.recorded().record(base)->time_ms * 1000) << e.file;
  }
}

}  // namespace
}  // namespace aoe::replay
