// Sums of gradients (docs/training.md): AddN adds the gradients of a tensor
// several ops read; BiasAddGrad sums dy over every axis but `axis` (1 for a
// feature map, -1 for rows).
#pragma once

#include <string>
#include <vector>

#include "isa.h"
#include "step_op.h"

namespace aoe::cpu {

class AddNOp final : public ThreadedOp {
 public:
  AddNOp(const sdk::OpTask& task, const HostCpu& host);
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  int64_t count_ = 0;
  const IsaKernels* isa_ = nullptr;  // the CPU's widest
};

class BiasAddGradOp final : public ThreadedOp {
 public:
  BiasAddGradOp(const sdk::OpTask& task, const HostCpu& host);
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  int64_t outer_ = 1, c_ = 1, inner_ = 1;  // extents before, along and after the axis
  const IsaKernels* isa_ = nullptr;
};

}  // namespace aoe::cpu
