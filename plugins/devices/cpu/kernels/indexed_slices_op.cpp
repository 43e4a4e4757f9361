#include "indexed_slices_op.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "op_util.h"

namespace aoe::cpu {

IndexedSlicesOp::Reduction IndexedSlicesOp::read_reduction(const sdk::OpTask& task, const std::string& who) {
  const std::string reduction = string_attr(task.attrs, "reduction", "none");
  if (reduction == "add") return Reduction::add;
  if (reduction == "mul") return Reduction::mul;
  if (reduction != "none") invalid(who + ": reduction '" + reduction + "' is none of none, add, mul");
  return Reduction::none;
}

std::vector<int64_t> IndexedSlicesOp::bind_indices(const sdk::OpTask& task) {
  who_ = task.op_type + " '" + task.name + "'";
  index_count_ = elements(task.inputs.at(1).shape);
  runtime_ = !(task.attrs.is_object() && task.attrs.contains("indices")) && !task.inputs[1].constant;
  if (runtime_) return {};
  auto indices = folded_ints(task, 1, "indices");
  offsets_ = offsets_of(indices);
  return indices;
}

std::vector<int64_t> IndexedSlicesOp::indices_at_run(const float* fed) const {
  std::vector<int64_t> out(static_cast<size_t>(index_count_));
  for (size_t i = 0; i < out.size(); ++i) {
    const double v = std::floor(static_cast<double>(fed[i]));
    if (!(std::fabs(v) < 9e18)) invalid(who_ + ": index " + std::to_string(fed[i]) + " at position " + std::to_string(i) + " is no index");
    out[i] = static_cast<int64_t>(v);
  }
  return out;
}

void IndexedSlicesOp::set_slice_shapes(const sdk::OpTask& task, const HostCpu& host, const Shape& data,
                                       const Shape& indices, const Shape& gathered, double work) {
  inputs_ = {data, indices};
  if (scatter_) inputs_.push_back(gathered);
  outputs_ = {scatter_ ? data : gathered};
  require_output_shape(task, outputs_[0]);
  space_ = threads_space(host, static_cast<double>(elements(outputs_[0])) * work);
}

void IndexedSlicesOp::compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
                              int threads) const {
  const float* x = in[0];
  float* y = out[0];
  const int64_t slice = slice_;
  const std::vector<int64_t> fed = runtime_ ? offsets_of(indices_at_run(in[1])) : std::vector<int64_t>{};
  const std::vector<int64_t>& offsets = runtime_ ? fed : offsets_;
  const auto slices = static_cast<int64_t>(offsets.size());
  constexpr int64_t kGrain = 4096;  // elements a task copies, at least
  if (!scatter_) {
    parallel_runs(pool, threads, slices, std::max<int64_t>(1, kGrain / std::max<int64_t>(slice, 1)), [&](int64_t from, int64_t to) {
      for (int64_t i = from; i < to; ++i) {
        const float* src = x + offsets[static_cast<size_t>(i)];
        std::copy(src, src + slice, y + i * slice);
      }
    }, 1);
    return;
  }
  const int64_t n = elements(output_shapes()[0]);
  parallel_runs(pool, threads, n, kGrain, [&](int64_t from, int64_t to) {
    std::memcpy(y + from, x + from, static_cast<size_t>(to - from) * sizeof(float));
  });
  // In order, on one thread: where two updates name one place, ONNX's order decides.
  const float* u = in[2];
  for (int64_t i = 0; i < slices; ++i) {
    float* dst = y + offsets[static_cast<size_t>(i)];
    const float* src = u + i * slice;
    for (int64_t e = 0; e < slice; ++e) dst[e] = static_cast<float>(reduce(dst[e], src[e]));
  }
}

}  // namespace aoe::cpu
