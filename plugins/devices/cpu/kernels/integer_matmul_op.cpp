// MatMulInteger and QLinearMatMul: numpy MatMul of 8-bit integer tensors
// less their zero points (per tensor, per row of A, per column of B),
// summed exactly in int64. MatMulInteger gives the int32 sums;
// QLinearMatMul scales each by a_scale * b_scale / y_scale (scales per
// tensor, row or column as the zero points), rounds half to even, adds
// y_zero_point and saturates to its dtype. Integers are held as
// whole-number floats (held_dtype.h); a sum past 2^24 is the nearest float.
#include "op_factories.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "op_util.h"
#include "quantized.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

class IntegerMatMulOp final : public ThreadedOp {
 public:
  IntegerMatMulOp(const sdk::OpTask& task, const HostCpu& host)
      : who_(task.op_type + " '" + task.name + "'") {
    if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after " + task.op_type);
    requantize_ = task.op_type == "QLinearMatMul";
    static const std::vector<const char*> kNames = {"a", "a_scale", "a_zero_point", "b", "b_scale", "b_zero_point", "y_scale", "y_zero_point"};
    find_quantized_inputs(task, who_, kNames, at_.data(), count_.data(), ranges_);
    if (requantize_) {
      out_range_ = quantized_range(task.inputs[at_[kYZero]].dtype, who_, "input 'y_zero_point'");
    } else if (!task.outputs.empty()) {
      require_dtype(task, 0, true, Takes::integral);
    }

    const Shape& a = task.inputs[at_[kA]].shape;
    const Shape& b = task.inputs[at_[kB]].shape;
    if (a.empty() || b.empty()) invalid(who_ + ": A and B have rank 1 or more");
    k_ = a.back();
    m_ = a.size() > 1 ? a[a.size() - 2] : 1;
    n_ = b.size() > 1 ? b.back() : 1;
    const int64_t bk = b.size() > 1 ? b[b.size() - 2] : b[0];
    if (bk != k_) invalid(who_ + ": A " + to_string(a) + " and B " + to_string(b) + " do not multiply");
    const Shape a_batch(a.begin(), a.end() - std::min<size_t>(a.size(), 2));
    const Shape b_batch(b.begin(), b.end() - std::min<size_t>(b.size(), 2));
    Shape out = broadcast({a_batch, b_batch}, who_ + " batch dims");
    // The batch dims walked as rows of one element: each row's offset is the matrix it reads.
    const auto as_rows = [&](Shape batch) {
      batch.push_back(1);
      return align_rank(batch, out.size() + 1);
    };
    const BroadcastRows walk(as_rows(out), {as_rows(a_batch), as_rows(b_batch)});
    for (int64_t r = 0; r < walk.rows(); ++r) {
      a_matrix_.push_back(walk.operand(0, r).offset);
      b_matrix_.push_back(walk.operand(1, r).offset);
    }
    if (a.size() > 1) out.push_back(m_);
    if (b.size() > 1) out.push_back(n_);

    // Per tensor, per row or column, or per row or column of every matrix.
    const auto per = [&](Role r, int64_t span, const Shape& batch, const char* what) {
      if (at_[r] < 0 || count_[r] == 1 || count_[r] == span || count_[r] == span * elements(batch)) return;
      invalid(who_ + ": input '" + kNames[r] + "' holds " + std::to_string(count_[r]) + " values; give one, or one per " +
              what + " (" + std::to_string(span) + ")");
    };
    per(kAZero, m_, a_batch, "row of A"), per(kAScale, m_, a_batch, "row of A");
    per(kBZero, n_, b_batch, "column of B"), per(kBScale, n_, b_batch, "column of B");
    for (const Role r : {kYScale, kYZero})
      if (at_[r] >= 0 && count_[r] != 1) unsupported("the cpu device runs " + who_ + " with one y_scale and y_zero_point");
    require_output_shape(task, out);
    set_shapes(task, {out}, host, static_cast<double>(elements(out)) * static_cast<double>(k_));
  }
  ValueRange input_range(size_t i) const override { return ranges_.at(i); }

