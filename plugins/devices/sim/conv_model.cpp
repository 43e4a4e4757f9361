#include "conv_model.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <string>
#include <tuple>

#include "aoe/sdk/data_layout.h"
#include "aoe/sdk/error.h"
#include "cube_fractal.h"
#include "on_chip.h"
#include "vector_model.h"

namespace aoe::sim {
namespace {

// One image's output positions up to which the batch takes the cores first.
constexpr int64_t kBatchFirstPositions = 28 * 28;

using sdk::DType;
using sdk::Error;
using sdk::StatusCode;

// fp16 feature maps are NC1HWC0 with C0 = 16: one output position of one
// channel group is 32 B.
constexpr int64_t kPositionBytes = kC0 * 2;

// Upper end of the h_l1 knob: 128 output rows per L1 load exceed L1 for any real layer.
constexpr int64_t kMaxHL1 = 128;

int64_t pow2_cover(int64_t n) { return static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(std::max<int64_t>(n, 1)))); }
// A tile more than twice what it covers computes what a smaller one does:
// such configs are refused so that each valid config is a distinct kernel.
bool oversized(int64_t tile, int64_t need) { return tile > 1 && tile / 2 >= need; }

const char* split_label(ConvSplit s) {
  switch (s) {
    case ConvSplit::batch: return "batch";
    case ConvSplit::rows: return "rows";
    case ConvSplit::cout: return "cout";
  }
  return "rows";
}

std::string attr_string(const nlohmann::json& attrs, const char* key, const std::string& fallback) {
  if (!attrs.contains(key)) return fallback;
  const auto& v = attrs.at(key);
  if (!v.is_string()) throw Error(StatusCode::invalid_argument, std::string("Conv attribute '") + key + "' must be a string");
  return v.get<std::string>();
}

// Output size and pads of one spatial axis, ONNX semantics.
struct Axis {
  int64_t out = 0, pad_begin = 0, pad_end = 0;
};
Axis conv_axis(int64_t in, int64_t k, int64_t stride, int64_t dilation, int64_t pad_begin, int64_t pad_end,
               const std::string& auto_pad) {
  const int64_t span = (k - 1) * dilation + 1;
  Axis a{0, pad_begin, pad_end};
  if (auto_pad == "VALID") {
    a.pad_begin = a.pad_end = 0;
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    const int64_t out = ceil_div64(in, stride);
    const int64_t total = std::max<int64_t>(0, (out - 1) * stride + span - in);
    a.pad_begin = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    a.pad_end = total - a.pad_begin;
  } else if (auto_pad != "NOTSET") {
    throw Error(StatusCode::invalid_argument, "Conv auto_pad '" + auto_pad + "' is not an ONNX value");
  }
  a.out = (in + a.pad_begin + a.pad_end - span) / stride + 1;
  return a;
}

// The bias comes first, then each binary fused op's other operand in order;
// a binary op the task gives no operand for reads a per-channel row.
Epilogue epilogue_of(const sdk::OpTask& task, const ConvProblem& p, const Soc& soc) {
  const auto on_chip = OnChip::of(task);
  Epilogue e;
  size_t next_input = 2;
  if (p.has_bias) {
    add_fused_op(e, "Add", &task.inputs[2], soc.target);
    e.addends.back().on_chip = on_chip.input(2);
    next_input = 3;
  }
  const sdk::TensorDesc channel_row{"", {p.cout}, p.out_dtype, "ND", false};
  add_fused_chain(e, task, next_input, channel_row, on_chip, soc.target);
  return e;
}

// TBE's group conv merges `enlarge` groups into one block-diagonal weight
// block so that each block fills whole C0 channel groups on both sides
// (conv2d's group handling: enlarge = min(lcm(cin_g, 16) / cin_g,
// lcm(cout_g, 16) / cout_g, groups)) [M].
void merge_groups(ConvProblem& p) {
  const int64_t cin_g = p.c / p.group, cout_g = p.cout / p.group;
  p.enlarge = std::min({std::lcm(cin_g, kC0) / cin_g, std::lcm(cout_g, kC0) / cout_g, p.group});
  p.group_blocks = ceil_div64(p.group, p.enlarge);
  p.c1g = fractals(cin_g * p.enlarge);
  p.n1g = fractals(cout_g * p.enlarge);
}

}  // namespace

int64_t ConvProblem::c1() const { return fractals(c); }

int64_t ConvProblem::in_rows(int64_t out_rows) const {
  if (feed == ConvFeed::load2d) return out_rows;
  return std::min(h, (out_rows - 1) * sh + (kh - 1) * dh + 1);
}

double ConvProblem::flops() const {
  return 2.0 * static_cast<double>(n) * static_cast<double>(cout) * static_cast<double>(ho * wo) *
         static_cast<double>(c / group) * static_cast<double>(taps());
}

double ConvProblem::gm_bytes() const {
  const double x = static_cast<double>(n * c * h * w) * sdk::dtype_bytes(x_dtype);
  const double wt = static_cast<double>(cout * (c / group) * taps()) * sdk::dtype_bytes(w_dtype);
  const double out = static_cast<double>(n * cout * ho * wo) * sdk::dtype_bytes(out_dtype);
  return x + wt + out + epilogue.addend_bytes_total();
}

