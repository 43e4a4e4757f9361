// The instruction sets the kernels are compiled for, and the table of hot
// loops each provides. One build carries every table; the CPU picks at run time.
// Included by TUs built with different -m flags: declarations and plain
// structs only, so no inline function compiled for a wider ISA can be
// chosen by the linker for a narrower caller.
#pragma once

#include <cstdint>

namespace aoe::cpu {

// generic: the baseline target (SSE2 on x86-64), portable C++ vectors.
enum class Isa : int { generic = 0, avx2 = 1, avx512 = 2 };
constexpr int kIsaCount = 3;

const char* isa_name(Isa isa);

// Elementwise operations. Binary ones combine the running value x with an
// operand y: x = x op y. add_scaled is x + p0 * y (Gemm's beta * C).
enum class EltOp : int32_t {
  copy, add, sub, mul, div, pow, fmod, maximum, minimum, prelu, add_scaled,  // binary; prelu: y the slope
  relu, leaky_relu, clip, sigmoid, hard_sigmoid, hard_swish, tanh,  // unary
  exp, log, sqrt, abs, neg, reciprocal, erf, scale, gelu,  // gelu: p0 = 1 for the tanh approximation
  floor, ceil, round, sign, softsign, elu, selu, thresholded_relu, shrink, celu,  // elu, celu: p0 alpha; selu: p0 alpha, p1 gamma;
                                                                                // thresholded_relu: p0 alpha; shrink: p0 lambd, p1 bias
  softplus, sin, cos, tan, asin, acos, atan, sinh, cosh, asinh, acosh, atanh,  // through libm, element by element
  swish,  // x * sigmoid(p0 * x), p0 alpha
};

bool is_binary(EltOp op);

// C[mr x nr] (+)= A_packed[kc x mr] * B[kc x nr]; B rows are ldb apart, C rows ldc.
using UKernelFn = void (*)(int64_t kc, const float* a, const float* b, int64_t ldb, float* c, int64_t ldc,
                           int accumulate);
struct UKernel {
  int mr = 0, nr = 0;
  UKernelFn fn = nullptr;
};

// One row of direct convolution on the blocked layout (NCHWc, c = lanes):
// `ow` output pixels of `ocb` channel blocks at once.
struct ConvTileArgs {
  const float* src = nullptr;      // the image: [icb][ih][iw][c]
  const float* weights = nullptr;  // the tile's first oc block: [ocb][icb][kh][kw][ic][oc]
  const float* bias = nullptr;     // the tile's first channel, or null
  float* dst = nullptr;            // (ocb, oh, ow0): [ocb][oh][ow][c]
  int64_t icb_count = 0;           // input channel blocks (1 for depthwise)
  int64_t src_row = 0, src_block = 0;  // floats between input rows, input channel blocks
  int64_t w_block = 0;                  // floats between weights of consecutive oc blocks
  int64_t dst_block = 0;                // floats between output channel blocks
  int64_t kh0 = 0, kh1 = 0, kw0 = 0, kw1 = 0, kw_count = 0, kh_count = 0;
  int64_t ih0 = 0, iw0 = 0;  // input coordinates of tap (0, 0) of the first pixel
  int64_t sw = 1, dh = 1, dw = 1;
};
using ConvTileFn = void (*)(const ConvTileArgs&);
struct ConvTile {
  int ow = 0, ocb = 0;
  ConvTileFn fn = nullptr;
};

// One plane of pooling (or, blocked, `lanes` channels at once), up to 3-D.
struct PoolArgs {
  const float* src = nullptr;
  float* dst = nullptr;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int64_t kernel[3] = {1, 1, 1}, stride[3] = {1, 1, 1}, dilation[3] = {1, 1, 1};
  int64_t pad_begin[3] = {0, 0, 0}, pad_end[3] = {0, 0, 0};
  int max = 0;
  int count_include_pad = 0;
};

// Depthwise convolution of one zero-padded NCHW plane.
struct DepthwisePlaneArgs {
  const float* src = nullptr;  // padded plane, rows of `src_w`
  int64_t src_w = 0;
  const float* weights = nullptr;  // [kh][kw]
  float bias = 0;
  float* dst = nullptr;
  int64_t oh = 0, ow = 0, kh = 0, kw = 0, sh = 1, sw = 1, dh = 1, dw = 1;
};

// One group of a grouped convolution on zero-padded NCHW planes whose rows
// are split into `sw` phases of `phase_w` columns (column x at phase x % sw,
// position x / sw), so a strided output row reads each tap contiguously.
struct GroupPlanesArgs {
  const float* src = nullptr;  // c padded planes of src_plane floats, rows of sw x phase_w, a vector's slack after the last
  int64_t phase_w = 0, src_plane = 0, c = 0;
  const int64_t* column_taps = nullptr;  // [kw]: each column tap's offset in a row, its phase's start plus its place
  const float* weights = nullptr;        // [m][c][kh][kw]
  float* dst = nullptr;                  // m planes of oh x ow
  int64_t m = 0, oh = 0, ow = 0, kh = 0, kw = 0, sh = 1, sw = 1, dh = 1;
};

constexpr int kMaxUKernels = 6;
constexpr int kMaxConvTiles = 12;
constexpr int kMaxDepthwiseTiles = 4;

struct IsaKernels {
  Isa isa = Isa::generic;
  int lanes = 1;
  int ukernel_count = 0;
  UKernel ukernels[kMaxUKernels];
  int conv_tile_count = 0;
  ConvTile conv_tiles[kMaxConvTiles];  // ow x ocb, plus the 1 x ocb border tiles
  int depthwise_tile_count = 0;
  ConvTile depthwise_tiles[kMaxDepthwiseTiles];  // ocb == 1

