// Batch normalization as a training step runs it (docs/training.md): the
// per-channel sums of x and x² (BNTrainingReduce), the normalisation by the
// batch's statistics (BNTrainingUpdate), and their gradients
// (BNTrainingUpdateGrad: dscale and doffset; BNTrainingReduceGrad: dx).
// Feature maps are N x C x ...; a channel's M = N x H x W values.
#pragma once

#include <string>
#include <vector>

#include "step_op.h"

namespace aoe::cpu {

// N x C x plane of a feature map, and its M.
struct ChannelPlanes {
  int64_t n = 1, c = 1, plane = 1;
  int64_t m() const { return n * plane; }
};

class BnTrainingReduceOp final : public ThreadedOp {
 public:
  BnTrainingReduceOp(const sdk::OpTask& task, const HostCpu& host);
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  ChannelPlanes p_;
};

class BnTrainingUpdateOp final : public ThreadedOp {
 public:
  BnTrainingUpdateOp(const sdk::OpTask& task, const HostCpu& host);
  // square_sum / M well above (sum / M)²: a variance the statistics of real data give.
  ValueRange input_range(size_t i) const override;
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  ChannelPlanes p_;
  double epsilon_ = 1e-5;
  bool add_ = false, relu_ = false;  // fused: the shortcut's Add, then the ReLU
};

class BnTrainingUpdateGradOp final : public ThreadedOp {
 public:
  BnTrainingUpdateGradOp(const sdk::OpTask& task, const HostCpu& host);
  ValueRange input_range(size_t i) const override { return i == 3 ? ValueRange{0.5f, 2.0f} : ValueRange{}; }
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  ChannelPlanes p_;
};

class BnTrainingReduceGradOp final : public ThreadedOp {
 public:
  BnTrainingReduceGradOp(const sdk::OpTask& task, const HostCpu& host);
  ValueRange input_range(size_t i) const override { return i == 6 ? ValueRange{0.5f, 2.0f} : ValueRange{}; }
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  ChannelPlanes p_;
};

}  // namespace aoe::cpu
