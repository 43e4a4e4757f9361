// Det: the determinant of each M x M matrix of [*, M, M], by LU
// decomposition with partial pivoting.
#include "op_factories.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "op_util.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

class DetOp final : public ThreadedOp {
 public:
  DetOp(const sdk::OpTask& task, const HostCpu& host) {
    const std::string who = "Det '" + task.name + "'";
    require_plain(task, 1, 1);
    const Shape in = task.inputs[0].shape;
    if (in.size() < 2 || in[in.size() - 1] != in[in.size() - 2]) invalid(who + " takes [*, M, M], not " + to_string(in));
    m_ = in.back();
    const Shape out(in.begin(), in.end() - 2);
    matrices_ = elements(out);
    require_output_shape(task, out);
    inputs_ = {in};
    outputs_ = {out};
    space_ = threads_space(host, static_cast<double>(matrices_ * m_ * m_ * m_));
  }

  // A matrix per task, decomposed in a copy of its own.
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    const int64_t m = m_;
    const float* x = in[0];
    float* y = out[0];
    std::vector<float> scratch(static_cast<size_t>(threads * m * m));
    pool.run(matrices_, threads, [&](int64_t k, int thread) {
      float* a = scratch.data() + thread * m * m;
      std::copy(x + k * m * m, x + (k + 1) * m * m, a);
      float det = 1;
      for (int64_t col = 0; col < m && det != 0; ++col) {
        int64_t pivot = col;
        for (int64_t r = col + 1; r < m; ++r)
          if (std::fabs(a[r * m + col]) > std::fabs(a[pivot * m + col])) pivot = r;
        if (pivot != col) {
          for (int64_t c = 0; c < m; ++c) std::swap(a[col * m + c], a[pivot * m + c]);
          det = -det;
        }
        det *= a[col * m + col];
        if (a[col * m + col] == 0) break;
        for (int64_t r = col + 1; r < m; ++r) {
          const float f = a[r * m + col] / a[col * m + col];
          for (int64_t c = col; c < m; ++c) a[r * m + c] -= f * a[col * m + c];
        }
      }
      y[k] = det;
    });
  }

  // Gaussian elimination in double with complete pivoting (the largest
  // element left, rows and columns swapped), apart from the kernel's.
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const int64_t m = m_;
    for (int64_t k = 0; k < matrices_; ++k) {
      std::vector<double> a(in[0] + k * m * m, in[0] + (k + 1) * m * m);
      const auto at = [&](int64_t r, int64_t c) -> double& { return a[static_cast<size_t>(r * m + c)]; };
      double det = 1;
      for (int64_t i = 0; i < m; ++i) {
        int64_t pr = i, pc = i;
        for (int64_t r = i; r < m; ++r)
          for (int64_t c = i; c < m; ++c)
            if (std::fabs(at(r, c)) > std::fabs(at(pr, pc))) pr = r, pc = c;
        if (at(pr, pc) == 0) {
          det = 0;
          break;
        }
        if (pr != i) {
          for (int64_t c = 0; c < m; ++c) std::swap(at(i, c), at(pr, c));
          det = -det;
        }
        if (pc != i) {
          for (int64_t r = 0; r < m; ++r) std::swap(at(r, i), at(r, pc));
          det = -det;
        }
        det *= at(i, i);
        for (int64_t r = i + 1; r < m; ++r) {
          const double f = at(r, i) / at(i, i);
          for (int64_t c = i; c < m; ++c) at(r, c) -= f * at(i, c);
        }
      }
      out[0][k] = static_cast<float>(det);
    }
  }

 private:
  int64_t matrices_ = 1, m_ = 1;
};

}  // namespace

std::unique_ptr<CpuOp> make_det_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<DetOp>(task, host);
}

}  // namespace aoe::cpu
