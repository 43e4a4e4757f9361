#include "gemm_template.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace aoe::cuda {
namespace {

// The kernel after the #define lines. It names no CUDA header: NVRTC's
// builtins (threadIdx, __syncthreads, atomicAdd, erff, tanhf) and, for the
// TF32 product, two PTX instructions are all it uses.
const char* const kKernel = R"cuda(
#define EPILOGUE_NONE 0
#define EPILOGUE_RELU 1
#define EPILOGUE_GELU_ERF 2
#define EPILOGUE_GELU_TANH 3

#define THREADS_M (BLOCK_M / THREAD_M)
#define THREADS_N (BLOCK_N / THREAD_N)
#define THREADS (THREADS_M * THREADS_N)

// MATH 1: the product on tensor cores in TF32 (mma.sync m16n8k8, sm_80 on);
// MATH 2: in fp16 with fp32 sums (mma.sync m16n8k16). A lane's THREAD_M x
// THREAD_N sums are its accumulators of (THREAD_M / 2) x (THREAD_N / 2)
// tiles of 16 x 8, so each warp covers 8 * THREAD_M rows by 4 * THREAD_N
// cols, as 32 CUDA-core threads of the same tile do, and the warps tile the
// block in a (THREADS_M / 8) x (THREADS_N / 4) grid.
#define WARPS_N (THREADS_N / 4)
#if MATH == 2 && !defined(AOE_MMA_EMULATED)
// lo and hi rounded to fp16 (to nearest even) and packed, lo in the low half.
__device__ __forceinline__ unsigned aoe_f16x2(float lo, float hi) {
  unsigned r;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}
// d += a b over one 16 x 8 x 16 tile: lane (g, t) holds a at rows g, g + 8
// and k 2t, 2t + 1 then 2t + 8, 2t + 9 (two halves a register); b at those k
// and col g; d as the TF32 tile's.
__device__ __forceinline__ void aoe_mma_f16(float* d, const unsigned* a, const unsigned* b) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
#endif
#if MATH == 1 && !defined(AOE_MMA_EMULATED)
// v rounded to TF32 (10 mantissa bits, to nearest, ties away), as cuBLAS's TF32 mode does.
__device__ __forceinline__ unsigned aoe_tf32(float v) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(v));
  return r;
}
// d += a b over one 16 x 8 x 8 tile, the fragments as PTX lays them out:
// lane (g, t) = (lane / 4, lane % 4) holds a at rows g, g + 8 and k t, t + 4;
// b at k t, t + 4 and col g; d at rows g, g + 8 and cols 2t, 2t + 1.
__device__ __forceinline__ void aoe_mma_tf32(float* d, const unsigned* a, const unsigned* b) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
#endif
#if MATH == 1
#define AOE_MMA aoe_mma_tf32
#elif MATH == 2
#define AOE_MMA aoe_mma_f16
#endif
#if MATH >= 1
// One step of K: every 16 x 8 tile of the lane's sums (2 x 2 of them a tile) += its fragments' product.
__device__ __forceinline__ void aoe_tile_products(float (*acc)[THREAD_N], const unsigned (*af)[4], const unsigned (*bf)[2]) {
#pragma unroll
  for (int mi = 0; mi < THREAD_M / 2; ++mi)
#pragma unroll
    for (int ni = 0; ni < THREAD_N / 2; ++ni) {
      float d[4] = {acc[2 * mi][2 * ni], acc[2 * mi][2 * ni + 1], acc[2 * mi + 1][2 * ni], acc[2 * mi + 1][2 * ni + 1]};
      AOE_MMA(d, af[mi], bf[ni]);
      acc[2 * mi][2 * ni] = d[0];
      acc[2 * mi][2 * ni + 1] = d[1];
      acc[2 * mi + 1][2 * ni] = d[2];
      acc[2 * mi + 1][2 * ni + 1] = d[3];
    }
}
#endif
// Shared slices are k-major (one row per k); the extra float per row spreads
// the transposing stores of a k-contiguous operand over the banks.
#define A_PITCH (BLOCK_M + 1)
#define B_PITCH (BLOCK_N + 1)
#define A_STAGE (BLOCK_K * A_PITCH)
#define B_STAGE (BLOCK_K * B_PITCH)
// Each split's share of K, whole slices so that no slice straddles two splits.
#define K_PER_SPLIT ((((K) + SPLIT_K - 1) / SPLIT_K + BLOCK_K - 1) / BLOCK_K * BLOCK_K)