double ConvProblem::on_chip_bytes() const {
  return (x_on_chip ? static_cast<double>(n * c * h * w) * sdk::dtype_bytes(x_dtype) : 0) +
         (w_on_chip ? static_cast<double>(cout * (c / group) * taps()) * sdk::dtype_bytes(w_dtype) : 0) +
         (out_on_chip ? static_cast<double>(n * cout * ho * wo) * sdk::dtype_bytes(out_dtype) : 0) +
         epilogue.addend_bytes_total(true);
}

namespace {

// A 3-D convolution as CANN's Conv3D runs it on the cube: each output depth is
// a 2-D convolution over the kd input slices under it. So the 2-D problem whose
// images are N x Do and whose channels are C x kd: the same products, and each
// output depth's slices read as its own (NDC1HWC0, no reuse across depths).
// Fused operands of the 5-D output fold the same way: [a, b, c, d, e] -> [a c, b, d, e].
sdk::OpTask folded_3d(const sdk::OpTask& task) {
  const auto& x = task.inputs[0].shape;
  const auto& wt = task.inputs[1].shape;
  const auto three = [&](const char* name, std::vector<int64_t> fallback) {
    const auto v = attr_ints(task.attrs, name, fallback);
    if (v.size() != fallback.size())
      throw Error(StatusCode::invalid_argument, "3-D Conv '" + task.name + "' has " + std::to_string(v.size()) + " " +
                                                    name + "; it takes " + std::to_string(fallback.size()));
    return v;
  };
  const auto strides = three("strides", {1, 1, 1}), dilations = three("dilations", {1, 1, 1});
  const auto pads = three("pads", {0, 0, 0, 0, 0, 0});
  const auto kernel = three("kernel_shape", {wt[2], wt[3], wt[4]});
  if (kernel[0] != wt[2] || kernel[1] != wt[3] || kernel[2] != wt[4])
    throw Error(StatusCode::invalid_argument, "Conv kernel_shape disagrees with its weights");
  if (strides[0] < 1 || dilations[0] < 1 || pads[0] < 0 || pads[3] < 0)
    throw Error(StatusCode::invalid_argument, "Conv needs positive strides and dilations and pads >= 0");
  const Axis depth = conv_axis(x[2], wt[2], strides[0], dilations[0], pads[0], pads[3],
                               attr_string(task.attrs, "auto_pad", "NOTSET"));
  if (depth.out < 1) throw Error(StatusCode::invalid_argument, "Conv kernel is larger than its padded input");
  sdk::OpTask t = task;
  t.inputs[0].shape = {x[0] * depth.out, x[1] * wt[2], x[3], x[4]};
  t.inputs[1].shape = {wt[0], wt[1] * wt[2], wt[3], wt[4]};
  const auto fold = [](std::vector<int64_t>& s) {
    if (s.size() == 5) s = {s[0] * s[2], s[1], s[3], s[4]};
  };
  for (size_t i = 2; i < t.inputs.size(); ++i) fold(t.inputs[i].shape);
  for (auto& o : t.outputs) fold(o.shape);
  t.attrs["strides"] = {strides[1], strides[2]};
  t.attrs["dilations"] = {dilations[1], dilations[2]};
  t.attrs["pads"] = {pads[1], pads[2], pads[4], pads[5]};
  t.attrs["kernel_shape"] = {kernel[1], kernel[2]};
  return t;
}

}  // namespace

// Each per-axis attribute gains the height axis (1, or pads and padding 0);
// absent ones stay absent, so the 2-D defaults apply.
sdk::OpTask lifted_to_2d(const sdk::OpTask& task) {
  sdk::OpTask t = task;
  const auto lift = [](std::vector<int64_t>& s) {
    if (s.size() == 3) s.insert(s.begin() + 2, 1);
  };
  for (auto& in : t.inputs) lift(in.shape);
  for (auto& o : t.outputs) lift(o.shape);
  for (const auto& [name, height] : {std::pair<const char*, int64_t>{"strides", 1}, {"dilations", 1}, {"kernel_shape", 1},
                                     {"output_shape", 1}, {"output_padding", 0}})
    if (t.attrs.contains(name)) {
      auto v = attr_ints(t.attrs, name, {});
      v.insert(v.begin(), height);
      t.attrs[name] = v;
    }
  if (t.attrs.contains("pads")) {
    const auto pads = attr_ints(t.attrs, "pads", {});
    if (pads.size() != 2)
      throw Error(StatusCode::invalid_argument, "1-D " + task.op_type + " '" + task.name + "' has " +
                                                    std::to_string(pads.size()) + " pads; it takes 2");
    t.attrs["pads"] = {0, pads[0], 0, pads[1]};
  }
  return t;
}

