// Einsum: each output element the sum, over the labels the equation leaves
// out of the output, of the product of the operands' elements its labels
// pick. Any number of operands; explicit (`->`) and implicit output (the
// labels used once, in ASCII order, after the ellipsis' dims); an ellipsis
// standing for the leading dims, broadcast numpy's way across operands; a
// label repeated within one operand reads its diagonal. Any dtype the device
// holds.
#pragma once

#include <string>
#include <vector>

#include "threaded_op.h"

namespace aoe::cpu {

class EinsumOp final : public ThreadedOp {
 public:
  EinsumOp(const sdk::OpTask& task, const HostCpu& host);
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  // Every label's extent: the letters', then the ellipsis' dims.
  std::vector<int64_t> extents_;
  // Per operand, the label of each of its dims.
  std::vector<std::vector<int>> dim_labels_;
  std::vector<int> out_labels_, summed_labels_;
  // Per operand, its stride along each output and each summed label: the
  // sum of its dims' strides where it repeats the label, 0 where it lacks
  // the label or broadcasts it.
  std::vector<std::vector<int64_t>> out_strides_, summed_strides_;
};

}  // namespace aoe::cpu
