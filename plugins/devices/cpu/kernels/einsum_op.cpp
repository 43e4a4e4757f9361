// Einsum: each output element the sum, over the labels the equation leaves
// out of the output, of the product of the operands' elements its labels
// pick. Any number of operands; explicit (`->`) and implicit output (the
// labels used once, in ASCII order, after the ellipsis' dims); an ellipsis
// standing for the leading dims, broadcast numpy's way across operands; a
// label repeated within one operand reads its diagonal. Any dtype the device
// holds.
#include "op_factories.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "aoe/sdk/einsum_equation.h"
#include "op_util.h"
#include "reference.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

// Moves `index` one step in row-major order over the first `axes` of
// `extents`, each operand's offset (strides[operand][axis]) with it.
void step(std::vector<int64_t>& index, const Shape& extents, size_t axes,
          const std::vector<std::vector<int64_t>>& strides, std::vector<int64_t>& offsets) {
  for (size_t a = axes; a-- > 0;) {
    ++index[a];
    for (size_t n = 0; n < offsets.size(); ++n) offsets[n] += strides[n][a];
    if (index[a] < extents[a]) return;
    for (size_t n = 0; n < offsets.size(); ++n) offsets[n] -= extents[a] * strides[n][a];
    index[a] = 0;
  }
}

// The sum over k < count of the operands' product at offsets + k x step.
float product_sum(const std::vector<const float*>& in, const std::vector<int64_t>& at, const std::vector<int64_t>& stride,
                  int64_t count) {
  if (in.size() == 2) {
    const float* a = in[0] + at[0];
    const float* b = in[1] + at[1];
    if (stride[0] == 1 && stride[1] == 1) return dot8(a, b, count);
    float sum = 0;
    for (int64_t k = 0; k < count; ++k) sum += a[k * stride[0]] * b[k * stride[1]];
    return sum;
  }
  if (in.size() == 1 && stride[0] == 1) return sum8(in[0] + at[0], count);
  float sum = 0;
  for (int64_t k = 0; k < count; ++k) {
    float p = 1;
    for (size_t n = 0; n < in.size(); ++n) p *= in[n][at[n] + k * stride[n]];
    sum += p;
  }
  return sum;
}

class EinsumOp final : public ThreadedOp {
 public:
  EinsumOp(const sdk::OpTask& task, const HostCpu& host) {
    require_plain(task, 1, std::max<size_t>(1, task.inputs.size()), {}, Takes::held);
    std::vector<Shape> shapes;
    for (const auto& input : task.inputs) shapes.push_back(input.shape);
    std::string why;
    const auto labels = sdk::einsum_labels(string_attr(task.attrs, "equation", ""), shapes, &why);
    if (!labels) invalid("Einsum '" + task.name + "': " + why);
    extents_ = labels->extents;
    dim_labels_ = labels->dim_labels;
    out_labels_ = labels->out_labels;
    summed_labels_ = labels->summed_labels;
    const size_t operands = task.inputs.size();

    const Shape out = labels->output_dims();
    require_output_shape(task, out);
    // Each operand's strides along the output's and the summed labels.
    for (size_t n = 0; n < operands; ++n) {
      const Shape& shape = task.inputs[n].shape;
      const auto strides = strides_of(shape);
      const auto along = [&](const std::vector<int>& labels) {
        std::vector<int64_t> out_strides(labels.size(), 0);
        for (size_t i = 0; i < labels.size(); ++i)
          for (size_t d = 0; d < shape.size(); ++d)
            if (dim_labels_[n][d] == labels[i] && shape[d] == extents_[static_cast<size_t>(labels[i])])
              out_strides[i] += strides[d];
        return out_strides;
      };
      out_strides_.push_back(along(out_labels_));
      summed_strides_.push_back(along(summed_labels_));
    }
    int64_t summed = 1;
    for (const int label : summed_labels_) summed *= extents_[static_cast<size_t>(label)];
    set_shapes(task, {out}, host, static_cast<double>(elements(out)) * static_cast<double>(summed * static_cast<int64_t>(operands) + 1));
  }

