// oneDNN's matmul primitive as an implementation of MatMul and Gemm the
// tuner may pick over the device's own GEMM, shape by shape (the "ukernel"
// knob's value "onednn"). Offered only where the device was built with oneDNN.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "gemm.h"
#include "onednn_runtime.h"
#include "thread_pool.h"

namespace aoe::cpu {

// C (m x n, row-major, dense) = A (m x k) * B (k x n), A and B each plain or
// transposed (their layouts' steps; the data comes later), on `threads`
// threads of the device's pool: each runs a one-thread primitive of its own
// over whole 16-wide blocks of C's longer side. A constant B is reordered
// once, by set_weights(), into the layout oneDNN's kernel reads fastest.
class OneDnnMatMul {
 public:
  OneDnnMatMul(int64_t m, int64_t n, int64_t k, const StridedMatrix& a, const StridedMatrix& b, bool b_constant,
               int threads);
  ~OneDnnMatMul();
  OneDnnMatMul(const OneDnnMatMul&) = delete;
  OneDnnMatMul& operator=(const OneDnnMatMul&) = delete;

  void set_weights(const float* b);
  // After a part's block of C is written, on its thread while the block is in
  // cache: after(first row, rows, first col, cols) (the fused ops).
  using PartDone = std::function<void(int64_t, int64_t, int64_t, int64_t)>;
  // `b` is read only where B is not constant.
  void run(const float* a, const float* b, float* c, ThreadPool& pool, const PartDone& after);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace aoe::cpu