ConvProblem conv_problem(const sdk::OpTask& task, const Soc& soc) {
  if (task.op_type != "Conv")
    not_modelled(soc, task.op_type);
  require_known_inputs(task.inputs, 2, "Conv");
  if (task.inputs[0].shape.size() == 5 && task.inputs[1].shape.size() == 5) return conv_problem(folded_3d(task), soc);
  if (task.inputs[0].shape.size() == 3 && task.inputs[1].shape.size() == 3) return conv_problem(lifted_to_2d(task), soc);
  const auto& x = task.inputs[0].shape;
  const auto& wt = task.inputs[1].shape;
  if (x.size() != 4 || wt.size() != 4)
    throw Error(StatusCode::unsupported, soc.target + " simulator models Conv as a 1-D, 2-D or 3-D convolution only (3-D NCL " +
                                             "input and OIL weights, 4-D NCHW or NHWC and OIHW, or 5-D NCDHW and OIDHW); '" +
                                             task.name + "' has a " +
                                             std::to_string(x.size()) + "-D input and " + std::to_string(wt.size()) +
                                             "-D weights");
  ConvProblem p;
  // The cube reads NC1HWC0 whichever layout the model gives: CANN's graph
  // converts NCHW and NHWC feature maps alike (TransData), outside the kernel.
  p.layout = sdk::data_layout(task.attrs, "Conv");
  const auto dims = sdk::nchw_dims(x, p.layout);
  p.n = dims[0], p.c = dims[1], p.h = dims[2], p.w = dims[3];
  p.cout = wt[0];
  p.kh = wt[2], p.kw = wt[3];
  p.x_dtype = task.inputs[0].dtype;
  p.w_dtype = task.inputs[1].dtype;
  require_cube_dtype(p.x_dtype, "Conv", soc);
  require_cube_dtype(p.w_dtype, "Conv", soc);
  p.x_constant = task.inputs[0].constant;
  p.w_constant = task.inputs[1].constant;
  const bool any_f32 = p.x_dtype == DType::f32 || p.w_dtype == DType::f32;
  p.out_dtype = task.outputs.empty() ? (any_f32 ? DType::f32 : DType::f16) : task.outputs[0].dtype;
  require_cube_dtype(p.out_dtype, "Conv", soc, true);

  const auto kernel = attr_ints(task.attrs, "kernel_shape", {p.kh, p.kw});
  if (kernel.size() != 2)
    throw Error(StatusCode::unsupported, soc.target + " simulator models 2-D Conv only; kernel_shape has " +
                                             std::to_string(kernel.size()) + " dims");
  if (kernel[0] != p.kh || kernel[1] != p.kw)
    throw Error(StatusCode::invalid_argument, "Conv kernel_shape disagrees with its weights");
  const auto strides = attr_ints(task.attrs, "strides", {1, 1});
  const auto dilations = attr_ints(task.attrs, "dilations", {1, 1});
  const auto pads = attr_ints(task.attrs, "pads", {0, 0, 0, 0});
  if (strides.size() != 2 || dilations.size() != 2 || pads.size() != 4)
    throw Error(StatusCode::invalid_argument, "a 2-D Conv takes 2 strides, 2 dilations and 4 pads");
  p.sh = strides[0], p.sw = strides[1], p.dh = dilations[0], p.dw = dilations[1];
  if (std::min({p.sh, p.sw, p.dh, p.dw}) < 1 || *std::min_element(pads.begin(), pads.end()) < 0)
    throw Error(StatusCode::invalid_argument, "Conv needs positive strides and dilations and pads >= 0");
  p.group = attr_int(task.attrs, "group", 1);
  if (p.group < 1 || p.c % p.group != 0 || p.cout % p.group != 0 || wt[1] * p.group != p.c)
    throw Error(StatusCode::invalid_argument, "Conv group " + std::to_string(p.group) + " does not divide " +
                                                  std::to_string(p.c) + " input channels into weights of " +
                                                  std::to_string(wt[1]) + " and " + std::to_string(p.cout) + " outputs");

  const auto auto_pad = attr_string(task.attrs, "auto_pad", "NOTSET");
  const Axis rows = conv_axis(p.h, p.kh, p.sh, p.dh, pads[0], pads[2], auto_pad);
  const Axis cols = conv_axis(p.w, p.kw, p.sw, p.dw, pads[1], pads[3], auto_pad);
  if (rows.out < 1 || cols.out < 1)
    throw Error(StatusCode::invalid_argument, "Conv kernel is larger than its padded input");
  p.ho = rows.out, p.wo = cols.out;
  p.pad_top = rows.pad_begin, p.pad_bottom = rows.pad_end, p.pad_left = cols.pad_begin, p.pad_right = cols.pad_end;

  merge_groups(p);
  p.depthwise = p.group > 1 && p.group == p.c;
  p.vector_capable = p.depthwise && p.cout == p.c;
  const bool no_pads = p.pad_top == 0 && p.pad_left == 0 && p.pad_bottom == 0 && p.pad_right == 0;
  // CANN's isLoad2dFlag: the fmap in L1 is already A's fractal layout.
  p.feed = p.kh == 1 && p.kw == 1 && p.sh == 1 && p.sw == 1 && no_pads && p.group == 1 ? ConvFeed::load2d
                                                                                          : ConvFeed::load3d;
  p.images = p.feed == ConvFeed::load2d ? 1 : p.n;
  p.rows = p.feed == ConvFeed::load2d ? p.n * p.ho : p.ho;

  p.has_bias = task.inputs.size() > 2 && task.inputs[2].shape.size() == 1;
  if (p.has_bias && task.inputs[2].shape[0] != p.cout)
    throw Error(StatusCode::invalid_argument, "Conv bias has " + std::to_string(task.inputs[2].shape[0]) +
                                                  " values for " + std::to_string(p.cout) + " output channels");
  p.epilogue = epilogue_of(task, p, soc);
  const auto on_chip = OnChip::of(task);
  p.x_on_chip = on_chip.input(0);
  p.w_on_chip = on_chip.input(1);
  p.out_on_chip = on_chip.output(0);
  return p;
}

