// The cpu device: what it says of the machine, its options, and candidates
// measured in worker processes that crash, hang or lie on purpose.
#include <gtest/gtest.h>

#include <unistd.h>

#include <thread>

#include "aoe/sdk/error.h"
#include "cpu_device.h"
#include "device_runs.h"
#include "tasks.h"

namespace aoe::cpu {
namespace {

using test::device;
using test::evaluate;
using test::f32;
using test::of_dtype;
using test::op;
using test::quick;
using test::with;

std::string error_of(const std::function<void()>& body, sdk::StatusCode expected) {
  try {
    body();
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), expected) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

sdk::OpTask small_matmul() { return op("MatMul", {f32({48, 64}), f32({64, 40})}); }

TEST(CpuDevice, DescribesThisMachine) {
  const auto d = device().describe();
  EXPECT_EQ(d.at("threads"), available_threads());
  EXPECT_GE(d.at("physical_cores").get<int>(), 1);
  EXPECT_LE(d.at("physical_cores").get<int>(), d.at("threads").get<int>());
  EXPECT_EQ(d.at("online_cpus"), sysconf(_SC_NPROCESSORS_ONLN));
  EXPECT_GT(d.at("l1d_bytes").get<int64_t>(), 0);
  EXPECT_GE(d.at("l2_bytes").get<int64_t>(), d.at("l1d_bytes").get<int64_t>());
  EXPECT_FALSE(d.at("caches").empty());
  const std::string soc = d.at("soc_version");
  EXPECT_EQ(soc.rfind("cpu_", 0), 0u) << soc;
  EXPECT_EQ(soc.find_first_of(" /()@"), std::string::npos) << soc;
  // The kernel sets listed are those the CPU reports, narrowest first, generic always.
  const auto isas = d.at("kernel_isas");
  EXPECT_EQ(isas.front(), "generic");
  EXPECT_EQ(isas.back(), d.at("best_isa"));
  const auto features = d.at("features").get<std::vector<std::string>>();
  const bool has = std::find(features.begin(), features.end(), "avx512f") != features.end();
  EXPECT_EQ(has, std::find(isas.begin(), isas.end(), "avx512") != isas.end());
  EXPECT_TRUE(d.at("concurrent_build").get<bool>());
  EXPECT_EQ(d.at("measurement").at("isolation"), "process");
}

TEST(CpuDevice, CapsThreadsAndInstructionSets) {
  const auto d = device(quick({{"threads", 1}, {"isa", "generic"}})).describe();
  EXPECT_EQ(d.at("threads"), 1);
  EXPECT_EQ(d.at("physical_cores"), 1);
  EXPECT_EQ(d.at("best_isa"), "generic");
  auto dev = device(quick({{"threads", 1}, {"isa", "generic"}}));
  auto task = dev.prepare(small_matmul());
  const auto space = task->space();
  for (const auto& k : space.knobs) {
    if (k.name == "threads") EXPECT_EQ(k.values.back(), 1);
  }
  const auto avx = with(space, space.default_config, "ukernel", "avx2_6x16");
  EXPECT_EQ(task->check(avx).status, sdk::ResultStatus::invalid);
}

TEST(CpuDevice, OptionsAreCheckedByName) {
  EXPECT_NE(error_of([] { device({{"colour", 1}}); }, sdk::StatusCode::invalid_argument).find("'colour'"),
            std::string::npos);
  EXPECT_NE(error_of([] { device({{"cache", "lukewarm"}}); }, sdk::StatusCode::invalid_argument).find("'cache'"),
            std::string::npos);
  EXPECT_NE(error_of([] { device({{"timeout_s", -1}}); }, sdk::StatusCode::invalid_argument).find("'timeout_s'"),
            std::string::npos);
  EXPECT_NE(error_of([] { device({{"stable_within", 2}}); }, sdk::StatusCode::invalid_argument).find("'stable_within'"),
            std::string::npos);
  EXPECT_NE(error_of([] { device({{"threads", 100000}}); }, sdk::StatusCode::invalid_argument).find("'threads'"),
            std::string::npos);
  EXPECT_NE(error_of([] { device({{"isolation", "none"}, {"fault", "crash"}}); }, sdk::StatusCode::invalid_argument)
                .find("'fault'"),
            std::string::npos);
}

TEST(CpuDevice, UnsupportedOpsAndDtypes) {
  auto dev = device();
  error_of([&] { dev.prepare(op("NonMaxSuppression", {f32({1, 4, 4})})); }, sdk::StatusCode::unsupported);
  auto f16 = small_matmul();
  f16.inputs[0].dtype = sdk::DType::f16;
  error_of([&] { dev.prepare(f16); }, sdk::StatusCode::unsupported);
  error_of([&] { dev.prepare(op("MatMul", {f32({4, 4}), f32({4, 4}), f32({4})}, {}, {"Frobnicate"})); },
           sdk::StatusCode::unsupported);
  // Channels-last feature maps (a TensorFlow graph's) are refused, not read as NCHW.
  const auto nhwc = error_of([&] {
    dev.prepare(op("Conv", {f32({1, 8, 8, 4}), f32({4, 4, 3, 3}, true)}, {{"kernel_shape", {3, 3}}, {"data_format", "NHWC"}}));
  }, sdk::StatusCode::unsupported);
  EXPECT_NE(nhwc.find("on NCHW feature maps only"), std::string::npos) << nhwc;
  error_of([&] { dev.prepare(op("MaxPool", {f32({1, 8, 8, 4})}, {{"kernel_shape", {2, 2}}, {"data_format", "NHWC"}})); },
           sdk::StatusCode::unsupported);
}

TEST(CpuDevice, TimesCandidatesInWorkers) {
  auto dev = device();
  auto task = dev.prepare(small_matmul());
  const auto space = task->space();
  const auto other = with(space, space.default_config, "mc", 16);
  const auto r = evaluate(*task, {space.default_config, other});
  ASSERT_EQ(r.size(), 2u);
  for (const auto& m : r) {
    EXPECT_TRUE(m.ok()) << m.message;
    EXPECT_GT(m.time_us, 0);
    EXPECT_GE(m.repeats, 3u);
    EXPECT_GE(m.noise, 0);
  }
}

// Tuning draws inputs the task can take: whole numbers for integer tensors
// (a shift of 4.3 by 2 is no uint8's), and exactly the values the shapes
// fix for a K or scales fed as the model runs; each checked against its reference.
TEST(CpuDevice, DrawsInputsEachTaskCanTake) {
  auto dev = device();
  auto shift = op("BitShift", {of_dtype({3, 5}, sdk::DType::u8), of_dtype({3, 5}, sdk::DType::u8)}, {{"direction", "LEFT"}});
  shift.outputs = {of_dtype({3, 5}, sdk::DType::u8)};
  auto top_k = op("TopK", {f32({3, 4}), of_dtype({1}, sdk::DType::i64)});
  top_k.outputs = {f32({3, 2}), of_dtype({3, 2}, sdk::DType::i64)};
  auto resize = op("Resize", {f32({1, 1, 5, 7}), f32({0}), f32({4})}, {{"mode", "linear"}});
  resize.outputs = {f32({1, 1, 3, 16})};
  for (const auto& task : {shift, top_k, resize}) {
    auto prepared = dev.prepare(task);
    const auto r = evaluate(*prepared, {prepared->space().default_config});
    EXPECT_TRUE(r[0].ok()) << task.op_type << ": " << r[0].message;
  }
}

TEST(CpuDevice, TimesInProcessAndCold) {
  for (const auto& extra : {nlohmann::json{{"isolation", "none"}}, nlohmann::json{{"cache", "cold"}}}) {
    auto dev = device(quick(extra));
    auto task = dev.prepare(small_matmul());
    const auto r = evaluate(*task, {task->space().default_config}, {2, 4, false});
    ASSERT_TRUE(r[0].ok()) << extra << r[0].message;
    EXPECT_GE(r[0].repeats, 4u);
  }
}

TEST(CpuDevice, InvalidConfigsAreRefusedBeforeBuilding) {
  auto dev = device();
  auto task = dev.prepare(small_matmul());
  const auto space = task->space();
  const auto bad = with(space, space.default_config, "split", "batch");
  EXPECT_EQ(task->check(bad).status, sdk::ResultStatus::invalid);
  EXPECT_EQ(task->build(bad).failure.status, sdk::ResultStatus::invalid);
  auto outside = space.default_config;
  outside[0] = 1000;
  EXPECT_EQ(task->check(outside).status, sdk::ResultStatus::invalid);
}

// Every second candidate built faults; the others are timed as usual.
std::vector<sdk::Measurement> with_fault(const std::string& fault, nlohmann::json extra = nlohmann::json::object()) {
  nlohmann::json o = quick({{"fault", fault}, {"fault_every", 2}});
  o.update(extra);
  auto dev = device(o);
  auto task = dev.prepare(small_matmul());
  const auto c = task->space().default_config;
  return evaluate(*task, {c, c, c, c});
}

TEST(CpuDevice, SurvivesACrashingCandidate) {
  const auto r = with_fault("crash");
  ASSERT_EQ(r.size(), 4u);
  EXPECT_TRUE(r[0].ok()) << r[0].message;
  EXPECT_EQ(r[1].status, sdk::ResultStatus::run_failed);
  EXPECT_NE(r[1].message.find("SIGSEGV"), std::string::npos) << r[1].message;
  EXPECT_TRUE(r[2].ok()) << r[2].message;
  EXPECT_EQ(r[3].status, sdk::ResultStatus::run_failed);
}

TEST(CpuDevice, SurvivesAnAbortingCandidate) {
  const auto r = with_fault("abort");
  EXPECT_TRUE(r[0].ok());
  EXPECT_EQ(r[1].status, sdk::ResultStatus::run_failed);
  EXPECT_NE(r[1].message.find("SIGABRT"), std::string::npos) << r[1].message;
  EXPECT_TRUE(r[2].ok());
}

// The time-out bounds each run, not a candidate's timing: two candidates
// timed in turns for 1.5 s each, a run taking milliseconds, under a 0.5 s
// time-out both come back timed (before, the batch overran and each
// candidate alone did too).
TEST(CpuDevice, TimingLongerThanTheTimeOutIsNoTimeOut) {
  auto dev = device(quick({{"timeout_s", 0.5}, {"max_seconds", 1.5}, {"max_repeats", 100000}, {"stable_within", 1e-9}}));
  auto task = dev.prepare(op("MatMul", {f32({128, 256}), f32({256, 128})}));
  const auto c = task->space().default_config;
  const auto r = evaluate(*task, {c, c});
  ASSERT_EQ(r.size(), 2u);
  for (const auto& m : r) EXPECT_TRUE(m.ok()) << to_string(m.status) << ": " << m.message;
}

TEST(CpuDevice, KillsAHangingCandidateAtItsTimeout) {
  const auto r = with_fault("hang", {{"timeout_s", 1.0}});
  EXPECT_TRUE(r[0].ok()) << r[0].message;
  EXPECT_EQ(r[1].status, sdk::ResultStatus::timeout);
  EXPECT_NE(r[1].message.find("time-out"), std::string::npos) << r[1].message;
  EXPECT_NE(r[1].message.find(R"('{"timeout_s": 4}')"), std::string::npos) << r[1].message;  // what to do
  EXPECT_TRUE(r[2].ok()) << r[2].message;
  EXPECT_EQ(r[3].status, sdk::ResultStatus::timeout);
}

TEST(CpuDevice, AWrongResultIsCaught) {
  for (const auto& isolation : {"process", "none"}) {
    const auto r = with_fault("wrong", {{"isolation", isolation}});
    EXPECT_TRUE(r[0].ok());
    EXPECT_EQ(r[1].status, sdk::ResultStatus::wrong_result) << isolation;
    EXPECT_NE(r[1].message.find("reference"), std::string::npos) << r[1].message;
  }
}

// Each element against its own reference: a small output wrong by 10% is
// caught beside a large one, and float32 noise near zero passes.
TEST(CpuDevice, EachOutputElementIsCheckedOnItsOwn) {
  const std::vector<float> want = {1000.0f, 0.5f, 0.0f, -2.0f};
  std::vector<float> got = want;
  EXPECT_EQ(compare(got.data(), want.data(), 4, {}), "");
  got[1] = 0.55f;
  const auto why = compare(got.data(), want.data(), 4, {});
  EXPECT_NE(why.find("element 1 is 0.55"), std::string::npos) << why;
  got = want;
  got[2] = 5e-4f;  // within atol 1e-3 of zero
  got[3] = -2.0001f;  // within rtol 1e-4 of 2
  EXPECT_EQ(compare(got.data(), want.data(), 4, {}), "");
  got[2] = 2e-3f;
  EXPECT_NE(compare(got.data(), want.data(), 4, {}).find("element 2"), std::string::npos);
  EXPECT_EQ(compare(got.data(), want.data(), 4, {1e-4, 1e-2}), "");
}

}  // namespace
}  // namespace aoe::cpu