// A slice of an operand as stored: a TILE_ROWS x TILE_COLS block of a
// row-major matrix, loaded as vectors along its contiguous cols.
#define A_TILE_ROWS (TRANS_A ? BLOCK_K : BLOCK_M)
#define A_TILE_COLS (TRANS_A ? BLOCK_M : BLOCK_K)
#define B_TILE_ROWS (TRANS_B ? BLOCK_N : BLOCK_K)
#define B_TILE_COLS (TRANS_B ? BLOCK_K : BLOCK_N)
#define A_VECS (A_TILE_ROWS * A_TILE_COLS / VECTOR_WIDTH)
#define B_VECS (B_TILE_ROWS * B_TILE_COLS / VECTOR_WIDTH)
#define A_LOADS ((A_VECS + THREADS - 1) / THREADS)
#define B_LOADS ((B_VECS + THREADS - 1) / THREADS)

struct alignas(VECTOR_WIDTH * 4) aoe_vec {
  float v[VECTOR_WIDTH];
};

// VECTOR_WIDTH floats of a row-major rows x cols matrix from (row, col) on,
// zero past its edges: one vector load where the whole vector lies inside.
__device__ __forceinline__ aoe_vec aoe_load(const float* __restrict__ m, long long ld, int row, int col, int rows, int cols) {
  aoe_vec out;
  if (row < rows && col + VECTOR_WIDTH <= cols) {
    out = *reinterpret_cast<const aoe_vec*>(m + row * ld + col);
  } else {
#pragma unroll
    for (int e = 0; e < VECTOR_WIDTH; ++e) out.v[e] = row < rows && col + e < cols ? m[row * ld + col + e] : 0.0f;
  }
  return out;
}

// This thread's vectors of one operand's slice: vector t, t + THREADS, ...
// of a TILE_COLS-wide tile, the slice's rows and cols from (row0, col0) of
// its matrix.
template <int LOADS, int VECS, int TILE_COLS>
__device__ __forceinline__ void aoe_fetch_tile(const float* __restrict__ m, long long ld, int row0, int col0, int rows,
                                               int cols, aoe_vec* regs) {
#pragma unroll
  for (int l = 0; l < LOADS; ++l) {
    const int v = threadIdx.x + l * THREADS;
    const int r = v / (TILE_COLS / VECTOR_WIDTH), c = v % (TILE_COLS / VECTOR_WIDTH) * VECTOR_WIDTH;
    if (v < VECS) regs[l] = aoe_load(m, ld, row0 + r, col0 + c, rows, cols);
  }
}

// The A and B slices at k0.
__device__ __forceinline__ void aoe_fetch(const float* __restrict__ a, const float* __restrict__ b, int m0, int n0, int k0,
                                          int k_end, aoe_vec* a_regs, aoe_vec* b_regs) {
#if TRANS_A
  aoe_fetch_tile<A_LOADS, A_VECS, A_TILE_COLS>(a, M, k0, m0, k_end, M, a_regs);
#else
  aoe_fetch_tile<A_LOADS, A_VECS, A_TILE_COLS>(a, K, m0, k0, M, k_end, a_regs);
#endif
#if TRANS_B
  aoe_fetch_tile<B_LOADS, B_VECS, B_TILE_COLS>(b, K, n0, k0, N, k_end, b_regs);
#else
  aoe_fetch_tile<B_LOADS, B_VECS, B_TILE_COLS>(b, N, k0, n0, k_end, N, b_regs);
#endif
}

// One operand's fetched vectors into its shared stage, k-major: a tile
// stored k-major goes as it is, one stored k-minor (K_MINOR) is transposed.
template <int LOADS, int VECS, int TILE_COLS, int PITCH, bool K_MINOR>
__device__ __forceinline__ void aoe_stash_tile(const aoe_vec* regs, float* stage) {
#pragma unroll
  for (int l = 0; l < LOADS; ++l) {
    const int v = threadIdx.x + l * THREADS;
    const int r = v / (TILE_COLS / VECTOR_WIDTH), c = v % (TILE_COLS / VECTOR_WIDTH) * VECTOR_WIDTH;
    if (v < VECS) {
#pragma unroll
      for (int e = 0; e < VECTOR_WIDTH; ++e) {
        if (K_MINOR)
          stage[(c + e) * PITCH + r] = regs[l].v[e];
        else
          stage[r * PITCH + c + e] = regs[l].v[e];
      }
    }
  }
}