// One tiling's tiles on the busiest core.
struct ConvModel::Geometry {
  int64_t blocks = 0, active = 0;  // along the split axis
  int64_t images = 0, rows = 0;    // per core: images, output rows of each
  int64_t h = 0, row_tiles = 0;    // output rows per L1 (UB) tile, tiles per image
  int64_t m_rows = 0;              // output positions of one tile
  int64_t in_rows = 0;             // input rows under one tile
  // Cube: Cout fractals a core computes per group block, its group blocks and N tiles.
  int64_t n_cap = 0, groups = 0, n_frac = 0, n_tiles = 0;
  int64_t c1 = 0, k_slices = 0, k_l1 = 0, k0 = 0, k0_steps = 0;
  bool full_k = false;
  int64_t m_frac = 0, m_steps = 0;
  // Vector: channel groups on the core and UB tiles of them.
  int64_t c1_core = 0, c1_tiles = 0;
};

ConvModel::ConvModel(const Soc& soc, ConvProblem problem) : ProblemModel(soc, std::move(problem)) {
  if (p_.images > 1) splits_.push_back(ConvSplit::batch);
  if (p_.rows > 1) splits_.push_back(ConvSplit::rows);
  if (p_.n_blocks() > 1) splits_.push_back(ConvSplit::cout);
  if (splits_.empty()) splits_.push_back(ConvSplit::rows);
  // Panels read again by other cores or later tiles come from L2 when the
  // whole op fits there.
  fmap_bytes_ = static_cast<double>(p_.n * p_.c1() * p_.h * p_.w * kPositionBytes);
  weight_bytes_ = static_cast<double>(p_.group_blocks * p_.k_fractals() * p_.n1g * kFractalBytes);
  const double out = static_cast<double>(p_.n * fractals(p_.cout) * kC0 * p_.ho * p_.wo) * sdk::dtype_bytes(p_.out_dtype);
  operands_fit_l2_ = fmap_bytes_ + weight_bytes_ + out <= static_cast<double>(soc_.l2_bytes);
  space_ = make_space();
  space_.default_config = config(default_tiling());
}

int64_t ConvModel::blocks(ConvSplit split) const {
  switch (split) {
    case ConvSplit::batch: return p_.images;
    case ConvSplit::rows: return p_.rows;
    case ConvSplit::cout: return p_.n_blocks();
  }
  return 1;
}

sdk::TuningSpace ConvModel::make_space() const {
  using sdk::Knob;
  using sdk::KnobTag;
  sdk::TuningSpace s;
  s.version = "1";
  std::vector<std::string> split_labels;
  for (auto split : splits_) split_labels.emplace_back(split_label(split));
  const int64_t h_top = std::min(kMaxHL1, pow2_cover(p_.rows));
  const int64_t c1_top = pow2_cover(p_.vector_capable ? p_.c1() : p_.c1g);
  const int64_t m_top = std::min(kMaxL0, pow2_cover(fractals(std::min(p_.rows, h_top) * p_.wo)));
  s.knobs = {
      Knob::integer("block_dim", KnobTag::schedule, 1, soc_.ai_cores),
      Knob::categorical("split", KnobTag::schedule, split_labels),
      Knob::power_of_two("h_l1", KnobTag::schedule, 1, h_top),
      Knob::power_of_two("c1_l1", KnobTag::schedule, 1, c1_top),
      Knob::power_of_two("m_l0", KnobTag::schedule, 1, m_top),
      Knob::power_of_two("n_l0", KnobTag::schedule, 1, std::min(kMaxL0, pow2_cover(p_.n1g))),
      Knob::power_of_two("k_l0", KnobTag::schedule, 1, std::min(kMaxL0, pow2_cover(p_.k_fractals()))),
      Knob::categorical("db_l1", KnobTag::schedule, {"off", "on"}),
      Knob::categorical("db_l0", KnobTag::schedule, {"off", "on"}),
  };
  if (p_.vector_capable) s.knobs.push_back(Knob::categorical("impl", KnobTag::impl, {"cube", "vector"}));
  return s;
}

ConvTiling ConvModel::tiling(const sdk::Config& c) const {
  ConvTiling t;
  t.block_dim = c[kBlockDim];
  t.split = splits_.at(static_cast<size_t>(c[kSplit]));
  t.h_l1 = c[kHL1], t.c1_l1 = c[kC1L1], t.m_l0 = c[kML0], t.n_l0 = c[kNL0], t.k_l0 = c[kKL0];
  t.db_l1 = c[kDbL1] != 0, t.db_l0 = c[kDbL0] != 0;
  t.impl = c.size() > kImpl && c[kImpl] == 1 ? ConvImpl::vector : ConvImpl::cube;
  return t;
}

sdk::Config ConvModel::config(const ConvTiling& t) const {
  const auto at = std::find(splits_.begin(), splits_.end(), t.split);
  if (at == splits_.end())
    throw Error(StatusCode::invalid_argument, std::string("this Conv offers no split over ") + split_label(t.split));
  sdk::Config c{t.block_dim, at - splits_.begin(), t.h_l1, t.c1_l1, t.m_l0, t.n_l0, t.k_l0, t.db_l1 ? 1 : 0,
                t.db_l0 ? 1 : 0};
  if (p_.vector_capable) c.push_back(t.impl == ConvImpl::vector ? 1 : 0);
  return c;
}

