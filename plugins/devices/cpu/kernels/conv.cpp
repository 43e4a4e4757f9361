#include "conv.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "blocked.h"
#include "catalog.h"
#include "openblas_gemm.h"

namespace aoe::cpu {
namespace {

// Taps k in [lo, hi) land inside [0, extent) for an output at `start`.
void valid_taps(int64_t start, int64_t dilation, int64_t taps, int64_t extent, int64_t& lo, int64_t& hi) {
  lo = 0;
  while (lo < taps && start + lo * dilation < 0) ++lo;
  hi = taps;
  while (hi > lo && start + (hi - 1) * dilation >= extent) --hi;
}

// Output columns [lo, hi) whose every tap lies inside the input row.
void interior(const ConvShape& s, int64_t& lo, int64_t& hi) {
  lo = 0;
  while (lo < s.ow && lo * s.sw - s.pw < 0) ++lo;
  hi = s.ow;
  while (hi > lo && (hi - 1) * s.sw - s.pw + (s.kw - 1) * s.dw >= s.w) --hi;
}

// One output row (oh) of `blocks` channel blocks at (n, block0): interior
// pixels by whole tiles, then by narrower ones (a 14-pixel tile on a
// 124-pixel interior leaves 12), the rest (edges, tails) one pixel at a time.
void direct_row(const ConvShape& s, const ConvTile& tile, const ConvTile& rest, const ConvTile& border, ConvTileArgs t,
                int64_t oh, int64_t lanes) {
  t.ih0 = oh * s.sh - s.ph;
  valid_taps(t.ih0, s.dh, s.kh, s.h, t.kh0, t.kh1);
  int64_t lo, hi;
  interior(s, lo, hi);
  float* row = t.dst;
  auto pixel = [&](int64_t ow) {
    ConvTileArgs p = t;
    p.iw0 = ow * s.sw - s.pw;
    valid_taps(p.iw0, s.dw, s.kw, s.w, p.kw0, p.kw1);
    p.dst = row + ow * lanes;
    border.fn(p);
  };
  for (int64_t ow = 0; ow < lo; ++ow) pixel(ow);
  int64_t ow = lo;
  t.kw0 = 0;
  t.kw1 = s.kw;
  for (const ConvTile* inner : {&tile, &rest})
    for (; ow + inner->ow <= hi; ow += inner->ow) {
      t.iw0 = ow * s.sw - s.pw;
      t.dst = row + ow * lanes;
      inner->fn(t);
    }
  for (; ow < s.ow; ++ow) pixel(ow);
}

void apply_rows(const Chain* chain, const IsaKernels& isa, float* row, int64_t epilogue_row, int64_t col, int64_t n) {
  if (chain) chain->apply(isa, row, epilogue_row, col, n);
}

// Output channels per group up to which a grouped convolution runs each
// group directly: a product of so few rows (ResNeXt's 4 to 16,
// RegNet's 8) spends more on packing its im2col panels, nine times the
// input, than on multiplying them (ResNeXt's 7x7 groups of 32: 0.40 to 0.32 ms).
constexpr int64_t kDirectGroupChannels = 32;

bool direct_groups(const ConvShape& s) {
  return s.group > 1 && !s.pointwise() && s.m / s.group <= kDirectGroupChannels && s.kd == 1 && s.d == 1 && s.oh > 0 &&
         s.ow > 0;
}

// Group `grp` of image `n`: its channels copied once into zero-padded planes
// (each row split into phases of the column stride), every output plane
// computed from them, then each channel's epilogue.
void direct_group(const ConvShape& s, const IsaKernels& isa, const float* src, const float* weights, float* dst,
                  const Chain* epilogue, int64_t n, int64_t grp) {
  const int64_t cg = s.c / s.group, mg = s.m / s.group, pixels = s.out_pixels();
  const int64_t hp = (s.oh - 1) * s.sh + (s.kh - 1) * s.dh + 1, wp = (s.ow - 1) * s.sw + (s.kw - 1) * s.dw + 1;
  const int64_t phase_w = (wp + s.sw - 1) / s.sw, row = s.sw * phase_w;
  std::vector<float> padded(static_cast<size_t>(cg * hp * row + isa.lanes), 0.0f);
  const float* image = src + (n * s.c + grp * cg) * s.in_pixels();
  const int64_t width = std::max<int64_t>(0, std::min(s.w, wp - s.pw));
  for (int64_t c = 0; c < cg; ++c)
    for (int64_t ih = 0; ih < s.h && ih + s.ph < hp; ++ih) {
      float* out = padded.data() + (c * hp + ih + s.ph) * row;
      const float* in = image + (c * s.h + ih) * s.w;
      if (s.sw == 1) {
        std::memcpy(out + s.pw, in, static_cast<size_t>(width) * sizeof(float));
        continue;
      }
      for (int64_t p = 0; p < s.sw; ++p)  // phase p holds padded columns p, p + sw, ...
        for (int64_t q = 0, iw = p - s.pw; q < phase_w; ++q, iw += s.sw)
          if (iw >= 0 && iw < width) out[p * phase_w + q] = in[iw];
    }
  std::vector<int64_t> column_taps(static_cast<size_t>(s.kw));
  for (int64_t kw = 0; kw < s.kw; ++kw) column_taps[static_cast<size_t>(kw)] = kw * s.dw % s.sw * phase_w + kw * s.dw / s.sw;
  GroupPlanesArgs a;
  a.src = padded.data(), a.phase_w = phase_w, a.src_plane = hp * row, a.c = cg, a.column_taps = column_taps.data();
  a.weights = weights + grp * mg * cg * s.taps();
  a.dst = dst + (n * s.m + grp * mg) * pixels;
  a.m = mg, a.oh = s.oh, a.ow = s.ow, a.kh = s.kh, a.kw = s.kw, a.sh = s.sh, a.sw = s.sw, a.dh = s.dh;
  isa.group_planes(a);
  for (int64_t j = 0; j < mg; ++j) apply_rows(epilogue, isa, a.dst + j * pixels, n * s.m + grp * mg + j, 0, pixels);
}

}  // namespace

void conv_gemm(const ConvShape& s, const GemmConfig& cfg, const float* src, const float* weights, float* dst,
               const Chain* epilogue, GemmWorkspace& ws, ThreadPool& pool) {
  const int64_t cg = s.c / s.group, mg = s.m / s.group, kg = cg * s.taps(), pixels = s.out_pixels();
  const ConvGeometry g{cg, s.h, s.w, s.kh, s.kw, s.sh, s.sw, s.dh, s.dw, s.ph, s.pw, s.oh, s.ow,
                       s.d, s.kd, s.sd, s.dd, s.pd, s.od};
  // One product per image and group: on the pool's threads, or alone on a thread's workspace slot.
  const auto product = [&](int64_t task, ThreadPool* on, int slot) {
    const int64_t n = task / s.group, grp = task % s.group;
    const float* image = src + (n * s.c + grp * cg) * s.in_pixels();
    const DenseSource dense(StridedMatrix{image, s.in_pixels(), 1});
    const Im2colSource im2col(image, g);
    GemmCall call;
    call.m = mg;
    call.n = pixels;
    call.k = kg;
    call.a = StridedMatrix{weights + grp * mg * kg, kg, 1};
    call.b = s.pointwise() ? static_cast<const PanelSource*>(&dense) : &im2col;
    call.c = dst + (n * s.m + grp * mg) * pixels;
    call.ldc = pixels;
    call.epilogue = epilogue;
    call.epilogue_row = n * s.m + grp * mg;
    gemm(cfg, call, ws, on, slot);
  };
  // A grouped convolution's many small products (RegNet's 26 groups of 8
  // channels) each split across the threads spend more on the split than
  // on the product: there, threads take whole groups, in one region.
  const int64_t tasks = s.n * s.group;
  if (s.group > 1 && tasks >= cfg.threads) {
    const bool direct = direct_groups(s);
    pool.run(tasks, cfg.threads, [&](int64_t task, int thread) {
      if (direct) direct_group(s, *cfg.isa, src, weights, dst, epilogue, task / s.group, task % s.group);
      else product(task, nullptr, thread);
    });
  } else {
    for (int64_t task = 0; task < tasks; ++task) product(task, &pool, 0);
  }
}

void im2col(const ConvShape& s, const float* image, float* col) {
  const int64_t cg = s.c / s.group, pixels = s.out_pixels();
  for (int64_t c = 0; c < cg; ++c)
    for (int64_t kd = 0; kd < s.kd; ++kd)
      for (int64_t kh = 0; kh < s.kh; ++kh)
        for (int64_t kw = 0; kw < s.kw; ++kw) {
          float* row = col + (((c * s.kd + kd) * s.kh + kh) * s.kw + kw) * pixels;
          for (int64_t od = 0; od < s.od; ++od) {
            const int64_t id = od * s.sd - s.pd + kd * s.dd;
            for (int64_t oh = 0; oh < s.oh; ++oh) {
              const int64_t ih = oh * s.sh - s.ph + kh * s.dh;
              const bool inside = id >= 0 && id < s.d && ih >= 0 && ih < s.h;
              for (int64_t ow = 0; ow < s.ow; ++ow) {
                const int64_t iw = ow * s.sw - s.pw + kw * s.dw;
                row[(od * s.oh + oh) * s.ow + ow] =
                    inside && iw >= 0 && iw < s.w ? image[((c * s.d + id) * s.h + ih) * s.w + iw] : 0.0f;
              }
            }
          }
        }
}

void conv_openblas(const ConvShape& s, int threads, const IsaKernels& isa, const float* src, const float* weights,
                   float* dst, const Chain* epilogue, float* col, ThreadPool& pool) {
  const int64_t cg = s.c / s.group, mg = s.m / s.group, kg = cg * s.taps(), pixels = s.out_pixels();
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t grp = 0; grp < s.group; ++grp) {
      const float* image = src + (n * s.c + grp * cg) * s.in_pixels();
      if (!s.pointwise()) im2col(s, image, col);
      float* c = dst + (n * s.m + grp * mg) * pixels;
      openblas_sgemm(StridedMatrix{weights + grp * mg * kg, kg, 1}, StridedMatrix{s.pointwise() ? image : col, pixels, 1},
                     mg, pixels, kg, c, threads, pool);
      if (!epilogue) continue;
      apply_to_rows(*epilogue, isa, c, n * s.m + grp * mg, mg, pixels, threads, pool);
    }
}

