// aoe_gemm for the CUDA test double: the sums the CUDA kernel computes, read
// from the source's #define lines, and a time for its config from a model
// of a notional Ampere-class GPU.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "host_kernel.h"
#include "tensor_core_inputs.h"

namespace aoe::cuda_double {
namespace {

int64_t integer(const HostLaunch& launch, const char* name) {
  const auto it = launch.defines.find(name);
  if (it == launch.defines.end()) throw std::runtime_error(std::string("aoe_gemm: the source defines no ") + name);
  size_t used = 0;
  const int64_t value = std::stoll(it->second, &used);
  if (used != it->second.size()) throw std::runtime_error(std::string("aoe_gemm: ") + name + " is '" + it->second + "', not an integer");
  return value;
}

// A float literal as the source writes it: digits, then 'f'.
float real(const HostLaunch& launch, const char* name) {
  const auto it = launch.defines.find(name);
  if (it == launch.defines.end()) throw std::runtime_error(std::string("aoe_gemm: the source defines no ") + name);
  return std::stof(it->second);
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The problem and the config, as the kernel's preprocessor sees them.
struct Gemm {
  int64_t bm, bn, bk, tm, tn, vw, stages, split, math;
  int64_t batch, m, n, k, a_batch, b_batch, bias_batch, bias_row, bias_col, residual_batch, residual_row, residual_col,
      epilogue;
  bool trans_a, trans_b, has_bias, has_residual;
  float alpha, beta;

  explicit Gemm(const HostLaunch& l)
      : bm(integer(l, "BLOCK_M")), bn(integer(l, "BLOCK_N")), bk(integer(l, "BLOCK_K")), tm(integer(l, "THREAD_M")),
        tn(integer(l, "THREAD_N")), vw(integer(l, "VECTOR_WIDTH")), stages(integer(l, "STAGES")), split(integer(l, "SPLIT_K")),
        math(integer(l, "MATH")),
        batch(integer(l, "BATCH")), m(integer(l, "M")), n(integer(l, "N")), k(integer(l, "K")),
        a_batch(integer(l, "A_BATCH_STRIDE")), b_batch(integer(l, "B_BATCH_STRIDE")),
        bias_batch(integer(l, "BIAS_BATCH_STRIDE")), bias_row(integer(l, "BIAS_ROW_STRIDE")),
        bias_col(integer(l, "BIAS_COL_STRIDE")), residual_batch(integer(l, "RESIDUAL_BATCH_STRIDE")),
        residual_row(integer(l, "RESIDUAL_ROW_STRIDE")), residual_col(integer(l, "RESIDUAL_COL_STRIDE")),
        epilogue(integer(l, "EPILOGUE")), trans_a(integer(l, "TRANS_A") != 0), trans_b(integer(l, "TRANS_B") != 0),
        has_bias(integer(l, "HAS_BIAS") != 0), has_residual(integer(l, "HAS_RESIDUAL") != 0), alpha(real(l, "ALPHA")),
        beta(real(l, "BETA")) {}

  int64_t threads() const { return (bm / tm) * (bn / tn); }
  int64_t k_per_split() const { return ceil_div(ceil_div(k, split), bk) * bk; }
  int64_t shared_bytes() const { return stages * bk * ((bm + 1) + (bn + 1)) * 4; }
};

// A launch the kernel would not cover its output with is the launcher's bug: say so.
void check_geometry(const Gemm& g, const HostLaunch& l) {
  const auto expect = [](const char* what, int64_t got, int64_t want) {
    if (got != want)
      throw std::runtime_error(std::string("aoe_gemm launched with ") + what + " " + std::to_string(got) + ", its defines need " +
                               std::to_string(want));
  };
  expect("grid.x", l.grid.x, ceil_div(g.n, g.bn));
  expect("grid.y", l.grid.y, ceil_div(g.m, g.bm));
  expect("grid.z", l.grid.z, g.batch * g.split);
  expect("block.x", l.block.x, g.threads());
  expect("block.y * block.z", static_cast<int64_t>(l.block.y) * l.block.z, 1);
  if (l.shared_bytes < g.shared_bytes()) expect("shared_bytes", l.shared_bytes, g.shared_bytes());
}

float activate(int64_t epilogue, float v) {
  switch (epilogue) {
    case 1: return v > 0.0f ? v : 0.0f;
    case 2: return 0.5f * v * (1.0f + std::erf(v * 0.70710678118654752f));
    case 3: return 0.5f * v * (1.0f + std::tanh(0.79788456080286536f * (v + 0.044715f * v * v * v)));
    default: return v;
  }
}

// Each split's sum over its K in order, as a thread accumulates it, then the
// epilogue: stored whole with one split, added into C (zeroed by the
// launcher) split by split otherwise.
void run_gemm(const HostLaunch& l) {
  const Gemm g(l);
  check_geometry(g, l);
  const float* a = l.buffer<const float>(0);
  const float* b = l.buffer<const float>(1);
  const float* bias = l.buffer<const float>(2);
  const float* residual = l.buffer<const float>(3);
  float* c = l.buffer<float>(4);
  const int64_t per_split = g.k_per_split();
  for (int64_t batch = 0; batch < g.batch; ++batch) {
    const float* ab = a + batch * g.a_batch;
    const float* bb = b + batch * g.b_batch;
    float* cb = c + batch * g.m * g.n;
    for (int64_t s = 0; s < g.split; ++s) {
      const int64_t k0 = s * per_split, k1 = std::min(g.k, k0 + per_split);
      for (int64_t i = 0; i < g.m; ++i)
        for (int64_t j = 0; j < g.n; ++j) {
          float acc = 0.0f;
          for (int64_t p = k0; p < k1; ++p) {
            float av = g.trans_a ? ab[p * g.m + i] : ab[i * g.k + p];
            float bv = g.trans_b ? bb[j * g.k + p] : bb[p * g.n + j];
            if (g.math == 1) av = tf32_rounded(av), bv = tf32_rounded(bv);  // the tensor cores' inputs
            if (g.math == 2) av = fp16_rounded(av), bv = fp16_rounded(bv);
            acc = std::fma(av, bv, acc);
          }
          float v = g.alpha * acc;
          if (g.has_bias && s == 0) v += g.beta * bias[batch * g.bias_batch + i * g.bias_row + j * g.bias_col];
          if (g.has_residual && s == 0) v += residual[batch * g.residual_batch + i * g.residual_row + j * g.residual_col];
          if (g.split == 1)
            cb[i * g.n + j] = activate(g.epilogue, v);
          else
            cb[i * g.n + j] += v;
        }
    }
  }
}

// The notional GPU the times are of: an A100's SM count, clock and rates.
constexpr double kSms = 108;
constexpr double kClockGhz = 1.41;
constexpr double kWarpFmasPerSmCycle = 2;     // 64 FP32 lanes
constexpr double kTensorCoreSpeedup = 8;      // TF32 on tensor cores: 156 against 19.5 TFLOPS; fp16 twice that
constexpr double kWarpSharedPerSmCycle = 1;   // one conflict-free warp access per cycle
constexpr double kWarpLoadsPerSmCycle = 0.5;  // global load instructions issued
constexpr double kWarpIssuesPerSmCycle = 4;   // four schedulers
constexpr double kL2BytesPerSmCycle = 2500e9 / (108 * 1.41e9);  // what SGEMM loads sustain, not the peak
constexpr double kDramBytesPerNs = 1555;
constexpr double kThreadsPerSm = 2048, kRegistersPerSm = 65536, kSharedBytesPerSm = 164 * 1024, kBlocksPerSm = 32;
constexpr double kLaunchUs = 3;
constexpr double kBarrierCycles = 20;

// A roofline per SM for one wave of resident blocks, slice by slice: the
// FMA pipe against the shared-memory reads each thread tile makes (a big
// thread tile reuses each read more), global loads against L2, hidden behind
// each other as far as the resident warps (and a second stage) allow; then
// whole waves, so a grid just past a wave pays for a second; then DRAM as a
// floor, and with split_k the zeroing of C and its atomic adds.
double time_ms(const HostLaunch& l) {
  const Gemm g(l);
  const double threads = static_cast<double>(g.threads()), warps = threads / 32;
  const double regs = static_cast<double>(g.tm * g.tn + g.tm + g.tn + 32);
  const double resident =
      std::max(1.0, std::min({std::floor(kThreadsPerSm / threads), std::floor(kRegistersPerSm / (regs * threads)),
                              std::floor(kSharedBytesPerSm / static_cast<double>(g.shared_bytes())), kBlocksPerSm}));
  const double blocks = static_cast<double>(ceil_div(g.n, g.bn) * ceil_div(g.m, g.bm) * g.batch * g.split);
  const double per_wave = std::min(blocks, kSms * resident) / kSms;  // blocks on one SM at once
  const double waves = std::ceil(blocks / (kSms * resident));

  const double bk = static_cast<double>(g.bk);
  const double fma = per_wave * warps * static_cast<double>(g.tm * g.tn) * bk / kWarpFmasPerSmCycle /
                     (g.math == 1 ? kTensorCoreSpeedup : g.math == 2 ? 2 * kTensorCoreSpeedup : 1);
  const double shared = per_wave * warps * static_cast<double>(g.tm + g.tn) * bk / kWarpSharedPerSmCycle;
  const double tile_floats = static_cast<double>(g.bm + g.bn) * bk;
  const double loads = per_wave * std::max(tile_floats / static_cast<double>(g.vw) / 32 / kWarpLoadsPerSmCycle,
                                           tile_floats * 4 / kL2BytesPerSmCycle);
  // Fewer than 16 warps on an SM leave latency showing; a second stage doubles what is in flight.
  const double hidden = std::min(1.0, per_wave * warps * static_cast<double>(g.stages) / 16);
  // Loads and their stores to shared memory take issue slots from the FMAs: wider vectors, fewer.
  const double issue = per_wave * (tile_floats / static_cast<double>(g.vw) + tile_floats) / 32 / kWarpIssuesPerSmCycle;
  const double compute = std::max(fma, shared) + issue;
  const double slice = g.stages == 2 ? std::max(compute, loads) : compute + loads / std::max(1.0, per_wave);
  const double slices = std::ceil(static_cast<double>(std::min(g.k, g.k_per_split())) / bk);
  const double barriers = (g.stages == 2 ? 1 : 2) * kBarrierCycles;
  const double epilogue = static_cast<double>(g.tm * g.tn) * (g.epilogue >= 2 ? 20 : 2);
  const double cycles = waves * (slices * (slice / hidden + barriers) + epilogue);

  const double c_bytes = static_cast<double>(g.batch * g.m * g.n) * 4;
  const double a_bytes = static_cast<double>((g.a_batch ? g.batch : 1) * g.m * g.k) * 4;
  const double b_bytes = static_cast<double>((g.b_batch ? g.batch : 1) * g.k * g.n) * 4;
  const double dram_ns = (a_bytes + b_bytes + c_bytes) / kDramBytesPerNs;
  double ns = std::max(cycles / kClockGhz, dram_ns);
  if (g.split > 1) ns += c_bytes / kDramBytesPerNs + static_cast<double>(g.split) * c_bytes / (kDramBytesPerNs / 2) + kLaunchUs * 1e3 / 2;
  return (ns + kLaunchUs * 1e3) / 1e6;
}

const HostKernelRegistrar registrar("aoe_gemm", HostKernel{run_gemm, time_ms, 5});

}  // namespace
}  // namespace aoe::cuda_double