// The fetched vectors into one shared stage.
__device__ __forceinline__ void aoe_stash(const aoe_vec* a_regs, const aoe_vec* b_regs, float* as, float* bs) {
  aoe_stash_tile<A_LOADS, A_VECS, A_TILE_COLS, A_PITCH, !TRANS_A>(a_regs, as);
  aoe_stash_tile<B_LOADS, B_VECS, B_TILE_COLS, B_PITCH, (bool)TRANS_B>(b_regs, bs);
}

__device__ __forceinline__ float aoe_activate(float v) {
#if EPILOGUE == EPILOGUE_RELU
  return v > 0.0f ? v : 0.0f;
#elif EPILOGUE == EPILOGUE_GELU_ERF
  return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
#elif EPILOGUE == EPILOGUE_GELU_TANH
  return 0.5f * v * (1.0f + tanhf(0.79788456080286536f * (v + 0.044715f * v * v * v)));
#else
  return v;
#endif
}

extern "C" __global__ void __launch_bounds__(THREADS)
aoe_gemm(const float* __restrict__ a, const float* __restrict__ b, const float* __restrict__ bias,
         const float* __restrict__ residual, float* __restrict__ c) {
  extern __shared__ float aoe_smem[];
  float* const as = aoe_smem;                    // STAGES slices of BLOCK_K x A_PITCH
  float* const bs = aoe_smem + STAGES * A_STAGE;  // STAGES slices of BLOCK_K x B_PITCH
  const int batch = blockIdx.z / SPLIT_K, split = blockIdx.z % SPLIT_K;
  const int m0 = blockIdx.y * BLOCK_M, n0 = blockIdx.x * BLOCK_N;
  const int k_begin = split * K_PER_SPLIT;
  const int k_end = K < k_begin + K_PER_SPLIT ? K : k_begin + K_PER_SPLIT;
  const int slices = k_end > k_begin ? (k_end - k_begin + BLOCK_K - 1) / BLOCK_K : 0;
  a += batch * (long long)A_BATCH_STRIDE;
  b += batch * (long long)B_BATCH_STRIDE;
  c += batch * ((long long)M * N);
  // Where sum (i, j) of this thread lies in the block's tile.
#if MATH >= 1
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, g = lane / 4, t4 = lane % 4;
  const int wm0 = warp / WARPS_N * 8 * THREAD_M, wn0 = warp % WARPS_N * 4 * THREAD_N;
#define ROW_OF(i) (wm0 + (i) / 2 * 16 + g + (i) % 2 * 8)
#define COL_OF(j) (wn0 + (j) / 2 * 8 + 2 * t4 + (j) % 2)
#else
  const int tm = threadIdx.x / THREADS_N, tn = threadIdx.x % THREADS_N;
#define ROW_OF(i) (tm + (i) * THREADS_M)
#define COL_OF(j) (tn + (j) * THREADS_N)
#endif
#if !HAS_BIAS
  (void)bias;  // the launch passes five pointers whatever the problem
#endif
#if !HAS_RESIDUAL
  (void)residual;
#endif

  float acc[THREAD_M][THREAD_N];
#pragma unroll
  for (int i = 0; i < THREAD_M; ++i)
#pragma unroll
    for (int j = 0; j < THREAD_N; ++j) acc[i][j] = 0.0f;

  aoe_vec a_regs[A_LOADS], b_regs[B_LOADS];
  if (slices > 0) {
    aoe_fetch(a, b, m0, n0, k_begin, k_end, a_regs, b_regs);
    aoe_stash(a_regs, b_regs, as, bs);
  }
  __syncthreads();
  for (int s = 0; s < slices; ++s) {
    const int stage = STAGES == 2 ? s & 1 : 0;
#if STAGES == 2
    // The next slice's loads are in flight while this one is multiplied.
    if (s + 1 < slices) aoe_fetch(a, b, m0, n0, k_begin + (s + 1) * BLOCK_K, k_end, a_regs, b_regs);
#endif
    const float* const sa = as + stage * A_STAGE;
    const float* const sb = bs + stage * B_STAGE;
#if MATH == 1
#pragma unroll
    for (int k8 = 0; k8 < BLOCK_K; k8 += 8) {
      unsigned af[THREAD_M / 2][4], bf[THREAD_N / 2][2];
#pragma unroll
      for (int mi = 0; mi < THREAD_M / 2; ++mi) {
        const int r = wm0 + mi * 16 + g;
        af[mi][0] = aoe_tf32(sa[(k8 + t4) * A_PITCH + r]);
        af[mi][1] = aoe_tf32(sa[(k8 + t4) * A_PITCH + r + 8]);
        af[mi][2] = aoe_tf32(sa[(k8 + t4 + 4) * A_PITCH + r]);
        af[mi][3] = aoe_tf32(sa[(k8 + t4 + 4) * A_PITCH + r + 8]);
      }
#pragma unroll
      for (int ni = 0; ni < THREAD_N / 2; ++ni) {
        const int c = wn0 + ni * 8 + g;
        bf[ni][0] = aoe_tf32(sb[(k8 + t4) * B_PITCH + c]);
        bf[ni][1] = aoe_tf32(sb[(k8 + t4 + 4) * B_PITCH + c]);
      }
      aoe_tile_products(acc, af, bf);
    }
#elif MATH == 2
#pragma unroll
    for (int k16 = 0; k16 < BLOCK_K; k16 += 16) {
      unsigned af[THREAD_M / 2][4], bf[THREAD_N / 2][2];
      const int k0 = k16 + 2 * t4;
#pragma unroll
      for (int mi = 0; mi < THREAD_M / 2; ++mi) {
        const int r = wm0 + mi * 16 + g;
        af[mi][0] = aoe_f16x2(sa[k0 * A_PITCH + r], sa[(k0 + 1) * A_PITCH + r]);
        af[mi][1] = aoe_f16x2(sa[k0 * A_PITCH + r + 8], sa[(k0 + 1) * A_PITCH + r + 8]);
        af[mi][2] = aoe_f16x2(sa[(k0 + 8) * A_PITCH + r], sa[(k0 + 9) * A_PITCH + r]);
        af[mi][3] = aoe_f16x2(sa[(k0 + 8) * A_PITCH + r + 8], sa[(k0 + 9) * A_PITCH + r + 8]);
      }
#pragma unroll
      for (int ni = 0; ni < THREAD_N / 2; ++ni) {
        const int c = wn0 + ni * 8 + g;
        bf[ni][0] = aoe_f16x2(sb[k0 * B_PITCH + c], sb[(k0 + 1) * B_PITCH + c]);
        bf[ni][1] = aoe_f16x2(sb[(k0 + 8) * B_PITCH + c], sb[(k0 + 9) * B_PITCH + c]);
      }
      aoe_tile_products(acc, af, bf);
    }
#else
#pragma unroll
    for (int kk = 0; kk < BLOCK_K; ++kk) {
      float af[THREAD_M], bf[THREAD_N];
#pragma unroll
      for (int i = 0; i < THREAD_M; ++i) af[i] = sa[kk * A_PITCH + ROW_OF(i)];
#pragma unroll
      for (int j = 0; j < THREAD_N; ++j) bf[j] = sb[kk * B_PITCH + COL_OF(j)];
#pragma unroll
      for (int i = 0; i < THREAD_M; ++i)
#pragma unroll
        for (int j = 0; j < THREAD_N; ++j) acc[i][j] += af[i] * bf[j];
    }
#endif
#if STAGES == 2
    // The other stage was last read before the previous barrier: free to fill.
    if (s + 1 < slices) aoe_stash(a_regs, b_regs, as + (stage ^ 1) * A_STAGE, bs + (stage ^ 1) * B_STAGE);
    __syncthreads();
#else
    __syncthreads();
    if (s + 1 < slices) {
      aoe_fetch(a, b, m0, n0, k_begin + (s + 1) * BLOCK_K, k_end, a_regs, b_regs);
      aoe_stash(a_regs, b_regs, as, bs);
      __syncthreads();
    }
#endif
  }

  // The epilogue in registers. With SPLIT_K > 1 each split adds alpha times
  // its partial sum into the zeroed C, and split 0 adds the bias and the residual: all are
  // linear, so the sum of the splits is the whole result (a nonlinear
  // activation is refused with SPLIT_K > 1).
#pragma unroll
  for (int i = 0; i < THREAD_M; ++i) {
    const int row = m0 + ROW_OF(i);
#pragma unroll
    for (int j = 0; j < THREAD_N; ++j) {
      const int col = n0 + COL_OF(j);
      if (row < M && col < N) {
        float v = ALPHA * acc[i][j];
#if HAS_BIAS
        if (SPLIT_K == 1 || split == 0)
          v += BETA * bias[batch * (long long)BIAS_BATCH_STRIDE + row * (long long)BIAS_ROW_STRIDE +
                           col * (long long)BIAS_COL_STRIDE];
#endif
#if HAS_RESIDUAL
        if (SPLIT_K == 1 || split == 0)
          v += residual[batch * (long long)RESIDUAL_BATCH_STRIDE + row * (long long)RESIDUAL_ROW_STRIDE +
                        col * (long long)RESIDUAL_COL_STRIDE];
#endif
#if SPLIT_K == 1
        c[row * (long long)N + col] = aoe_activate(v);
#else
        atomicAdd(c + row * (long long)N + col, v);
#endif
      }
    }
  }
}
)cuda";

