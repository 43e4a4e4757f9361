// MatMul and Gemm on a DaVinci AI core: CANN's tiling knobs, the buffers a
// tiling must fit, the tiling CANN's heuristic would pick, and its time.
#pragma once

#include <cstdint>

#include "aoe/sdk/graph.h"
#include "aoe/sdk/op_task.h"
#include "epilogue.h"
#include "op_model.h"
#include "soc.h"

namespace aoe::sim {

// What the cube computes: `batch` independent m x k x n products. Batches that
// share B are folded into m, as CANN does, so they share its panels.
struct MatMulProblem {
  int64_t batch = 1;
  int64_t m = 0, k = 0, n = 0;
  int64_t matrix_elements = 0;  // one output matrix of the op, M x N
  int64_t a_elements = 0, b_elements = 0;
  sdk::DType a_dtype = sdk::DType::f16, b_dtype = sdk::DType::f16, out_dtype = sdk::DType::f16;
  bool a_constant = false, b_constant = false;
  bool a_k_outer = false;  // A (M x K) in FRACTAL_NZ: each 16 of K a column block of its own
  bool a_on_chip = false, b_on_chip = false, out_on_chip = false;  // kept in L2 by the strategy around the op
  // B as the cube reads it over B as GM holds it: > 1 where B is an im2col
  // of a map that load3d expands on its way from L1 to L0B (a weight
  // gradient's x: its taps over its strides), so GM serves the map alone.
  double b_expansion = 1;
  Epilogue epilogue;

  double flops() const;
  // Operands, addends and result as the op stores them in GM.
  double gm_bytes() const;
  // The part of them kept in L2.
  double on_chip_bytes() const;
};

// Throws unsupported for what the SoC cannot run, invalid_argument for a
// malformed task.
MatMulProblem matmul_problem(const sdk::OpTask& task, const Soc& soc);

// One config, decoded. L0 sizes and k_l1 count 16-element fractals.
struct MatMulTiling {
  int64_t block_dim = 1, m_l0 = 1, n_l0 = 1, k_l0 = 1, k_l1 = 1;
  bool db_l0 = false, db_l1 = false;

  static MatMulTiling from(const sdk::Config& config);
  sdk::Config config() const;
};

// Where a tiling's time goes. Stage times are cycles per output tile.
struct MatMulCost {
  int64_t tiles = 0;
  int64_t rounds = 0;  // tiles on the busiest core
  double gm_to_l1 = 0, l1_to_l0 = 0, cube = 0, write_back = 0;
  double core_cycles = 0;  // the busiest core, fill and drain included
  double cast_us = 0;      // fp32 operands cast to fp16 before the kernel
  double total_us = 0;
};

class MatMulModel final : public ProblemModel<MatMulProblem> {
 public:
  MatMulModel(const Soc& soc, MatMulProblem problem);

  sdk::Measurement check(const sdk::Config& config) const override;
  double time_us(const sdk::Config& config) const override;
  double roofline_us() const override;

  sdk::Measurement check(const MatMulTiling& tiling) const;
  MatMulCost cost(const MatMulTiling& tiling) const;
  const MatMulProblem& problem() const { return p_; }

 private:
  sdk::TuningSpace make_space() const;
  MatMulTiling default_tiling() const;
  int64_t tiles(int64_t m_l0, int64_t n_l0) const;
  double hbm_bytes_per_round(const MatMulTiling& t, int64_t active, int64_t rounds) const;
  double write_back_cycles(const MatMulTiling& t, int64_t active) const;
  double cast_us() const;

  bool operands_fit_l2_ = false;
};

}  // namespace aoe::sim