ConvModel::Geometry ConvModel::geometry(const ConvTiling& t) const {
  Geometry g;
  g.blocks = blocks(t.split);
  g.active = std::max<int64_t>(1, std::min(t.block_dim, g.blocks));
  g.images = t.split == ConvSplit::batch ? ceil_div64(p_.images, g.active) : p_.images;
  g.rows = t.split == ConvSplit::rows ? ceil_div64(p_.rows, g.active) : p_.rows;
  g.h = std::min(t.h_l1, g.rows);
  g.row_tiles = ceil_div64(g.rows, g.h);
  g.m_rows = g.h * p_.wo;
  g.in_rows = p_.in_rows(g.h);

  // A core's share of Cout fractals spans whole group blocks or part of one.
  const int64_t n_core = t.split == ConvSplit::cout ? ceil_div64(p_.n_blocks(), g.active) : p_.n_blocks();
  g.groups = n_core >= p_.n1g ? ceil_div64(n_core, p_.n1g) : 1;
  g.n_cap = std::min(n_core, p_.n1g);
  g.n_frac = std::min(t.n_l0, g.n_cap);
  g.n_tiles = g.groups * ceil_div64(g.n_cap, g.n_frac);

  g.c1 = std::min(t.c1_l1, p_.c1g);
  g.full_k = g.c1 >= p_.c1g;
  g.k_slices = ceil_div64(p_.c1g, g.c1);
  g.k_l1 = g.c1 * p_.taps();
  g.k0 = std::min(t.k_l0, g.k_l1);
  const int64_t tail = p_.c1g % g.c1;
  g.k0_steps = (p_.c1g / g.c1) * ceil_div64(g.k_l1, g.k0) + (tail ? ceil_div64(tail * p_.taps(), g.k0) : 0);
  g.m_frac = std::min(t.m_l0, fractals(g.m_rows));
  g.m_steps = ceil_div64(g.m_rows, g.m_frac * kC0);

  g.c1_core = t.split == ConvSplit::cout ? ceil_div64(p_.c1(), g.active) : p_.c1();
  g.c1_tiles = ceil_div64(g.c1_core, std::min(t.c1_l1, g.c1_core));
  return g;
}

// CANN's GetBlockDimTiling estimate [S7 conv2d_fast_tiling]: per-core
// sizes after a split, stages added, the split with the least estimate.
// Halo rows are charged by iOverlap = (kh - 1)(mDim - 1) / H.
ConvSplit ConvModel::default_split() const {
  const double out = static_cast<double>(p_.images * p_.rows * p_.wo * p_.n_blocks() * kC0);
  const double macs = out * static_cast<double>(p_.k_fractals() * kC0);
  const double cube_macs = static_cast<double>(soc_.cube_m * soc_.cube_k * soc_.cube_n);
  ConvSplit best = splits_.front();
  double best_estimate = 0;
  for (auto split : splits_) {
    const auto d = static_cast<double>(std::min<int64_t>(soc_.ai_cores, blocks(split)));
    const double m_dim = split == ConvSplit::rows ? d : 1, n_dim = split == ConvSplit::cout ? d : 1;
    const double batch_dim = split == ConvSplit::batch ? d : 1;
    const double overlap = static_cast<double>(p_.kh - 1) * (m_dim - 1) / static_cast<double>(p_.h);
    const double in_core = fmap_bytes_ / (batch_dim * m_dim) * (1 + overlap);
    const double w_core = weight_bytes_ / n_dim;
    const double out_core = out * 2 / d;
    const double compute = macs / d / cube_macs;
    const double mte2 = (in_core + w_core) / soc_.gm_to_l1_rate;
    const double expansion = static_cast<double>(p_.taps()) / static_cast<double>(p_.sh * p_.sw);
    const double mte1 = in_core * expansion / soc_.l1_to_l0a_rate + w_core / soc_.l1_to_l0b_rate +
                        out_core * 2 / soc_.l0c_to_ub_rate;
    const double mte3 = out_core / soc_.ub_to_gm_rate;
    const double estimate = compute + mte1 + mte2 + mte3;
    if (split == splits_.front() || estimate < best_estimate) {
      best = split;
      best_estimate = estimate;
    }
  }
  return best;
}

// The blocks a batch-first split takes, or 0 where the split estimate decides.
int64_t ConvModel::batch_first_blocks() const {
  if (p_.n < 2 || p_.ho * p_.wo > kBatchFirstPositions) return 0;
  const auto split = p_.images > 1 ? ConvSplit::batch : ConvSplit::rows;
  if (std::find(splits_.begin(), splits_.end(), split) == splits_.end()) return 0;
  if (split == ConvSplit::rows && p_.rows != p_.n * p_.ho) return 0;
  int64_t d = std::min<int64_t>(p_.n, soc_.ai_cores);
  while (p_.n % d != 0) --d;
  return d;
}

