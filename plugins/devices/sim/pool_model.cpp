#include "pool_model.h"

#include <algorithm>
#include <bit>

#include "aoe/sdk/data_layout.h"
#include "aoe/sdk/error.h"
#include "on_chip.h"
#include "vector_model.h"

namespace aoe::sim {
namespace {

using sdk::Error;
using sdk::StatusCode;

constexpr int64_t kMaxRowsPerTile = 4096;
// The longest kernel, stride or pad modelled along an axis: the tile's bytes
// (window x a plane's elements) then stay well inside int64.
constexpr int64_t kMaxWindow = int64_t{1} << 16;

}  // namespace

bool is_pool_op(const std::string& t) { return t == "MaxPool" || t == "AveragePool"; }

int64_t PoolProblem::c0() const { return block_elements(bytes); }

double PoolProblem::gm_bytes(bool padded_channels) const {
  const double ch = static_cast<double>(padded_channels ? align_up64(c, c0()) : c);
  return static_cast<double>(n) * ch * static_cast<double>(d * h * w + dout * ho * wo) * bytes;
}

PoolProblem pool_problem(const sdk::OpTask& task, const Soc& soc) {
  if (!is_pool_op(task.op_type))
    not_modelled(soc, task.op_type);
  require_unfused(task, soc);
  require_known_inputs(task.inputs, 1, task.op_type);
  const auto& s = task.inputs[0].shape;
  // A 1-D pool runs as CANN runs it, a 2-D one over rows of height 1.
  const bool one_d = s.size() == 3, three_d = s.size() == 5;
  if (s.size() != 4 && !one_d && !three_d)
    throw Error(StatusCode::unsupported, task.op_type + " is modelled on 3-D (N, C, L), 4-D (NCHW or NHWC) and 5-D " +
                                             "(NCDHW) input; " + std::to_string(s.size()) + "-D is not");
  PoolProblem p;
  const auto layout = sdk::data_layout(task.attrs, task.op_type);
  p.nhwc = layout == sdk::DataLayout::nhwc;
  if (three_d && p.nhwc) throw Error(StatusCode::unsupported, task.op_type + " is modelled on NCDHW, not channels last");
  if (one_d) {
    p.n = s[0], p.c = s[1], p.h = 1, p.w = s[2];
  } else if (three_d) {
    p.n = s[0], p.c = s[1], p.d = s[2], p.h = s[3], p.w = s[4];
  } else {
    const auto dims = sdk::nchw_dims(s, layout);
    p.n = dims[0], p.c = dims[1], p.h = dims[2], p.w = dims[3];
  }
  auto kernel = attr_ints(task.attrs, "kernel_shape", {});
  auto strides = attr_ints(task.attrs, "strides", std::vector<int64_t>(kernel.size(), 1));
  auto pads = attr_ints(task.attrs, "pads", std::vector<int64_t>(2 * kernel.size(), 0));
  for (const auto* list : {&kernel, &strides, &pads})
    for (const int64_t v : *list) {
      if (v < 0) malformed(task, "has a negative kernel_shape, stride or pad, " + std::to_string(v));
      if (v > kMaxWindow)
        throw Error(StatusCode::unsupported, soc.target + " simulator models pool windows, strides and pads up to " +
                                                 std::to_string(kMaxWindow) + "; '" + task.name + "' has " + std::to_string(v));
    }
  if (one_d && kernel.size() == 1 && strides.size() == 1 && pads.size() == 2) {
    kernel = {1, kernel[0]};
    strides = {1, strides[0]};
    pads = {0, pads[0], 0, pads[1]};
  }
  // Depth apart: the 2-D pool of each output slice's rows and columns.
  if (three_d) {
    if (kernel.size() != 3 || strides.size() != 3 || pads.size() != 6)
      throw Error(StatusCode::invalid_argument, task.op_type + " on 5-D input needs 3 kernel_shape, 3 strides and 6 pads");
    p.kd = kernel[0];
    const int64_t sd = strides[0];
    if (p.kd < 1 || sd < 1) throw Error(StatusCode::invalid_argument, task.op_type + " needs positive kernel_shape and strides");
    p.dout = (p.d + pads[0] + pads[3] - p.kd) / sd + 1;
    if (p.dout < 1) throw Error(StatusCode::invalid_argument, task.op_type + " kernel is larger than its input");
    kernel = {kernel[1], kernel[2]};
    strides = {strides[1], strides[2]};
    pads = {pads[1], pads[2], pads[4], pads[5]};
  }
  if (kernel.size() != 2) throw Error(StatusCode::invalid_argument, task.op_type + " needs a 2-D kernel_shape");
  if (strides.size() != 2 || pads.size() != 4)
    throw Error(StatusCode::invalid_argument, task.op_type + " needs 2 strides and 4 pads");
  p.kh = kernel[0], p.kw = kernel[1], p.sh = strides[0], p.sw = strides[1];
  if (p.kh < 1 || p.kw < 1 || p.sh < 1 || p.sw < 1)
    throw Error(StatusCode::invalid_argument, task.op_type + " needs positive kernel_shape and strides");
  p.ho = (p.h + pads[0] + pads[2] - p.kh) / p.sh + 1;
  p.wo = (p.w + pads[1] + pads[3] - p.kw) / p.sw + 1;
  if (p.ho < 1 || p.wo < 1) throw Error(StatusCode::invalid_argument, task.op_type + " kernel is larger than its input");
  p.bytes = sdk::dtype_bytes(task.inputs[0].dtype);
  if (p.bytes == 0) throw Error(StatusCode::invalid_argument, task.op_type + " has an input of undefined dtype");
  p.average = task.op_type == "AveragePool";
  return with_stream_on_chip(task, p);
}

PoolModel::PoolModel(const Soc& soc, PoolProblem problem) : ProblemModel(soc, std::move(problem)) {
  start_space(kKnobCount, kBlockDim);
  const auto top = static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(p_.n * p_.c * p_.dout * p_.ho)));
  space_.knobs[kUbFactor] = sdk::Knob::power_of_two("ub_factor", sdk::KnobTag::schedule, 1, std::min(top, kMaxRowsPerTile));
  space_.knobs[kDb] = db_knob();
  space_.knobs[kFormat] = sdk::Knob::categorical("format", sdk::KnobTag::format, {"ND", "NC1HWC0"});
  space_.default_config = default_config();
  require_default_fits(soc_, "this pool", check(space_.default_config));
}

