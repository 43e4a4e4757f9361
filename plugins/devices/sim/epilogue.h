// Elementwise ops fused after a cube op: vector work on each output tile in
// UB, plus the addends (bias, residual) it reads from GM.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aoe/sdk/graph.h"
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
  std::vector<Addend> addends;

  // Vector cycles on one tile of `elements` values of `bytes` each.
  double vector_cycles(const Soc& soc, int64_t elements, int bytes) const;
  // GM bytes one rows x cols tile reads from addends; `full` is the element
  // count of one whole output matrix.
  // `on_chip_only` counts only the addends kept in L2.
  double addend_bytes_per_tile(int64_t rows, int64_t cols, int64_t full, bool on_chip_only = false) const;
  double addend_bytes_total(bool on_chip_only = false) const;
};

// Cycles of one full-width vector pass over `elements` values of `bytes` each.
double vector_pass_cycles(const Soc& soc, int64_t elements, int bytes);

// Adds a fused op's work; a binary op reads `addend`. Throws unsupported for
// an op not modelled.
void add_fused_op(Epilogue& epilogue, const std::string& op_type, const sdk::TensorDesc* addend,
                  const std::string& target);

bool is_binary_fused_op(const std::string& op_type);

// Every op type add_fused_op() knows.
std::vector<std::string> fused_op_types();

}  // namespace aoe::sim