// After CANN's conv tiling: the split its estimate picks on as many cores
// as that axis's shares need, double buffering everywhere, all of K in L1 (the
// AL1 full load) with as many output rows as fit, then the largest L0C tile
// (wider N first, so A is re-read less) and the deepest k_l0 beside it.
ConvTiling ConvModel::default_tiling() const {
  ConvTiling t;
  t.split = default_split();
  // A core's share of the split axis rounded up, then as many cores as
  // those shares need: 32 images on 30 cores run 2 each on 16.
  const int64_t units = blocks(t.split);
  t.block_dim = ceil_div64(units, ceil_div64(units, std::min<int64_t>(soc_.ai_cores, units)));
  // The batch claims the cores first where one image's output is small: the
  // most blocks that split it into equal whole images [M: ResNet-50's
  // profile, batch 32 on 30 cores: 38 of the 45 forward convs with output
  // maps of 28 x 28 or less run 16 blocks; those of 56 x 56 and more split
  // their rows over 24 to 30]. A 1x1 conv folds the batch into its rows: a
  // block's rows are then its images' rows.
  const int64_t batch_dim = batch_first_blocks();
  if (batch_dim > 1) {
    t.split = p_.images > 1 ? ConvSplit::batch : ConvSplit::rows;
    t.block_dim = batch_dim;
  }
  t.db_l1 = t.db_l0 = true;
  const int64_t l0a_slots = soc_.l0a_bytes / 2 / kFractalBytes;
  const int64_t l0b_slots = soc_.l0b_bytes / 2 / kFractalBytes;
  const int64_t l0c_slots = soc_.l0c_bytes / 2 / kAccFractalBytes;
  const auto& knobs = space_.knobs;
  auto descending = [](std::vector<int64_t> v) {
    std::reverse(v.begin(), v.end());
    return v;
  };
  for (int64_t c1 : descending(knobs[kC1L1].values)) {
    if (oversized(c1, p_.c1g)) continue;
    for (int64_t h : descending(knobs[kHL1].values)) {
      t.c1_l1 = c1, t.h_l1 = h, t.m_l0 = t.n_l0 = t.k_l0 = 1;
      const auto g = geometry(t);
      if (oversized(h, g.rows)) continue;
      std::tuple<int64_t, int64_t> best_key{0, 0};
      for (int64_t m : knobs[kML0].values) {
        for (int64_t n : knobs[kNL0].values) {
          const int64_t mf = std::min(m, fractals(g.m_rows)), nf = std::min(n, g.n_cap);
          if (oversized(m, fractals(g.m_rows)) || oversized(n, g.n_cap)) continue;
          if (mf * nf > l0c_slots || mf > l0a_slots || nf > l0b_slots) continue;
          const std::tuple<int64_t, int64_t> key{mf * nf, nf};
          if (key > best_key) best_key = key, t.m_l0 = m, t.n_l0 = n;
        }
      }
      const int64_t mf = std::min(t.m_l0, fractals(g.m_rows)), nf = std::min(t.n_l0, g.n_cap);
      for (int64_t k : knobs[kKL0].values)
        if (!oversized(k, g.k_l1) && mf * std::min(k, g.k_l1) <= l0a_slots && nf * std::min(k, g.k_l1) <= l0b_slots)
          t.k_l0 = k;
      if (check(t).ok()) return t;
    }
  }
  // Nothing fits with double buffering: the smallest tiles, to be refused by name.
  t.c1_l1 = t.h_l1 = t.m_l0 = t.n_l0 = t.k_l0 = 1;
  require_default_fits(soc_, "this Conv", check(t));
  return t;
}

sdk::Measurement ConvModel::check(const sdk::Config& config) const {
  if (!space_.in_domain(config)) return refuse("a value lies outside its knob's domain");
  return check(tiling(config));
}

sdk::Measurement ConvModel::check(const ConvTiling& t) const {
  auto overflow = [](const std::string& buffer, int64_t need, int64_t have) {
    return refuse(buffer + ", needs " + std::to_string(need) + " B, has " + std::to_string(have) + " B");
  };
  auto twice = [](const char* knob, int64_t value, const std::string& need) {
    return refuse(std::string(knob) + " " + std::to_string(value) + " is more than twice the " + need +
                  ": a smaller value runs the same kernel");
  };
  const auto g = geometry(t);
  if (t.block_dim > g.blocks) {
    const char* of = t.split == ConvSplit::batch ? "images" : t.split == ConvSplit::rows ? "output rows"
                                                                                          : "output channel groups";
    return too_many_cores(t.block_dim, g.blocks, of);
  }
  if (oversized(t.h_l1, g.rows)) return twice("h_l1", t.h_l1, std::to_string(g.rows) + " output rows of a core");
  const int64_t staging_copies = t.db_l1 ? 2 : 1;

  if (t.impl == ConvImpl::vector) {
    if (!p_.vector_capable) return refuse("impl vector needs a depthwise conv with one output channel per input channel");
    // No L0 tiles on this path: its L0 knobs are ignored rather than refused,
    // so a search can switch impl in one step from any cube tiling.
    if (oversized(t.c1_l1, g.c1_core))
      return twice("c1_l1", t.c1_l1, std::to_string(g.c1_core) + " channel groups of a core");
    const int64_t c1 = std::min(t.c1_l1, g.c1_core);
    const int64_t addends = static_cast<int64_t>(
        p_.epilogue.addend_bytes_per_tile(g.m_rows, c1 * kC0, p_.cout * p_.ho * p_.wo));
    const int64_t out = c1 * g.m_rows * kC0 * sdk::dtype_bytes(p_.out_dtype);
    const int64_t tile = c1 * g.in_rows * p_.w * kPositionBytes + out + align_up64(addends, kUbAlignBytes);
    const int64_t ub = tile * staging_copies + c1 * p_.taps() * kPositionBytes;
    if (ub > soc_.ub_bytes) return ub_overflow("an input and output tile of the tap loop", ub, soc_.ub_bytes);
    return {};
  }

  if (oversized(t.c1_l1, p_.c1g))
    return twice("c1_l1", t.c1_l1, std::to_string(p_.c1g) + " input channel groups of a group block");
  if (oversized(t.m_l0, fractals(g.m_rows)))
    return twice("m_l0", t.m_l0, std::to_string(g.m_rows) + " output positions of an L1 tile");
  if (oversized(t.n_l0, g.n_cap)) return twice("n_l0", t.n_l0, std::to_string(g.n_cap) + " Cout fractals of a core");
  if (oversized(t.k_l0, g.k_l1)) return twice("k_l0", t.k_l0, std::to_string(g.k_l1) + " K fractals of an L1 slice");
  if (!g.full_k && g.m_steps > 1)
    return refuse("c1_l1 " + std::to_string(t.c1_l1) + " splits K over L1 loads, so L0C keeps partial sums: m_l0 " +
                  std::to_string(t.m_l0) + " must cover the " + std::to_string(g.m_rows) + " output positions of an L1 tile");
  const int64_t l0_copies = t.db_l0 ? 2 : 1;
  const int64_t l0a = align_up64(g.m_frac * g.k0 * kFractalBytes, soc_.l0_align_bytes) * l0_copies;
  if (l0a > soc_.l0a_bytes) return overflow("L0A", l0a, soc_.l0a_bytes);
  const int64_t l0b = align_up64(g.k0 * g.n_frac * kFractalBytes, soc_.l0_align_bytes) * l0_copies;
  if (l0b > soc_.l0b_bytes) return overflow("L0B", l0b, soc_.l0b_bytes);
  // db_l0 ping-pongs L0C too, so a tile drains while the next one computes.
  const int64_t l0c = g.m_frac * g.n_frac * kAccFractalBytes * l0_copies;
  if (l0c > soc_.l0c_bytes) return overflow("L0C", l0c, soc_.l0c_bytes);
  const int64_t fmap_positions = p_.feed == ConvFeed::load2d ? align_up64(g.m_rows, kC0) : g.in_rows * p_.w;
  const int64_t l1 = (g.c1 * fmap_positions * kPositionBytes + g.k_l1 * g.n_frac * kFractalBytes) * staging_copies;
  if (l1 > soc_.l1_bytes) return overflow("L1", l1, soc_.l1_bytes);
  return {};
}