// ub_factor counts output rows; past one plane's Ho a tile takes whole planes.
PoolModel::Tiling PoolModel::tiling(const sdk::Config& c) const {
  Tiling t;
  const bool fractal = c[kFormat] == kNc1hwc0;
  // NC1HWC0 puts C0 channels, NHWC (ND) all of them, beside each position; NCHW (ND) one.
  t.lanes = fractal ? p_.c0() : p_.nhwc ? p_.c : 1;
  t.planes = p_.n * p_.dout * (fractal ? ceil_div64(p_.c, p_.c0()) : p_.nhwc ? 1 : p_.c);
  t.rows = std::min(c[kUbFactor], p_.ho);
  t.planes_per_tile = std::min(t.planes, std::max<int64_t>(1, c[kUbFactor] / p_.ho));
  t.tiles = ceil_div64(t.planes, t.planes_per_tile) * ceil_div64(p_.ho, t.rows);
  return t;
}

// Input rows under the tile (kernel halo included, in each of the kd
// slices) and its output rows, each 32 B-aligned, twice with db;
// AveragePool adds an fp32 sum.
int64_t PoolModel::ub_bytes(const Tiling& t, bool db) const {
  const int64_t in_rows = std::min(p_.h, (t.rows - 1) * p_.sh + p_.kh);
  const int64_t in = t.planes_per_tile * align_up64(p_.kd * in_rows * p_.w * t.lanes * p_.bytes, kUbAlignBytes);
  const int64_t out = t.planes_per_tile * align_up64(t.rows * p_.wo * t.lanes * p_.bytes, kUbAlignBytes);
  const int64_t sum = p_.average ? t.planes_per_tile * align_up64(t.rows * p_.wo * t.lanes * 4, kUbAlignBytes) : 0;
  return (in + out) * (db ? 2 : 1) + sum;
}