void weights_to_blocked(const ConvShape& s, const float* w, float* dst, int lanes) {
  const int64_t icb = channel_blocks(s.c, lanes), ocb = channel_blocks(s.m, lanes);
  const int64_t taps = s.kh * s.kw;
  std::memset(dst, 0, static_cast<size_t>(ocb * icb * taps * lanes * lanes) * sizeof(float));
  for (int64_t o = 0; o < s.m; ++o)
    for (int64_t i = 0; i < s.c; ++i)
      for (int64_t t = 0; t < taps; ++t)
        dst[(((o / lanes) * icb + i / lanes) * taps + t) * lanes * lanes + (i % lanes) * lanes + o % lanes] =
            w[(o * s.c + i) * taps + t];
}

void conv_direct_blocked(const ConvShape& s, const DirectConfig& cfg, const float* src, const float* weights,
                         const float* bias, float* dst, const Chain* epilogue, ThreadPool& pool) {
  const int64_t lanes = cfg.isa->lanes;
  const int64_t icb = channel_blocks(s.c, lanes), ocb = channel_blocks(s.m, lanes);
  const int64_t per = cfg.tile.ocb;
  const int64_t groups = (ocb + per - 1) / per;
  ConvTileArgs base;
  base.icb_count = icb;
  base.src_row = s.w * lanes;
  base.src_block = s.h * s.w * lanes;
  base.w_block = icb * s.kh * s.kw * lanes * lanes;
  base.dst_block = s.oh * s.ow * lanes;
  base.kw_count = s.kw;
  base.kh_count = s.kh;
  base.sw = s.sw;
  base.dh = s.dh;
  base.dw = s.dw;
  const int64_t tasks = s.n * groups * s.oh;
  pool.run(tasks, cfg.threads, [&](int64_t task, int) {
    int64_t n, g, oh;
    if (cfg.order == DirectOrder::oc_outer) {
      oh = task % s.oh;
      g = (task / s.oh) % groups;
      n = task / (s.oh * groups);
    } else {
      g = task % groups;
      oh = (task / groups) % s.oh;
      n = task / (groups * s.oh);
    }
    const int64_t b0 = g * per, count = std::min(per, ocb - b0);
    // A last group narrower than the tile runs block by block.
    for (int64_t b = b0; b < b0 + count; b += count == per ? per : 1) {
      ConvTileArgs t = base;
      t.src = src + n * icb * base.src_block;
      t.weights = weights + b * base.w_block;
      t.bias = bias ? bias + b * lanes : nullptr;
      t.dst = dst + ((n * ocb + b) * s.oh + oh) * s.ow * lanes;
      if (count == per) {
        direct_row(s, cfg.tile, cfg.rest, cfg.border, t, oh, lanes);
      } else {
        const ConvTile one = *find_conv_tile(*cfg.isa, 1, 1);
        direct_row(s, one, one, one, t, oh, lanes);
      }
      const int64_t blocks = count == per ? per : 1;
      for (int64_t j = 0; j < blocks; ++j)
        apply_rows(epilogue, *cfg.isa, t.dst + j * base.dst_block, n * ocb + b + j, oh * s.ow * lanes, s.ow * lanes);
    }
  });
}

