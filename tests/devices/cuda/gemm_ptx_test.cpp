// The GEMM kernel's CUDA C++ compiled to PTX by clang for a spread of
// problems and configs: without a GPU or NVRTC, the evidence that every
// source the device generates is valid CUDA, and that its vector loads,
// atomics and register-only arrays come out as meant.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gemm_template.h"

namespace aoe::cuda {
namespace {

namespace fs = std::filesystem;

const fs::path kWork = fs::path(AOE_GEMM_PTX_DIR);

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string compile_command(const fs::path& source, const fs::path& ptx, const fs::path& log, const std::string& arch = "sm_80") {
  return std::string(AOE_CUDA_CLANG) + " -x cuda --cuda-device-only --cuda-gpu-arch=" + arch + " -nocudainc -nocudalib" +
         " -Wno-unknown-cuda-version -Wall -Wextra -O3 -include " + AOE_CLANG_CUDA_PRELUDE + " -S -o " + ptx.string() + " " +
         source.string() + " > " + log.string() + " 2>&1";
}

// Empty where clang compiles CUDA to PTX here, else why not.
std::string clang_missing() {
  if (std::string(AOE_CUDA_CLANG).empty()) return "clang++ (16 or later) was not found when the build was configured";
  fs::create_directories(kWork);
  const fs::path probe = kWork / "probe.cu";
  std::ofstream(probe) << "extern \"C\" __global__ void probe(float* x) { x[threadIdx.x] = 1.0f; }\n";
  if (std::system(compile_command(probe, kWork / "probe.ptx", kWork / "probe.log").c_str()) != 0)
    return "clang cannot compile CUDA to PTX here (no NVPTX target?): " + read(kWork / "probe.log");
  return {};
}

GemmProblem problem(int64_t m, int64_t n, int64_t k) {
  GemmProblem p;
  p.op = "MatMul 'ptx_test'";
  p.m = m;
  p.n = n;
  p.k = k;
  return p;
}

struct Case {
  std::string name;
  GemmProblem problem;
  sdk::Config config;
};

sdk::Config cfg(int64_t bm, int64_t bn, int64_t bk, int64_t tm, int64_t tn, int64_t vw, int64_t stages, int64_t split,
                int64_t math = 0) {
  return {bm, bn, bk, tm, tn, vw, stages, split, math};
}

GemmProblem tf32(GemmProblem p) {
  p.allowed.tf32 = true;
  return p;
}

GemmProblem fp16(GemmProblem p) {
  p.allowed.fp16 = true;
  return p;
}

GemmProblem with_epilogue(GemmProblem p, GemmActivation act) {
  p.has_bias = true;
  p.bias_col_stride = 1;
  p.activation = act;
  return p;
}

// Named corners, then a fixed sample of the valid configs of problems whose sides no tile divides.
std::vector<Case> cases() {
  std::vector<Case> out;
  const GpuLimits limits;
  GpuLimits many_sms;
  many_sms.multiprocessors = 108;
  const GemmProblem bert = problem(128, 768, 768);
  const GemmProblem odd = problem(129, 257, 67);     // no vector fits, every edge masked
  const GemmProblem ragged = problem(130, 260, 68);  // float4 rows, edges masked
  out.push_back({"default_bert", bert, gemm_default(bert, limits)});
  out.push_back({"default_bert_108_sms", bert, gemm_default(bert, many_sms)});
  out.push_back({"default_odd", odd, gemm_default(odd, limits)});
  out.push_back({"default_gemv", problem(1, 1000, 512), gemm_default(problem(1, 1000, 512), limits)});
  out.push_back({"smallest_tile", ragged, cfg(8, 8, 8, 1, 1, 1, 1, 1)});
  out.push_back({"largest_tile", ragged, cfg(256, 128, 8, 16, 8, 4, 2, 1)});
  out.push_back({"tall_thread_tile", ragged, cfg(128, 32, 16, 16, 1, 4, 2, 1)});
  out.push_back({"wide_thread_tile", ragged, cfg(32, 256, 8, 1, 16, 4, 1, 1)});
  out.push_back({"deep_slice", ragged, cfg(64, 64, 64, 4, 4, 4, 1, 1)});
  out.push_back({"vector_2", ragged, cfg(64, 64, 16, 4, 4, 2, 2, 1)});
  out.push_back({"vector_4_single_stage", ragged, cfg(128, 128, 8, 8, 8, 4, 1, 1)});
  out.push_back({"odd_scalar", odd, cfg(64, 64, 8, 4, 4, 1, 2, 1)});
  for (int64_t split : {2, 4, 8, 16})
    out.push_back({"split_k_" + std::to_string(split), problem(64, 64, 4096), cfg(64, 64, 16, 4, 4, 4, 2, split)});
  out.push_back({"split_k_odd", odd, cfg(32, 32, 8, 2, 2, 1, 1, 2)});
  GemmProblem bias_and_residual = with_epilogue(bert, GemmActivation::none);
  bias_and_residual.has_residual = true;
  bias_and_residual.residual_row_stride = 768;
  bias_and_residual.residual_col_stride = 1;
  out.push_back({"bias_and_residual", bias_and_residual, gemm_default(bias_and_residual, limits)});
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb)
      for (int64_t vw : {1, 4}) {
        GemmProblem p = ragged;
        p.trans_a = ta;
        p.trans_b = tb;
        p.k = 132;  // A transposed has rows of M (130): float4 only where no operand is stored M-wide
        if (vw == 4 && ta) p.m = 132;
        out.push_back({"trans_" + std::to_string(ta) + std::to_string(tb) + "_vw" + std::to_string(vw), p,
                       cfg(64, 32, 16, 4, 2, vw, 2, 1)});
      }
  for (auto act : {GemmActivation::none, GemmActivation::relu, GemmActivation::gelu_erf, GemmActivation::gelu_tanh})
    out.push_back({std::string("bias_") + to_string(act), with_epilogue(odd, act), cfg(64, 64, 8, 4, 4, 1, 2, 1)});
  GemmProblem batched = problem(128, 128, 64);
  batched.batch = 12;
  batched.a_batch_stride = 128 * 64;
  batched.b_batch_stride = 64 * 128;
  batched.alpha = 0.125f;
  out.push_back({"batched_scaled", batched, cfg(64, 64, 16, 4, 4, 4, 2, 1)});
  GemmProblem residual = with_epilogue(ragged, GemmActivation::none);
  residual.bias_row_stride = 260;
  residual.beta = -0.5f;
  out.push_back({"residual_split_k", residual, cfg(32, 64, 8, 2, 4, 4, 2, 2)});
  // The TF32 product on tensor cores.
  out.push_back({"tf32_bert", tf32(bert), cfg(128, 128, 16, 8, 8, 4, 2, 1, 1)});
  out.push_back({"tf32_odd_split_k", tf32(odd), cfg(32, 32, 8, 2, 2, 1, 1, 2, 1)});
  out.push_back({"tf32_gelu", tf32(with_epilogue(ragged, GemmActivation::gelu_erf)), cfg(64, 64, 16, 4, 4, 4, 2, 1, 1)});
  out.push_back({"fp16_bert", fp16(bert), cfg(128, 128, 16, 8, 8, 4, 2, 1, 2)});
  out.push_back({"fp16_odd_split_k", fp16(odd), cfg(32, 32, 32, 2, 2, 1, 1, 2, 2)});
  // A sample of everything the space lets through: knob combinations nobody named.
  for (const GemmProblem& p : {odd, with_epilogue(ragged, GemmActivation::gelu_erf), tf32(fp16(ragged))}) {
    const auto space = gemm_space(p);
    std::vector<sdk::Config> valid;
    sdk::for_each_config(space, [&](const sdk::Config& c) {
      if (gemm_check(p, c, limits).ok()) valid.push_back(c);
    });
    std::mt19937 pick(7);
    for (int i = 0; i < 12; ++i) {
      const auto& c = valid[pick() % valid.size()];
      out.push_back({"sample_" + std::to_string(out.size()), p, c});
    }
  }
  return out;
}

TEST(GemmPtx, EverySourceCompilesToPtx) {
  if (const auto why = clang_missing(); !why.empty()) GTEST_SKIP() << why;
  const GpuLimits limits;
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name + " " + gemm_space(c.problem).describe(c.config).dump());
    ASSERT_TRUE(gemm_check(c.problem, c.config, limits).ok()) << gemm_check(c.problem, c.config, limits).message;
    const fs::path source = kWork / (c.name + ".cu"), ptx = kWork / (c.name + ".ptx"), log = kWork / (c.name + ".log");
    std::ofstream(source) << gemm_source(c.problem, c.config);
    ASSERT_EQ(std::system(compile_command(source, ptx, log).c_str()), 0) << read(log);
    EXPECT_EQ(read(log), "") << "clang warns";
    const std::string text = read(ptx);
    EXPECT_NE(text.find(".entry aoe_gemm("), std::string::npos);
    EXPECT_NE(text.find("bar.sync"), std::string::npos);
    // Sums, fetched vectors and fragments all live in registers.
    EXPECT_EQ(text.find(".local"), std::string::npos) << "an array spilled to local memory";
    const int64_t vw = c.config[kVectorWidth];
    if (vw > 1) {
      EXPECT_NE(text.find(".v" + std::to_string(vw) + ".f32"), std::string::npos) << "no vector load";
    }
    const bool atomics = text.find("atom.global.add.f32") != std::string::npos || text.find("red.global.add.f32") != std::string::npos;
    EXPECT_EQ(atomics, c.config[kSplitK] > 1);
    // The tensor cores' products, and only where the config asks for them.
    const GemmMath math = gemm_math(c.config);
    EXPECT_EQ(text.find("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32") != std::string::npos, math == GemmMath::tf32);
    EXPECT_EQ(text.find("cvt.rna.tf32.f32") != std::string::npos, math == GemmMath::tf32);
    EXPECT_EQ(text.find("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32") != std::string::npos, math == GemmMath::fp16);
    EXPECT_EQ(text.find("cvt.rn.f16x2.f32") != std::string::npos, math == GemmMath::fp16);
    const auto act = c.problem.activation;
    EXPECT_EQ(text.find("__nv_erff") != std::string::npos, act == GemmActivation::gelu_erf);
    EXPECT_EQ(text.find("__nv_tanhf") != std::string::npos, act == GemmActivation::gelu_tanh);
  }
}

