#include "data_move_model.h"

#include <algorithm>
#include <set>

#include "aoe/sdk/error.h"
#include "aoe/sdk/tensor_size.h"
#include "on_chip.h"
#include "vector_model.h"

namespace aoe::sim {
namespace {

using sdk::Error;
using sdk::StatusCode;
using Shape = std::vector<int64_t>;

const std::set<std::string> kOps = {"Concat", "Split", "Slice", "Pad", "Gather", "Resize", "Tile", "Expand",
                                    "DepthToSpace", "SpaceToDepth", "GatherElements", "GatherND",
                                    "ScatterND",    "ScatterElements", "Scatter", "Upsample", "ReverseSequence",
                                    "Compress",     "GridSample", "RoiAlign", "MaxUnpool", "NonZero", "UnsortedSegmentSum"};


std::string text(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + "]";
}

int64_t count(const sdk::OpTask& task, const Shape& s) {
  const auto n = sdk::checked_elements(s);
  if (!n) malformed(task, "shape " + text(s) + " has an unknown dim or more elements than a 64-bit count holds");
  return *n;
}

int64_t product(const Shape& s, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t i = from; i < to && i < s.size(); ++i) n *= s[i];
  return n;
}

// Same rank, and equal dims but on `except` (SIZE_MAX: none).
void require_alike(const sdk::OpTask& task, const Shape& a, const Shape& b, size_t except, const char* what) {
  if (a.size() != b.size()) malformed(task, std::string(what) + " " + text(b) + " has another rank than " + text(a));
  for (size_t d = 0; d < a.size(); ++d)
    if (d != except && a[d] != b[d]) malformed(task, std::string(what) + " " + text(b) + " disagrees with " + text(a) + " on axis " + std::to_string(d));
}

// The contiguous run where two shapes of equal rank differ last: that axis's
// extent in `s` times everything after it.
int64_t run_where_differs(const Shape& in, const Shape& out, const Shape& s) {
  for (size_t d = in.size(); d-- > 0;)
    if (in[d] != out[d]) return s[d] * product(s, d + 1, s.size());
  return product(s, 0, s.size());
}

void concat(const sdk::OpTask& task, DataMoveProblem& p) {
  if (!task.attrs.contains("axis")) malformed(task, "has no axis attribute");
  const Shape& first = task.inputs[0].shape;
  if (first.empty()) malformed(task, "cannot concatenate scalars");
  const size_t axis = axis_of(task, attr_int(task.attrs, "axis", 0), first.size());
  Shape out = first;
  out[axis] = 0;
  const int64_t inner = product(first, axis + 1, first.size());
  p.in_run = INT64_MAX;
  for (const auto& t : task.inputs) {
    require_alike(task, first, t.shape, axis, "input");
    const auto sum = sdk::checked_add(out[axis], t.shape[axis]);
    if (!sum) malformed(task, "the concatenated axis overflows");
    out[axis] = *sum;
    // An overflow here is left to the element count below, which names it.
    const auto run = sdk::checked_mul(t.shape[axis], inner);
    p.in_run = std::min(p.in_run, std::max<int64_t>(1, run.value_or(INT64_MAX)));
  }
  if (!task.outputs.empty() && task.outputs[0].fully_known() && task.outputs[0].shape != out)
    malformed(task, "output is " + text(task.outputs[0].shape) + ", the inputs concatenate to " + text(out));
  p.out_elements = p.in_elements = count(task, out);
  p.out_run = p.in_run;
}

void split(const sdk::OpTask& task, DataMoveProblem& p) {
  const Shape& in = task.inputs[0].shape;
  if (in.empty()) malformed(task, "cannot split a scalar");
  if (task.outputs.empty()) malformed(task, "has no outputs");
  const size_t axis = axis_of(task, attr_int(task.attrs, "axis", 0), in.size());
  const int64_t inner = product(in, axis + 1, in.size());
  int64_t total = 0;
  p.out_run = INT64_MAX;
  for (const auto& t : task.outputs) {
    if (!t.fully_known()) malformed(task, "needs its outputs' shapes");
    require_alike(task, in, t.shape, axis, "output");
    total += t.shape[axis];
    p.out_run = std::min(p.out_run, std::max<int64_t>(1, t.shape[axis] * inner));
  }
  if (total != in[axis])
    malformed(task, "outputs take " + std::to_string(total) + " along axis " + std::to_string(axis) + ", the input has " +
                  std::to_string(in[axis]));
  p.out_elements = p.in_elements = count(task, in);
  p.in_run = p.out_run;
}

void slice(const sdk::OpTask& task, DataMoveProblem& p) {
  const Shape& in = task.inputs[0].shape;
  const Shape& out = output_shape(task);
  if (out.size() != in.size()) malformed(task, "output " + text(out) + " has another rank than its input " + text(in));
  for (size_t d = 0; d < in.size(); ++d)
    if (out[d] > in[d]) malformed(task, "output " + text(out) + " is larger than its input " + text(in) + " on axis " + std::to_string(d));
  count(task, in);
  p.out_elements = p.in_elements = count(task, out);
  p.in_run = p.out_run = std::max<int64_t>(1, run_where_differs(in, out, out));
}

void pad(const sdk::OpTask& task, DataMoveProblem& p) {
  const auto mode = task.attrs.value("mode", std::string("constant"));
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap")
    malformed(task, "mode '" + mode + "' is none of constant, reflect, edge, wrap");
  const Shape& in = task.inputs[0].shape;
  const Shape& out = output_shape(task);
  if (out.size() != in.size()) malformed(task, "output " + text(out) + " has another rank than its input " + text(in));
  p.in_elements = count(task, in);
  p.out_elements = count(task, out);
  p.in_run = std::max<int64_t>(1, run_where_differs(in, out, in));
  // The padded tile is assembled in UB and leaves whole.
  p.out_run = std::max<int64_t>(1, p.out_elements);
}

void gather(const sdk::OpTask& task, DataMoveProblem& p) {
  require_known_inputs(task.inputs, 2, "Gather");
  const Shape& data = task.inputs[0].shape;
  const Shape& indices = task.inputs[1].shape;
  if (data.empty()) malformed(task, "cannot gather from a scalar");
  const size_t axis = axis_of(task, attr_int(task.attrs, "axis", 0), data.size());
  Shape out(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(axis));
  out.insert(out.end(), indices.begin(), indices.end());
  out.insert(out.end(), data.begin() + static_cast<std::ptrdiff_t>(axis) + 1, data.end());
  if (!task.outputs.empty() && task.outputs[0].fully_known() && task.outputs[0].shape != out)
    malformed(task, "output is " + text(task.outputs[0].shape) + ", data " + text(data) + " gathered by indices " +
                  text(indices) + " on axis " + std::to_string(axis) + " is " + text(out));
  count(task, data);
  p.out_elements = count(task, out);
  // Each index picks a row in every slice before the axis.
  const Shape before(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(axis));
  const auto picks = sdk::checked_mul(count(task, indices), count(task, before));
  if (!picks) malformed(task, "picks more rows than a 64-bit count holds");
  p.indices = *picks;
  p.in_elements = p.out_elements + count(task, indices);
  p.in_run = p.out_run = std::max<int64_t>(1, product(data, axis + 1, data.size()));
}

// CANN's UnsortedSegmentSum: each row of `x` (the dims after the ids')
// added into the output row its id names, atomically (the output was
// cleared before); ids outside [0, segments) are dropped.
void segment_sum(const sdk::OpTask& task, DataMoveProblem& p) {
  require_known_inputs(task.inputs, 2, "UnsortedSegmentSum");
  const Shape& x = task.inputs[0].shape;
  const Shape& ids = task.inputs[1].shape;
  if (!segment_ids_lead(ids, x))
    malformed(task, "segment ids " + text(ids) + " must be the leading dims of x " + text(x));
  const Shape& out = output_shape(task);
  const int64_t row = product(x, ids.size(), x.size());
  if (out.empty() || count(task, out) != out[0] * row)
    malformed(task, "output " + text(out) + " is not segments x the rows of x " + text(x));
  p.indices = count(task, ids);
  p.out_elements = count(task, x);
  p.in_elements = p.out_elements + p.indices;
  p.in_run = p.out_run = std::max<int64_t>(1, row);
}

// Tile and Expand read each source row once and write it out as often as it repeats.
void repeat(const sdk::OpTask& task, DataMoveProblem& p) {
  const Shape& in = task.inputs[0].shape;
  const Shape& out = output_shape(task);
  if (in.empty() || out.size() < in.size()) malformed(task, "output " + text(out) + " does not repeat input " + text(in));
  p.in_elements = count(task, in);
  p.out_elements = count(task, out);
  p.in_run = std::max<int64_t>(1, in.back());
  p.out_run = std::max<int64_t>(1, out.back());
}

// A block's rows move between channels and positions: runs of a row of W
// (DepthToSpace reads them, SpaceToDepth writes them), interleaved in UB by
// one vector pass.
void depth_space(const sdk::OpTask& task, DataMoveProblem& p) {
  const Shape& in = task.inputs[0].shape;
  const int64_t b = attr_int(task.attrs, "blocksize", 0);
  if (in.size() != 4 || b < 1) malformed(task, "takes N x C x H x W and a blocksize of 1 or more");
  p.in_elements = p.out_elements = count(task, in);
  const int64_t w = in[3];
  p.in_run = task.op_type == "DepthToSpace" ? std::max<int64_t>(1, w) : b;
  p.out_run = task.op_type == "DepthToSpace" ? std::max<int64_t>(1, w * b) : std::max<int64_t>(1, w / b);
  p.simple_passes = 1;
}

// Each output element reads one data element of its own: bursts of one.
void gather_elements(const sdk::OpTask& task, DataMoveProblem& p) {
  require_known_inputs(task.inputs, 2, "GatherElements");
  const Shape& data = task.inputs[0].shape;
  const Shape& indices = task.inputs[1].shape;
  if (data.empty() || indices.size() != data.size()) malformed(task, "indices " + text(indices) + " need the rank of data " + text(data));
  count(task, data);
  p.out_elements = count(task, indices);
  p.indices = p.out_elements;
  p.in_elements = 2 * p.out_elements;  // the data element and its index
  p.in_run = 1;
  p.out_run = std::max<int64_t>(1, indices.back());
}

// GatherND: each index tuple of k values (after batch_dims leading dims)
// picks one slice of data's trailing dims, read and written as one run.
void gather_nd(const sdk::OpTask& task, DataMoveProblem& p) {
  require_known_inputs(task.inputs, 2, "GatherND");
  const Shape& data = task.inputs[0].shape;
  const Shape& indices = task.inputs[1].shape;
  const int64_t batch = attr_int(task.attrs, "batch_dims", 0);
  if (indices.empty() || batch < 0 || batch >= static_cast<int64_t>(indices.size()))
    malformed(task, "indices " + text(indices) + " leave no index tuple after batch_dims " + std::to_string(batch));
  const int64_t k = indices.back();
  if (k < 1 || batch + k > static_cast<int64_t>(data.size()))
    malformed(task, "index tuples of " + std::to_string(k) + " values after batch_dims " + std::to_string(batch) +
                        " do not fit data " + text(data));
  const int64_t slice = product(data, static_cast<size_t>(batch + k), data.size());
  const int64_t tuples = count(task, Shape(indices.begin(), indices.end() - 1));
  count(task, data);
  p.out_elements = count(task, {tuples, slice});
  p.indices = tuples;
  p.in_elements = p.out_elements + tuples * k;
  p.in_run = p.out_run = std::max<int64_t>(1, slice);
}

// ScatterND, ScatterElements (and Scatter, its older name): data copied
// whole, then the updates written over it, a slice of data's trailing dims
// per index tuple (ScatterND) or an element per index (ScatterElements); a
// reduction other than none reads what it updates first. One run length
// stands for both phases: the one that makes as many bursts as they make.
// A scatter's average run: `data` elements copied (or zeroed) a row of
// `row` at a time, then `updates` written `run` at a time.
int64_t scatter_run(int64_t data, int64_t row, int64_t updates, int64_t run) {
  const double bursts = static_cast<double>(data) / static_cast<double>(std::max<int64_t>(1, row)) +
                        static_cast<double>(updates) / static_cast<double>(run);
  return std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(data + updates) / bursts));
}