const int64_t kBlockMN[] = {8, 16, 32, 64, 128, 256};
const int64_t kBlockKs[] = {8, 16, 32, 64};

// Candidates up to the first that covers `extent`: a tile past the problem's size adds only masked work.
sdk::Knob sized(const std::string& name, const int64_t* begin, const int64_t* end, int64_t extent) {
  sdk::Knob k{name, sdk::KnobTag::schedule, sdk::DomainKind::power_of_two, {}, {}};
  for (const int64_t* v = begin; v != end; ++v) {
    k.values.push_back(*v);
    if (*v >= extent) break;
  }
  return k;
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t k_per_split(const GemmProblem& p, const sdk::Config& c) {
  return ceil_div(ceil_div(p.k, c[kSplitK]), c[kBlockK]) * c[kBlockK];
}

// Registers a thread needs, as ptxas allots them for this kernel: the sums,
// one column of each operand, the fetched vectors while the other stage is
// computed, and about 32 for addresses and indices.
int64_t registers(const sdk::Config& c) {
  const int64_t threads = gemm_threads(c);
  const int64_t a_loads = ceil_div(c[kBlockM] * c[kBlockK] / c[kVectorWidth], threads);
  const int64_t b_loads = ceil_div(c[kBlockN] * c[kBlockK] / c[kVectorWidth], threads);
  const int64_t staged = c[kStages] == 2 ? (a_loads + b_loads) * c[kVectorWidth] : 0;
  return c[kThreadM] * c[kThreadN] + c[kThreadM] + c[kThreadN] + staged + 32;
}

// The knobs, without the default.
sdk::TuningSpace gemm_bounds(const GemmProblem& p) {
  sdk::TuningSpace s;
  s.version = "2";  // 2: the math knob
  s.knobs.resize(kGemmKnobCount);
  const auto* mn_end = std::end(kBlockMN);
  s.knobs[kBlockM] = sized("block_m", std::begin(kBlockMN), mn_end, p.m);
  s.knobs[kBlockN] = sized("block_n", std::begin(kBlockMN), mn_end, p.n);
  s.knobs[kBlockK] = sized("block_k", std::begin(kBlockKs), std::end(kBlockKs), p.k);
  s.knobs[kThreadM] = sdk::Knob::power_of_two("thread_m", sdk::KnobTag::schedule, 1, std::min<int64_t>(16, s.knobs[kBlockM].values.back()));
  s.knobs[kThreadN] = sdk::Knob::power_of_two("thread_n", sdk::KnobTag::schedule, 1, std::min<int64_t>(16, s.knobs[kBlockN].values.back()));
  s.knobs[kVectorWidth] = sdk::Knob::power_of_two("vector_width", sdk::KnobTag::schedule, 1, 4);
  s.knobs[kStages] = sdk::Knob::integer("stages", sdk::KnobTag::schedule, 1, 2);
  // Splits while each keeps at least one smallest slice of K.
  int64_t splits = 1;
  while (splits < 16 && splits * 2 * kBlockKs[0] <= p.k) splits *= 2;
  s.knobs[kSplitK] = sdk::Knob::power_of_two("split_k", sdk::KnobTag::schedule, 1, splits);
  // Every math labelled, so a value means one math whatever a problem allows; the allowed ones its domain.
  s.knobs[kMath] = sdk::Knob::categorical("math", sdk::KnobTag::impl, {"fp32", "tf32", "fp16"});
  s.knobs[kMath].values.clear();
  for (GemmMath m : gemm_maths(p)) s.knobs[kMath].values.push_back(static_cast<int64_t>(m));
  return s;
}

sdk::Measurement refuse(const std::string& why) { return sdk::Measurement::failed(sdk::ResultStatus::invalid, why); }

std::string str(int64_t v) { return std::to_string(v); }

}  // namespace