double ConvModel::time_us(const sdk::Config& config) const { return cost(tiling(config)).total_us; }

double ConvModel::roofline_us() const {
  return std::max(p_.flops() / soc_.peak_flops_per_us(), memory_roofline_us(soc_, p_.gm_bytes(), p_.on_chip_bytes()));
}

ConvCost ConvModel::cost(const ConvTiling& t) const {
  auto c = t.impl == ConvImpl::vector ? vector_cost(t) : cube_cost(t);
  c.cast_us = cast_us();
  c.total_us = std::max(c.cast_us + c.core_cycles / soc_.cycles_per_us(), roofline_us()) + soc_.launch_us_for(c.active);
  return c;
}

double ConvModel::write_back_cycles(int64_t rows, int64_t cols, int64_t active) const {
  return p_.epilogue.write_back_cycles(soc_, rows, cols, p_.cout * p_.ho * p_.wo, p_.out_dtype, p_.out_on_chip, active);
}

// The busiest core walks its images and L1 tiles of output rows; for each
// N tile and each L0 M tile it walks all of K (L1 slices of c1_l1 channel
// groups, L0 steps of k_l0 fractals), then drains the L0C tile. With all of
// K in L1 the feature-map slab serves every N tile and the weights stay
// when the core has one N tile; otherwise each N tile reloads both.
// Double buffering overlaps a stage with the next (max); without it they add.
ConvCost ConvModel::cube_cost(const ConvTiling& t) const {
  ConvCost c;
  c.impl = ConvImpl::cube;
  c.feed = p_.feed;
  const auto g = geometry(t);
  c.active = g.active;
  const int64_t units = g.images * g.row_tiles;
  c.out_tiles = units * g.n_tiles * g.m_steps;

  // GM -> L1 (MTE2): the halo rows of each tile are read again: img2col's cost in GM traffic.
  const int64_t positions = p_.feed == ConvFeed::load2d ? g.m_rows : g.in_rows * p_.w;
  const double a_unit = static_cast<double>(p_.c1g * positions * kPositionBytes);
  const double a_bytes = static_cast<double>(units * (g.full_k ? g.groups : g.n_tiles)) * a_unit;
  const int64_t a_dmas = units * (g.full_k ? g.groups : g.n_tiles * g.k_slices);
  const double b_tile = static_cast<double>(p_.k_fractals() * g.n_frac * kFractalBytes);
  const bool b_resident = g.full_k && g.n_tiles == 1;
  const double b_bytes = b_resident ? b_tile : static_cast<double>(units * g.n_tiles) * b_tile;
  const int64_t b_dmas = b_resident ? 1 : units * g.n_tiles * (g.full_k ? 1 : g.k_slices);
  // Concurrent cores share the operand the split does not divide: it
  // crosses HBM once per round, the divided one once per core.
  const double active = static_cast<double>(g.active);
  // A feature map or weights the strategy keeps in L2 cost no HBM.
  const double a_hbm = p_.x_on_chip ? 0 : a_bytes, b_hbm = p_.w_on_chip ? 0 : b_bytes;
  double hbm = t.split == ConvSplit::cout ? a_hbm + b_hbm * active : a_hbm * active + b_hbm;
  if (operands_fit_l2_) hbm = std::min(hbm, (p_.x_on_chip ? 0 : fmap_bytes_) + (p_.w_on_chip ? 0 : weight_bytes_));
  c.l1_loads = a_dmas;
  c.gm_to_l1 = std::max((a_bytes + b_bytes) / soc_.gm_to_l1_rate, hbm / soc_.hbm_bytes_per_cycle()) +
               static_cast<double>(a_dmas + b_dmas) * soc_.dma_cycles;

  // L1 -> L0 (MTE1): load3d expands each position into taps x C0 values,
  // one instruction per fractal row or column of the block; load2d moves a
  // block in one. Weights covering all of K stay in L0B across M tiles.
  const int64_t a_loads = c.out_tiles;
  const int64_t b_loads = g.k0_steps == 1 ? units * g.n_tiles : c.out_tiles;
  const double a_l0 = static_cast<double>(a_loads * g.m_frac * p_.k_fractals() * kFractalBytes);
  const double b_l0 = static_cast<double>(b_loads * p_.k_fractals() * g.n_frac * kFractalBytes);
  const int64_t per_step = p_.feed == ConvFeed::load3d ? std::min(g.m_frac, g.k0) : 1;
  const int64_t instructions = a_loads * g.k0_steps * per_step + b_loads * g.k0_steps;
  c.l1_to_l0 = a_l0 / soc_.l1_to_l0a_rate + b_l0 / soc_.l1_to_l0b_rate +
               static_cast<double>(instructions) * soc_.mte1_cycles;

  // One cycle per fractal triple; the block-diagonal zeros of merged groups cost as much as the rest.
  c.cube = static_cast<double>(c.out_tiles) *
           (static_cast<double>(g.m_frac * g.n_frac * p_.k_fractals()) + static_cast<double>(g.k0_steps) * soc_.mmad_cycles);
  c.write_back = static_cast<double>(c.out_tiles) * write_back_cycles(g.m_frac * kC0, g.n_frac * kC0, g.active);

  // A pipeline of n steps takes its slower stage's total plus one step of
  // the faster one (the fill or the drain).
  auto overlapped = [](double a, double b, int64_t steps) {
    return std::max(a, b) + std::min(a, b) / static_cast<double>(steps);
  };
  const double inner = t.db_l0 ? overlapped(c.l1_to_l0, c.cube, a_loads * g.k0_steps) : c.l1_to_l0 + c.cube;
  const double compute = t.db_l1 ? overlapped(c.gm_to_l1, inner, a_dmas) : c.gm_to_l1 + inner;
  c.core_cycles = t.db_l0 ? overlapped(compute, c.write_back, c.out_tiles) : compute + c.write_back;
  return c;
}