void scatter(const sdk::OpTask& task, DataMoveProblem& p) {
  require_known_inputs(task.inputs, 3, task.op_type);
  const Shape& data = task.inputs[0].shape;
  const Shape& indices = task.inputs[1].shape;
  const Shape& updates = task.inputs[2].shape;
  if (data.empty() || indices.empty()) malformed(task, "scatters into a scalar or by scalar indices");
  const int64_t d = count(task, data), u = count(task, updates);
  int64_t run = 1, index_values = count(task, indices);
  if (task.op_type == "ScatterND") {
    const int64_t k = indices.back();
    if (k < 1 || k > static_cast<int64_t>(data.size()))
      malformed(task, "index tuples of " + std::to_string(k) + " values do not fit data " + text(data));
    run = std::max<int64_t>(1, product(data, static_cast<size_t>(k), data.size()));
    if (u != count(task, {count(task, Shape(indices.begin(), indices.end() - 1)), run}))
      malformed(task, "updates " + text(updates) + " are not one slice of data " + text(data) + " per index tuple of " +
                          text(indices));
  } else if (updates != indices) {
    malformed(task, "updates " + text(updates) + " and indices " + text(indices) + " differ in shape");
  }
  const bool reduces = task.attrs.value("reduction", std::string("none")) != "none";
  p.indices = u / run;
  p.out_elements = d + u;
  p.in_elements = d + u + index_values + (reduces ? u : 0);
  p.in_run = p.out_run = scatter_run(d, data.back(), u, run);
}