void depthwise_weights_to_blocked(const ConvShape& s, const float* w, float* dst, int lanes) {
  const int64_t cb = channel_blocks(s.c, lanes), taps = s.kh * s.kw;
  std::memset(dst, 0, static_cast<size_t>(cb * taps * lanes) * sizeof(float));
  for (int64_t c = 0; c < s.c; ++c)
    for (int64_t t = 0; t < taps; ++t) dst[((c / lanes) * taps + t) * lanes + c % lanes] = w[c * taps + t];
}

void depthwise_blocked(const ConvShape& s, const DirectConfig& cfg, const float* src, const float* weights,
                       const float* bias, float* dst, const Chain* epilogue, ThreadPool& pool) {
  const int64_t lanes = cfg.isa->lanes;
  const int64_t cb = channel_blocks(s.c, lanes);
  ConvTileArgs base;
  base.icb_count = 1;
  base.src_row = s.w * lanes;
  base.kw_count = s.kw;
  base.kh_count = s.kh;
  base.sw = s.sw;
  base.dh = s.dh;
  base.dw = s.dw;
  pool.run(s.n * cb * s.oh, cfg.threads, [&](int64_t task, int) {
    const int64_t oh = task % s.oh, b = (task / s.oh) % cb, n = task / (s.oh * cb);
    ConvTileArgs t = base;
    t.src = src + (n * cb + b) * s.h * s.w * lanes;
    t.weights = weights + b * s.kh * s.kw * lanes;
    t.bias = bias ? bias + b * lanes : nullptr;
    t.dst = dst + ((n * cb + b) * s.oh + oh) * s.ow * lanes;
    direct_row(s, cfg.tile, cfg.rest, cfg.border, t, oh, lanes);
    apply_rows(epilogue, *cfg.isa, t.dst, n * cb + b, oh * s.ow * lanes, s.ow * lanes);
  });
}

