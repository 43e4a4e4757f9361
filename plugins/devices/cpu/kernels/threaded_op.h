// An op whose one knob is its threads: it writes its own loops (compute),
// and this base gives it the kernel, the check and the space. Most ops past
// the GEMM family are this; the helpers below split their loops.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"

namespace aoe::cpu {

// An op whose one knob is its threads, run by its own loops (compute).
class ThreadedOp : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };
  std::string check(const sdk::Config&) const override { return {}; }
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  // The timed loops: read `in`, write every element of `out`.
  virtual void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
                       int threads) const = 0;

 protected:
  // The task's input shapes, these outputs, and threads for `work` units of ~1 ns.
  void set_shapes(const sdk::OpTask& task, std::vector<Shape> outputs, const HostCpu& host, double work);
};

// body(begin, end) over runs of [0, n) of about `grain` (whole multiples
// of `unit`), on up to `threads` threads of `pool`.
void parallel_runs(ThreadPool& pool, int threads, int64_t n, int64_t grain,
                   const std::function<void(int64_t, int64_t)>& body, int64_t unit = 16);

// Sums in float with eight independent partial sums, which the compiler
// keeps in vector registers; the order differs from a plain loop's.
float sum8(const float* x, int64_t n);
float dot8(const float* x, const float* y, int64_t n);

}  // namespace aoe::cpu