// ReverseSequence moves every element, a row of the dims after batch and
// time at a time.
void reverse_sequence(const sdk::OpTask& task, DataMoveProblem& p) {
  const Shape& in = task.inputs[0].shape;
  if (in.size() < 2) malformed(task, "input " + text(in) + " has no batch and time axes");
  p.in_elements = p.out_elements = count(task, in);
  p.in_run = p.out_run = std::max<int64_t>(1, product(in, 2, in.size()));
}

// Compress reads its input (and the condition) and writes the slices after
// its axis that the condition keeps (each element where it has no axis).
void compress(const sdk::OpTask& task, DataMoveProblem& p) {
  const Shape& in = task.inputs[0].shape;
  if (in.empty()) malformed(task, "compresses a scalar");
  p.in_elements = count(task, in) + (task.inputs.size() > 1 ? count(task, task.inputs[1].shape) : 0);
  p.out_elements = count(task, output_shape(task));
  const bool has_axis = task.attrs.is_object() && task.attrs.contains("axis");
  const size_t axis = has_axis ? axis_of(task, attr_int(task.attrs, "axis", 0), in.size()) : in.size() - 1;
  p.in_run = p.out_run = std::max<int64_t>(1, product(in, axis + 1, in.size()));
}

void resize(const sdk::OpTask& task, DataMoveProblem& p, const Soc& soc) {
  auto mode = task.attrs.value("mode", std::string("nearest"));
  if (task.op_type == "Upsample" && mode == "bilinear") mode = "linear";  // opset 7's name for it
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    throw Error(StatusCode::unsupported, soc.target + " simulator models Resize nearest, linear and cubic, not '" + mode + "' (" +
                                             task.name + ")");
  const Shape& in = task.inputs[0].shape;
  const Shape& out = output_shape(task);
  if (out.size() != in.size()) malformed(task, "output " + text(out) + " has another rank than its input " + text(in));
  int resized = 0;
  for (size_t d = 0; d < in.size(); ++d) {
    if (out[d] < 1) malformed(task, "output " + text(out) + " has an empty axis");
    resized += in[d] != out[d];
  }
  p.in_elements = count(task, in);
  p.out_elements = count(task, out);
  p.in_run = std::max<int64_t>(1, in.back());
  p.out_run = std::max<int64_t>(1, out.back());
  // Nearest picks one source per output (one gather pass); linear weighs
  // 2^axes of them, cubic 4^axes (a multiply and an add each).
  const int taps_per_axis = mode == "cubic" ? 4 : 2;
  int taps = 1;
  for (int a = 0; a < std::min(resized, 3); ++a) taps *= taps_per_axis;
  p.simple_passes = mode == "nearest" ? 1 : 2 * taps;
}

