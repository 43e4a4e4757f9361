// GatherElements and ScatterElements (Scatter before opset 11): each
// element of `indices` (of the data's rank) names a position along `axis`,
// the others being its own.
// out[i..] = data[i.. with indices[i..] on axis] for GatherElements (shape
// of indices); for ScatterElements, data with updates[i..] written (or
// added, multiplied: `reduction`) at those positions, in order. The
// indices come from the model's constants, folded into attribute "indices";
// each element's offset is worked out once, when the op is made.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"

namespace aoe::cpu {

class ElementsOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };
  enum class Reduction { none, add, mul };

  ElementsOp(const sdk::OpTask& task, const HostCpu& host);
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class ElementsKernel;
  bool scatter_ = false;
  Reduction reduction_ = Reduction::none;
  size_t axis_ = 0;
  std::vector<int64_t> indices_;  // as given, negative ones too
  std::vector<int64_t> offsets_;  // per element of indices: the data's element it names
};

}  // namespace aoe::cpu
