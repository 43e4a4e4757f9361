#include "reduce.h"

#include <algorithm>
#include <limits>

namespace aoe::cpu {
namespace {

float identity(ReduceKind k) {
  return k == ReduceKind::max ? -std::numeric_limits<float>::infinity()
         : k == ReduceKind::min ? std::numeric_limits<float>::infinity()
         : k == ReduceKind::prod ? 1.0f
                                : 0.0f;
}

float combine(ReduceKind k, float a, float b) {
  if (k == ReduceKind::max) return std::max(a, b);
  if (k == ReduceKind::min) return std::min(a, b);
  if (k == ReduceKind::prod) return a * b;
  return a + b;
}

// Min and product have no vector kernels: element by element, which the compiler vectorises.
bool scalar_kind(ReduceKind k) { return k == ReduceKind::min || k == ReduceKind::prod; }

void combine_row(ReduceKind k, float* acc, const float* row, int64_t n) {
  for (int64_t i = 0; i < n; ++i) acc[i] = combine(k, acc[i], row[i]);
}

// Reduces rows [r0, r1) of one outer slice into acc[inner].
void reduce_rows(const ReduceConfig& cfg, ReduceKind kind, const float* in, int64_t r0, int64_t r1, int64_t inner,
                 float* acc) {
  const IsaKernels& isa = *cfg.isa;
  if (inner == 1) {
    const float* row = in + r0;
    const int64_t n = r1 - r0;
    float v;
    if (kind == ReduceKind::max) {
      v = isa.row_max(row, n, cfg.accumulators);
    } else if (scalar_kind(kind)) {
      v = identity(kind);
      for (int64_t i = 0; i < n; ++i) v = combine(kind, v, row[i]);
    } else {
      v = isa.row_sum(row, n, cfg.accumulators);
    }
    acc[0] = combine(kind, acc[0], v);
    return;
  }
  const int max = kind == ReduceKind::max ? 1 : 0;
  // Short rows (a blocked map's lanes, a pixel each): k adjacent rows at a
  // time into k partial rows side by side, folded at the end, so that one
  // call covers k rows rather than a call per row.
  constexpr int64_t kWide = 1024;
  const int64_t k = kWide / inner;
  if (!scalar_kind(kind) && k >= 4 && r1 - r0 >= 2 * k) {
    float wide[kWide];
    std::fill(wide, wide + k * inner, identity(kind));
    int64_t r = r0;
    for (; r + k <= r1; r += k) isa.accumulate(max, wide, in + r * inner, k * inner);
    for (int64_t j = 0; j < k; ++j) isa.accumulate(max, acc, wide + j * inner, inner);
    for (; r < r1; ++r) isa.accumulate(max, acc, in + r * inner, inner);
    return;
  }
  for (int64_t r = r0; r < r1; ++r) {
    const float* row = in + r * inner;
    if (scalar_kind(kind)) {
      combine_row(kind, acc, row, inner);
    } else {
      isa.accumulate(max, acc, row, inner);
    }
  }
}

}  // namespace

void reduce(const ReduceConfig& cfg, ReduceKind kind, const float* in, float* out, int64_t outer, int64_t reduced,
            int64_t inner, float* scratch, ThreadPool& pool) {
  const float init = identity(kind);
  const float scale = kind == ReduceKind::mean ? 1.0f / static_cast<float>(reduced) : 1.0f;
  if (cfg.split == ReduceSplit::kept) {
    // Tasks of whole outer slices; a single slice splits its inner columns.
    const int64_t col_parts = outer == 1 && inner > 1 ? std::min<int64_t>(cfg.threads, (inner + 63) / 64) : 1;
    pool.run(outer * col_parts, cfg.threads, [&](int64_t task, int) {
      const int64_t o = task / col_parts, part = task % col_parts;
      const int64_t c0 = part * inner / col_parts, c1 = (part + 1) * inner / col_parts;
      float* acc = out + o * inner + c0;
      std::fill(acc, acc + (c1 - c0), init);
      if (col_parts == 1) {
        reduce_rows(cfg, kind, in + o * reduced * inner, 0, reduced, inner, acc);
      } else {
        // Columns c0..c1 of every row: strided rows of the slice.
        for (int64_t r = 0; r < reduced; ++r) {
          const float* row = in + r * inner + c0;
          if (scalar_kind(kind))
            combine_row(kind, acc, row, c1 - c0);
          else
            cfg.isa->accumulate(kind == ReduceKind::max ? 1 : 0, acc, row, c1 - c0);
        }
      }
      if (scale != 1.0f)
        for (int64_t i = 0; i < c1 - c0; ++i) acc[i] *= scale;
    });
    return;
  }
  // Split the reduced axis: thread t reduces its slice of every outer slice into scratch[t].
  const int parts = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(cfg.threads, reduced)));
  const int64_t kept = outer * inner;
  pool.run(parts, cfg.threads, [&](int64_t t, int) {
    float* acc = scratch + t * kept;
    std::fill(acc, acc + kept, init);
    const int64_t r0 = t * reduced / parts, r1 = (t + 1) * reduced / parts;
    for (int64_t o = 0; o < outer; ++o) reduce_rows(cfg, kind, in + o * reduced * inner, r0, r1, inner, acc + o * inner);
  });
  for (int64_t i = 0; i < kept; ++i) {
    float v = scratch[i];
    for (int t = 1; t < parts; ++t) v = combine(kind, v, scratch[t * kept + i]);
    out[i] = v * scale;
  }
}

}  // namespace aoe::cpu
