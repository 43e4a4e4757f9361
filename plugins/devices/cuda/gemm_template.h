// The cuda device's own GEMM: a register-tiled, shared-memory SGEMM on CUDA
// cores, written as CUDA C++ that NVRTC compiles with the problem and the
// config as #define lines. Here: its tuning space, the checks a config must
// pass on a GPU, the untuned default, the source and the launch.
//
// The kernel, extern "C" aoe_gemm, takes five pointers, in this order:
//   const float* A, const float* B, const float* bias, const float* residual, float* C
// bias and residual are read only where the problem has them (pass 0 otherwise). With
// split_k above 1, C must be zero at launch (gemm_zeroes_output).
//
// split_k adds each split's partial sums into C with atomicAdd rather than
// writing them to a workspace for a second pass: one kernel, no workspace,
// and the shapes split-K is for (few tiles of C, a long K) have a small C to
// zero. alpha and the bias distribute over the sum (each split scales its
// part; split 0 alone adds the bias), so the result is whole; a nonlinear
// activation does not, so gemm_check refuses split_k above 1 with relu or
// gelu. The splits' order of addition varies from run to run, so results
// vary by fp32 rounding.
//
// Each block computes a block_m x block_n tile of C, stepping through K in
// block_k slices staged in shared memory; each of its
// (block_m / thread_m) x (block_n / thread_n) threads keeps thread_m x
// thread_n sums in registers, at rows and cols strided by the thread grid,
// so that a warp reads consecutive shared words and stores consecutive
// columns of C.
#pragma once

#include <string>
#include <vector>

#include "aoe/sdk/measurement.h"
#include "aoe/sdk/tuning_space.h"
#include "gemm_problem.h"
#include "gpu_limits.h"
#include "launch_geometry.h"

namespace aoe::cuda {

// Knob indices of a GEMM config, all KnobTag::schedule but math.
enum GemmKnob : size_t {
  kBlockM,       // rows of C per block
  kBlockN,       // cols of C per block
  kBlockK,       // K per shared-memory slice
  kThreadM,      // rows of C per thread
  kThreadN,      // cols of C per thread
  kVectorWidth,  // floats per global load: 1, 2, 4
  kStages,       // shared slices: 1, or 2 to load the next while computing this one
  kSplitK,       // blocks sharing one tile's K, adding into C atomically
  kMath,         // KnobTag::impl, a GemmMath: fp32 on CUDA cores; tf32, fp16 on tensor cores where allowed
  kGemmKnobCount
};

// Tile sides up to the first that covers the problem; split_k while each
// split keeps a slice of K. Its default is gemm_default for GpuLimits{}: the
// device sets its own from the GPU's limits.
sdk::TuningSpace gemm_space(const GemmProblem& problem);

// Ok (no time) where the config runs on a GPU of these limits, else invalid
// with the reason.
sdk::Measurement gemm_check(const GemmProblem& problem, const sdk::Config& config, const GpuLimits& limits);

// The untuned default (the rule is at its definition); passes gemm_check
// for the limits of any CUDA GPU (256 threads and 24 KiB of shared memory
// a block are all it needs; TF32, where allowed, an Ampere one).
sdk::Config gemm_default(const GemmProblem& problem, const GpuLimits& limits);

// The whole source NVRTC compiles: #define lines for the problem and the
// config, then the kernel. It includes nothing.
std::string gemm_source(const GemmProblem& problem, const sdk::Config& config);

LaunchGeometry gemm_launch(const GemmProblem& problem, const sdk::Config& config);

// The product a config computes: its math knob's value, the source's MATH.
enum class GemmMath { fp32 = 0, tf32 = 1, fp16 = 2 };
const char* to_string(GemmMath math);
// The maths the problem allows (its math knob's domain): fp32, then tf32 and fp16 where allowed.
std::vector<GemmMath> gemm_maths(const GemmProblem& problem);
GemmMath gemm_math(const sdk::Config& config);

// The output check a config's results pass against the double-precision
// reference: |got - want| <= atol + rtol |want| (rtol < 0: the device
// option's, 1e-4). fp32: atol 1e-3, sums of K products in another order.
// tf32 and fp16: each input rounded to 10 mantissa bits (a relative error
// up to 2^-11), so rtol 1e-3 and atol 1e-3 sqrt(K), the spread of K rounded
// products of inputs in [-1, 1] as the reference data draws them.
struct GemmTolerance {
  double rtol, atol;
};
GemmTolerance gemm_tolerance(const GemmProblem& problem, const sdk::Config& config);

// Whether C must be zeroed before each launch: split_k blocks add their
// partial sums into it.
bool gemm_zeroes_output(const sdk::Config& config);

// Bytes of shared memory and threads one block of the config takes.
unsigned gemm_shared_bytes(const sdk::Config& config);
unsigned gemm_threads(const sdk::Config& config);

}  // namespace aoe::cuda
