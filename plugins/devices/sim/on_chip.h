// Which of an op's GM tensors the strategy around it keeps in L2 (the
// graph engine's L2 buffer), and how a layout changes a tensor's bytes.
// Tasks carry both as sdk::under() leaves them: positions in attrs
// "on_chip_inputs" / "on_chip_outputs", layouts in TensorDesc.format.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "aoe/sdk/op_task.h"

namespace aoe::sim {

struct OnChip {
  std::set<size_t> inputs, outputs;

  // Throws invalid_argument when an attr is not a list of positions of the task.
  static OnChip of(const sdk::OpTask& task);
  bool input(size_t i) const { return inputs.count(i) != 0; }
  bool output(size_t i) const { return outputs.count(i) != 0; }
  bool any() const { return !inputs.empty() || !outputs.empty(); }
};

// For a problem that streams one input to one output: whether the strategy
// around the op keeps either in L2.
template <class Problem>
Problem& with_stream_on_chip(const sdk::OpTask& task, Problem& p) {
  const auto on_chip = OnChip::of(task);
  p.in_on_chip = on_chip.input(0);
  p.out_on_chip = on_chip.output(0);
  return p;
}

// An MTE burst moves whole 32 B blocks and pays a small issue cost [L].
inline constexpr double kBurstCycles = 2;

// The fractal layout of a 4-D feature map: C split into C1 groups of C0.
inline constexpr const char* kNc1hwc0 = "NC1HWC0";
inline constexpr int64_t kLayoutC0 = 16;

// NC1HWC0 on a 4-D tensor; any other format label is a plain (ND) layout.
bool is_fractal(const sdk::TensorDesc& t);
// Elements the tensor occupies in its layout: C padded to C0 when fractal.
int64_t stored_elements(const sdk::TensorDesc& t);

}  // namespace aoe::sim