// GridSample (2-D or 3-D): each output element gathers its taps from
// wherever the grid points (1 nearest, 2 an axis linear, 4 an axis cubic),
// each tap a burst of its own, and weighs them (a multiply and an add
// each); its grid point is read with it (a coordinate per spatial axis per
// position, shared by the channels).
void grid_sample(const sdk::OpTask& task, DataMoveProblem& p, const Soc& soc) {
  require_known_inputs(task.inputs, 2, "GridSample");
  const Shape& x = task.inputs[0].shape;
  const Shape& grid = task.inputs[1].shape;
  const size_t axes = x.size() - 2;
  if ((x.size() != 4 && x.size() != 5) || grid.size() != x.size() || grid.back() != static_cast<int64_t>(axes) ||
      grid[0] != x[0])
    throw Error(StatusCode::unsupported, soc.target + " simulator models GridSample on N x C x (D x) H x W input and an N x (Do x) Ho x Wo x 2 (3) grid; '" +
                                             task.name + "' has " + text(x) + " and " + text(grid));
  const auto mode = task.attrs.value("mode", std::string("linear"));
  const int per_axis = mode == "nearest" ? 1 : mode == "cubic" || mode == "bicubic" ? 4 : mode == "linear" || mode == "bilinear" ? 2 : 0;
  if (per_axis == 0) malformed(task, "mode '" + mode + "' is none of nearest, linear, cubic");
  if (per_axis == 4 && axes == 3) malformed(task, "mode cubic samples 2-D grids only");
  int taps = 1;
  for (size_t a = 0; a < axes; ++a) taps *= per_axis;
  const Shape& out = output_shape(task);
  Shape want{x[0], x[1]};
  want.insert(want.end(), grid.begin() + 1, grid.end() - 1);
  if (out != want) malformed(task, "output " + text(out) + " is not N x C x the grid's positions");
  p.out_elements = count(task, out);
  p.in_elements = p.out_elements * taps + count(task, grid);
  p.in_run = 1;
  p.out_run = std::max<int64_t>(1, out.back());
  p.simple_passes = 2 * taps;
}

