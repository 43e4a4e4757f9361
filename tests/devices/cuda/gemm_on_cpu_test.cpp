// The generated GEMM source itself, run: each case's source is compiled as
// C++ with CUDA's builtins on CPU threads (cuda_on_cpu_prelude.h), under the
// address and undefined-behaviour sanitizers, and its C compared with a
// reference. Where the PTX test shows the source is valid CUDA, this shows
// its indexing, masking, vector loads, double buffering and split-K add up.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gemm_template.h"

namespace aoe::cuda {
namespace {

namespace fs = std::filesystem;

const fs::path kWork = fs::path(AOE_GEMM_PTX_DIR) / "on_cpu";
const fs::path kTests = fs::path(AOE_CLANG_CUDA_PRELUDE).parent_path();

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

const std::string kFlags = " -std=c++20 -O0 -g -pthread -fno-strict-aliasing -fsanitize=address,undefined -fno-sanitize-recover=all";

// Compiles the harness for `source` and `launch` into `exe`; the log holds clang's output.
bool build(const std::string& source, const LaunchGeometry& launch, const fs::path& exe, const fs::path& log) {
  const fs::path kernel = fs::path(exe).replace_extension(".cu.h");
  std::ofstream(kernel) << source;
  const std::string command =
      std::string(AOE_CUDA_CLANG) + kFlags + " -DAOE_EXTERN_SHARED -I" + kTests.string() + " -DAOE_GEMM_SOURCE='\"" + kernel.string() + "\"'" +
      " -DGRID_X=" + std::to_string(launch.grid[0]) + " -DGRID_Y=" + std::to_string(launch.grid[1]) +
      " -DGRID_Z=" + std::to_string(launch.grid[2]) + " -DBLOCK_X=" + std::to_string(launch.block[0]) +
      " -DSHARED_FLOATS=" + std::to_string(launch.shared_bytes / 4) + " " + (kTests / "gemm_on_cpu_main.cpp").string() +
      " -o " + exe.string() + " > " + log.string() + " 2>&1";
  return std::system(command.c_str()) == 0;
}

// Empty where clang builds C++20 threads with the sanitizers here, else why not.
std::string harness_missing() {
  if (std::string(AOE_CUDA_CLANG).empty()) return "clang++ was not found when the build was configured";
  fs::create_directories(kWork);
  const fs::path probe = kWork / "probe.cpp", log = kWork / "probe.log";
  std::ofstream(probe) << "#include <barrier>\nint main() { std::barrier<> b(1); b.arrive_and_wait(); }\n";
  const std::string command = std::string(AOE_CUDA_CLANG) + kFlags + " " + probe.string() + " -o " + (kWork / "probe").string() + " > " + log.string() + " 2>&1";
  if (std::system(command.c_str()) != 0) return "clang cannot build C++20 threads with the sanitizers here: " + read(log);
  return {};
}

GemmProblem problem(const std::string& name, int64_t m, int64_t n, int64_t k) {
  GemmProblem p;
  p.op = name;
  p.m = m;
  p.n = n;
  p.k = k;
  return p;
}

GemmProblem with_bias(GemmProblem p, GemmActivation act, float alpha = 1, float beta = 1) {
  p.has_bias = true;
  p.bias_col_stride = 1;
  p.activation = act;
  p.alpha = alpha;
  p.beta = beta;
  return p;
}

struct Case {
  GemmProblem problem;
  sdk::Config config;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  const GemmProblem odd = problem("odd", 37, 29, 19);          // every edge masked, no vector fits
  const GemmProblem aligned = problem("aligned", 36, 68, 132);  // float4 rows, edges masked
  out.push_back({odd, {32, 32, 8, 2, 2, 1, 2, 1, 0}});
  out.push_back({odd, {8, 8, 8, 1, 1, 1, 1, 1, 0}});
  out.push_back({odd, {16, 16, 8, 1, 2, 1, 1, 2, 0}});
  out.push_back({with_bias(aligned, GemmActivation::none), {32, 64, 8, 2, 2, 4, 2, 4, 0}});
  out.push_back({aligned, {32, 64, 16, 2, 2, 2, 1, 1, 0}});
  out.push_back({problem("deep thread tile", 130, 132, 68), {64, 64, 8, 8, 8, 4, 2, 1, 0}});
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      GemmProblem p = problem("trans " + std::to_string(ta) + std::to_string(tb), 36, 68, 44);
      p.trans_a = ta;
      p.trans_b = tb;
      out.push_back({p, {32, 32, 16, 2, 2, 4, 2, 1, 0}});
      out.push_back({p, {16, 32, 8, 1, 2, 1, 1, 1, 0}});
    }
  for (auto act : {GemmActivation::relu, GemmActivation::gelu_erf, GemmActivation::gelu_tanh})
    out.push_back({with_bias(problem(to_string(act), 33, 65, 40), act, 0.75f, 1.5f), {32, 64, 8, 2, 2, 1, 2, 1, 0}});
  GemmProblem attention = problem("batched", 20, 24, 16);
  attention.batch = 3;
  attention.a_batch_stride = 20 * 16;
  attention.b_batch_stride = 16 * 24;
  attention.has_bias = true;
  attention.bias_batch_stride = 20 * 24;
  attention.bias_row_stride = 24;
  attention.bias_col_stride = 1;
  attention.alpha = 0.125f;
  out.push_back({attention, {16, 16, 8, 1, 1, 4, 2, 1, 0}});
  GemmProblem shared_a = attention;
  shared_a.op = "shared A, split";
  shared_a.a_batch_stride = 0;
  out.push_back({shared_a, {16, 32, 8, 1, 2, 2, 2, 2, 0}});
  GemmProblem residual = with_bias(problem("residual", 65, 68, 40), GemmActivation::none, 1.0f, -0.5f);
  residual.bias_row_stride = 68;
  out.push_back({residual, {32, 64, 8, 2, 4, 4, 2, 2, 0}});
  // BERT's output projection: a per-column bias, then a whole residual, split.
  GemmProblem bias_and_residual = with_bias(problem("bias and residual", 65, 68, 40), GemmActivation::none);
  bias_and_residual.has_residual = true;
  bias_and_residual.residual_row_stride = 68;
  bias_and_residual.residual_col_stride = 1;
  out.push_back({bias_and_residual, {32, 64, 8, 2, 4, 4, 2, 2, 0}});
  out.push_back({problem("1x1x1", 1, 1, 1), {8, 8, 8, 1, 2, 1, 2, 1, 0}});
  out.push_back({with_bias(problem("empty K", 5, 7, 0), GemmActivation::relu), {8, 8, 8, 1, 2, 1, 2, 1, 0}});
  const GemmProblem ffn = with_bias(problem("ffn", 40, 96, 72), GemmActivation::gelu_erf);
  out.push_back({ffn, gemm_default(ffn, GpuLimits{})});
  // The TF32 product on tensor cores, each lane's fragments as PTX lays
  // them out (mma.sync emulated a warp at a time): odd edges, B stored
  // transposed with a bias and GeLU, K split in two.
  const auto tf32 = [](GemmProblem p) {
    p.allowed.tf32 = true;
    return p;
  };
  out.push_back({tf32(problem("tf32 odd", 37, 45, 29)), {32, 32, 8, 2, 2, 1, 2, 1, 1}});
  GemmProblem trans_b = with_bias(problem("tf32 trans_b gelu", 70, 66, 40), GemmActivation::gelu_erf);
  trans_b.trans_b = true;
  out.push_back({tf32(trans_b), {64, 64, 16, 4, 4, 4, 2, 1, 1}});
  out.push_back({tf32(problem("tf32 split_k", 33, 40, 96)), {32, 32, 8, 2, 2, 1, 1, 2, 1}});
  // fp16 (m16n8k16, two halves a register).
  const auto fp16 = [](GemmProblem p) {
    p.allowed.fp16 = true;
    return p;
  };
  out.push_back({fp16(problem("fp16 odd", 37, 45, 29)), {32, 32, 16, 2, 2, 1, 2, 1, 2}});
  out.push_back({fp16(trans_b), {64, 64, 32, 4, 4, 4, 2, 1, 2}});
  out.push_back({fp16(problem("fp16 split_k", 33, 40, 96)), {32, 32, 16, 2, 2, 1, 1, 2, 2}});
  return out;
}

TEST(GemmOnCpu, GeneratedSourceComputesTheGemm) {
  if (const auto why = harness_missing(); !why.empty()) GTEST_SKIP() << why;
  int index = 0;
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.problem.op + " " + gemm_space(c.problem).describe(c.config).dump());
    ASSERT_TRUE(gemm_check(c.problem, c.config, GpuLimits{}).ok()) << gemm_check(c.problem, c.config, GpuLimits{}).message;
    const fs::path exe = kWork / ("case_" + std::to_string(index++));
    const fs::path log = fs::path(exe).replace_extension(".log"), run = fs::path(exe).replace_extension(".out");
    ASSERT_TRUE(build(gemm_source(c.problem, c.config), gemm_launch(c.problem, c.config), exe, log)) << read(log);
    // A barrier some thread never reaches would hang: bounded.
    const int status = std::system(("timeout 120 " + exe.string() + " > " + run.string() + " 2>&1").c_str());
    EXPECT_EQ(status, 0) << read(run);
  }
}

}  // namespace
}  // namespace aoe::cuda
