// Conv (2-D) on a DaVinci AI core as CANN's Conv2D runs it: NC1HWC0 feature
// maps in L1, img2col (load3d) into L0A or plain load2d for a 1x1 stride-1
// conv, Fractal Z weights in L0B, fp32 sums in L0C; a depthwise conv may run
// on the vector unit instead. CANN's tiling knobs, the buffers a tiling must
// fit, the tiling CANN's heuristic would pick, and its time.
#pragma once

#include <cstdint>
#include <vector>

#include "aoe/sdk/data_layout.h"
#include "aoe/sdk/graph.h"
#include "aoe/sdk/op_task.h"
#include "epilogue.h"
#include "op_model.h"
#include "soc.h"

namespace aoe::sim {

// How the cube's A operand reaches L0A.
enum class ConvFeed {
  load3d,  // img2col from the NC1HWC0 feature map in L1
  load2d,  // 1x1, stride 1, no pads: the feature map already is the matrix
};

// One conv, as the cube sees it. Groups are merged `enlarge` at a time into
// block-diagonal weights (TBE's group conv), so each of `group_blocks`
// blocks is one GEMM: (rows x wo) output positions x (c1g x taps) K
// fractals x n1g N fractals. A depthwise conv is the extreme case: 16
// channels per block, 15/16 of each weight fractal zero.
struct ConvProblem {
  int64_t n = 1, c = 1, h = 1, w = 1;  // input, in NCHW order whatever its layout
  sdk::DataLayout layout = sdk::DataLayout::nchw;  // the input's and output's, as the task gives them
  int64_t cout = 1;                     // ONNX's M
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int64_t ho = 1, wo = 1;
  int64_t group = 1;

  int64_t enlarge = 1, group_blocks = 1, c1g = 1, n1g = 1;
  ConvFeed feed = ConvFeed::load3d;
  bool depthwise = false;       // group == C: one input channel per group
  bool vector_capable = false;  // depthwise with cout == C: the vector path exists
  // The kernel loops over `images` of `rows` output rows each; a 1x1
  // stride-1 conv folds the batch into its rows (NHW x C).
  int64_t images = 1, rows = 1;

  sdk::DType x_dtype = sdk::DType::f16, w_dtype = sdk::DType::f16, out_dtype = sdk::DType::f16;
  bool x_constant = false, w_constant = true;
  bool x_on_chip = false, w_on_chip = false, out_on_chip = false;  // kept in L2 by the strategy around the op
  bool has_bias = false;
  Epilogue epilogue;  // the bias and the fused ops

  int64_t taps() const { return kh * kw; }
  int64_t c1() const;                       // input channel groups of 16
  int64_t k_fractals() const { return c1g * taps(); }  // K of one group block
  int64_t n_blocks() const { return group_blocks * n1g; }  // Cout fractals the cube computes
  // Input rows under `out_rows` output rows, kernel halo included, clipped to the image.
  int64_t in_rows(int64_t out_rows) const;
  double flops() const;
  // Unpadded inputs, weights, output and addends, as the op stores them in GM.
  double gm_bytes() const;
  // The part of them kept in L2.
  double on_chip_bytes() const;
};

// A 1-D Conv or ConvTranspose (3-D input and weights) as CANN's Conv1D runs
// it: the 2-D op over maps of height 1, a 1 x k kernel; fused operands of the
// 3-D output gain the same axis.
sdk::OpTask lifted_to_2d(const sdk::OpTask& task);

// Throws unsupported for what the model does not cover (not a 1-D to 3-D conv, a
// dtype the cube lacks, a fused op not modelled), invalid_argument for a
// malformed task.
ConvProblem conv_problem(const sdk::OpTask& task, const Soc& soc);

enum class ConvSplit { batch, rows, cout };
enum class ConvImpl { cube, vector };

// One config, decoded. L0 sizes count 16 x 16 fractals; h_l1 counts output
// rows and c1_l1 channel groups of 16 per L1 load (per UB tile on the
// vector path, where db_l1 double-buffers UB).
struct ConvTiling {
  int64_t block_dim = 1;
  ConvSplit split = ConvSplit::rows;
  int64_t h_l1 = 1, c1_l1 = 1, m_l0 = 1, n_l0 = 1, k_l0 = 1;
  bool db_l1 = true, db_l0 = true;
  ConvImpl impl = ConvImpl::cube;
};

// Where a tiling's time goes: cycles of the busiest core, per stage.
struct ConvCost {
  ConvImpl impl = ConvImpl::cube;
  ConvFeed feed = ConvFeed::load3d;
  int64_t active = 0;     // cores that get work
  int64_t out_tiles = 0;  // L0C tiles (cube) or UB tiles (vector) on the busiest core
  int64_t l1_loads = 0;   // feature-map loads into L1 (cube)
  double gm_to_l1 = 0, l1_to_l0 = 0, cube = 0, write_back = 0;  // cube path
  double vector = 0;  // vector path: the tap loop and the epilogue
  double core_cycles = 0;
  double cast_us = 0;  // fp32 input cast to fp16 before the kernel
  double total_us = 0;
};

class ConvModel final : public ProblemModel<ConvProblem> {
 public:
  enum Knob : size_t { kBlockDim, kSplit, kHL1, kC1L1, kML0, kNL0, kKL0, kDbL1, kDbL0, kImpl };

  ConvModel(const Soc& soc, ConvProblem problem);

  sdk::Measurement check(const sdk::Config& config) const override;
  double time_us(const sdk::Config& config) const override;
  double roofline_us() const override;

  ConvTiling tiling(const sdk::Config& config) const;
  // Throws invalid_argument for a split this op does not offer.
  sdk::Config config(const ConvTiling& tiling) const;
  sdk::Measurement check(const ConvTiling& tiling) const;
  ConvCost cost(const ConvTiling& tiling) const;
  const ConvProblem& problem() const { return p_; }
  // The axes block_dim may split, in the order of the split knob's labels.
  const std::vector<ConvSplit>& splits() const { return splits_; }

 private:
  struct Geometry;
  Geometry geometry(const ConvTiling& t) const;
  int64_t blocks(ConvSplit split) const;
  sdk::TuningSpace make_space() const;
  ConvTiling default_tiling() const;
  ConvSplit default_split() const;
  int64_t batch_first_blocks() const;
  double write_back_cycles(int64_t rows, int64_t cols, int64_t active) const;
  ConvCost cube_cost(const ConvTiling& t) const;
  ConvCost vector_cost(const ConvTiling& t) const;
  double cast_us() const;

  std::vector<ConvSplit> splits_;
  double fmap_bytes_ = 0, weight_bytes_ = 0;  // as the cube reads them: NC1HWC0 and Fractal Z fp16
  bool operands_fit_l2_ = false;
};

}  // namespace aoe::sim