// NonZero: a compare over x, then the indices of its nonzero elements
// written, rank int64 values each, counted here in x's element width. How
// many are nonzero is known only as the model runs: it is costed for all of
// them, the most it writes.
void non_zero(const sdk::OpTask& task, DataMoveProblem& p) {
  const Shape& x = task.inputs[0].shape;
  const int64_t n = count(task, x);
  const auto out = sdk::checked_mul(n, static_cast<int64_t>(x.size()) * sdk::dtype_bytes(sdk::DType::i64) / p.bytes);
  if (!out || *out > kMaxTensorElements) malformed(task, "its indices for X of " + text(x) + " would number more than 2^40");
  p.in_elements = n;
  p.out_elements = *out;
  p.in_run = std::max<int64_t>(1, n);
  p.out_run = std::max<int64_t>(1, *out / std::max<int64_t>(1, static_cast<int64_t>(x.size())));
  p.simple_passes = 2;  // the compare, the compaction's select
}

// MaxUnpool: the output zeroed, then each pooled value written where its
// index points, as a ScatterElements into zeros (a burst each).
void max_unpool(const sdk::OpTask& task, DataMoveProblem& p) {
  require_known_inputs(task.inputs, 2, "MaxUnpool");
  const Shape& x = task.inputs[0].shape;
  if (task.inputs[1].shape != x) malformed(task, "indices I " + text(task.inputs[1].shape) + " differ from X " + text(x));
  const Shape& out = output_shape(task);
  if (out.size() != x.size() || out.size() < 3) malformed(task, "output " + text(out) + " is not a map of X's rank " + std::to_string(x.size()));
  const int64_t d = count(task, out), u = count(task, x);
  p.out_elements = d + u;
  p.in_elements = 2 * u;
  p.in_run = p.out_run = scatter_run(d, out.back(), u, 1);
}