unsigned gemm_threads(const sdk::Config& c) {
  return static_cast<unsigned>((c[kBlockM] / std::max<int64_t>(1, c[kThreadM])) * (c[kBlockN] / std::max<int64_t>(1, c[kThreadN])));
}

unsigned gemm_shared_bytes(const sdk::Config& c) {
  return static_cast<unsigned>(c[kStages] * c[kBlockK] * ((c[kBlockM] + 1) + (c[kBlockN] + 1)) * 4);
}

bool gemm_zeroes_output(const sdk::Config& c) { return c[kSplitK] > 1; }

sdk::TuningSpace gemm_space(const GemmProblem& p) {
  sdk::TuningSpace s = gemm_bounds(p);
  s.default_config = gemm_default(p, GpuLimits{});
  return s;
}

sdk::Measurement gemm_check(const GemmProblem& p, const sdk::Config& c, const GpuLimits& limits) {
  if (c.size() != kGemmKnobCount) return refuse("a GEMM config has " + str(kGemmKnobCount) + " values, not " + str(static_cast<int64_t>(c.size())));
  const int64_t bm = c[kBlockM], bn = c[kBlockN], bk = c[kBlockK], tm = c[kThreadM], tn = c[kThreadN];
  const int64_t vw = c[kVectorWidth], split = c[kSplitK];
  for (size_t i = 0; i < c.size(); ++i)
    if (c[i] < (i == kMath ? 0 : 1))
      return refuse("knob " + str(static_cast<int64_t>(i)) + " is " + str(c[i]) + "; every GEMM knob but math is positive");
  if (bm % tm || bn % tn)
    return refuse("thread tile " + str(tm) + "x" + str(tn) + " does not divide the block tile " + str(bm) + "x" + str(bn));
  if (vw != 1 && vw != 2 && vw != 4) return refuse("vector_width is " + str(vw) + "; it takes 1, 2 or 4 floats");
  if (c[kStages] != 1 && c[kStages] != 2) return refuse("stages is " + str(c[kStages]) + "; it takes 1 or 2");
  const int64_t threads = gemm_threads(c);
  if (threads > limits.max_threads_per_block)
    return refuse(str(threads) + " threads per block, over the GPU's " + str(limits.max_threads_per_block));
  if (threads % limits.warp_size)
    return refuse(str(threads) + " threads per block is no whole number of " + str(limits.warp_size) + "-thread warps");
  // A vector runs along each operand's contiguous dim: it must divide that side of the slice.
  const int64_t a_run = p.trans_a ? bm : bk, b_run = p.trans_b ? bk : bn;
  if (a_run % vw || b_run % vw)
    return refuse("vector_width " + str(vw) + " does not divide the slices' contiguous sides (" + str(a_run) + " of A, " + str(b_run) + " of B)");
  // Vector loads need every row and batch of an operand to start vw floats aligned.
  if (vw > 1) {
    if (p.lda() % vw || p.a_batch_stride % vw)
      return refuse("vector_width " + str(vw) + " needs A's rows of " + str(p.lda()) + " floats and batches " + str(vw) + "-float aligned");
    if (p.ldb() % vw || p.b_batch_stride % vw)
      return refuse("vector_width " + str(vw) + " needs B's rows of " + str(p.ldb()) + " floats and batches " + str(vw) + "-float aligned");
  }
  const unsigned shared = gemm_shared_bytes(c);
  if (shared > static_cast<unsigned>(limits.max_shared_bytes_per_block))
    return refuse(str(shared) + " bytes of shared memory per block, over the GPU's " + str(limits.max_shared_bytes_per_block));
  const int64_t regs = registers(c);
  if (regs > limits.max_registers_per_thread)
    return refuse("thread tile " + str(tm) + "x" + str(tn) + " needs about " + str(regs) + " registers, over the GPU's " +
                  str(limits.max_registers_per_thread));
  if (regs * threads > limits.max_registers_per_block)
    return refuse(str(threads) + " threads of about " + str(regs) + " registers, over the GPU's " + str(limits.max_registers_per_block) +
                  " per block");
  if (split > 1) {
    if (p.activation != GemmActivation::none)
      return refuse("split_k " + str(split) + " adds partial sums in C; the " + to_string(p.activation) +
                    " epilogue needs the whole sum");
    const int64_t used = p.k == 0 ? 0 : ceil_div(p.k, k_per_split(p, c));
    if (used < split)
      return refuse("split_k " + str(split) + " leaves splits without K: K " + str(p.k) + " in slices of " + str(bk) + " fills " + str(used));
  }
  if (c[kMath] > 2) return refuse("math is " + str(c[kMath]) + "; it takes 0 (fp32), 1 (tf32) or 2 (fp16)");
  const GemmMath math = static_cast<GemmMath>(c[kMath]);
  if (math == GemmMath::tf32 && !p.allowed.tf32)
    return refuse("math tf32 rounds the inputs to 10 mantissa bits; the device option allow_tf32 allows it");
  if (math == GemmMath::fp16 && !p.allowed.fp16)
    return refuse("math fp16 rounds the inputs to fp16 (10 mantissa bits, at most 65504); the device option allow_fp16 allows it");
  if (math != GemmMath::fp32) {
    const std::string name = std::string("math ") + to_string(math);
    if (limits.compute_capability > 0 && limits.compute_capability < 80)
      return refuse(name + " needs tensor cores of compute capability 8.0 or more, the GPU's is " +
                    str(limits.compute_capability / 10) + "." + str(limits.compute_capability % 10));
    if (tm % 2 || tn % 2) return refuse(name + " needs an even thread tile (2 x 2 per 16 x 8 tile), not " + str(tm) + "x" + str(tn));
    if ((bm / tm) % 8 || (bn / tn) % 4)
      return refuse(name + " needs the threads in whole warps of 8 x 4 lanes; the block has " + str(bm / tm) + " x " + str(bn / tn));
    if (math == GemmMath::fp16 && bk % 16) return refuse(name + " multiplies 16 of K at a time; block_k is " + str(bk));
  }
  if (ceil_div(p.m, bm) > 65535 || p.batch * split > 65535)
    return refuse("grid of " + str(ceil_div(p.m, bm)) + " x " + str(p.batch * split) + " blocks in y and z, over CUDA's 65535");
  return {};
}