// NVRTC compiles for the GPU at hand: the source asks nothing of a newer one.
TEST(GemmPtx, CompilesForEachArchitecture) {
  if (const auto why = clang_missing(); !why.empty()) GTEST_SKIP() << why;
  GemmProblem p = with_epilogue(problem(130, 260, 68), GemmActivation::gelu_erf);
  const sdk::Config c = cfg(64, 64, 16, 4, 4, 4, 2, 1);
  for (const std::string arch : {"sm_60", "sm_70", "sm_75", "sm_86", "sm_90"}) {
    const fs::path source = kWork / ("arch_" + arch + ".cu"), ptx = kWork / ("arch_" + arch + ".ptx"),
                   log = kWork / ("arch_" + arch + ".log");
    std::ofstream(source) << gemm_source(p, c);
    EXPECT_EQ(std::system(compile_command(source, ptx, log, arch).c_str()), 0) << arch << ": " << read(log);
  }
  // TF32's and fp16's mma.sync from Ampere on, where gemm_check lets them run.
  const sdk::Config tensor_cores = cfg(64, 64, 16, 4, 4, 4, 2, 1, 1);
  for (const std::string arch : {"sm_80", "sm_86", "sm_90"}) {
    const fs::path source = kWork / ("tf32_" + arch + ".cu"), ptx = kWork / ("tf32_" + arch + ".ptx"),
                   log = kWork / ("tf32_" + arch + ".log");
    std::ofstream(source) << gemm_source(tf32(p), tensor_cores);
    EXPECT_EQ(std::system(compile_command(source, ptx, log, arch).c_str()), 0) << arch << ": " << read(log);
    sdk::Config half = tensor_cores;
    half[kMath] = 2;
    std::ofstream(source) << gemm_source(fp16(p), half);
    EXPECT_EQ(std::system(compile_command(source, ptx, log, arch).c_str()), 0) << arch << " fp16: " << read(log);
  }
}

// The source states every knob and the problem as #define lines and includes nothing.
TEST(GemmPtx, SourceIncludesNothing) {
  const auto p = problem(64, 64, 64);
  const std::string source = gemm_source(p, gemm_default(p, GpuLimits{}));
  EXPECT_EQ(source.find("#include"), std::string::npos);
}

}  // namespace
}  // namespace aoe::cuda