void depthwise_nchw(const ConvShape& s, const IsaKernels& isa, int threads, const float* src, const float* weights,
                    const float* bias, float* dst, const Chain* epilogue, float* scratch, ThreadPool& pool) {
  const int64_t ph = s.h + s.ph + s.ph_end, pw = s.w + s.pw + s.pw_end;
  pool.run(s.n * s.c, threads, [&](int64_t plane, int thread) {
    const int64_t c = plane % s.c;
    float* padded = scratch + thread * ph * pw;
    std::memset(padded, 0, static_cast<size_t>(ph * pw) * sizeof(float));
    const float* in = src + plane * s.h * s.w;
    for (int64_t y = 0; y < s.h; ++y) std::memcpy(padded + (y + s.ph) * pw + s.pw, in + y * s.w, static_cast<size_t>(s.w) * sizeof(float));
    DepthwisePlaneArgs a;
    a.src = padded;
    a.src_w = pw;
    a.weights = weights + c * s.kh * s.kw;
    a.bias = bias ? bias[c] : 0.0f;
    a.dst = dst + plane * s.oh * s.ow;
    a.oh = s.oh;
    a.ow = s.ow;
    a.kh = s.kh;
    a.kw = s.kw;
    a.sh = s.sh;
    a.sw = s.sw;
    a.dh = s.dh;
    a.dw = s.dw;
    isa.depthwise_plane(a);
    if (epilogue)
      for (int64_t y = 0; y < s.oh; ++y) epilogue->apply(isa, a.dst + y * s.ow, plane, y * s.ow, s.ow);
  });
}

}  // namespace aoe::cpu