// The rule: the largest tile of a fixed ladder, each a classic SGEMM shape of
// 256 threads, whose grid gives every SM at least one block; where none
// does, the smallest (most blocks). Then the widest vector the operands'
// alignment allows, double buffering, no split of K, and fp32 (TF32 where
// the user allows it and the tile takes it).
sdk::Config gemm_default(const GemmProblem& p, const GpuLimits& limits) {
  struct Tile {
    int64_t bm, bn, bk, tm, tn;
  };
  static const Tile kLadder[] = {{128, 128, 8, 8, 8}, {64, 128, 8, 4, 8}, {64, 64, 8, 4, 4}, {32, 64, 8, 2, 4}, {32, 32, 8, 2, 2}};
  const auto blocks = [&](const Tile& t) { return p.batch * ceil_div(p.m, t.bm) * ceil_div(p.n, t.bn); };
  const Tile* pick = &kLadder[std::size(kLadder) - 1];
  for (const auto& t : kLadder)
    if (blocks(t) >= limits.multiprocessors) {
      pick = &t;
      break;
    }
  // A side past the problem is cut to the space's bound (the first tile
  // that covers it), keeping as many threads along it as still have a row.
  const sdk::TuningSpace bounds = gemm_bounds(p);
  const auto cut = [](int64_t side, int64_t thread, int64_t bound, int64_t& out_side, int64_t& out_thread) {
    out_side = std::min(side, bound);
    out_thread = std::max<int64_t>(1, out_side / (side / thread));
  };
  sdk::Config c(kGemmKnobCount);
  cut(pick->bm, pick->tm, bounds.knobs[kBlockM].values.back(), c[kBlockM], c[kThreadM]);
  cut(pick->bn, pick->tn, bounds.knobs[kBlockN].values.back(), c[kBlockN], c[kThreadN]);
  c[kBlockK] = pick->bk;
  c[kStages] = 2;
  c[kSplitK] = 1;
  c[kMath] = 0;
  for (int64_t vw : {4, 2, 1}) {
    c[kVectorWidth] = vw;
    if (gemm_check(p, c, limits).ok()) break;
  }
  // Where the user allows a tensor-core product, the same tile there where it
  // fits, as PyTorch's allow_tf32 sends every product there: fp16 (twice
  // TF32's rate, its slices deepened to 16 of K) before TF32.
  for (GemmMath m : {GemmMath::fp16, GemmMath::tf32}) {
    sdk::Config tensor_cores = c;
    tensor_cores[kMath] = static_cast<int64_t>(m);
    if (m == GemmMath::fp16) tensor_cores[kBlockK] = std::max<int64_t>(16, c[kBlockK]);
    if (gemm_check(p, tensor_cores, limits).ok()) return tensor_cores;
  }
  return c;
}