// CANN pools in NC1HWC0 (ND when that cannot fit a row): db on, the most
// rows that fit while every core still gets a tile.
sdk::Config PoolModel::default_config() const {
  sdk::Config c{1, 1, 1, kNc1hwc0};
  // A row too wide for UB in NC1HWC0 may still fit as ND.
  if (ub_bytes(tiling(c), true) > soc_.ub_bytes) c[kFormat] = kNd;
  c[kUbFactor] = largest_fitting(space_.knobs[kUbFactor], [&](int64_t f) {
    auto t = c;
    t[kUbFactor] = f;
    return ub_bytes(tiling(t), true) <= soc_.ub_bytes;
  });
  // Smaller tiles until there is one per core, where the op has that many.
  while (c[kUbFactor] > 1 && tiling(c).tiles < soc_.ai_cores) c[kUbFactor] /= 2;
  c[kBlockDim] = std::min<int64_t>(soc_.ai_cores, tiling(c).tiles);
  return c;
}

sdk::Measurement PoolModel::check(const sdk::Config& c) const {
  if (!space_.in_domain(c)) return refuse("a value lies outside its knob's domain");
  const auto t = tiling(c);
  const bool db = c[kDb] != 0;
  const int64_t need = ub_bytes(t, db);
  if (need > soc_.ub_bytes)
    return ub_overflow(std::to_string(t.rows) + " output rows with their input rows" + (db ? ", double-buffered," : ""),
                       need, soc_.ub_bytes);
  if (c[kBlockDim] > t.tiles) return too_many_cores(c[kBlockDim], t.tiles, "tiles of output rows");
  return {};
}

double PoolModel::time_us(const sdk::Config& c) const {
  const auto t = tiling(c);
  const int64_t active = c[kBlockDim];
  const int64_t in_rows = std::min(p_.h, (t.rows - 1) * p_.sh + p_.kh);
  const double planes = static_cast<double>(t.planes_per_tile);
  TileStages s;
  const double in = planes * static_cast<double>(p_.kd * in_rows * p_.w * t.lanes * p_.bytes);
  const double out = planes * static_cast<double>(t.rows * p_.wo * t.lanes * p_.bytes);
  s.in = gm_to_ub_cycles(soc_, in, active, p_.in_on_chip ? in : 0);
  s.out = ub_to_gm_cycles(soc_, out, active, p_.out_on_chip ? out : 0);
  if (p_.in_on_chip || p_.out_on_chip)
    s.hbm = hbm_share_cycles(soc_, (p_.in_on_chip ? 0 : in) + (p_.out_on_chip ? 0 : out), active);
  else
    s.hbm = hbm_share_cycles(soc_, in + out, active);
  const int64_t taps = p_.kd * p_.kh * p_.kw;
  if (c[kFormat] == kNc1hwc0 || p_.nhwc) {
    // One instruction per tap: block strides step over the kernel stride (channels last, over every channel).
    s.vec = static_cast<double>(taps) *
            vector_cycles(soc_, VecClass::simple, t.planes_per_tile * t.rows * p_.wo * t.lanes, p_.bytes);
  } else {
    // One instruction per tap and output row, its lanes spanning the strided input row.
    s.vec = planes * static_cast<double>(t.rows * taps) * vector_cycles(soc_, VecClass::simple, p_.wo * p_.sw, p_.bytes);
  }
  if (p_.average) s.vec += vector_cycles(soc_, VecClass::simple, t.planes_per_tile * t.rows * p_.wo * t.lanes, 4);
  return kernel_us(soc_, pipeline_cycles(soc_, s, ceil_div64(t.tiles, active), c[kDb] != 0), roofline_us(), c[kBlockDim]);
}

// Unpadded bytes, fully vectorised taps.
double PoolModel::roofline_us() const {
  const int64_t out = p_.n * p_.c * p_.dout * p_.ho * p_.wo;
  const double on_chip = static_cast<double>(p_.n * p_.c * p_.bytes) *
                         static_cast<double>((p_.in_on_chip ? p_.d * p_.h * p_.w : 0) + (p_.out_on_chip ? p_.dout * p_.ho * p_.wo : 0));
  return vector_roofline_us(soc_, p_.gm_bytes(false),
                            static_cast<double>(p_.kd * p_.kh * p_.kw) * vector_cycles(soc_, VecClass::simple, out, p_.bytes), on_chip);
}

}  // namespace aoe::sim