  // x = op(x); x = x op y, y read with step 0 (broadcast) or 1; or, for all
  // binary ops but fmod and pow, y_step -P: y's P values repeat along x, P a
  // multiple of lanes and n of P (a per-channel operand of a blocked tensor).
  void (*unary)(EltOp op, float p0, float p1, float* x, int64_t n);
  void (*binary)(EltOp op, float p0, float* x, const float* y, int64_t y_step, int64_t n);
  // Reductions of a row with `accumulators` independent partial results (1, 2, 4).
  float (*row_sum)(const float* x, int64_t n, int accumulators);
  float (*row_max)(const float* x, int64_t n, int accumulators);
  // acc[i] = acc[i] + x[i] (or max).
  void (*accumulate)(int max, float* acc, const float* x, int64_t n);
  // Softmax of one contiguous row: 3 passes (max, exp and sum, scale) or
  // 2 (online max and sum, then exp and scale).
  void (*softmax_row)(const float* x, float* y, int64_t n, int passes);
  // Mean and 1/sqrt(var + eps) of a row: two passes or one (Welford).
  void (*moments)(const float* x, int64_t n, float eps, int welford, float* mean, float* inv_std);
  // y = (x - mean) * inv_std * scale + bias; scale/bias read with step 0 or 1, bias may be null.
  void (*normalize)(const float* x, float* y, int64_t n, float mean, float inv_std, const float* scale,
                    int64_t scale_step, const float* bias, int64_t bias_step);
  void (*pool_plane)(const PoolArgs& args);    // NCHW: one channel
  void (*pool_blocked)(const PoolArgs& args);  // NCHWc: `lanes` channels
  void (*depthwise_plane)(const DepthwisePlaneArgs& args);
  void (*group_planes)(const GroupPlanesArgs& args);
};

// The table of an ISA when this build has it and this CPU runs it, else null.
const IsaKernels* isa_kernels(Isa isa);
// The widest ISA this CPU runs.
Isa best_isa();
// Whether this CPU runs `isa` (whatever the build has).
bool cpu_supports(Isa isa);

}  // namespace aoe::cpu