// Sampling points per bin along an axis past which a RoiAlign is refused:
// its instruction count would overflow what the model counts in.
constexpr int64_t kMaxSamplingRatio = 256;

// RoiAlign: each output element of a region's bin averages (or takes the
// largest of) its sampling points, 4 bilinear taps each. As CANN's ROIAlign
// reads NC1HWC0 maps, a tap is a burst of C0 = 16 channels. Samples per bin
// are sampling_ratio^2; with 0 (as large as the region needs) they are
// costed for a region as large as the map, the most it can be.
void roi_align(const sdk::OpTask& task, DataMoveProblem& p) {
  require_known_inputs(task.inputs, 3, "RoiAlign");
  const Shape& x = task.inputs[0].shape;
  const Shape& rois = task.inputs[1].shape;
  if (x.size() != 4) malformed(task, "X is " + text(x) + ", not N x C x H x W");
  if (rois.size() != 2 || rois[1] != 4) malformed(task, "rois is " + text(rois) + ", not num_rois x 4");
  if (task.inputs[2].shape != Shape{rois[0]}) malformed(task, "batch_indices is " + text(task.inputs[2].shape) + ", not one per region");
  const int64_t oh = attr_int(task.attrs, "output_height", 1), ow = attr_int(task.attrs, "output_width", 1);
  const int64_t ratio = attr_int(task.attrs, "sampling_ratio", 0);
  if (oh < 1 || ow < 1 || ratio < 0) malformed(task, "output_height and output_width must be >= 1, sampling_ratio >= 0");
  const auto mode = task.attrs.value("mode", std::string("avg"));
  if (mode != "avg" && mode != "max") malformed(task, "mode '" + mode + "' is neither avg nor max");
  if (!task.outputs.empty() && task.outputs[0].fully_known() && task.outputs[0].shape != Shape{rois[0], x[1], oh, ow})
    malformed(task, "output " + text(task.outputs[0].shape) + " is not num_rois x C x output_height x output_width");
  const int64_t along_h = ratio > 0 ? ratio : (x[2] + oh - 1) / oh, along_w = ratio > 0 ? ratio : (x[3] + ow - 1) / ow;
  if (along_h > kMaxSamplingRatio || along_w > kMaxSamplingRatio)
    throw Error(StatusCode::unsupported, "RoiAlign '" + task.name + "' samples " + std::to_string(std::max(along_h, along_w)) +
                                             " points along an axis of a bin; the simulator models up to " +
                                             std::to_string(kMaxSamplingRatio));
  const int64_t samples = along_h * along_w;
  p.out_elements = count(task, {rois[0], x[1], oh, ow});
  const auto taps = sdk::checked_mul(p.out_elements, samples * 4);
  if (!taps || *taps > kMaxTensorElements) malformed(task, "its sampling points' taps number more than 2^40");
  p.in_elements = *taps + rois[0] * 5;
  p.in_run = std::min<int64_t>(x[1], kLayoutC0);
  p.out_run = ow;
  p.simple_passes = static_cast<int>(2 * 4 * samples);
}

}  // namespace

