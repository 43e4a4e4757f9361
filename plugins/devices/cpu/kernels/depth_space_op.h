// DepthToSpace (DCR and CRD modes) and SpaceToDepth on N x C x H x W: each
// is a reshape to six dims, a transpose and a reshape back, so the
// Transpose kernel runs it, with its knobs, on that six-dim view.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"
#include "transpose_op.h"

namespace aoe::cpu {

class DepthSpaceOp final : public CpuOp {
 public:
  DepthSpaceOp(const sdk::OpTask& task, const HostCpu& host);
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  bool to_space_ = true;
  bool crd_ = false;
  int64_t block_ = 1;
  std::unique_ptr<TransposeOp> transpose_;
};

}  // namespace aoe::cpu
