// One op as the simulator models it: its tuning space, which configs fit the
// SoC, and how long a config takes. Each op family implements it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "aoe/sdk/measurement.h"
#include "aoe/sdk/op_task.h"
#include "aoe/sdk/tuning_space.h"
#include "soc.h"
#include "vector_model.h"

namespace aoe::sim {

class OpModel {
 public:
  virtual ~OpModel() = default;
  // With the default config: the tiling CANN's own heuristic would pick.
  virtual const sdk::TuningSpace& space() const = 0;
  // ok, or invalid naming the broken constraint; never a time.
  virtual sdk::Measurement check(const sdk::Config& config) const = 0;
  // Deterministic; only for configs check() accepts.
  virtual double time_us(const sdk::Config& config) const = 0;
  // The chip's bound for the op: no config may beat it.
  virtual double roofline_us() const = 0;
};

// A family's model of one problem on the SoC, with the space it tunes.
template <class Problem>
class ProblemModel : public OpModel {
 public:
  const sdk::TuningSpace& space() const final { return space_; }

 protected:
  ProblemModel(const Soc& soc, Problem problem) : soc_(soc), p_(std::move(problem)) {}
  // Version 1 of a space of `knob_count` knobs, the cores to use at `block_dim`.
  void start_space(size_t knob_count, size_t block_dim) {
    space_.version = "1";
    space_.knobs.resize(knob_count);
    space_.knobs[block_dim] = block_dim_knob(soc_);
  }

  const Soc& soc_;
  Problem p_;
  sdk::TuningSpace space_;
};

// No chip's memory holds a tensor of more elements; the models size
// tensors and their partial products in int64 below it.
constexpr int64_t kMaxTensorElements = int64_t{1} << 40;

// Whether the product of the positive dims (unknown ones left out) is at
// most kMaxTensorElements: then no partial product of them overflows.
bool within_any_memory(const std::vector<int64_t>& dims);

// The model of an op task (a fused op, a TransData) on the SoC, which it
// refers to. Throws unsupported for an op (or fused op, or dtype) the SoC
// model lacks, invalid_argument for a malformed task or one with a tensor
// past kMaxTensorElements.
std::unique_ptr<OpModel> op_model(const Soc& soc, const sdk::OpTask& task);

// The ONNX op types op_model() models from a task of the op alone (a
// training step's kernels, TransData and AtomicAddrClean come as kernels).
bool is_modelled_op(const std::string& op_type);

}  // namespace aoe::sim
