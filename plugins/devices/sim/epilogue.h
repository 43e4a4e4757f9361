// Elementwise ops fused after a cube op: vector work on each output tile in
// UB, plus the addends (bias, residual) it reads from GM.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aoe/sdk/graph.h"
#include "aoe/sdk/op_task.h"
#include "on_chip.h"
#include "soc.h"

namespace aoe::sim {

struct Epilogue {
  struct Addend {
    int64_t elements = 0;
    int bytes = 0;
    bool on_chip = false;  // kept in L2 by the strategy around the op
  };

  int simple_passes = 0;          // full-width vector passes: add, mul, max, cast
  int transcendental_passes = 0;  // exp-class passes at the reduced rate
  int accumulator_passes = 0;     // full-width passes on L0C's fp32 values, whatever the output's dtype
  std::vector<Addend> addends;

  // Vector cycles on one tile of `elements` values of `bytes` each.
  double vector_cycles(const Soc& soc, int64_t elements, int bytes) const;
  // GM bytes one rows x cols tile reads from addends; `full` is the element
  // count of one whole output matrix.
  // `on_chip_only` counts only the addends kept in L2.
  double addend_bytes_per_tile(int64_t rows, int64_t cols, int64_t full, bool on_chip_only = false) const;
  double addend_bytes_total(bool on_chip_only = false) const;
  // A cube core's rows x cols output tile (fp32 in L0C) written back: the
  // coupled core drains L0C through the vector pipe into UB, runs this
  // epilogue there, and MTE3 writes UB to GM (or to L2 where `on_chip`);
  // the steps share UB, so they add. `full`: one whole output matrix's
  // elements; `active`: the cores writing at once.
  double write_back_cycles(const Soc& soc, int64_t rows, int64_t cols, int64_t full, sdk::DType out_dtype,
                           bool on_chip, int64_t active) const;
};

// An 8-bit output of a cube op: the quantized products' requantised int32.
inline bool is_requantised(sdk::DType t) { return t == sdk::DType::i8 || t == sdk::DType::u8; }

// Cycles of one full-width vector pass over `elements` values of `bytes` each.
double vector_pass_cycles(const Soc& soc, int64_t elements, int bytes);

// Adds a fused op's work; a binary op reads `addend`. Throws unsupported for
// an op not modelled.
void add_fused_op(Epilogue& epilogue, const std::string& op_type, const sdk::TensorDesc* addend,
                  const std::string& target);

bool is_binary_fused_op(const std::string& op_type);

// Adds the task's fused ops in order, each binary one reading the task's
// next input from `next_input` on, or `missing` (a per-channel row) when the
// task gives none; `on_chip` says which inputs the strategy keeps in L2.
void add_fused_chain(Epilogue& epilogue, const sdk::OpTask& task, size_t next_input, const sdk::TensorDesc& missing,
                     const OnChip& on_chip, const std::string& target);

// Every op type add_fused_op() knows.
std::vector<std::string> fused_op_types();

}  // namespace aoe::sim
