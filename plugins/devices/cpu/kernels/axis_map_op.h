// Ops whose output element at (o0, o1, ...) is the input's element at
// (map0[o0], map1[o1], ...), or a fill value where a map says -1: Slice,
// Pad, Tile, Expand and Compress. Each axis maps its output positions once, in a table; a row of the
// output then reads one source row (or is all fill).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"

namespace aoe::cpu {

class AxisMapOp : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };

  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;

 protected:
  // Sets the threads knob once the shapes and maps are known.
  void finish(const HostCpu& host);

  std::vector<std::vector<int64_t>> maps_;  // per axis, per output position: the source position, -1 for fill
  float fill_ = 0;
  size_t fill_input_ = 0;  // where not 0, the input whose one value is the fill, read as the model runs
  float fill(const std::vector<const float*>& inputs) const { return fill_input_ ? inputs[fill_input_][0] : fill_; }

 private:
  friend class AxisMapKernel;
};

// Slice (opset 1's attributes, or 10+'s inputs folded into them by the
// frontend): starts, ends, axes, steps; negative ones count from the end,
// bounds out of range are clamped, steps may be negative.
class SliceOp final : public AxisMapOp {
 public:
  SliceOp(const sdk::OpTask& task, const HostCpu& host);
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  std::vector<int64_t> starts_, steps_;  // per axis of the input, clamped
};

// Pad in constant, reflect and edge modes (opset 2's attributes, or 11+'s
// inputs folded into them): pads as [x1_begin, x2_begin, ..., x1_end, ...],
// negative ones crop. A constant_value not folded is read as the model runs.
class PadOp final : public AxisMapOp {
 public:
  PadOp(const sdk::OpTask& task, const HostCpu& host);
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  std::string mode_;
  std::vector<int64_t> begins_;
};

// Tile: each axis repeated `repeats` times (the frontend folds the constant
// input into that attribute); output position o reads o mod the input's extent.
class TileOp final : public AxisMapOp {
 public:
  TileOp(const sdk::OpTask& task, const HostCpu& host);
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;
};

// Expand: the input broadcast with `shape` (folded as Tile's repeats), numpy's
// way; an axis of extent 1 reads its one position.
class ExpandOp final : public AxisMapOp {
 public:
  ExpandOp(const sdk::OpTask& task, const HostCpu& host);
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;
};

// Compress: the positions along `axis` (or of the flattened input, without
// one) whose condition is true; a condition shorter than the axis drops the
// rest. The condition is the model's bool constant, folded into attribute
// "condition".
class CompressOp final : public AxisMapOp {
 public:
  CompressOp(const sdk::OpTask& task, const HostCpu& host);
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  size_t axis_ = 0;  // of inputs_[0], the flattened input without an axis
  std::vector<int64_t> kept_;
};

}  // namespace aoe::cpu