std::string gemm_source(const GemmProblem& p, const sdk::Config& c) {
  const auto real = [](float v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.8ef", static_cast<double>(v));  // 9 digits: the float exactly
    return std::string(text);
  };
  const std::vector<std::pair<const char*, std::string>> defines = {
      {"BLOCK_M", str(c[kBlockM])},
      {"BLOCK_N", str(c[kBlockN])},
      {"BLOCK_K", str(c[kBlockK])},
      {"THREAD_M", str(c[kThreadM])},
      {"THREAD_N", str(c[kThreadN])},
      {"VECTOR_WIDTH", str(c[kVectorWidth])},
      {"STAGES", str(c[kStages])},
      {"SPLIT_K", str(c[kSplitK])},
      {"MATH", str(c[kMath])},
      {"BATCH", str(p.batch)},
      {"M", str(p.m)},
      {"N", str(p.n)},
      {"K", str(p.k)},
      {"TRANS_A", str(p.trans_a)},
      {"TRANS_B", str(p.trans_b)},
      {"A_BATCH_STRIDE", str(p.a_batch_stride)},
      {"B_BATCH_STRIDE", str(p.b_batch_stride)},
      {"HAS_BIAS", str(p.has_bias)},
      {"BIAS_BATCH_STRIDE", str(p.bias_batch_stride)},
      {"BIAS_ROW_STRIDE", str(p.bias_row_stride)},
      {"BIAS_COL_STRIDE", str(p.bias_col_stride)},
      {"HAS_RESIDUAL", str(p.has_residual)},
      {"RESIDUAL_BATCH_STRIDE", str(p.residual_batch_stride)},
      {"RESIDUAL_ROW_STRIDE", str(p.residual_row_stride)},
      {"RESIDUAL_COL_STRIDE", str(p.residual_col_stride)},
      {"EPILOGUE", str(static_cast<int64_t>(p.activation))},
      {"ALPHA", real(p.alpha)},
      {"BETA", real(p.beta)},
  };
  // The op's name from the model, printable and on one line, for whoever reads the source.
  std::string name = p.op;
  for (char& ch : name)
    if (ch < ' ' || ch > '~') ch = '?';
  std::string out = "// aoe_gemm: " + name + "\n";
  for (const auto& [name, value] : defines) out += std::string("#define ") + name + " " + value + "\n";
  return out + kKernel;
}

