#include "threaded_op.h"

#include <algorithm>

#include "op_util.h"
#include "threads_kernel.h"

namespace aoe::cpu {

class ThreadedKernel final : public ThreadsKernel<ThreadedOp> {
 public:
  using ThreadsKernel::ThreadsKernel;
  void run(ThreadPool& pool) override {
    std::vector<float*> out;
    for (auto& o : outputs_) out.push_back(o.data());
    op_.compute(inputs_, out, pool, threads_);
  }
};

std::unique_ptr<Kernel> ThreadedOp::build(const sdk::Config& config) const { return threads_kernel<ThreadedKernel>(*this, config); }

void ThreadedOp::set_shapes(const sdk::OpTask& task, std::vector<Shape> outputs, const HostCpu& host, double work) {
  for (const auto& t : task.inputs) inputs_.push_back(t.shape);
  outputs_ = std::move(outputs);
  space_ = threads_space(host, work);
}

void parallel_runs(ThreadPool& pool, int threads, int64_t n, int64_t grain,
                   const std::function<void(int64_t, int64_t)>& body, int64_t unit) {
  if (n <= 0) return;
  const int64_t run = std::max(unit, (std::max<int64_t>(grain, 1) + unit - 1) / unit * unit);
  const int64_t runs = (n + run - 1) / run;
  if (runs == 1 || threads <= 1) return body(0, n);
  pool.run(runs, threads, [&](int64_t r, int) { body(r * run, std::min(n, (r + 1) * run)); });
}

float sum8(const float* x, int64_t n) {
  float acc[8] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; ++l) acc[l] += x[i + l];
  float s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  for (; i < n; ++i) s += x[i];
  return s;
}

float dot8(const float* x, const float* y, int64_t n) {
  float acc[8] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; ++l) acc[l] += x[i + l] * y[i + l];
  float s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  for (; i < n; ++i) s += x[i] * y[i];
  return s;
}

}  // namespace aoe::cpu