bool is_data_move_op(const std::string& op_type) { return kOps.count(op_type) != 0; }

bool segment_ids_lead(const std::vector<int64_t>& ids, const std::vector<int64_t>& x) {
  return !ids.empty() && ids.size() <= x.size() && std::equal(ids.begin(), ids.end(), x.begin());
}

DataMoveProblem data_move_problem(const sdk::OpTask& task, const Soc& soc) {
  if (!is_data_move_op(task.op_type))
    not_modelled(soc, task.op_type);
  require_unfused(task, soc);
  require_known_inputs(task.inputs, 1, task.op_type);
  DataMoveProblem p;
  p.op_type = task.op_type;
  p.bytes = sdk::dtype_bytes(task.inputs[0].dtype);
  if (p.bytes == 0) malformed(task, "has an input of undefined dtype");
  if (task.op_type == "Concat") concat(task, p);
  else if (task.op_type == "Split") split(task, p);
  else if (task.op_type == "Slice") slice(task, p);
  else if (task.op_type == "Pad") pad(task, p);
  else if (task.op_type == "Gather") gather(task, p);
  else if (task.op_type == "Tile" || task.op_type == "Expand") repeat(task, p);
  else if (task.op_type == "DepthToSpace" || task.op_type == "SpaceToDepth") depth_space(task, p);
  else if (task.op_type == "GatherElements") gather_elements(task, p);
  else if (task.op_type == "GatherND") gather_nd(task, p);
  else if (task.op_type == "ScatterND" || task.op_type == "ScatterElements" || task.op_type == "Scatter") scatter(task, p);
  else if (task.op_type == "ReverseSequence") reverse_sequence(task, p);
  else if (task.op_type == "Compress") compress(task, p);
  else if (task.op_type == "GridSample") grid_sample(task, p, soc);
  else if (task.op_type == "RoiAlign") roi_align(task, p);
  else if (task.op_type == "MaxUnpool") max_unpool(task, p);
  else if (task.op_type == "NonZero") non_zero(task, p);
  else if (task.op_type == "UnsortedSegmentSum") segment_sum(task, p);
  else resize(task, p, soc);
  if (p.out_elements == 0) malformed(task, "has an empty output");
  return with_stream_on_chip(task, p);
}

DataMoveModel::DataMoveModel(const Soc& soc, DataMoveProblem problem) : ProblemModel(soc, std::move(problem)) {
  start_space(kKnobCount, kBlockDim);
  space_.knobs[kUbFactor] = ub_factor_knob(soc_, "ub_factor", p_.out_elements, p_.bytes);
  space_.knobs[kDb] = db_knob();
  space_.default_config = default_config();
  require_default_fits(soc_, p_.op_type, check(space_.default_config));
}

// A tile stages its output; Resize also holds the source rows it reads and,
// linear, a weight buffer.
int64_t DataMoveModel::ub_bytes(int64_t ub_factor, bool db) const {
  const int buffers = p_.simple_passes == 0 ? 1 : p_.simple_passes == 1 ? 2 : 3;
  return align_up64(ub_factor * p_.bytes, kUbAlignBytes) * buffers * (db ? 2 : 1);
}

// Every core with a 32 KiB share (or, following indices, an index of its
// own: each is a turn of a core's scalar unit), db on, the biggest tile that
// fits and no bigger than a core's slice.
sdk::Config DataMoveModel::default_config() const {
  const int64_t blocks = ceil_div64(p_.out_elements, block_elements(p_.bytes));
  const int64_t cores = std::clamp<int64_t>(std::max(p_.out_elements * p_.bytes / (32 << 10), p_.indices), 1,
                                            std::min<int64_t>(soc_.ai_cores, blocks));
  const int64_t slice = ceil_div64(p_.out_elements, cores);
  const auto& ub = space_.knobs[kUbFactor];
  int64_t factor = largest_fitting(ub, [&](int64_t f) { return ub_bytes(f, true) <= soc_.ub_bytes; });
  while (factor > ub.values.front() && factor / 2 >= slice) factor /= 2;
  return {cores, factor, 1};
}

