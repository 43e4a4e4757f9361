// LSTM, GRU and RNN as CANN's DynamicRNN and DynamicGRUV2 run them: one
// kernel walks the sequence; each step multiplies [x_t, h_(t-1)] by the
// stacked input and recurrent weights on the cube, runs the gates on the
// vector unit, and writes h_t to GM for the cores that read it at the next
// step. The knobs are the step product's tiling.
#pragma once

#include <string>

#include "aoe/sdk/op_task.h"
#include "matmul_model.h"
#include "op_model.h"
#include "soc.h"

namespace aoe::sim {

bool is_recurrent_op(const std::string& op_type);

class RecurrentModel final : public OpModel {
 public:
  // Throws invalid_argument for a malformed task, unsupported for a dtype the cube lacks.
  RecurrentModel(const Soc& soc, const sdk::OpTask& task);

  const sdk::TuningSpace& space() const override { return step_.space(); }
  sdk::Measurement check(const sdk::Config& config) const override { return step_.check(config); }
  double time_us(const sdk::Config& config) const override;
  double roofline_us() const override;

 private:
  // One step of one direction, cycles: the product, the gates, h_t's round trip.
  double step_cycles(const sdk::Config& config) const;

  const Soc& soc_;
  int64_t steps_ = 1;       // sequence length x directions
  int64_t gate_elements_ = 0;  // batch x hidden: each gate's values a step
  int simple_ = 0, transcendental_ = 0;  // vector passes over them
  int bytes_ = 2;
  double cast_us_ = 0;  // fp32 X cast to fp16 once, before the walk
  MatMulModel step_;    // last: its problem fills the fields above
};

}  // namespace aoe::sim
