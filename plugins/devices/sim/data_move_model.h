// Ops that move data without arithmetic, or with a few taps per output
// element: Concat, Split, Slice, Pad, Gather, Resize (nearest, linear,
// cubic), Tile, Expand, DepthToSpace, SpaceToDepth, GatherElements,
// GatherND, the scatters (ScatterND, ScatterElements, Scatter), CANN's
// UnsortedSegmentSum, ReverseSequence, Compress, GridSample, RoiAlign,
// MaxUnpool and NonZero.
// Each core streams its share of the output through UB in tiles; reads and
// writes leave GM in contiguous runs whose length the op's shapes fix, so
// short runs pay whole 32 B blocks and an issue cost each. A kernel moving a
// row per index also pays the scalar unit's turn per index (index_cycles).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aoe/sdk/op_task.h"
#include "op_model.h"
#include "soc.h"

namespace aoe::sim {

struct DataMoveProblem {
  std::string op_type;
  int64_t out_elements = 1;  // elements written
  int64_t in_elements = 1;   // elements read (Resize linear reads each source row once per tap)
  int64_t in_run = 1;        // contiguous elements per read burst
  int64_t out_run = 1;       // contiguous elements per write burst
  int simple_passes = 0;     // vector passes over each output tile (Resize's taps)
  int64_t indices = 0;       // indices the scalar unit follows, a row (or element) moved per index
  int bytes = 2;
  bool in_on_chip = false, out_on_chip = false;  // kept in L2 by the strategy around the op

  double gm_bytes() const { return static_cast<double>(in_elements + out_elements) * bytes; }
  double on_chip_bytes() const {
    return static_cast<double>(bytes) * ((in_on_chip ? in_elements : 0) + (out_on_chip ? out_elements : 0));
  }
};

bool is_data_move_op(const std::string& op_type);
// Whether segment ids of shape `ids` lead x's dims, as UnsortedSegmentSum needs.
bool segment_ids_lead(const std::vector<int64_t>& ids, const std::vector<int64_t>& x);
// Throws unsupported for an op or mode not modelled, invalid_argument for
// shapes or attributes that disagree (naming the op).
DataMoveProblem data_move_problem(const sdk::OpTask& task, const Soc& soc);

class DataMoveModel final : public ProblemModel<DataMoveProblem> {
 public:
  enum Knob : size_t { kBlockDim, kUbFactor, kDb, kKnobCount };

  DataMoveModel(const Soc& soc, DataMoveProblem problem);

  sdk::Measurement check(const sdk::Config& config) const override;
  double time_us(const sdk::Config& config) const override;
  double roofline_us() const override;

 private:
  sdk::Config default_config() const;
  int64_t ub_bytes(int64_t ub_factor, bool db) const;
  double vector_total() const;

};

}  // namespace aoe::sim
