// Transpose: dims that stay together are merged, then the input's last dim
// and the output's last dim are swapped tile by tile (both read and written
// in runs), or rows are copied when the last dim stays last.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"

namespace aoe::cpu {

class TransposeOp final : public CpuOp {
 public:
  enum Knob : size_t { kTile, kThreads, kKnobCount };

  TransposeOp(const sdk::OpTask& task, const HostCpu& host);
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class TransposeKernel;
  std::vector<int64_t> perm_;     // as given
  Shape dims_;                    // merged input dims
  std::vector<int64_t> merged_;   // merged perm
};

}  // namespace aoe::cpu
