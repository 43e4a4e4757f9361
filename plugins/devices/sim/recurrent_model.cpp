#include "recurrent_model.h"

#include <algorithm>
#include <string>

#include "aoe/sdk/error.h"
#include "cube_fractal.h"
#include "vector_model.h"

namespace aoe::sim {
namespace {

using sdk::DType;
using sdk::Error;
using sdk::StatusCode;

// Gates a step computes, and the vector passes over each of its batch x
// hidden outputs (instruction counts as the elementwise table's: sigmoid 2
// simple and 2 exp-class, tanh 3 and 2):
// LSTM: three sigmoids, two tanh, c = f*c + i*g and h = o*tanh(c);
// GRU: two sigmoids, n = tanh(x_n + r*h_n), h = (1-z)*n + z*h;
// RNN: h = tanh(x + h), the bias add.
struct Cell {
  const char* op_type;
  int gates, simple, transcendental;
};
constexpr Cell kCells[] = {{"LSTM", 4, 16, 10}, {"GRU", 3, 12, 6}, {"RNN", 1, 4, 2}};

const Cell* find_cell(const std::string& op_type) {
  for (const auto& c : kCells)
    if (op_type == c.op_type) return &c;
  return nullptr;
}

// The product of one step: [x_t, h_(t-1)] (batch x input+hidden) times the
// stacked weights ((input+hidden) x gates*hidden), fp16 on the cube.
MatMulProblem step_problem(const sdk::OpTask& task, const Soc& soc, const Cell& cell, int64_t& steps, int64_t& gate_elements) {
  require_unfused(task, soc);
  if (task.inputs.size() < 3) malformed(task, "takes X, W and R, got " + std::to_string(task.inputs.size()) + " inputs");
  for (size_t i = 0; i < 3; ++i)
    if (!task.inputs[i].fully_known() || task.inputs[i].shape.size() != 3)
      malformed(task, "needs X, W and R of known shape and rank 3; input " + std::to_string(i) + " is not");
  const auto& x = task.inputs[0].shape;
  const auto& w = task.inputs[1].shape;
  const auto& r = task.inputs[2].shape;
  const bool batch_first = attr_int(task.attrs, "layout", 0) != 0;
  const int64_t seq = batch_first ? x[1] : x[0], batch = batch_first ? x[0] : x[1];
  const int64_t dirs = w[0], input = x[2], stacked = w[1];
  if (stacked % cell.gates != 0) malformed(task, "has W of " + std::to_string(stacked) + " rows, not a multiple of its " +
                                               std::to_string(cell.gates) + " gates");
  const int64_t hidden = stacked / cell.gates;
  if (w[2] != input || r[0] != dirs || r[1] != stacked || r[2] != hidden)
    malformed(task, "has W, R and X that disagree: W " + shape_text(w) + ", R " + shape_text(r) + ", X " + shape_text(x));
  if (dirs < 1 || dirs > 2 || seq < 1 || batch < 1 || hidden < 1 || input < 1)
    malformed(task, "has an empty sequence, batch or hidden size, or more than two directions");
  const DType t = task.inputs[0].dtype;
  require_cube_dtype(t, task.op_type, soc);
  steps = seq * dirs;
  gate_elements = batch * hidden;
  MatMulProblem p;
  p.m = batch;
  p.k = input + hidden;
  p.n = stacked;
  p.matrix_elements = p.m * p.n;
  p.a_elements = p.m * p.k;
  p.b_elements = p.k * p.n;
  p.out_dtype = t;
  p.b_constant = task.inputs[1].constant && task.inputs[2].constant;
  return p;
}

}  // namespace

bool is_recurrent_op(const std::string& op_type) { return find_cell(op_type) != nullptr; }

RecurrentModel::RecurrentModel(const Soc& soc, const sdk::OpTask& task)
    : soc_(soc), step_(soc, [&] {
        const Cell* cell = find_cell(task.op_type);
        if (!cell) not_modelled(soc, task.op_type);
        simple_ = cell->simple;
        transcendental_ = cell->transcendental;
        bytes_ = sdk::dtype_bytes(task.inputs.empty() ? DType::f16 : task.inputs[0].dtype);
        return step_problem(task, soc, *cell, steps_, gate_elements_);
      }()) {
  cast_us_ = task.inputs[0].dtype == DType::f32 ? fp16_cast_us(soc_, task.inputs[0].elements()) : 0;
}

// The step's product (never below its own bound), then each core's share of
// the gates in UB and its part of h_t written back for the next step.
double RecurrentModel::step_cycles(const sdk::Config& config) const {
  const auto tiling = MatMulTiling::from(config);
  const double product = std::max(step_.cost(tiling).core_cycles, step_.roofline_us() * soc_.cycles_per_us());
  const int64_t active = tiling.block_dim;
  const int64_t share = std::max<int64_t>(1, (gate_elements_ + active - 1) / active);
  const double gates = simple_ * vector_cycles(soc_, VecClass::simple, share, bytes_) +
                       transcendental_ * vector_cycles(soc_, VecClass::transcendental, share, bytes_);
  return product + gates + ub_to_gm_cycles(soc_, static_cast<double>(share * bytes_), active);
}

double RecurrentModel::time_us(const sdk::Config& config) const {
  return soc_.launch_us_for(MatMulTiling::from(config).block_dim) + cast_us_ +
         static_cast<double>(steps_) * step_cycles(config) / soc_.cycles_per_us();
}

// Every step waits for the one before: the steps' bounds add.
double RecurrentModel::roofline_us() const { return static_cast<double>(steps_) * step_.roofline_us(); }

}  // namespace aoe::sim