  // A task per row of the output: B's rows weighted by A's row, in int64,
  // B's zero point taken off once from the row's sum.
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    const int64_t m = m_, k = k_, n = n_;
    const float* a = in[static_cast<size_t>(at_[kA])];
    const float* b = in[static_cast<size_t>(at_[kB])];
    pool.run(static_cast<int64_t>(a_matrix_.size()) * m, threads, [&](int64_t row, int) {
      const int64_t mat = row / m, i = row % m, am = a_matrix_[mat], bm = b_matrix_[mat];
      const float* arow = a + (am * m + i) * k;
      const float* bmat = b + bm * k * n;
      const int64_t za = held_int(static_cast<float>(param(in, kAZero, am, i, 0)));
      std::vector<int64_t> acc(static_cast<size_t>(n), 0);
      int64_t asum = 0;
      for (int64_t kk = 0; kk < k; ++kk) {
        const int64_t av = held_int(arow[kk]) - za;
        if (av == 0) continue;
        asum += av;
        const float* brow = bmat + kk * n;
        for (int64_t j = 0; j < n; ++j) acc[j] += av * held_int(brow[j]);
      }
      float* y = out[0] + row * n;
      const double scale_a = requantize_ ? param(in, kAScale, am, i, 1) : 1;
      const double scale_y = requantize_ ? param(in, kYScale, 0, 0, 1) : 1;
      const double zero_y = requantize_ ? param(in, kYZero, 0, 0, 0) : 0;
      for (int64_t j = 0; j < n; ++j) {
        const int64_t sum = acc[j] - held_int(static_cast<float>(param(in, kBZero, bm, j, 0))) * asum;
        if (!requantize_) {
          y[j] = static_cast<float>(sum);
          continue;
        }
        // The multiplier in float32, as the float scales give it.
        const float multiplier = static_cast<float>(scale_a) * static_cast<float>(param(in, kBScale, bm, j, 1)) /
                                 static_cast<float>(scale_y);
        y[j] = requantized(static_cast<double>(sum) * multiplier, zero_y, out_range_);
      }
    });
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const auto value = [&](Role r, int64_t at) { return std::nearbyint(static_cast<double>(in[static_cast<size_t>(at_[r])][at])); };
    for (size_t mat = 0; mat < a_matrix_.size(); ++mat) {
      const int64_t am = a_matrix_[mat], bm = b_matrix_[mat];
      for (int64_t i = 0; i < m_; ++i)
        for (int64_t j = 0; j < n_; ++j) {
          const double za = std::nearbyint(param(in, kAZero, am, i, 0)), zb = std::nearbyint(param(in, kBZero, bm, j, 0));
          double sum = 0;
          for (int64_t kk = 0; kk < k_; ++kk)
            sum += (value(kA, (am * m_ + i) * k_ + kk) - za) * (value(kB, (bm * k_ + kk) * n_ + j) - zb);
          double y = sum;
          if (requantize_) {
            const float multiplier = static_cast<float>(param(in, kAScale, am, i, 1)) *
                                     static_cast<float>(param(in, kBScale, bm, j, 1)) / static_cast<float>(param(in, kYScale, 0, 0, 1));
            y = std::clamp(std::nearbyint(sum * multiplier) + param(in, kYZero, 0, 0, 0), out_range_.lo, out_range_.hi);
          }
          out[0][(static_cast<int64_t>(mat) * m_ + i) * n_ + j] = static_cast<float>(y);
        }
    }
  }

 private:
  // QLinearMatMul's inputs in order; MatMulInteger takes A, B and the two zero points.
  enum Role : size_t { kA, kAScale, kAZero, kB, kBScale, kBZero, kYScale, kYZero, kRoles };

  // The value of a per-row (A's side) or per-column (B's side) input `role`
  // for row or column `i` of A's or B's matrix `matrix`; `fallback` where absent.
  double param(const std::vector<const float*>& in, Role role, int64_t matrix, int64_t i,
               double fallback) const {
    if (at_[role] < 0) return fallback;
    const float* p = in[static_cast<size_t>(at_[role])];
    const bool a_side = role == kAZero || role == kAScale;
    const int64_t span = a_side ? m_ : n_, c = count_[role];
    return c == 1 ? p[0] : c == span ? p[i] : p[matrix * span + i];
  }

  std::string who_;
  std::array<int, kRoles> at_{};       // the task's input of each role, -1 where absent
  std::array<int64_t, kRoles> count_{};  // its elements
  bool requantize_ = false;
  QuantRange out_range_;
  int64_t m_ = 1, k_ = 1, n_ = 1;
  std::vector<int64_t> a_matrix_, b_matrix_;  // per output matrix: the one of A and of B it multiplies
  std::vector<ValueRange> ranges_;
};

}  // namespace

std::unique_ptr<CpuOp> make_integer_matmul_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<IntegerMatMulOp>(task, host);
}

}  // namespace aoe::cpu
