// Elementwise ops and chains of them run in UB (elewise / broadcast
// schedules): each core streams its slice of the output through UB tiles.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aoe/sdk/op_task.h"
#include "op_model.h"
#include "soc.h"
#include "vector_model.h"

namespace aoe::sim {

struct ElementwiseProblem {
  int64_t elements = 0;  // of the broadcast output
  int bytes = 2;         // the widest dtype the chain touches: UB and vector width
  int out_bytes = 2;
  int mask_bytes = 0;    // bytes an element of a second output as big (Dropout's mask); 0 where none
  // Inputs as wide as the output stream per tile; smaller ones are
  // broadcast, read once per core and kept in UB.
  std::vector<int> streamed_bytes;
  std::vector<int64_t> broadcast_elements;
  std::vector<int> broadcast_bytes;
  int simple_passes = 0, transcendental_passes = 0;
  int output_passes = 0;  // passes at the output's width, where narrower: ops fused after the cast to it
  int temps = 0;  // scratch buffers the chain's longest op needs
  int64_t min_elements_per_core = kMinVectorElementsPerCore;  // CANN's default split
  // Tensors kept in L2 by the strategy around the op.
  std::vector<bool> streamed_on_chip, broadcast_on_chip;
  bool out_on_chip = false;

  double gm_bytes() const;
  double on_chip_bytes() const;
  // Per output element: streamed bytes read, and those of them from L2.
  double streamed_bytes_per_element() const;
  double streamed_on_chip_per_element() const;
};

// Throws unsupported for an op not modelled, invalid_argument for a malformed task.
ElementwiseProblem elementwise_problem(const sdk::OpTask& task, const Soc& soc);
bool is_elementwise_op(const std::string& op_type);

class ElementwiseModel final : public ProblemModel<ElementwiseProblem> {
 public:
  enum Knob : size_t { kBlockDim, kUbFactor, kDb, kKnobCount };

  ElementwiseModel(const Soc& soc, ElementwiseProblem problem);

  sdk::Measurement check(const sdk::Config& config) const override;
  double time_us(const sdk::Config& config) const override;
  double roofline_us() const override;

  // UB bytes one tile of `ub_factor` elements occupies.
  int64_t ub_bytes(int64_t ub_factor, bool db) const;

 private:
  sdk::Config default_config() const;
  double vector_cycles_for(int64_t elements) const;

};

}  // namespace aoe::sim
