// Sums of gradients (docs/training.md): AddN adds the gradients of a tensor
// several ops read; BiasAddGrad sums dy over every axis but `axis` (1 for a
// feature map, -1 for rows).
#include "op_factories.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "isa.h"
#include "op_util.h"
#include "step_op.h"

namespace aoe::cpu {
namespace {

class AddNOp final : public ThreadedOp {
 public:
  AddNOp(const sdk::OpTask& task, const HostCpu& host) {
    const StepTask t(task, "gradient", 2);
    for (size_t i = 1; i < task.inputs.size(); ++i) t.expect(i, t.shape(0), "the first gradient's shape");
    count_ = elements(t.shape(0));
    t.outputs({"sum"}, {t.shape(0)});
    set_shapes(task, {t.shape(0)}, host, 0.5 * static_cast<double>(count_ * static_cast<int64_t>(task.inputs.size())));
    isa_ = &kernels_for(static_cast<int64_t>(host.best_isa()));
  }

  // Runs of a few thousand elements, each run's sum built while in L1.
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    parallel_runs(pool, threads, count_, 4096, [&](int64_t b, int64_t e) {
      std::memcpy(out[0] + b, in[0] + b, static_cast<size_t>(e - b) * sizeof(float));
      for (size_t i = 1; i < in.size(); ++i) isa_->binary(EltOp::add, 0, out[0] + b, in[i] + b, 1, e - b);
    });
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    for (int64_t k = 0; k < count_; ++k) {
      double s = 0;
      for (const float* x : in) s += x[k];
      out[0][k] = static_cast<float>(s);
    }
  }

 private:
  int64_t count_ = 0;
  const IsaKernels* isa_ = nullptr;  // the CPU's widest
};

class BiasAddGradOp final : public ThreadedOp {
 public:
  BiasAddGradOp(const sdk::OpTask& task, const HostCpu& host) {
    const StepTask t(task, {"dy"});
    t.rank(0, 2, true);
    const Shape& s = t.shape(0);
    const auto rank = static_cast<int64_t>(s.size());
    int64_t axis = int_attr(task.attrs, "axis", 1);
    if (axis < -rank || axis >= rank) t.fail("axis " + std::to_string(axis) + " is outside rank " + std::to_string(rank));
    if (axis < 0) axis += rank;
    outer_ = dims_product(s, 0, static_cast<size_t>(axis));
    c_ = s[static_cast<size_t>(axis)];
    inner_ = dims_product(s, static_cast<size_t>(axis) + 1, s.size());
    t.outputs({"db"}, {{c_}});
    set_shapes(task, {{c_}}, host, 0.5 * static_cast<double>(elements(s)));
    isa_ = &kernels_for(static_cast<int64_t>(host.best_isa()));
  }

  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    const float* dy = in[0];
    float* db = out[0];
    if (inner_ > 1) {
      // A feature map: each channel's planes summed, the channels shared out.
      pool.run(c_, threads, [&](int64_t c, int) {
        double s = 0;
        for (int64_t o = 0; o < outer_; ++o) s += isa_->row_sum(dy + (o * c_ + c) * inner_, inner_, 4);
        db[c] = static_cast<float>(s);
      });
      return;
    }
    if (outer_ == 0) {  // no rows: nothing to add up
      std::fill(db, db + c_, 0.0f);
      return;
    }
    // Rows: runs of columns shared out, each added up over every row.
    parallel_runs(pool, threads, c_, std::max<int64_t>(16, 4096 * 64 / std::max<int64_t>(outer_, 1)), [&](int64_t b, int64_t e) {
      std::memcpy(db + b, dy + b, static_cast<size_t>(e - b) * sizeof(float));
      for (int64_t o = 1; o < outer_; ++o) isa_->binary(EltOp::add, 0, db + b, dy + o * c_ + b, 1, e - b);
    });
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    for (int64_t c = 0; c < c_; ++c) {
      double s = 0;
      for (int64_t o = 0; o < outer_; ++o)
        for (int64_t i = 0; i < inner_; ++i) s += in[0][(o * c_ + c) * inner_ + i];
      out[0][c] = static_cast<float>(s);
    }
  }

 private:
  int64_t outer_ = 1, c_ = 1, inner_ = 1;  // extents before, along and after the axis
  const IsaKernels* isa_ = nullptr;
};

}  // namespace

std::unique_ptr<CpuOp> make_grad_sum_op(const sdk::OpTask& task, const HostCpu& host) {
  if (task.op_type == "BiasAddGrad") return std::make_unique<BiasAddGradOp>(task, host);
  return std::make_unique<AddNOp>(task, host);
}

}  // namespace aoe::cpu
