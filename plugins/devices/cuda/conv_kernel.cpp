#include "conv_kernel.h"

#include <algorithm>

#include "op_source.h"
#include "spatial_window.h"

namespace aoe::cuda {

namespace {

// The convolution of one group as a GEMM nobody lays out: C[f][p] = sum over
// k of W[f][k] * X'[k][p], f a filter of the group, p an output position of
// the batch, k a (channel, ky, kx) of the window, X' read from the input
// (0 in the pads) as the tile is loaded. Tiles of TILE_M filters x TILE_N
// positions per block, TILE_K deep in shared memory; each of the 256
// threads keeps TM x TN sums in registers.
const char* const kImplicitGemm = R"(
  __shared__ float as[TILE_K][TILE_M];
  __shared__ float bs[TILE_K][TILE_N];
  const int g = blockIdx.z;
  const INDEX m0 = (INDEX)blockIdx.y * TILE_M, n0 = (INDEX)blockIdx.x * TILE_N;
  const int tm = threadIdx.x / (TILE_N / TN), tn = threadIdx.x % (TILE_N / TN);
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
  for (INDEX k0 = 0; k0 < GEMM_K; k0 += TILE_K) {
    for (int i = threadIdx.x; i < TILE_M * TILE_K; i += THREADS) {
      const int mm = i / TILE_K, kk = i % TILE_K;
      const INDEX m = m0 + mm, k = k0 + kk;
      as[kk][mm] = m < GROUP_FILTERS && k < GEMM_K ? x1[(g * GROUP_FILTERS + m) * GEMM_K + k] : 0.0f;
    }
    for (int i = threadIdx.x; i < TILE_K * TILE_N; i += THREADS) {
      const int kk = i / TILE_N, nn = i % TILE_N;
      const INDEX k = k0 + kk, n = n0 + nn;
      float v = 0.0f;
      if (k < GEMM_K && n < GEMM_N) {
        const INDEX c = k / (KERNEL_H * KERNEL_W), ky = k / KERNEL_W % KERNEL_H, kx = k % KERNEL_W;
        const INDEX ox = n % OUT_W, oy = n / OUT_W % OUT_H, b = n / OUT_W / OUT_H;
        const INDEX iy = oy * STRIDE_H - PAD_H + ky * DILATION_H, ix = ox * STRIDE_W - PAD_W + kx * DILATION_W;
        if (iy >= 0 && iy < IN_H && ix >= 0 && ix < IN_W) v = x0[((b * CHANNELS + g * GROUP_CHANNELS + c) * IN_H + iy) * IN_W + ix];
      }
      bs[kk][nn] = v;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < TILE_K; ++kk) {
      float a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = as[kk][tm * TM + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = bs[kk][tn * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const INDEX m = m0 + tm * TM + i;
    if (m >= GROUP_FILTERS) continue;
    const INDEX f = g * GROUP_FILTERS + m;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const INDEX n = n0 + tn * TN + j;
      if (n >= GEMM_N) continue;
      const INDEX p = n % (OUT_H * OUT_W), b = n / (OUT_H * OUT_W);
      const INDEX o = (b * FILTERS + f) * OUT_H * OUT_W + p;
      y[o] = EPILOGUE(acc[i][j] + BIAS, f, o);
    }
  }
}
)";

// The direct kernel's sum over one input channel `in` of its group, for the
// output element at (oy, ox) of filter f.
const char* const kWindow =
    "      const float* wt = x1 + (f * GROUP_CHANNELS + c) * KERNEL_H * KERNEL_W;\n"
    "      for (int ky = 0; ky < KERNEL_H; ++ky) {\n"
    "        const INDEX iy = oy * STRIDE_H - PAD_H + ky * DILATION_H;\n"
    "        if (iy < 0 || iy >= IN_H) continue;\n"
    "        for (int kx = 0; kx < KERNEL_W; ++kx) {\n"
    "          const INDEX ix = ox * STRIDE_W - PAD_W + kx * DILATION_W;\n"
    "          if (ix >= 0 && ix < IN_W) acc += in[iy * IN_W + ix] * wt[ky * KERNEL_W + kx];\n"
    "        }\n"
    "      }\n";
// A ConvTranspose's: the input positions i and taps k with i * STRIDE + k * DILATION - PAD = o.
const char* const kTransposedWindow =
    "      const float* wt = x1 + ((c0 + c) * GROUP_FILTERS + f % GROUP_FILTERS) * KERNEL_H * KERNEL_W;\n"
    "      for (int ky = 0; ky < KERNEL_H; ++ky) {\n"
    "        const INDEX ty = oy + PAD_H - ky * DILATION_H;\n"
    "        if (ty < 0 || ty % STRIDE_H != 0 || ty / STRIDE_H >= IN_H) continue;\n"
    "        for (int kx = 0; kx < KERNEL_W; ++kx) {\n"
    "          const INDEX tx = ox + PAD_W - kx * DILATION_W;\n"
    "          if (tx >= 0 && tx % STRIDE_W == 0 && tx / STRIDE_W < IN_W) acc += in[ty / STRIDE_H * IN_W + tx / STRIDE_W] * wt[ky * KERNEL_W + kx];\n"
    "        }\n"
    "      }\n";

// EPILOGUE(s, f, o): the value stored at output element o of filter f for the sum s (bias added).
std::string epilogue_define(const ConvEpilogue& e) {
  // Parameters no follow-on expression names.
  std::string v = "(aoe_s)";
  if (e.batch_norm) {
    const auto x = [](int slot) { return "x" + std::to_string(slot) + "[aoe_f]"; };
    v = "((" + v + " - " + x(kConvBatchNormSlot + 2) + ") * " + x(kConvBatchNormSlot) + " / sqrtf(" + x(kConvBatchNormSlot + 3) +
        " + BN_EPSILON) + " + x(kConvBatchNormSlot + 1) + ")";
  }
  if (e.residual) v = "(" + v + " + x" + std::to_string(kConvResidualSlot) + "[aoe_o])";
  return (e.batch_norm ? define("BN_EPSILON", float_literal(e.epsilon)) : "") + e.follow_on.defines + "#define EPILOGUE(aoe_s, aoe_f, aoe_o) (" +
         e.follow_on.of(v) + ")\n";
}

// The Conv's (or ConvTranspose's) weights, checked against its input and attributes.
struct ConvShape {
  Dims x, weights, out, kernel;
  int64_t group = 1, channels = 0, filters = 0;
  bool transposed = false;
};

ConvShape conv_shape(const OpNode& n) {
  ConvShape c{n.in_shape(0), n.in_shape(1), n.out_shape(0), {}, n.int_attr("group", 1), 0, 0, n.op() == "ConvTranspose"};
  if (c.weights.size() != c.x.size() || c.weights.size() < 3)
    n.invalid("weights of " + to_string(c.weights) + " for an input of " + to_string(c.x));
  c.channels = c.x[1];
  // A ConvTranspose's weights are channels x (filters / group) x window.
  c.filters = c.transposed ? c.weights[1] * c.group : c.weights[0];
  const int64_t group_channels = c.transposed ? c.weights[0] : c.weights[1] * c.group;
  if (c.group < 1 || c.channels % c.group != 0 || c.filters % c.group != 0 || group_channels != c.channels || c.out.size() < 2 ||
      c.out[1] != c.filters)
    n.invalid("weights of " + to_string(c.weights) + " for " + std::to_string(c.channels) + " channels in " + std::to_string(c.group) +
              " groups");
  c.kernel.assign(c.weights.begin() + 2, c.weights.end());
  if (n.has_attr("kernel_shape") && n.ints_attr("kernel_shape") != c.kernel) n.invalid("kernel_shape differs from the weights'");
  return c;
}

SpatialWindow window_of(const OpNode& n, const ConvShape& c) {
  return (c.transposed ? transposed_window : spatial_window)(n, c.x, c.out, c.kernel);
}

// The GEMM each group is, where the implicit GEMM computes it (conv_gemm_shape).
std::optional<ConvGemmShape> gemm_shape_of(const ConvShape& c, const SpatialWindow& w) {
  if (c.transposed) return std::nullopt;
  const ConvGemmShape g{c.filters / c.group, c.x[0] * w.out[0] * w.out[1], c.channels / c.group * w.kernel[0] * w.kernel[1], c.group};
  if (g.m < 16 || g.k < 16) return std::nullopt;
  return g;
}

// The implicit GEMM's tiles where there is one, else the direct kernel's knobs.
sdk::TuningSpace space_of(const std::optional<ConvGemmShape>& gemm, const OpNode& n, const GpuLimits& limits) {
  return gemm ? conv_space(*gemm) : conv_direct_space(element_count(n.out_shape(0)), limits);
}

}  // namespace

std::optional<ConvGemmShape> conv_gemm_shape(const OpNode& n) {
  const ConvShape c = conv_shape(n);
  return gemm_shape_of(c, window_of(n, c));
}

sdk::TuningSpace conv_kernel_space(const OpNode& n, const GpuLimits& limits) { return space_of(conv_gemm_shape(n), n, limits); }

sdk::Measurement conv_kernel_check(const OpNode& n, const sdk::Config& config, const GpuLimits& limits) {
  const auto gemm = conv_gemm_shape(n);
  if (!space_of(gemm, n, limits).in_domain(config))
    return sdk::Measurement::failed(sdk::ResultStatus::invalid, "a value lies outside its knob's domain");
  return gemm ? conv_check(config, limits) : conv_direct_check(config, limits);
}

std::vector<OpKernel> conv_kernels(const OpNode& n, const GpuLimits& limits, const ConvEpilogue& epilogue,
                                   const std::optional<sdk::Config>& tiling) {
  const ConvShape c = conv_shape(n);
  const SpatialWindow w = window_of(n, c);
  OpKernel k;
  k.inputs = {0, 1};
  std::string defines = w.defines() + define("CHANNELS", c.channels) + define("FILTERS", c.filters) +
                        define("GROUP_CHANNELS", c.channels / c.group) + define("GROUP_FILTERS", c.filters / c.group);
  if (n.has_input(2)) defines += define("BIAS", operand(k, 2) + "[f]");
  else defines += define("BIAS", "0.0f");
  defines += epilogue_define(epilogue);
  if (const auto gemm = gemm_shape_of(c, w)) {
    const sdk::Config t = tiling ? *tiling : conv_default(*gemm);
    defines += define("THREADS", t[kConvThreads]) + define("TILE_M", t[kConvTileM]) + define("TILE_N", t[kConvTileN]) +
               define("TILE_K", t[kConvTileK]) + define("TM", conv_thread_m(t)) + define("TN", t[kConvThreadN]) + define("GEMM_N", gemm->n) +
               define("GEMM_K", gemm->k) + define("INDEX", index_type(std::max(element_count(c.x), element_count(c.out))));
    k.source = defines + op_signature() + kImplicitGemm;
    k.launch.grid = {static_cast<unsigned>((gemm->n + t[kConvTileN] - 1) / t[kConvTileN]),
                     static_cast<unsigned>((gemm->m + t[kConvTileM] - 1) / t[kConvTileM]), static_cast<unsigned>(c.group)};
    k.launch.block[0] = static_cast<unsigned>(t[kConvThreads]);
    return {k};
  }
  const std::string body = std::string(
      "    const INDEX ox = e % OUT_W, oy = (e / OUT_W) % OUT_H, f = (e / OUT_W / OUT_H) % FILTERS, b = e / OUT_W / OUT_H / FILTERS;\n"
      "    const INDEX c0 = f / GROUP_FILTERS * GROUP_CHANNELS;\n"
      "    float acc = 0.0f;\n"
      "    for (int c = 0; c < GROUP_CHANNELS; ++c) {\n"
      "      const float* in = x0 + (b * CHANNELS + c0 + c) * IN_H * IN_W;\n") +
      (c.transposed ? kTransposedWindow : kWindow) +
      "    }\n"
      "    y[e] = EPILOGUE(acc + BIAS, f, e);\n";
  const auto inputs = k.inputs;
  std::optional<LinearKnobs> knobs;
  if (tiling) knobs = LinearKnobs{static_cast<int>((*tiling)[kConvDirectThreads]), static_cast<int>((*tiling)[kConvDirectItems])};
  k = walk_kernel({{element_count(c.out)}, {}, {}}, defines, body, limits, knobs);
  k.inputs = inputs;
  return {k};
}

}  // namespace aoe::cuda