std::vector<GemmMath> gemm_maths(const GemmProblem& p) {
  std::vector<GemmMath> out = {GemmMath::fp32};
  if (p.allowed.tf32) out.push_back(GemmMath::tf32);
  if (p.allowed.fp16) out.push_back(GemmMath::fp16);
  return out;
}

GemmMath gemm_math(const sdk::Config& c) {
  return c.size() == kGemmKnobCount && c[kMath] >= 0 && c[kMath] <= 2 ? static_cast<GemmMath>(c[kMath]) : GemmMath::fp32;
}

const char* to_string(GemmMath math) {
  switch (math) {
    case GemmMath::fp32: return "fp32";
    case GemmMath::tf32: return "tf32";
    case GemmMath::fp16: return "fp16";
  }
  return "fp32";
}

GemmTolerance gemm_tolerance(const GemmProblem& p, const sdk::Config& c) {
  if (gemm_math(c) != GemmMath::fp32) {
    const double k = static_cast<double>(std::max<int64_t>(1, p.k));
    return {1e-3, 1e-3 * std::sqrt(k)};
  }
  return {-1, 1e-3};
}

LaunchGeometry gemm_launch(const GemmProblem& p, const sdk::Config& c) {
  LaunchGeometry g;
  g.grid = {static_cast<unsigned>(ceil_div(p.n, c[kBlockN])), static_cast<unsigned>(ceil_div(p.m, c[kBlockM])),
            static_cast<unsigned>(p.batch * c[kSplitK])};
  g.block = {gemm_threads(c), 1, 1};
  g.shared_bytes = gemm_shared_bytes(c);
  return g;
}

}  // namespace aoe::cuda
