// Single-precision GEMM, BLIS style: C = A * B (+ a fused epilogue), with
// cache blocking (mc, kc, nc), packed A and B panels, a register-blocked
// micro-kernel, and a choice of loop order and parallel split.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "buffer.h"
#include "chain.h"
#include "isa.h"
#include "thread_pool.h"

namespace aoe::cpu {

// (i, k) at data[i * row_step + k * col_step]: row-major, or transposed.
struct StridedMatrix {
  const float* data = nullptr;
  int64_t row_step = 0, col_step = 1;
};

// Where B's values come from. pack() writes cols [j0, j0 + nc) of rows
// [k0, k0 + kc) as ceil(nc / nr) slivers of kc x nr, zero-padded.
class PanelSource {
 public:
  virtual ~PanelSource() = default;
  virtual void pack(int64_t k0, int64_t kc, int64_t j0, int64_t nc, int nr, float* dst) const = 0;
  // B(k0, j0) when B's rows are contiguous and can be read unpacked, with
  // their distance in *ldb; else null.
  virtual const float* in_place(int64_t, int64_t, int64_t*) const { return nullptr; }
};

class DenseSource final : public PanelSource {
 public:
  explicit DenseSource(StridedMatrix b) : b_(b) {}
  void pack(int64_t k0, int64_t kc, int64_t j0, int64_t nc, int nr, float* dst) const override;
  const float* in_place(int64_t k0, int64_t j0, int64_t* ldb) const override;

 private:
  StridedMatrix b_;
};

// The im2col matrix of one image's channels, packed straight from the
// image: row (c, kd, kh, kw), col (od, oh, ow). No im2col buffer is made.
// Depth is 1 for a 2-D convolution.
struct ConvGeometry {
  int64_t channels = 0, h = 0, w = 0;  // input
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1, ph = 0, pw = 0;
  int64_t oh = 0, ow = 0;
  int64_t d = 1, kd = 1, sd = 1, dd = 1, pd = 0, od = 1;
};
class Im2colSource final : public PanelSource {
 public:
  Im2colSource(const float* image, const ConvGeometry& g) : image_(image), g_(g) {}
  void pack(int64_t k0, int64_t kc, int64_t j0, int64_t nc, int nr, float* dst) const override;

 private:
  const float* image_;
  ConvGeometry g_;
};

enum class LoopOrder { n_outer, m_outer };  // slivers of B outside (BLIS) or slivers of A
// What threads divide: chunks of rows or columns, each packing its own
// panels; the products of a batch; or rows of every block with B packed
// once per block by all threads together (BLIS: two fork-joins per block).
enum class Split { m, n, batch, m_shared };

struct GemmConfig {
  const IsaKernels* isa = nullptr;
  UKernel ukernel;
  int64_t mc = 0, kc = 0, nc = 0;
  LoopOrder order = LoopOrder::n_outer;
  Split split = Split::m;
  int threads = 1;
  int chunks_per_thread = 1;  // of the split dimension, taken dynamically
  bool b_in_place = false;    // read B unpacked where its rows are contiguous
};

// The micro-kernel `ukernel` of the catalog and blocking rounded to its
// tile: the part of a GEMM config every op that runs the GEMM shares.
GemmConfig gemm_blocking(int64_t ukernel, int64_t mc, int64_t kc, int64_t nc);

// B packed once for a config (constant weights): every (nc, kc) panel, in order.
class PackedB {
 public:
  PackedB(const PanelSource& b, int64_t k, int64_t n, const GemmConfig& config);
  const float* panel(int64_t jc, int64_t pc) const;

 private:
  int64_t k_, n_, kc_, nc_, nr_;
  Buffer data_;
  std::vector<int64_t> offsets_;
};

// Packing buffers for one config: one A block and one B panel per thread.
class GemmWorkspace {
 public:
  GemmWorkspace(const GemmConfig& config, int threads);
  float* a(int thread) { return a_[static_cast<size_t>(thread)].data(); }
  float* b(int thread) { return b_[static_cast<size_t>(thread)].data(); }
  std::vector<std::pair<const void*, size_t>> footprint() const;

 private:
  std::vector<Buffer> a_, b_;
};

struct GemmCall {
  int64_t m = 0, n = 0, k = 0;
  StridedMatrix a;
  const PanelSource* b = nullptr;
  const PackedB* packed_b = nullptr;  // used instead of b when set
  float* c = nullptr;
  int64_t ldc = 0;
  const Chain* epilogue = nullptr;  // applied to each finished tile of C
  int64_t epilogue_row = 0;         // the epilogue's row of C's row 0
};

// Runs on `config.threads` threads of `pool`, or, with pool null, on the
// calling thread with workspace slot `slot`.
void gemm(const GemmConfig& config, const GemmCall& call, GemmWorkspace& ws, ThreadPool* pool, int slot = 0);

}  // namespace aoe::cpu