sdk::Measurement DataMoveModel::check(const sdk::Config& c) const {
  if (!space_.in_domain(c)) return refuse("a value lies outside its knob's domain");
  const bool db = c[kDb] != 0;
  if (c[kUbFactor] * p_.bytes % kUbAlignBytes != 0)
    return refuse("ub_factor " + std::to_string(c[kUbFactor]) + " breaks UB's 32 B alignment");
  const int64_t need = ub_bytes(c[kUbFactor], db);
  if (need > soc_.ub_bytes) return ub_overflow(std::string(db ? "double-buffered " : "") + "staged tiles", need, soc_.ub_bytes);
  const int64_t blocks = ceil_div64(p_.out_elements, block_elements(p_.bytes));
  if (c[kBlockDim] > blocks) return too_many_cores(c[kBlockDim], blocks, "32 B blocks of output");
  return {};
}

double DataMoveModel::vector_total() const {
  return p_.simple_passes * vector_cycles(soc_, VecClass::simple, p_.out_elements, p_.bytes);
}

// Reads and writes of a tile leave GM in runs; each run pays whole blocks
// and an issue cost, so short runs (a narrow concat, a gather of rows)
// cost more than their bytes.
double DataMoveModel::time_us(const sdk::Config& c) const {
  const int64_t active = c[kBlockDim];
  const int64_t slice = align_up64(ceil_div64(p_.out_elements, active), block_elements(p_.bytes));
  const int64_t tiles = ceil_div64(slice, c[kUbFactor]);
  const int64_t tile = ceil_div64(slice, tiles);
  const double read_ratio = static_cast<double>(p_.in_elements) / static_cast<double>(p_.out_elements);
  auto moved = [&](double elements, int64_t run) {
    const int64_t r = std::max<int64_t>(1, std::min<int64_t>(run, std::max<int64_t>(1, static_cast<int64_t>(elements))));
    const double bursts = std::max(1.0, elements / static_cast<double>(r));
    return std::pair{bursts * static_cast<double>(align_up64(r * p_.bytes, kUbAlignBytes)), bursts * kBurstCycles};
  };
  const auto [in_bytes, in_issue] = moved(static_cast<double>(tile) * read_ratio, p_.in_run);
  const auto [out_bytes, out_issue] = moved(static_cast<double>(tile), p_.out_run);
  // The indices a tile's rows follow, each the scalar unit's turn.
  const double index_turns = static_cast<double>(p_.indices) * static_cast<double>(tile) / static_cast<double>(p_.out_elements);
  TileStages s;
  s.in = gm_to_ub_cycles(soc_, in_bytes, active, p_.in_on_chip ? in_bytes : 0) + in_issue + index_turns * soc_.index_cycles;
  s.out = ub_to_gm_cycles(soc_, out_bytes, active, p_.out_on_chip ? out_bytes : 0) + out_issue;
  s.hbm = hbm_share_cycles(soc_, (p_.in_on_chip ? 0 : in_bytes) + (p_.out_on_chip ? 0 : out_bytes), active);
  s.vec = p_.simple_passes * vector_cycles(soc_, VecClass::simple, tile, p_.bytes);
  return kernel_us(soc_, pipeline_cycles(soc_, s, tiles, c[kDb] != 0), roofline_us(), c[kBlockDim]);
}

double DataMoveModel::roofline_us() const {
  return vector_roofline_us(soc_, p_.gm_bytes(), vector_total(), p_.on_chip_bytes());
}

}  // namespace aoe::sim
