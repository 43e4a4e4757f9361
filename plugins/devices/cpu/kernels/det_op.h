// Det: the determinant of each M x M matrix of [*, M, M], by LU
// decomposition with partial pivoting.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"

namespace aoe::cpu {

class DetOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };

  DetOp(const sdk::OpTask& task, const HostCpu& host);
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class DetKernel;
  int64_t matrices_ = 1, m_ = 1;
};

}  // namespace aoe::cpu
