// NVRTC compiles in worker processes, against the test double: many at
// once, each result matched to its job, and a compile that fails, crashes
// or hangs costing only its own job.
#include "compile_pool.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "aoe/sdk/error.h"
#include "cuda_library.h"
#include "cuda_test_support.h"

namespace aoe::cuda {
namespace {

namespace fs = std::filesystem;
using test::ScopedEnv;

const fs::path kNvrtc = fs::path(AOE_CUDA_DOUBLE_HOME) / "lib64/libnvrtc.so.13";

CompileJob scale_job(int id, std::vector<std::string> options = {"--gpu-architecture=sm_90"}) {
  CompileJob job;
  job.source = "#define ID " + std::to_string(id) +
               "\n#define BLOCK 128\n"
               "extern \"C\" __global__ void aoe_test_scale(float* y, const float* x, float a, int n) {\n"
               "  int i = blockIdx.x * BLOCK + threadIdx.x;\n  if (i < n) y[i] = a * x[i];\n}\n";
  job.program_name = "scale_" + std::to_string(id) + ".cu";
  job.options = std::move(options);
  job.kernel_name = "aoe_test_scale";
  return job;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class CompilePoolTest : public ::testing::Test {
 protected:
  ScopedEnv faults_{"AOE_CUDA_DOUBLE_FAULTS", nullptr};
  ScopedEnv compile_ms_{"AOE_CUDA_DOUBLE_COMPILE_MS", nullptr};
};

TEST_F(CompilePoolTest, CompilesAKernelToACubinAndItsLoweredName) {
  CompilePool pool(kNvrtc, 2, 30);
  const Compiled c = pool.submit(scale_job(7)).get();
  ASSERT_TRUE(c.ok) << c.log;
  EXPECT_EQ(c.lowered_name, "aoe_test_scale");
  EXPECT_TRUE(has(c.cubin, "define ID 7")) << c.cubin;
  EXPECT_TRUE(has(c.cubin, "option --gpu-architecture=sm_90")) << c.cubin;
  EXPECT_GE(c.compile_ms, 0);
  EXPECT_EQ(pool.workers(), 2u);
}

TEST_F(CompilePoolTest, ManyJobsFinishOutOfOrderEachWithItsOwnResult) {
  ScopedEnv slow("AOE_CUDA_DOUBLE_COMPILE_MS", "60");
  CompilePool pool(kNvrtc, 4, 60);
  constexpr int kJobs = 16;
  std::vector<std::shared_future<Compiled>> results;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kJobs; ++i) results.push_back(pool.submit(scale_job(i)));
  // Note the order they become ready in.
  std::vector<int> order;
  std::vector<bool> seen(kJobs, false);
  while (order.size() < kJobs) {
    for (int i = 0; i < kJobs; ++i)
      if (!seen[i] && results[i].wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
        seen[i] = true;
        order.push_back(i);
      }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  double compile_ms = 0;
  for (int i = 0; i < kJobs; ++i) {
    const Compiled& c = results[i].get();
    ASSERT_TRUE(c.ok) << c.log;
    EXPECT_TRUE(has(c.cubin, "define ID " + std::to_string(i) + "\n")) << i << ": " << c.cubin;
    compile_ms += c.compile_ms;
  }
  std::vector<int> submitted(kJobs);
  for (int i = 0; i < kJobs; ++i) submitted[i] = i;
  EXPECT_NE(order, submitted);
  EXPECT_LT(wall_ms, compile_ms) << "the compiles ran one at a time";
}

TEST_F(CompilePoolTest, ThreadsSubmittingAtOnceEachGetTheirOwnResults) {
  CompilePool pool(kNvrtc, 3, 60);
  std::vector<std::thread> threads;
  std::vector<std::string> failures(4);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      std::vector<std::shared_future<Compiled>> results;
      for (int i = 0; i < 8; ++i) results.push_back(pool.submit(scale_job(t * 100 + i)));
      for (int i = 0; i < 8; ++i)
        if (!has(results[i].get().cubin, "define ID " + std::to_string(t * 100 + i) + "\n"))
          failures[t] += std::to_string(i) + ": " + results[i].get().log + "\n";
    });
  for (auto& t : threads) t.join();
  for (const auto& f : failures) EXPECT_EQ(f, "");
}

TEST_F(CompilePoolTest, ResultsLargerThanAPipeHoldComeBackWhole) {
  CompilePool pool(kNvrtc, 2, 60);
  CompileJob job = scale_job(5);
  const std::string big(300 * 1024, 'x');
  job.source = "#define BIG " + big + "\n" + job.source;
  const Compiled c = pool.submit(job).get();
  ASSERT_TRUE(c.ok) << c.log;
  EXPECT_TRUE(has(c.cubin, "define BIG " + big + "\n"));
}

TEST_F(CompilePoolTest, ACompileErrorKeepsItsLog) {
  ScopedEnv faults("AOE_CUDA_DOUBLE_FAULTS", "compile_error@ID=3");
  CompilePool pool(kNvrtc, 2, 30);
  const auto bad = pool.submit(scale_job(3));
  const auto good = pool.submit(scale_job(4));
  EXPECT_FALSE(bad.get().ok);
  EXPECT_TRUE(has(bad.get().log, "NVRTC_ERROR_COMPILATION")) << bad.get().log;
  EXPECT_TRUE(has(bad.get().log, "compile_error@ID=3")) << bad.get().log;
  EXPECT_TRUE(good.get().ok) << good.get().log;
}

TEST_F(CompilePoolTest, AKernelTheDoubleCannotRunIsACompileError) {
  CompilePool pool(kNvrtc, 1, 30);
  CompileJob job = scale_job(1);
  job.kernel_name = "no_such_kernel";
  const Compiled c = pool.submit(job).get();
  EXPECT_FALSE(c.ok);
  EXPECT_TRUE(has(c.log, "no host kernel is registered for \"no_such_kernel\"")) << c.log;
}

TEST_F(CompilePoolTest, AVirtualArchitectureGivesNoCubin) {
  CompilePool pool(kNvrtc, 1, 30);
  const Compiled c = pool.submit(scale_job(1, {"--gpu-architecture=compute_90"})).get();
  EXPECT_FALSE(c.ok);
  EXPECT_TRUE(has(c.log, "nvrtcGetCUBINSize")) << c.log;
}

TEST_F(CompilePoolTest, ACrashOrAHangCostsOnlyItsOwnJob) {
  ScopedEnv faults("AOE_CUDA_DOUBLE_FAULTS", "compile_crash@ID=1;compile_hang@ID=2");
  CompilePool pool(kNvrtc, 4, 2);
  std::vector<std::shared_future<Compiled>> results;
  for (int i = 0; i < 5; ++i) results.push_back(pool.submit(scale_job(i)));
  const Compiled crashed = results[1].get(), hung = results[2].get();
  EXPECT_FALSE(crashed.ok);
  EXPECT_TRUE(has(crashed.log, "SIGABRT")) << crashed.log;
  EXPECT_FALSE(hung.ok);
  EXPECT_TRUE(has(hung.log, "time-out")) << hung.log;
  for (int i : {0, 3, 4}) EXPECT_TRUE(results[i].get().ok) << i << ": " << results[i].get().log;
}

TEST_F(CompilePoolTest, ALibraryThatWillNotLoadFailsEachJobSaying) {
  CompilePool pool("/nonexistent/libnvrtc.so.12", 1, 30);
  const Compiled c = pool.submit(scale_job(1)).get();
  EXPECT_FALSE(c.ok);
  EXPECT_TRUE(has(c.log, "cannot load /nonexistent/libnvrtc.so.12")) << c.log;
}

TEST_F(CompilePoolTest, JobsStillQueuedWhenThePoolGoesComeBackFailed) {
  ScopedEnv slow("AOE_CUDA_DOUBLE_COMPILE_MS", "100");
  std::vector<std::shared_future<Compiled>> results;
  {
    CompilePool pool(kNvrtc, 1, 30);
    for (int i = 0; i < 4; ++i) results.push_back(pool.submit(scale_job(i)));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(results[0].get().ok) << results[0].get().log;
  EXPECT_TRUE(has(results[3].get().log, "shut down")) << results[3].get().log;
}

// Where this machine has a real NVRTC (a CUDA toolkit or pip's wheel; no GPU
// is needed to compile), the pool drives it as it drives the double.
TEST(RealNvrtc, CompilesExternCAndTemplatedKernelsToCubins) {
  ScopedEnv home("CUDA_HOME", nullptr);
  const fs::path nvrtc = find_cuda_libraries("/unused", "").nvrtc;
  if (nvrtc.empty()) GTEST_SKIP() << "no NVRTC installed here";
  CompilePool pool(nvrtc, 2, 120);
  CompileJob plain = scale_job(1);
  CompileJob templated;
  templated.source = "template <int N> __global__ void fill(float* y) { y[threadIdx.x] = N; }\n";
  templated.program_name = "fill.cu";
  templated.options = {"--gpu-architecture=sm_90"};
  templated.kernel_name = "fill<4>";
  CompileJob broken = scale_job(2);
  broken.source += "this is not CUDA\n";
  const auto a = pool.submit(plain), b = pool.submit(templated), c = pool.submit(broken);
  ASSERT_TRUE(a.get().ok) << a.get().log;
  EXPECT_EQ(a.get().cubin.substr(0, 4),
            "\x7f"
            "ELF");
  EXPECT_EQ(a.get().lowered_name, "aoe_test_scale");
  ASSERT_TRUE(b.get().ok) << b.get().log;
  EXPECT_EQ(b.get().lowered_name.rfind("_Z", 0), 0u) << b.get().lowered_name;
  EXPECT_FALSE(c.get().ok);
  EXPECT_TRUE(has(c.get().log, "error")) << c.get().log;
}

TEST(DefaultCompileWorkers, TakesTeParallelCompilerWhenSet) {
  {
    ScopedEnv workers("TE_PARALLEL_COMPILER", "3");
    EXPECT_EQ(default_compile_workers(), 3u);
  }
  for (const char* bad : {"0", "-2", "abc", "4x", "", "5000"}) {
    ScopedEnv workers("TE_PARALLEL_COMPILER", bad);
    try {
      default_compile_workers();
      ADD_FAILURE() << "took \"" << bad << "\"";
    } catch (const sdk::Error& e) {
      EXPECT_EQ(e.code(), sdk::StatusCode::invalid_argument);
      EXPECT_TRUE(has(e.what(), "TE_PARALLEL_COMPILER")) << e.what();
    }
  }
  ScopedEnv unset("TE_PARALLEL_COMPILER", nullptr);
  const unsigned cores = std::thread::hardware_concurrency();
  EXPECT_EQ(default_compile_workers(), cores > 1 ? cores - 1 : 1u);
}

}  // namespace
}  // namespace aoe::cuda
