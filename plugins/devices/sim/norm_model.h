// The "norm" pattern Softmax and LayerNormalization share: each row is
// reduced and rescaled in UB. A row that fits stays there (one pass); one
// that does not is streamed twice in chunks (split_row: statistics, then
// the result).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "op_model.h"
#include "soc.h"

namespace aoe::sim {

struct NormProblem {
  std::string op_type;
  int64_t rows = 1;
  int64_t row = 1;       // elements reduced together
  bool strided = false;  // the row runs across an inner axis: lane-parallel reduces
  int in_bytes = 2, out_bytes = 2;  // out_bytes 0: the kernel writes no row back, only its row_values
  int in_streams = 1;     // maps of the row's size read side by side (a gradient reads dy and y or x)
  int compute_bytes = 4;  // CANN computes norms in fp32
  int simple_passes = 0, transcendental_passes = 0, row_reduces = 0;
  // A second pass re-does this much of the work per element.
  int split_simple_passes = 0, split_transcendental_passes = 0;
  int64_t resident_elements = 0;  // gamma, beta: one row each, loaded once per core
  int row_values = 0;             // values per row read with its tile (a gradient's mean and invstd), fp32 each
  // Per-row values broadcast across a FRACTAL_NZ row, whose elements lie 16
  // to a column block: one 16-lane instruction per row per column block each.
  int lane_broadcasts = 0;
  int second_out_bytes = 0;  // a second map written beside the first (0: none), bytes per element
  bool in_on_chip = false, out_on_chip = false;  // kept in L2 by the strategy around the op

  double gm_bytes() const;
  int written_bytes() const { return out_bytes + second_out_bytes; }  // per element of the rows
  double on_chip_bytes() const;
  // Rows along `axis` of `shape`: the dims after it run across each row.
  void rows_along(const std::vector<int64_t>& shape, int64_t axis);
};

class NormModel final : public ProblemModel<NormProblem> {
 public:
  enum Knob : size_t { kBlockDim, kRowsPerTile, kDb, kImpl, kKnobCount };
  enum Impl : int64_t { kOnePass = 0, kSplitRow = 1 };

  NormModel(const Soc& soc, NormProblem problem);

  sdk::Measurement check(const sdk::Config& config) const override;
  double time_us(const sdk::Config& config) const override;
  double roofline_us() const override;

  // Elements of a row chunk under split_row: what fits UB with db.
  int64_t split_chunk() const;

 private:
  sdk::Config default_config() const;
  int64_t ub_bytes(int64_t rows_per_tile, bool db) const;
  // Rows of the tile's size UB holds at once: each map read and written, and the fp32 work row.
  int64_t row_buffers() const;
  // Moving `elements` of rows in and out, and their HBM share.
  double in_cycles(double elements, int64_t active) const;
  double out_cycles(double elements, int64_t active) const;
  double hbm_cycles(double elements, int64_t active) const;
  // Reading the per-row values of `rows` rows, one transfer each.
  double row_value_cycles(int64_t rows, int64_t active) const;
  double row_vector_cycles(int64_t rows, int64_t row, int simple, int transcendental, int reduces) const;

};

}  // namespace aoe::sim
