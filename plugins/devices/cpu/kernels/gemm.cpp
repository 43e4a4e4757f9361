#include "gemm.h"

#include <algorithm>
#include <cstring>

#include "catalog.h"
#include "op_util.h"
#include "shape.h"

namespace aoe::cpu {
namespace {

// Rows [i0, i0 + mc) and cols [k0, k0 + kc) of `a` as slivers of mr rows:
// sliver s holds kc columns of mr values, zero-padded past mc. A's panel,
// and the panel of a B stored transposed.
void pack_slivers(const StridedMatrix& a, int64_t i0, int64_t mc, int64_t k0, int64_t kc, int mr, float* dst) {
  for (int64_t s = 0; s * mr < mc; ++s) {
    const int64_t rows = std::min<int64_t>(mr, mc - s * mr);
    float* d = dst + s * mr * kc;
    const float* src = a.data + (i0 + s * mr) * a.row_step + k0 * a.col_step;
    if (a.col_step == 1) {
      for (int64_t i = 0; i < rows; ++i) {
        const float* row = src + i * a.row_step;
        for (int64_t p = 0; p < kc; ++p) d[p * mr + i] = row[p];
      }
    } else {
      for (int64_t p = 0; p < kc; ++p) {
        const float* col = src + p * a.col_step;
        for (int64_t i = 0; i < rows; ++i) d[p * mr + i] = col[i * a.row_step];
      }
    }
    if (rows < mr)
      for (int64_t p = 0; p < kc; ++p)
        for (int64_t i = rows; i < mr; ++i) d[p * mr + i] = 0;
  }
}

// One (jc, pc) block of B: packed slivers of kc x nr, or B read in place
// (rows ldb apart) with only a partial last sliver packed into `edge`.
struct Block {
  int64_t jc, nc, pc, kc;
  const float* bp;
  bool first, last;
  int64_t ldb = 0;  // 0: packed
  const float* edge = nullptr;
  int64_t edge_sliver = -1;
};

// One mr x nr tile of C: the micro-kernel, through a scratch tile at the
// edges, then the epilogue once the last kc block is in.
void tile(const GemmConfig& cfg, const GemmCall& call, const Block& blk, const float* ap, int64_t ic, int64_t ir,
          int64_t rows, int64_t s) {
  const int mr = cfg.ukernel.mr, nr = cfg.ukernel.nr;
  const float* a_s = ap + ir * blk.kc;
  const bool in_place = blk.ldb > 0 && s != blk.edge_sliver;
  const float* b_s = in_place ? blk.bp + s * nr : s == blk.edge_sliver ? blk.edge : blk.bp + s * nr * blk.kc;
  const int64_t ldb = in_place ? blk.ldb : nr;
  const int64_t col = blk.jc + s * nr;
  const int64_t cols = std::min<int64_t>(nr, blk.nc - s * nr);
  float* c = call.c + (ic + ir) * call.ldc + col;
  if (rows == mr && cols == nr) {
    cfg.ukernel.fn(blk.kc, a_s, b_s, ldb, c, call.ldc, blk.first ? 0 : 1);
  } else {
    alignas(64) float scratch[32 * 64];
    cfg.ukernel.fn(blk.kc, a_s, b_s, ldb, scratch, nr, 0);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        c[i * call.ldc + j] = blk.first ? scratch[i * nr + j] : c[i * call.ldc + j] + scratch[i * nr + j];
  }
  if (blk.last && call.epilogue)
    for (int64_t i = 0; i < rows; ++i) call.epilogue->apply(*cfg.isa, c + i * call.ldc, call.epilogue_row + ic + ir + i, col, cols);
}

// Rows [ic, ic + mc) of C against slivers [s0, s1) of the packed B panel.
void macro_kernel(const GemmConfig& cfg, const GemmCall& call, const Block& blk, const float* ap, int64_t ic, int64_t mc,
                  int64_t s0, int64_t s1) {
  const int mr = cfg.ukernel.mr;
  if (cfg.order == LoopOrder::n_outer) {
    for (int64_t s = s0; s < s1; ++s)
      for (int64_t ir = 0; ir < mc; ir += mr) tile(cfg, call, blk, ap, ic, ir, std::min<int64_t>(mr, mc - ir), s);
  } else {
    for (int64_t ir = 0; ir < mc; ir += mr)
      for (int64_t s = s0; s < s1; ++s) tile(cfg, call, blk, ap, ic, ir, std::min<int64_t>(mr, mc - ir), s);
  }
}

}  // namespace

const float* DenseSource::in_place(int64_t k0, int64_t j0, int64_t* ldb) const {
  if (b_.col_step != 1) return nullptr;
  *ldb = b_.row_step;
  return b_.data + k0 * b_.row_step + j0;
}

void DenseSource::pack(int64_t k0, int64_t kc, int64_t j0, int64_t nc, int nr, float* dst) const {
  // B stored transposed: packed as A is, its columns being A's rows.
  if (b_.col_step != 1) return pack_slivers({b_.data, b_.col_step, b_.row_step}, j0, nc, k0, kc, nr, dst);
  for (int64_t s = 0; s * nr < nc; ++s) {
    const int64_t cols = std::min<int64_t>(nr, nc - s * nr);
    float* d = dst + s * nr * kc;
    const float* src = b_.data + k0 * b_.row_step + (j0 + s * nr) * b_.col_step;
    for (int64_t p = 0; p < kc; ++p) {
      const float* row = src + p * b_.row_step;
      float* out = d + p * nr;
      for (int64_t j = 0; j < cols; ++j) out[j] = row[j];
      for (int64_t j = cols; j < nr; ++j) out[j] = 0;
    }
  }
}

// Runs of a sliver's pixels on one output row share the input row; with
// stride 1 each run reads consecutive input values, so a row of the packed
// panel is a few copies and zero fills rather than a bounds check per value.
void Im2colSource::pack(int64_t k0, int64_t kc, int64_t j0, int64_t nc, int nr, float* dst) const {
  const ConvGeometry& g = g_;
  struct Run {
    int64_t jb, je, od, oh, ow;
  };
  Run runs[65];
  const int64_t plane_out = g.oh * g.ow;
  for (int64_t s = 0; s * nr < nc; ++s) {
    const int64_t cols = std::min<int64_t>(nr, nc - s * nr);
    float* d = dst + s * nr * kc;
    int nruns = 0;
    for (int64_t j = 0; j < cols;) {
      const int64_t pixel = j0 + s * nr + j;
      const int64_t od = pixel / plane_out, oh = (pixel % plane_out) / g.ow, ow = pixel % g.ow;
      const int64_t len = std::min(cols - j, g.ow - ow);
      runs[nruns++] = {j, j + len, od, oh, ow};
      j += len;
    }
    const int64_t taps = g.kd * g.kh * g.kw;
    int64_t c = k0 / taps, kd = (k0 / (g.kh * g.kw)) % g.kd, kh = (k0 / g.kw) % g.kh, kw = k0 % g.kw;
    for (int64_t p = 0; p < kc; ++p) {
      const int64_t dz = kd * g.dd - g.pd, dy = kh * g.dh - g.ph, dx = kw * g.dw - g.pw;
      float* out = d + p * nr;
      for (int r = 0; r < nruns; ++r) {
        const Run& run = runs[r];
        const int64_t iz = run.od * g.sd + dz, ih = run.oh * g.sh + dy;
        if (iz < 0 || iz >= g.d || ih < 0 || ih >= g.h) {
          for (int64_t j = run.jb; j < run.je; ++j) out[j] = 0;
          continue;
        }
        const float* row = image_ + ((c * g.d + iz) * g.h + ih) * g.w;
        if (g.sw == 1) {
          // iw = iw0 + (j - jb): inside the row for j in [lo, hi).
          const int64_t iw0 = run.ow + dx;
          const int64_t lo = std::clamp<int64_t>(run.jb - iw0, run.jb, run.je);
          const int64_t hi = std::clamp<int64_t>(run.jb + g.w - iw0, lo, run.je);
          for (int64_t j = run.jb; j < lo; ++j) out[j] = 0;
          for (int64_t j = lo; j < hi; ++j) out[j] = row[iw0 + (j - run.jb)];
          for (int64_t j = hi; j < run.je; ++j) out[j] = 0;
        } else {
          // iw = iw0 + (j - jb) * sw: the columns past the row's ends are at most a pad's width.
          const int64_t iw0 = run.ow * g.sw + dx;
          int64_t lo = run.jb, hi = run.je;
          while (lo < hi && iw0 + (lo - run.jb) * g.sw < 0) out[lo++] = 0;
          while (hi > lo && iw0 + (hi - 1 - run.jb) * g.sw >= g.w) out[--hi] = 0;
          const float* in = row + iw0 + (lo - run.jb) * g.sw;
          for (int64_t j = lo; j < hi; ++j, in += g.sw) out[j] = *in;
        }
      }
      for (int64_t j = cols; j < nr; ++j) out[j] = 0;
      if (++kw == g.kw) {
        kw = 0;
        if (++kh == g.kh) {
          kh = 0;
          if (++kd == g.kd) kd = 0, ++c;
        }
      }
    }
  }
}

PackedB::PackedB(const PanelSource& b, int64_t k, int64_t n, const GemmConfig& config)
    : k_(k), n_(n), kc_(config.kc), nc_(config.nc), nr_(config.ukernel.nr) {
  int64_t total = 0;
  for (int64_t jc = 0; jc < n; jc += nc_)
    for (int64_t pc = 0; pc < k; pc += kc_) {
      offsets_.push_back(total);
      total += std::min(kc_, k - pc) * round_up(std::min(nc_, n - jc), nr_);
    }
  data_.resize(total);
  size_t i = 0;
  for (int64_t jc = 0; jc < n; jc += nc_)
    for (int64_t pc = 0; pc < k; pc += kc_)
      b.pack(pc, std::min(kc_, k - pc), jc, std::min(nc_, n - jc), static_cast<int>(nr_), data_.data() + offsets_[i++]);
}

const float* PackedB::panel(int64_t jc, int64_t pc) const {
  const int64_t kb = ceil_div(k_, kc_);
  return data_.data() + offsets_[static_cast<size_t>((jc / nc_) * kb + pc / kc_)];
}

GemmWorkspace::GemmWorkspace(const GemmConfig& config, int threads) {
  const int64_t mr = config.ukernel.mr, nr = config.ukernel.nr;
  for (int t = 0; t < std::max(1, threads); ++t) {
    a_.push_back(Buffer::scratch(round_up(config.mc, mr) * config.kc));
    b_.push_back(Buffer::scratch(config.kc * round_up(config.nc, nr)));
  }
}

std::vector<std::pair<const void*, size_t>> GemmWorkspace::footprint() const {
  std::vector<std::pair<const void*, size_t>> out;
  for (const auto* side : {&a_, &b_})
    for (const auto& b : *side) out.emplace_back(b.data(), b.bytes());
  return out;
}

namespace {

// B's panel for a block where it needs no packing now: packed once at bind,
// or read in place as whole slivers (a partial last one, of the block's
// `slivers`, packed into `edge`, so no row is read past B's end). False: the
// caller packs it.
bool b_ready(const GemmConfig& cfg, const GemmCall& call, int64_t slivers, float* edge, Block& blk) {
  if (call.packed_b) {
    blk.bp = call.packed_b->panel(blk.jc, blk.pc);
    return true;
  }
  int64_t ldb = 0;
  const float* in_place = cfg.b_in_place ? call.b->in_place(blk.pc, blk.jc, &ldb) : nullptr;
  if (!in_place) return false;
  blk.bp = in_place;
  blk.ldb = ldb;
  const int nr = cfg.ukernel.nr;
  if (slivers * nr > blk.nc) {
    blk.edge_sliver = slivers - 1;
    blk.edge = edge;
    call.b->pack(blk.pc, blk.kc, blk.jc + blk.edge_sliver * nr, blk.nc - blk.edge_sliver * nr, nr, edge);
  }
  return true;
}

// C[i0, i1) x [j0, j1) on one thread with workspace `slot`: the five BLIS
// loops. Column bounds are whole slivers (j0 a multiple of nr), so packed
// panels are indexed as for the whole matrix.
void gemm_range(const GemmConfig& cfg, const GemmCall& call, GemmWorkspace& ws, int slot, int64_t i0, int64_t i1,
                int64_t j0, int64_t j1) {
  const int nr = cfg.ukernel.nr;
  for (int64_t jc = j0 / cfg.nc * cfg.nc; jc < j1; jc += cfg.nc) {
    const int64_t nc = std::min(cfg.nc, call.n - jc);
    const int64_t s_lo = std::max<int64_t>(0, (j0 - jc) / nr);
    const int64_t s_hi = std::min(ceil_div(nc, nr), ceil_div(j1 - jc, nr));
    if (s_lo >= s_hi) continue;
    for (int64_t pc = 0; pc < call.k; pc += cfg.kc) {
      const int64_t kc = std::min(cfg.kc, call.k - pc);
      Block blk{jc, nc, pc, kc, nullptr, pc == 0, pc + kc >= call.k};
      if (!b_ready(cfg, call, s_hi, ws.b(slot), blk)) {
        float* b = ws.b(slot);
        call.b->pack(pc, kc, jc + s_lo * nr, std::min(nc, s_hi * nr) - s_lo * nr, nr, b + s_lo * nr * kc);
        blk.bp = b;
      }
      for (int64_t ic = i0; ic < i1; ic += cfg.mc) {
        const int64_t mc = std::min(cfg.mc, i1 - ic);
        float* ap = ws.a(slot);
        pack_slivers(call.a, ic, mc, pc, kc, cfg.ukernel.mr, ap);
        macro_kernel(cfg, call, blk, ap, ic, mc, s_lo, s_hi);
      }
    }
  }
}

// Split m_shared: B's panel packed once per (jc, pc) block by all threads,
// then the row blocks shared out; cheaper packing, more synchronisation.
void gemm_shared_b(const GemmConfig& cfg, const GemmCall& call, GemmWorkspace& ws, ThreadPool& pool) {
  const int nr = cfg.ukernel.nr;
  for (int64_t jc = 0; jc < call.n; jc += cfg.nc) {
    const int64_t nc = std::min(cfg.nc, call.n - jc);
    const int64_t slivers = ceil_div(nc, nr);
    for (int64_t pc = 0; pc < call.k; pc += cfg.kc) {
      const int64_t kc = std::min(cfg.kc, call.k - pc);
      Block blk{jc, nc, pc, kc, nullptr, pc == 0, pc + kc >= call.k};
      if (!b_ready(cfg, call, slivers, ws.b(0), blk)) {
        float* b = ws.b(0);
        const int64_t parts = std::min<int64_t>(cfg.threads, slivers);
        pool.run(parts, cfg.threads, [&](int64_t part, int) {
          const int64_t s0 = part * slivers / parts, s1 = (part + 1) * slivers / parts;
          call.b->pack(pc, kc, jc + s0 * nr, std::min(nc, s1 * nr) - s0 * nr, nr, b + s0 * nr * kc);
        });
        blk.bp = b;
      }
      pool.run(ceil_div(call.m, cfg.mc), cfg.threads, [&](int64_t block, int thread) {
        const int64_t ic = block * cfg.mc, mc = std::min(cfg.mc, call.m - ic);
        float* ap = ws.a(thread);
        pack_slivers(call.a, ic, mc, pc, kc, cfg.ukernel.mr, ap);
        macro_kernel(cfg, call, blk, ap, ic, mc, 0, slivers);
      });
    }
  }
}

}  // namespace

// One parallel region per call: threads take chunks of C's rows (split m)
// or columns (split n), each running the serial loops with its own packing
// buffers, so no barrier waits for a thread that starts late on a busy
// machine. More chunks per thread balance better but pack the shared
// operand (B for split m, A for split n) once per chunk.
void gemm(const GemmConfig& cfg, const GemmCall& call, GemmWorkspace& ws, ThreadPool* pool, int slot) {
  if (!pool || cfg.threads <= 1) {
    gemm_range(cfg, call, ws, pool ? 0 : slot, 0, call.m, 0, call.n);
    return;
  }
  if (cfg.split == Split::m_shared) {
    gemm_shared_b(cfg, call, ws, *pool);
    return;
  }
  const bool by_rows = cfg.split != Split::n;
  const int64_t unit = by_rows ? cfg.ukernel.mr : cfg.ukernel.nr;
  const int64_t units = ceil_div(by_rows ? call.m : call.n, unit);
  const int64_t chunks = std::min<int64_t>(units, int64_t{cfg.threads} * cfg.chunks_per_thread);
  pool->run(chunks, cfg.threads, [&](int64_t c, int thread) {
    const int64_t u0 = c * units / chunks, u1 = (c + 1) * units / chunks;
    if (by_rows)
      gemm_range(cfg, call, ws, thread, u0 * unit, std::min(call.m, u1 * unit), 0, call.n);
    else
      gemm_range(cfg, call, ws, thread, 0, call.m, u0 * unit, std::min(call.n, u1 * unit));
  });
}

GemmConfig gemm_blocking(int64_t ukernel, int64_t mc, int64_t kc, int64_t nc) {
  const auto& shape = ukernel_catalog()[static_cast<size_t>(ukernel)];
  GemmConfig g;
  g.isa = &kernels_for(static_cast<int64_t>(shape.isa));
  g.ukernel = *find_ukernel(*g.isa, shape.mr, shape.nr);
  g.mc = round_up(mc, shape.mr);
  g.kc = kc;
  g.nc = round_up(nc, shape.nr);
  return g;
}

}  // namespace aoe::cpu
