// MaxPool and AveragePool on NCHW: each tile is a run of output rows; the
// Format knob picks plain ND rows or NC1HWC0, whose 32 B channel blocks fill
// the vector lanes whatever W is, at the price of padding C to C0. A 3-D
// pool runs as CANN's MaxPool3D and AvgPool3D: each output depth slice a
// 2-D pool over the kd input slices under it (planes N x C x Do, kd x kh x
// kw taps).
#pragma once

#include <cstdint>
#include <string>

#include "aoe/sdk/op_task.h"
#include "op_model.h"
#include "soc.h"

namespace aoe::sim {

struct PoolProblem {
  int64_t n = 1, c = 1, h = 1, w = 1;  // in NCHW order whatever the layout
  bool nhwc = false;  // channels last: an ND tile holds every channel of its positions
  int64_t kh = 1, kw = 1, sh = 1, sw = 1;
  int64_t ho = 1, wo = 1;
  int64_t d = 1, kd = 1, dout = 1;  // a 3-D pool's depth, its window and the output's
  int bytes = 2;
  bool average = false;
  bool in_on_chip = false, out_on_chip = false;  // kept in L2 by the strategy around the op

  int64_t c0() const;  // channels per 32 B block
  double gm_bytes(bool padded_channels) const;
};

PoolProblem pool_problem(const sdk::OpTask& task, const Soc& soc);
bool is_pool_op(const std::string& op_type);

class PoolModel final : public ProblemModel<PoolProblem> {
 public:
  enum Knob : size_t { kBlockDim, kUbFactor, kDb, kFormat, kKnobCount };
  enum Format : int64_t { kNd = 0, kNc1hwc0 = 1 };

  PoolModel(const Soc& soc, PoolProblem problem);

  sdk::Measurement check(const sdk::Config& config) const override;
  double time_us(const sdk::Config& config) const override;
  double roofline_us() const override;

 private:
  struct Tiling {
    int64_t planes = 0;           // N*C (ND) or N*C1 planes, times Do
    int64_t lanes = 1;            // channels side by side: 1 or C0
    int64_t rows = 0;             // output rows per tile
    int64_t planes_per_tile = 0;
    int64_t tiles = 0;
  };
  Tiling tiling(const sdk::Config& c) const;
  int64_t ub_bytes(const Tiling& t, bool db) const;
  sdk::Config default_config() const;

};

}  // namespace aoe::sim