// Depthwise on the vector unit: each UB tile holds c1_l1 channel groups of
// h_l1 output rows and their input rows. Per tap and output row one vmla
// (fp16) multiplies a strided input row by the tap's 16 channel weights and
// accumulates; C0 fills the lanes whatever the width, and block strides
// step over the conv stride, as in pooling. No padding to 16 output rows
// and no L0C drain, but each tap is a pass over the tile.
ConvCost ConvModel::vector_cost(const ConvTiling& t) const {
  ConvCost c;
  c.impl = ConvImpl::vector;
  c.feed = p_.feed;
  const auto g = geometry(t);
  c.active = g.active;
  const int64_t c1 = std::min(t.c1_l1, g.c1_core);
  c.out_tiles = g.images * g.row_tiles * g.c1_tiles;
  const int out_bytes = sdk::dtype_bytes(p_.out_dtype);
  const int64_t lanes = c1 * g.m_rows * kC0;
  const double fmap = static_cast<double>(c1 * g.in_rows * p_.w * kPositionBytes);
  const double in = static_cast<double>(c1 * g.in_rows * p_.w * kPositionBytes + c1 * p_.taps() * kPositionBytes) +
                    p_.epilogue.addend_bytes_per_tile(g.m_rows, c1 * kC0, p_.cout * p_.ho * p_.wo);
  const double in_on_chip = (p_.x_on_chip ? fmap : 0) +
                            p_.epilogue.addend_bytes_per_tile(g.m_rows, c1 * kC0, p_.cout * p_.ho * p_.wo, true);
  const double out = static_cast<double>(lanes * out_bytes);
  const double row_repeats = std::ceil(static_cast<double>(p_.wo * kPositionBytes) / soc_.vector_bytes_per_cycle);
  TileStages s;
  s.vec = static_cast<double>(p_.taps() * c1 * g.h) * (row_repeats + soc_.vector_latency_cycles) +
          p_.epilogue.vector_cycles(soc_, lanes, 2);
  if (p_.out_dtype == DType::f32) s.vec += vector_pass_cycles(soc_, lanes, 4);
  s.in = gm_to_ub_cycles(soc_, in, g.active, in_on_chip);
  s.out = ub_to_gm_cycles(soc_, out, g.active, p_.out_on_chip ? out : 0);
  s.hbm = hbm_share_cycles(soc_, in - in_on_chip + out - (p_.out_on_chip ? out : 0), g.active);
  c.gm_to_l1 = s.in * static_cast<double>(c.out_tiles);
  c.vector = s.vec * static_cast<double>(c.out_tiles);
  c.write_back = s.out * static_cast<double>(c.out_tiles);
  c.core_cycles = pipeline_cycles(soc_, s, c.out_tiles, t.db_l1);
  return c;
}

// An fp32 input goes through a Cast kernel (read 4 B, write 2 B per
// element); constant weights are cast at compile time.
double ConvModel::cast_us() const {
  const auto cast = [&](int64_t elements) { return fp16_cast_us(soc_, elements); };
  double us = 0;
  if (p_.x_dtype == DType::f32 && !p_.x_constant) us += cast(p_.n * p_.c * p_.h * p_.w);
  if (p_.w_dtype == DType::f32 && !p_.w_constant) us += cast(p_.cout * (p_.c / p_.group) * p_.taps());
  return us;
}

}  // namespace aoe::sim