  // Runs of output elements shared out; each element's sum over the summed
  // labels, the last of them the inner loop (a dot product where both
  // operands run contiguously along it).
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    Shape out_extents, summed_extents;
    for (const int label : out_labels_) out_extents.push_back(extents_[static_cast<size_t>(label)]);
    for (const int label : summed_labels_) summed_extents.push_back(extents_[static_cast<size_t>(label)]);
    const int64_t total = elements(out_extents);
    const int64_t summed = elements(summed_extents);
    if (summed == 0) {  // an empty sum
      std::fill(out[0], out[0] + total, 0.0f);
      return;
    }
    const size_t operands = in.size(), kept = out_labels_.size();
    // The inner loop's count and each operand's step along it (one step of none where nothing is summed).
    const int64_t inner = summed_extents.empty() ? 1 : summed_extents.back();
    const size_t outer_axes = summed_extents.empty() ? 0 : summed_extents.size() - 1;
    std::vector<int64_t> inner_stride(operands, 0);
    if (!summed_extents.empty())
      for (size_t n = 0; n < operands; ++n) inner_stride[n] = summed_strides_[n].back();
    const int64_t grain = std::max<int64_t>(1, 16384 / (summed * static_cast<int64_t>(operands)));
    parallel_runs(
        pool, threads, total, grain,
        [&](int64_t begin, int64_t end) {
          std::vector<int64_t> index(kept), base(operands, 0);
          int64_t rest = begin;
          for (size_t i = kept; i-- > 0;) {
            index[i] = rest % out_extents[i];
            rest /= out_extents[i];
            for (size_t n = 0; n < operands; ++n) base[n] += index[i] * out_strides_[n][i];
          }
          std::vector<int64_t> summed_index(outer_axes), at(operands);
          for (int64_t o = begin; o < end; ++o) {
            float sum = 0;
            at = base;
            std::fill(summed_index.begin(), summed_index.end(), 0);
            for (int64_t s = 0; s < summed / inner; ++s) {
              sum += product_sum(in, at, inner_stride, inner);
              step(summed_index, summed_extents, outer_axes, summed_strides_, at);
            }
            out[0][o] = sum;
            step(index, out_extents, kept, out_strides_, base);
          }
        },
        1);
  }

  // Every output element as the sum, over every value of the summed labels,
  // of the product of each operand's element at its labels' values, in double.
  void reference(const std::vector<const float*>& in, const std::vector<float*>& outs) const override {
    Shape out_extents, summed_extents;
    for (const int label : out_labels_) out_extents.push_back(extents_[static_cast<size_t>(label)]);
    for (const int label : summed_labels_) summed_extents.push_back(extents_[static_cast<size_t>(label)]);
    std::vector<int64_t> value(extents_.size(), 0);  // each label's value
    for_each_index(out_extents, [&](const std::vector<int64_t>& o, int64_t flat) {
      for (size_t i = 0; i < o.size(); ++i) value[static_cast<size_t>(out_labels_[i])] = o[i];
      double sum = 0;
      for_each_index(summed_extents, [&](const std::vector<int64_t>& s, int64_t) {
        for (size_t i = 0; i < s.size(); ++i) value[static_cast<size_t>(summed_labels_[i])] = s[i];
        double product = 1;
        for (size_t n = 0; n < in.size(); ++n) {
          const Shape& shape = inputs_[n];
          int64_t at = 0;
          for (size_t d = 0; d < shape.size(); ++d)
            at = at * shape[d] + (shape[d] == 1 ? 0 : value[static_cast<size_t>(dim_labels_[n][d])]);
          product *= in[n][at];
        }
        sum += product;
      });
      outs[0][flat] = static_cast<float>(sum);
    });
  }

 private:
  // Every label's extent: the letters', then the ellipsis' dims (sdk::EinsumLabels).
  std::vector<int64_t> extents_;
  // Per operand, the label of each of its dims.
  std::vector<std::vector<int>> dim_labels_;
  std::vector<int> out_labels_, summed_labels_;
  // Per operand, its stride along each output and each summed label: the
  // sum of its dims' strides where it repeats the label, 0 where it lacks
  // the label or broadcasts it.
  std::vector<std::vector<int64_t>> out_strides_, summed_strides_;
};

}  // namespace

std::unique_ptr<CpuOp> make_einsum_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<EinsumOp>(task, host);
}

}  // namespace aoe::cpu
