#include "cann_kernels.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>

#include "aoe/sdk/error.h"
#include "cube_fractal.h"
#include "data_move_model.h"
#include "epilogue.h"
#include "profile_csv.h"
#include "vector_model.h"

namespace aoe::sim {
namespace {

using sdk::DType;
using sdk::Error;
using sdk::OpTask;
using sdk::StatusCode;
using sdk::TensorDesc;
using nlohmann::json;


[[noreturn]] void misfit(const std::string& why) { throw Error(StatusCode::invalid_argument, why); }

int64_t product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (auto d : dims) n *= d;
  return n;
}

// A tensor as the simulator's ONNX-shaped tasks take it. A dtype aoe does
// not name (CANN's `uint` bit masks) moves as bytes.
TensorDesc logical(const ProfiledTensor& t, const std::string& name) {
  TensorDesc d;
  d.name = name;
  d.dtype = t.dtype == DType::undefined ? DType::u8 : t.dtype;
  const auto& s = t.dims;
  if (t.format == "NC1HWC0") {
    if (s.size() != 5) misfit(name + ": NC1HWC0 with " + std::to_string(s.size()) + " dims, not 5");
    d.shape = {s[0], s[1] * s[4], s[2], s[3]};
    d.format = "NC1HWC0";
  } else if (t.format == "FRACTAL_NZ") {
    if (s.size() < 4) misfit(name + ": FRACTAL_NZ with fewer than 4 dims");
    d.shape.assign(s.begin(), s.end() - 4);
    d.shape.push_back(s[s.size() - 3] * s[s.size() - 2]);  // rows: M1 x M0
    d.shape.push_back(s[s.size() - 4] * s.back());         // columns: N1 x N0
  } else {
    d.shape = s;
  }
  return d;
}

TensorDesc input(const ProfiledKernel& k, size_t i) {
  if (i >= k.inputs.size()) misfit("has " + std::to_string(k.inputs.size()) + " inputs; input " + std::to_string(i) + " is needed");
  return logical(k.inputs[i], "in" + std::to_string(i));
}
TensorDesc output(const ProfiledKernel& k, size_t i) {
  if (i >= k.outputs.size()) misfit("has " + std::to_string(k.outputs.size()) + " outputs; output " + std::to_string(i) + " is needed");
  return logical(k.outputs[i], "out" + std::to_string(i));
}

OpTask task_of(const ProfiledKernel& k, const std::string& op_type) {
  OpTask t;
  t.name = k.name;
  t.op_type = op_type;
  return t;
}

// A feature map, N x C x H x W as NC1HWC0 becomes (logical()); else misfit.
const TensorDesc& feature_map(const TensorDesc& t, const char* what) {
  if (t.shape.size() != 4) misfit(std::string(what) + " is not a feature map (NC1HWC0)");
  return t;
}

// The first generation's cube multiplies fp16 only: its operands are read as such.
TensorDesc cube_operand(TensorDesc t) {
  t.dtype = DType::f16;
  return t;
}

// A convolution's window from its feature maps and its taps: on each axis
// the smallest stride that takes x's extent to y's with fewer pads than the
// window has taps, the fewest pads split as "same" splits them (ResNet's
// 224 -> 112 at stride 2 with 5, Inception's unpadded 299 -> 149 at stride
// 2). A row carries no kernel shape, only the taps: taps that are not a
// square are the most nearly square pair of factors (Inception's 1 x 7 and
// 7 x 1), the way round that fits the maps (either costs alike).
struct ConvGeometry {
  std::array<int64_t, 2> k{1, 1}, stride{1, 1}, pad_lo{0, 0}, pad_hi{0, 0};
};

// Axis `a`'s stride and pads for a window of k taps, or false where none fits.
bool fit_axis(int64_t in, int64_t out, int64_t k, size_t a, ConvGeometry& g) {
  if (in < 1 || out < 1) return false;
  for (int64_t s = 1; s <= in; ++s) {
    const int64_t total = std::max<int64_t>(0, (out - 1) * s + k - in);
    if (total > k - 1) return false;  // a larger stride needs more pads still
    if ((in + total - k) / s + 1 != out) continue;
    g.k[a] = k;
    g.stride[a] = s;
    g.pad_lo[a] = total / 2;
    g.pad_hi[a] = total - g.pad_lo[a];
    return true;
  }
  return false;
}

ConvGeometry window_geometry(const TensorDesc& x, const TensorDesc& y, int64_t kh, int64_t kw) {
  feature_map(x, "conv input");
  feature_map(y, "conv output");
  ConvGeometry g;
  for (const auto& [h, w] : {std::pair{kh, kw}, std::pair{kw, kh}})
    if (fit_axis(x.shape[2], y.shape[2], h, 0, g) && fit_axis(x.shape[3], y.shape[3], w, 1, g)) return g;
  misfit("no stride and pads take a " + std::to_string(kh) + " x " + std::to_string(kw) + " window from " +
         shape_text(x.shape) + " to " + shape_text(y.shape));
}

ConvGeometry conv_geometry(const TensorDesc& x, const ProfiledTensor& w, const TensorDesc& y) {
  if (w.dims.size() != 4) misfit("conv weights are not Fractal Z (4 dims)");
  feature_map(x, "conv input");
  const int64_t c1 = x.shape[1] / kC0;
  if (c1 <= 0 || w.dims[0] % c1 != 0) misfit("conv weights' first dim is not a multiple of the input's C1");
  const int64_t taps = w.dims[0] / c1;
  int64_t kh = std::max<int64_t>(1, static_cast<int64_t>(std::sqrt(static_cast<double>(taps))));
  while (kh > 1 && taps % kh != 0) --kh;
  return window_geometry(x, y, kh, taps / kh);
}

json conv_attrs(const ConvGeometry& g) {
  return {{"kernel_shape", {g.k[0], g.k[1]}},
          {"strides", {g.stride[0], g.stride[1]}},
          {"pads", {g.pad_lo[0], g.pad_lo[1], g.pad_hi[0], g.pad_hi[1]}},
          {"dilations", {1, 1}},
          {"group", 1}};
}

TensorDesc conv_weights(int64_t cout, int64_t cin, const ConvGeometry& g) {
  TensorDesc w;
  w.name = "weights";
  w.shape = {cout, cin, g.k[0], g.k[1]};
  w.dtype = DType::f16;
  w.constant = true;
  return w;
}

// Fused ops after a cube kernel: each binary one reads the kernel's next
// input after its two operands (an AddN's addend, a ReluGradV2's mask), in the
// output's shape where it has the output's elements.
void fuse(OpTask& t, const ProfiledKernel& k, const std::vector<std::string>& ops) {
  size_t next = 2;
  for (const auto& op : ops) {
    t.fused_ops.push_back(op);
    if (!is_binary_fused_op(op)) continue;
    TensorDesc addend = input(k, next++);
    if (addend.elements() == t.outputs.at(0).elements()) addend.shape = t.outputs[0].shape;
    t.inputs.push_back(addend);
  }
}

std::vector<OpTask> conv_forward(const ProfiledKernel& k, const std::vector<std::string>& fused) {
  OpTask t = task_of(k, "Conv");
  const TensorDesc x = cube_operand(input(k, 0)), y = output(k, 0);
  const auto g = conv_geometry(x, k.inputs.at(1), y);
  t.inputs = {x, conv_weights(y.shape[1], x.shape[1], g)};
  t.outputs = {y};
  t.attrs = conv_attrs(g);
  fuse(t, k, fused);
  return {t};
}

// A depthwise conv (each channel its own filters, CANN's weights C1HWNCoC0:
// C1, KH, KW, multiplier, 16, 16) from x to y: a Conv of one group per
// channel. Its gradients (DepthwiseConv2DBackpropInputD: filter and dy to
// dx; ...FilterD: x and dy to the filter) are priced as the forward conv
// they come from: the same taps over the same maps.
std::vector<OpTask> depthwise(const ProfiledKernel& k, const TensorDesc& x, const TensorDesc& y, const ProfiledTensor& w) {
  if (w.dims.size() != 6) misfit("depthwise weights are not C1HWNCoC0");
  const auto g = window_geometry(x, y, w.dims[1], w.dims[2]);
  if (x.shape[1] <= 0 || y.shape[1] % x.shape[1] != 0) misfit("depthwise output channels are not a multiple of the input's");
  OpTask t = task_of(k, "Conv");
  t.inputs = {cube_operand(x), conv_weights(y.shape[1], 1, g)};
  t.outputs = {y};
  t.attrs = conv_attrs(g);
  t.attrs["group"] = x.shape[1];
  return {t};
}

const ProfiledTensor& depthwise_weights(const ProfiledKernel& k) {
  for (const auto& t : k.inputs)
    if (t.dims.size() == 6) return t;
  for (const auto& t : k.outputs)
    if (t.dims.size() == 6) return t;
  misfit("has no C1HWNCoC0 depthwise weights");
}

// Conv2DBackpropInput: dy and the forward conv's weights (Cout x Cin x KH x
// KW) back to x's shape; fused ops read the kernel's further inputs.
std::vector<OpTask> conv_data_gradient(const ProfiledKernel& k, const std::vector<std::string>& fused) {
  OpTask t = task_of(k, "Conv2DBackpropInput");
  const TensorDesc dy = cube_operand(input(k, 0)), dx = output(k, 0);
  const auto g = conv_geometry(dx, k.inputs.at(1), dy);
  t.inputs = {dy, conv_weights(dy.shape[1], dx.shape[1], g)};
  t.outputs = {dx};
  t.attrs = conv_attrs(g);
  t.attrs["input_size"] = {dx.shape[2], dx.shape[3]};
  fuse(t, k, fused);
  return {t};
}

// Conv2DBackpropFilter: x and dy to the weights' gradient, Cout x Cin x KH x
// KW, the kernel's size from its Fractal Z gradient (C1 x KH x KW, Cout / 16,
// 16, 16).
OpTask weight_gradient(const ProfiledKernel& k, const TensorDesc& dy, const TensorDesc& x, const ProfiledTensor& dw) {
  if (dw.dims.size() != 4) misfit("weight gradient is not Fractal Z (4 dims)");
  feature_map(dy, "output gradient");
  const int64_t cout = dw.dims[1] * dw.dims[2];
  if (cout != dy.shape[1]) misfit("weight gradient's Cout does not match the output gradient's channels");
  const auto g = conv_geometry(x, dw, dy);
  OpTask t = task_of(k, "Conv2DBackpropFilter");
  t.inputs = {cube_operand(x), cube_operand(dy)};
  TensorDesc out = conv_weights(cout, x.shape[1], g);
  out.name = "dw";
  out.constant = false;
  out.dtype = dw.dtype == DType::undefined ? DType::f16 : dw.dtype;
  t.outputs = {out};
  t.attrs = conv_attrs(g);
  return t;
}

// Conv2DBackpropFilter lists dy and x in either order: x is the map whose
// C1 divides the gradient's first dim.
std::vector<OpTask> conv_weight_gradient(const ProfiledKernel& k) {
  const TensorDesc a = input(k, 0), b = input(k, 1);
  const ProfiledTensor& dw = k.outputs.at(0);
  const bool a_is_dy = dw.dims.size() == 4 && a.shape.size() == 4 && a.shape[1] == dw.dims[1] * dw.dims[2];
  return {weight_gradient(k, a_is_dy ? a : b, a_is_dy ? b : a, dw)};
}

// A CANN vector kernel: it streams every tensor of the full size once (the
// inputs it reads, the outputs it writes), reads the small ones (per-channel
// statistics, scalars) once, and runs `simple` and `transcendental` vector
// instructions per element [L: counted from the op's formula]. Built as an
// elementwise chain the simulator's elementwise model prices that way.
std::vector<OpTask> vector_kernel(const ProfiledKernel& k, int simple, int transcendental) {
  auto larger = [](const TensorDesc& x, const TensorDesc& y) { return x.elements() < y.elements(); };
  std::vector<TensorDesc> read;
  for (size_t i = 0; i < k.inputs.size(); ++i) read.push_back(input(k, i));
  std::vector<TensorDesc> written;
  for (size_t i = 0; i < k.outputs.size(); ++i) written.push_back(output(k, i));
  if (read.empty() && written.empty()) misfit("has no tensors");
  // The largest output is the one the chain writes (a fill, with none, writes
  // its input); the other outputs cost as much as reading them.
  TensorDesc out;
  if (written.empty()) {
    out = *std::max_element(read.begin(), read.end(), larger);
  } else {
    const auto main = std::max_element(written.begin(), written.end(), larger);
    out = *main;
    written.erase(main);
    read.insert(read.end(), written.begin(), written.end());
  }
  out.format = "ND";
  for (auto& t : read) {
    t.format = "ND";
    if (t.elements() > out.elements()) misfit("reads a tensor larger than the one it writes");
    // Same-size tensors of another layout stream alike; a small operand that
    // does not broadcast (a bit mask, a per-row scalar) is read once.
    if (t.elements() == out.elements()) t.shape = out.shape;
    else if (t.elements() > 1 && (out.shape.empty() || out.shape.back() != t.elements())) t.shape = {1};
  }
  if (read.empty()) read.push_back(out);
  OpTask t = task_of(k, read.size() >= 2 ? "Add" : "Relu");
  const int passes = std::max<int>(simple, static_cast<int>(read.size()) - 1);
  for (size_t i = 2; i < read.size(); ++i) t.fused_ops.push_back("Add");
  for (int i = std::max<int>(1, static_cast<int>(read.size()) - 1); i < passes; ++i) t.fused_ops.push_back("Relu");
  for (int i = 0; i < transcendental; ++i) t.fused_ops.push_back("Exp");
  t.inputs = read;
  t.outputs = {out};
  return {t};
}

// A reduction over all but the kept elements of its largest input; several
// inputs of that size are read as one, stacked.
std::vector<OpTask> reduction(const ProfiledKernel& k) {
  std::vector<TensorDesc> ins;
  for (size_t i = 0; i < k.inputs.size(); ++i) ins.push_back(input(k, i));
  if (ins.empty()) misfit("has no inputs");
  const auto largest = *std::max_element(ins.begin(), ins.end(), [](const TensorDesc& x, const TensorDesc& y) {
    return x.elements() < y.elements();
  });
  const int64_t stacked = std::count_if(ins.begin(), ins.end(), [&](const TensorDesc& t) {
    return t.elements() == largest.elements();
  });
  const TensorDesc out = output(k, 0);
  TensorDesc x = largest;
  std::vector<int64_t> axes;
  const auto& s = x.shape;
  const int64_t kept = out.elements();
  const auto rank = static_cast<int64_t>(s.size());
  if (rank == 0) misfit("reduces a scalar");
  if (kept == 1) {
    for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
  } else if (rank == 4 && kept == s[1]) {
    axes = {0, 2, 3};  // per channel, as batch-norm statistics
  } else if (kept == s.back()) {
    for (int64_t a = 0; a + 1 < rank; ++a) axes.push_back(a);
  } else if (kept == s.front()) {
    for (int64_t a = 1; a < rank; ++a) axes.push_back(a);
  } else if (const auto kept_dims = out.shape; kept_dims.size() == s.size()) {
    // The output keeps the input's rank: the axes it has 1 on (a global
    // pool's mean over H x W per image and channel, ResNet's ReduceMean).
    for (int64_t a = 0; a < rank; ++a) {
      const auto i = static_cast<size_t>(a);
      if (kept_dims[i] == s[i]) continue;
      if (kept_dims[i] != 1) misfit("keeps " + std::to_string(kept_dims[i]) + " of an axis of " + std::to_string(s[i]));
      axes.push_back(a);
    }
    // NC1HWC0 keeps C0 channels innermost: H x W is summed lane by lane.
    if (x.format == "NC1HWC0" && rank == 4 && axes == std::vector<int64_t>{2, 3}) {
      x.shape = {s[0] * (s[1] / kC0), s[2] * s[3], kC0};
      axes = {1};
    }
  } else {
    // One axis summed out (DeepFM's sum over its fields), the last that fits.
    for (int64_t a = rank - 1; a >= 0 && axes.empty(); --a)
      if (s[static_cast<size_t>(a)] > 1 && x.elements() / s[static_cast<size_t>(a)] == kept) axes.push_back(a);
    if (axes.empty()) misfit("keeps " + std::to_string(kept) + " of its input's elements along no axis");
  }
  x.shape[0] *= stacked;
  x.format = "ND";
  OpTask t = task_of(k, "ReduceSum");
  t.inputs = {x};
  TensorDesc o = out;
  o.shape = s;
  for (auto a : axes) o.shape[static_cast<size_t>(a)] = 1;
  o.format = "ND";
  t.outputs = {o};
  t.attrs = {{"axes", axes}, {"keepdims", 1}};
  return {t};
}

// MatMul and BatchMatMul on FRACTAL_NZ operands, transposed as the output's
// rows and columns say (a BatchMatMul keeps them as stored, its adj_x1 and
// adj_x2 saying which); fused ops after it read the remaining inputs.
std::vector<OpTask> matmul(const ProfiledKernel& k, const std::vector<std::string>& fused,
                           const std::string& op_type = "MatMul") {
  TensorDesc a = cube_operand(input(k, 0)), b = cube_operand(input(k, 1));
  if (k.inputs[0].format == "FRACTAL_NZ") a.format = "FRACTAL_NZ";  // A's columns in blocks of 16
  const TensorDesc stored_a = a, stored_b = b;
  const TensorDesc out = output(k, 0);
  if (a.shape.size() < 2 || b.shape.size() < 2 || out.shape.size() < 2) misfit("a product of fewer than 2 dims");
  const int64_t m = out.shape[out.shape.size() - 2], n = out.shape.back();
  auto orient = [](TensorDesc& t, int64_t rows) {  // t as rows x K
    auto& s = t.shape;
    if (s[s.size() - 2] != rows && s.back() == rows) std::swap(s[s.size() - 2], s.back());
  };
  orient(a, m);
  if (a.shape != stored_a.shape) a.format = "ND";  // K along the stored rows
  const int64_t depth = a.shape.back();
  auto& bs = b.shape;
  if (bs[bs.size() - 2] != depth && bs.back() == depth) std::swap(bs[bs.size() - 2], bs.back());
  if (bs[bs.size() - 2] != depth || bs.back() != n || a.shape[a.shape.size() - 2] != m)
    misfit("operands do not multiply to the output's rows and columns");
  OpTask t = task_of(k, op_type);
  if (op_type == "BatchMatMul") {
    t.attrs = {{"adj_x1", a.shape != stored_a.shape ? 1 : 0}, {"adj_x2", b.shape != stored_b.shape ? 1 : 0}};
    a = stored_a;
    b = stored_b;
  }
  t.inputs = {a, b};
  t.outputs = {out};
  fuse(t, k, fused);
  return {t};
}

// A MatMul whose third input, where it has one, is a bias added to each row.
std::vector<OpTask> biased_matmul(const ProfiledKernel& k) {
  return matmul(k, k.inputs.size() > 2 ? std::vector<std::string>{"Add"} : std::vector<std::string>{});
}

std::vector<OpTask> row_op(const ProfiledKernel& k, const std::string& op_type) {
  OpTask t = task_of(k, op_type);
  TensorDesc x = input(k, 0);
  if (x.shape.empty()) misfit("runs along the rows of a scalar");
  x.format = "ND";
  t.inputs = {x};
  if (op_type == "LayerNormalization") {
    TensorDesc scale;
    scale.name = "scale";
    scale.shape = {x.shape.back()};
    scale.dtype = x.dtype;
    scale.constant = true;
    t.inputs.push_back(scale);
  }
  TensorDesc y = x;
  y.name = "y";
  t.outputs = {y};
  t.attrs = {{"axis", -1}};
  return {t};
}

// ConfusionTransposeD: the heads of an attention moved from rows to a dim of
// their own, (B, S, H, D) -> (B, H, S, D), or back; the 4-D side gives the dims.
std::vector<OpTask> confusion_transpose(const ProfiledKernel& k) {
  const TensorDesc in = input(k, 0), out = output(k, 0);
  OpTask t = task_of(k, "Transpose");
  TensorDesc x = in, y = out;
  if (out.shape.size() == 4) {
    x.shape = {out.shape[0], out.shape[2], out.shape[1], out.shape[3]};
  } else if (in.shape.size() == 4) {
    y.shape = {in.shape[0], in.shape[2], in.shape[1], in.shape[3]};
  } else {
    misfit("ConfusionTransposeD with neither side 4-D");
  }
  if (x.elements() != y.elements()) misfit("ConfusionTransposeD changes the element count");
  t.inputs = {x};
  t.outputs = {y};
  t.attrs = {{"perm", {0, 2, 1, 3}}};
  return {t};
}

// Transpose (TransposeD, with its perm folded): a row carries no perm, so
// each output dim takes the first unused input dim of its extent, which keeps
// equal dims in their order.
std::vector<OpTask> transpose(const ProfiledKernel& k) {
  TensorDesc x = input(k, 0), y = output(k, 0);
  if (x.shape.size() != y.shape.size() || x.elements() != y.elements())
    misfit("its output " + shape_text(y.shape) + " is not a permutation of its input " + shape_text(x.shape));
  std::vector<int64_t> perm;
  std::vector<bool> used(x.shape.size(), false);
  for (int64_t extent : y.shape) {
    size_t a = 0;
    while (a < x.shape.size() && (used[a] || x.shape[a] != extent)) ++a;
    if (a == x.shape.size())
      misfit("its output " + shape_text(y.shape) + " is not a permutation of its input " + shape_text(x.shape));
    used[a] = true;
    perm.push_back(static_cast<int64_t>(a));
  }
  x.format = y.format = "ND";
  OpTask t = task_of(k, "Transpose");
  t.inputs = {x};
  t.outputs = {y};
  t.attrs = {{"perm", perm}};
  return {t};
}

// ND <-> FRACTAL_NZ streams as the TransData model's layout changes do:
// the NZ side is written (or read) 512 B at a time, a 16 x 16 tile's rows
// together, and the ND side whole rows, repacked in UB; the profiles time
// such conversions at HBM's rate (BERT's 768 x 3072 weights at 1.1 TB/s),
// not at a 32 B burst per tile row, as a transpose of the tiles would move
// them. Both sides are given the matrix with its rows and columns padded
// to whole tiles, the NZ side's extent.
std::vector<OpTask> nz_transdata(const ProfiledKernel& k) {
  const bool to_nz = k.outputs.at(0).format == "FRACTAL_NZ";
  TensorDesc x = logical(to_nz ? k.outputs[0] : k.inputs.at(0), "in0");
  x.dtype = (to_nz ? input(k, 0) : output(k, 0)).dtype;
  x.format = "ND";
  TensorDesc y = x;
  y.name = "out0";
  OpTask t = task_of(k, "TransData");
  t.inputs = {x};
  t.outputs = {y};
  return {t};
}

// NCHW <-> NC1HWC0 as the simulator's TransData models it (C padded there);
// ND <-> FRACTAL_NZ as nz_transdata says.
std::vector<OpTask> transdata(const ProfiledKernel& k) {
  if (k.inputs.empty() || k.outputs.empty()) misfit("TransData without an input and an output");
  if (k.inputs[0].format == "FRACTAL_NZ" || k.outputs[0].format == "FRACTAL_NZ") return nz_transdata(k);
  TensorDesc x = input(k, 0), y = output(k, 0);
  const bool from_fractal = k.inputs[0].format == "NC1HWC0", to_fractal = k.outputs[0].format == "NC1HWC0";
  if (from_fractal == to_fractal) misfit("TransData between " + k.inputs[0].format + " and " + k.outputs[0].format);
  TensorDesc& plain = from_fractal ? y : x;
  if (plain.shape.size() != 4) misfit("TransData of a " + std::to_string(plain.shape.size()) + "-D plain tensor");
  x.shape = y.shape = plain.shape;  // the model pads C to C0 itself
  x.format = from_fractal ? "NC1HWC0" : "NCHW";
  y.format = to_fractal ? "NC1HWC0" : "NCHW";
  OpTask t = task_of(k, "TransData");
  t.inputs = {x};
  t.outputs = {y};
  return {t};
}

// MaxPoolWithArgmax: a 3x3 stride-2 window pass over the larger map, as
// ResNet's stem pools.
std::vector<OpTask> max_pool(const ProfiledKernel& k) {
  TensorDesc x = input(k, 0), y = output(k, 0);
  if (y.elements() > x.elements()) std::swap(x, y);
  if (x.shape.size() != 4 || y.shape.size() != 4) misfit("max pool over maps that are not NC1HWC0");
  OpTask t = task_of(k, "MaxPool");
  t.inputs = {x};
  t.outputs = {y};
  const int64_t stride = std::max<int64_t>(1, x.shape[2] / std::max<int64_t>(1, y.shape[2]));
  t.attrs = {{"kernel_shape", {3, 3}}, {"strides", {stride, stride}}, {"pads", {1, 1, 1, 1}}};
  return {t};
}

// The tensors of a training step's vector, reduction and row kernels as the
// step gives them: plain (ND) maps and matrices, statistics one value per
// channel (or row), scalars one value.
TensorDesc plain(TensorDesc t) {
  t.format = "ND";
  return t;
}
TensorDesc in_plain(const ProfiledKernel& k, size_t i) { return plain(input(k, i)); }
TensorDesc shaped(TensorDesc t, std::vector<int64_t> shape) {
  const int64_t was = t.elements();
  t.shape = std::move(shape);
  if (t.elements() != was && was > 1) misfit(t.name + " has " + std::to_string(was) + " elements where " + std::to_string(t.elements()) + " are expected");
  t.format = "ND";
  return t;
}
TensorDesc per_channel(const TensorDesc& t) { return shaped(t, {t.elements()}); }
TensorDesc one_value(const TensorDesc& t) { return shaped(t, {1}); }

// CANN's ReLU keeps a bit mask (a bit per element) where the step keeps y;
// its bytes, a sixteenth of a float16 map's, are read as one value.
TensorDesc relu_mask(const TensorDesc& mask) {
  TensorDesc y = mask;
  y.shape = {1};
  y.format = "ND";
  return y;
}

// The largest output (a map), and the per-channel ones in order.
TensorDesc largest_output(const ProfiledKernel& k) {
  if (k.outputs.empty()) misfit("has no outputs");
  TensorDesc best = output(k, 0);
  for (size_t i = 1; i < k.outputs.size(); ++i)
    if (output(k, i).elements() > best.elements()) best = output(k, i);
  return plain(best);
}
std::vector<TensorDesc> small_outputs(const ProfiledKernel& k, size_t count) {
  const auto big = largest_output(k).elements();
  std::vector<TensorDesc> out;
  for (size_t i = 0; i < k.outputs.size() && out.size() < count; ++i)
    if (output(k, i).elements() < big) out.push_back(per_channel(output(k, i)));
  if (out.size() < count) misfit("has fewer than " + std::to_string(count) + " per-channel outputs");
  return out;
}

// A task of the step's op type: `ins` picks the row's inputs in the
// order docs/training.md gives.
OpTask step_task(const ProfiledKernel& k, const std::string& op_type, std::vector<TensorDesc> ins,
                 std::vector<TensorDesc> outs) {
  OpTask t = task_of(k, op_type);
  t.inputs = std::move(ins);
  t.outputs = std::move(outs);
  return t;
}

// BNTrainingUpdate, then ReLU (and an Add of the shortcut before it):
// x, sum, square_sum, scale, offset (CANN's running mean and variance
// beside them are updated in place); y, batch_mean, batch_invstd.
std::vector<OpTask> bn_update(const ProfiledKernel& k, const std::vector<std::string>& fused) {
  std::vector<TensorDesc> ins{in_plain(k, 0)};
  for (size_t i = 1; i < 5; ++i) ins.push_back(per_channel(input(k, i)));
  if (!fused.empty() && fused.front() == "Add") ins.push_back(in_plain(k, 7));
  const auto stats = small_outputs(k, 2);
  OpTask t = step_task(k, "BNTrainingUpdate", ins, {largest_output(k), stats[0], stats[1]});
  t.fused_ops = fused;
  t.attrs = {{"epsilon", 1e-5}};
  return {t};
}

// BNTrainingReduceGrad: dy, x, dscale, doffset, scale, batch_mean, batch_invstd.
std::vector<TensorDesc> bn_reduce_grad_inputs(const ProfiledKernel& k, size_t first) {
  std::vector<TensorDesc> ins{in_plain(k, first), in_plain(k, first + 1)};
  for (size_t i = first + 2; i < first + 7; ++i) ins.push_back(per_channel(input(k, i)));
  return ins;
}

// FusedDbnDw: batch-norm's data gradient, then the weight gradient of the
// conv before it from that dx; CANN lists the conv's x first.
std::vector<OpTask> dbn_dw(const ProfiledKernel& k) {
  auto ins = bn_reduce_grad_inputs(k, 1);
  const TensorDesc x = cube_operand(input(k, 0)), dx = output(k, 0);
  const OpTask dw = weight_gradient(k, dx, x, k.outputs.at(1));
  ins.push_back(x);
  OpTask t = step_task(k, "BNTrainingReduceGrad", ins, {plain(dx), dw.outputs[0]});
  t.fused_ops = {"Conv2DBackpropFilter"};
  t.attrs = {{"fused_attrs", {dw.attrs}}};  // a follower's attributes, as fusion keeps them
  return {t};
}

// The optimizers: CANN passes lr and momentum as tensors, the step as
// attributes. A weight's update (var, accum, lr, grad): ApplyMomentum,
// ApplyAdagradD.
OpTask weight_update(const ProfiledKernel& k, const char* kernel) {
  const TensorDesc w = in_plain(k, 0), accum = in_plain(k, 1), grad = in_plain(k, 3);
  TensorDesc w_out = w, accum_out = accum;
  w_out.dtype = accum_out.dtype = output(k, 0).dtype;
  return step_task(k, kernel, {w, accum, grad}, {w_out, accum_out});
}

std::vector<OpTask> apply_momentum(const ProfiledKernel& k) {
  OpTask t = weight_update(k, "ApplyMomentum");
  t.attrs = {{"lr", 0.1}, {"momentum", 0.9}};
  return {t};
}

// FusedMulApplyMomentum (var, accum, lr, x1, momentum, x2): the gradient
// x1 * x2 unscaled, then momentum on var and accum.
std::vector<OpTask> mul_apply_momentum(const ProfiledKernel& k) {
  const TensorDesc w = in_plain(k, 0), accum = in_plain(k, 1);
  TensorDesc w_out = w, accum_out = accum;
  w_out.dtype = accum_out.dtype = output(k, 0).dtype;
  OpTask t = step_task(k, "Mul", {in_plain(k, 3), one_value(input(k, 5)), w, accum}, {w_out, accum_out});
  t.fused_ops = {"ApplyMomentum"};
  t.attrs = {{"lr", 0.1}, {"momentum", 0.9}};
  return {t};
}

// A reduction of the step: the row's map(s) and statistics as its inputs.
std::vector<OpTask> bn_statistics_gradient(const ProfiledKernel& k) {
  const std::vector<TensorDesc> outs{per_channel(output(k, 0)), per_channel(output(k, 1))};
  return {step_task(k, "BNTrainingUpdateGrad",
                    {in_plain(k, 0), in_plain(k, 1), per_channel(input(k, 2)), per_channel(input(k, 3))}, outs)};
}

// The kernel's first input is a FRACTAL_NZ matrix (or a batch of them).
bool nz_first_input(const ProfiledKernel& k) {
  return !k.inputs.empty() && k.inputs[0].format == "FRACTAL_NZ" && k.inputs[0].dims.size() >= 4;
}

// In FRACTAL_NZ a column block's rows lie together (N1 x M1 x M0 x N0): a
// sum over the rows streams each block, 16 columns wide, whole. `maps` NZ
// inputs of one shape read together (LayerNormBetaGammaBackpropV2's dy and
// its normalised x) are summed as that many times the column blocks.
std::vector<OpTask> nz_column_sum(const ProfiledKernel& k, size_t maps = 1) {
  const ProfiledTensor& nz = k.inputs.at(0);
  const auto& s = nz.dims;
  for (size_t i = 1; i < maps; ++i)
    if (k.inputs.size() <= i || k.inputs[i].dims != s) misfit("lacks a FRACTAL_NZ input of its first's shape");
  TensorDesc x = in_plain(k, 0);
  int64_t batch = static_cast<int64_t>(maps);
  for (size_t i = 0; i + 4 < s.size(); ++i) batch *= s[i];
  x.shape = {batch * s[s.size() - 4], s[s.size() - 3] * s[s.size() - 2], s.back()};
  TensorDesc out = per_channel(output(k, 0));
  out.shape = {x.shape[0], 1, x.shape[2]};
  OpTask t = task_of(k, "ReduceSum");
  t.inputs = {x};
  t.outputs = {out};
  t.attrs = {{"axes", {1}}, {"keepdims", 1}};
  return {t};
}

std::vector<OpTask> layer_norm_parameter_gradient(const ProfiledKernel& k) {
  if (nz_first_input(k)) return nz_column_sum(k, 2);
  const TensorDesc dy = in_plain(k, 0);
  if (dy.shape.size() < 2) misfit("dy of a layer norm is not rows x D");
  TensorDesc stat;
  stat.name = "mean";
  stat.dtype = DType::f32;
  stat.shape = {dy.elements() / dy.shape.back(), 1};
  TensorDesc invstd = stat;
  invstd.name = "invstd";
  OpTask t = step_task(k, "LayerNormBetaGammaBackpropV2", {dy, in_plain(k, 1), stat, invstd},
                       {per_channel(output(k, 0)), per_channel(output(k, 1))});
  t.attrs = {{"axis", -1}};
  return {t};
}

std::vector<OpTask> bias_gradient(const ProfiledKernel& k) {
  if (nz_first_input(k)) return nz_column_sum(k);
  const TensorDesc dy = in_plain(k, 0);
  OpTask t = step_task(k, "BiasAddGrad", {dy}, {per_channel(output(k, 0))});
  t.attrs = {{"axis", k.inputs.at(0).format == "NC1HWC0" ? 1 : -1}};
  return {t};
}

std::vector<OpTask> row_gradient(const ProfiledKernel& k, const std::string& op_type, size_t inputs, size_t outputs) {
  std::vector<TensorDesc> ins, outs;
  for (size_t i = 0; i < inputs; ++i) ins.push_back(in_plain(k, i));
  for (size_t i = 0; i < outputs; ++i) outs.push_back(plain(output(k, i)));
  // Rows in FRACTAL_NZ lie 16 columns to a block, which the kernel works in.
  if (nz_first_input(k)) ins[0].format = "FRACTAL_NZ";
  OpTask t = step_task(k, op_type, ins, outs);
  if (op_type != "SoftmaxCrossEntropyWithLogits") t.attrs = {{"axis", -1}};
  return {t};
}

// MaxPoolGradWithArgmax (x, dy, argmax): the forward pool's 3x3 window, its
// stride from the maps' sizes, pads 1.
std::vector<OpTask> max_pool_gradient(const ProfiledKernel& k) {
  const TensorDesc x = input(k, 0), dy = input(k, 1);
  if (x.shape.size() != 4 || dy.shape.size() != 4) misfit("max pool over maps that are not NC1HWC0");
  const int64_t stride = std::max<int64_t>(1, x.shape[2] / std::max<int64_t>(1, dy.shape[2]));
  OpTask t = step_task(k, "MaxPoolGradWithArgmax", {x, dy}, {output(k, 0)});
  t.attrs = {{"kernel_shape", {3, 3}}, {"strides", {stride, stride}}, {"pads", {1, 1, 1, 1}}};
  return {t};
}

// AtomicAddrClean zeroes what the kernel after it accumulates into, in
// fp32, the dtype atomic adds accumulate in. The profile lists the tensor
// that kernel works on: where it is a feature map, a reduction over the map
// accumulates per-channel statistics (two of them, a sum and a square sum or
// dscale and doffset), which are what is cleared; a weight gradient, matrix
// or vector is cleared whole.
std::vector<OpTask> atomic_clean(const ProfiledKernel& k) {
  if (k.inputs.empty()) misfit("names no tensor it clears");
  TensorDesc t = input(k, 0);
  t.dtype = DType::f32;
  t.format = "ND";
  OpTask task = task_of(k, "AtomicAddrClean");
  if (k.inputs[0].format == "NC1HWC0" && t.elements() > t.shape.at(1)) {
    t.shape = {t.shape[1]};
    task.inputs = {t, t};
  } else {
    task.inputs = {t};
  }
  return {task};
}

// A data mover as a one-pass elementwise kernel over what it moves: a
// concat, a split, a pad, a tile, a fill or a nearest resize the larger of
// what it reads and what it writes; a slice (`picks`) only what it writes,
// the part of its input it reads.
std::vector<OpTask> copy_kernel(const ProfiledKernel& k, bool picks) {
  int64_t read = 0, written = 0;
  for (size_t i = 0; i < k.inputs.size(); ++i) read += input(k, i).elements();
  for (size_t i = 0; i < k.outputs.size(); ++i) written += output(k, i).elements();
  if (read == 0 && written == 0) misfit("has no tensors");
  if (picks && written == 0) misfit("writes nothing");
  TensorDesc t = k.outputs.empty() ? input(k, 0) : output(k, 0);
  t.shape = {picks ? written : std::max(read, written)};
  t.format = "ND";
  OpTask task = task_of(k, "Relu");
  task.inputs = {t};
  task.outputs = {t};
  return {task};
}

// MaxPool and AvgPool (V2, V3): a row carries no attributes, so the window
// is the stride the maps' sizes give (VGG's 2x2 at stride 2), no pads; the
// whole map where the output is one position (a global pool); 3x3 padded
// where the map keeps its size (Inception's stride-1 pools: a 1x1 pool
// would be a copy), as max_pool() takes its window.
std::vector<OpTask> pool(const ProfiledKernel& k, const std::string& onnx_type) {
  const TensorDesc x = input(k, 0), y = output(k, 0);
  if (x.shape.size() != 4 || y.shape.size() != 4) misfit("pools maps that are not NC1HWC0");
  std::vector<int64_t> kernel(2), strides(2), pads(4, 0);
  for (size_t a = 0; a < 2; ++a) {
    const int64_t in = x.shape[2 + a], out = std::max<int64_t>(1, y.shape[2 + a]);
    strides[a] = out == 1 ? in : std::max<int64_t>(1, in / out);
    kernel[a] = strides[a];
    if (in == out && in > 1) {
      kernel[a] = 3;
      pads[a] = pads[a + 2] = 1;
    }
  }
  OpTask t = task_of(k, onnx_type);
  t.inputs = {x};
  t.outputs = {y};
  t.attrs = {{"kernel_shape", kernel}, {"strides", strides}, {"pads", pads}};
  return {t};
}

// A gradient of an activation from dy and a tensor of its size (x or y), as
// the step's kernel of that name computes it.
std::vector<OpTask> activation_gradient(const ProfiledKernel& k, const std::string& op_type) {
  return {step_task(k, op_type, {in_plain(k, 0), in_plain(k, 1)}, {largest_output(k)})};
}

// An optimizer's update over the tensors of the weight's size it reads, in
// CANN's order (the weight, its slots, the gradient) and writes (the weight
// and its slots, or none where it updates them in place); the scalars beside
// them (learning rate, decays, epsilon) are folded.
OpTask slot_update(const ProfiledKernel& k, const char* kernel, size_t slots) {
  auto full = [](std::vector<TensorDesc> all, size_t want) {
    int64_t most = 0;
    for (const auto& t : all) most = std::max(most, t.elements());
    std::vector<TensorDesc> out;
    for (auto& t : all)
      if (t.elements() == most && out.size() < want) out.push_back(plain(t));
    return out;
  };
  std::vector<TensorDesc> ins, outs;
  for (size_t i = 0; i < k.inputs.size(); ++i) ins.push_back(input(k, i));
  for (size_t i = 0; i < k.outputs.size(); ++i) outs.push_back(output(k, i));
  ins = full(ins, slots + 2);
  if (ins.size() != slots + 2)
    misfit("reads " + std::to_string(ins.size()) + " tensors of the weight's size, not " + std::to_string(slots + 2));
  outs = full(outs, slots + 1);
  if (outs.size() != slots + 1) outs.clear();  // updated in place: what it writes is what it read
  return step_task(k, kernel, ins, outs);
}

// An Adam update (ApplyAdamD, AdamApplyOne, AdamApplyOneWithDecay and their
// Assign forms): the weight, both moments and the gradient.
std::vector<OpTask> adam(const ProfiledKernel& k) { return {slot_update(k, "ApplyAdam", 2)}; }

// RMSProp (ApplyRMSProp, ApplyRMSPropD): the weight, the mean square, the
// momentum and the gradient.
std::vector<OpTask> rms_prop(const ProfiledKernel& k) { return {slot_update(k, "ApplyRMSProp", 2)}; }

// The elementwise kernels: vector instructions per element, simple and
// exp-class (divides, roots, exp, log), as CANN's kernels lower them.
struct VectorWork {
  int simple, transcendental;
};

const std::map<std::string, VectorWork>& vector_ops() {
  static const std::map<std::string, VectorWork> ops = {
      // Arithmetic, compares and logic: one instruction; divides and roots one exp-class.
      {"Add", {1, 0}}, {"Adds", {1, 0}}, {"Sub", {1, 0}}, {"Mul", {1, 0}}, {"Muls", {1, 0}}, {"Neg", {1, 0}},
      {"Abs", {1, 0}}, {"Square", {1, 0}}, {"Floor", {1, 0}}, {"Round", {1, 0}}, {"Maximum", {1, 0}},
      {"Minimum", {1, 0}}, {"Equal", {1, 0}}, {"NotEqual", {1, 0}}, {"Less", {1, 0}}, {"LessEqual", {1, 0}},
      {"Greater", {1, 0}}, {"GreaterEqual", {1, 0}}, {"LogicalAnd", {1, 0}}, {"LogicalOr", {1, 0}},
      {"LogicalNot", {1, 0}}, {"Select", {1, 0}}, {"BiasAdd", {1, 0}}, {"Axpy", {2, 0}}, {"Sign", {2, 0}},
      {"SquaredDifference", {2, 0}}, {"RealDiv", {0, 1}}, {"Div", {0, 1}}, {"Reciprocal", {0, 1}},
      {"Sqrt", {0, 1}}, {"Exp", {0, 1}}, {"Log", {0, 1}}, {"Rsqrt", {0, 2}}, {"DivNoNan", {2, 1}},
      {"FloorDiv", {1, 1}}, {"Pow", {1, 2}},
      // Copies written whole (fills: fill(), slice_gradient()).
      {"Assign", {1, 0}}, {"AssignAdd", {1, 0}}, {"TensorMove", {1, 0}},
      // Activations and their gradients.
      {"Relu", {1, 0}}, {"ReluV2", {1, 0}}, {"Relu6", {2, 0}}, {"LeakyRelu", {2, 0}}, {"Sigmoid", {2, 2}},
      {"Tanh", {3, 2}}, {"Gelu", {6, 2}}, {"GeLU", {6, 2}}, {"FastGelu", {4, 1}}, {"Elu", {3, 1}},
      {"Swish", {3, 2}}, {"HardSwish", {5, 0}}, {"HardSigmoid", {4, 0}}, {"TanhGrad", {2, 0}},
      {"LeakyReluGrad", {3, 0}}, {"EluGrad", {3, 0}}, {"RsqrtGrad", {4, 0}}, {"SqrtGrad", {1, 1}},
      {"MaximumGrad", {2, 0}}, {"MinimumGrad", {2, 0}},
      // Pools' gradients: dy spread over the window; a max pool's where x was the max (x, y and dy read).
      {"AvgPoolGrad", {1, 0}}, {"AvgPoolGradVm", {1, 0}}, {"MaxPoolGrad", {3, 0}},
      // Masks, clips, inference's batch norm, a plain descent step.
      {"DropoutDoMask", {2, 0}}, {"DropOutDoMask", {2, 0}}, {"DropOutDoMaskV3", {2, 0}}, {"ClipByValue", {2, 0}},
      {"ClipByNormNoDivSum", {3, 0}}, {"BNInfer", {2, 0}}, {"BNInferenceD", {2, 0}},
      {"ApplyGradientDescent", {1, 0}},
      // YOLO's objectness loss, max(x, 0) - x z + log(1 + exp(-|x|)), and its gradient (sigmoid(x) - z) dy.
      {"SigmoidCrossEntropyWithLogits", {6, 2}}, {"SigmoidCrossEntropyWithLogitsGrad", {4, 2}},
  };
  return ops;
}

using Builder = std::function<std::vector<OpTask>(const ProfiledKernel&)>;

Builder vector(int simple, int transcendental) {
  return [=](const ProfiledKernel& k) { return vector_kernel(k, simple, transcendental); };
}

const Builder moves = [](const ProfiledKernel& k) { return copy_kernel(k, false); };

// A fill writes its largest output whole and reads nothing as big, so it is
// the ONNX op sized by that output: OneHot for a OneHot (a compare and a
// select an element; BERT's 2560 x 21128 labels written at 0.9 TB/s),
// ConstantOfShape for a ZerosLike or OnesLike (one store).
Builder fill(const std::string& onnx_type) {
  return [=](const ProfiledKernel& k) {
    OpTask t = task_of(k, onnx_type);
    t.outputs = {largest_output(k)};
    return std::vector<OpTask>{t};
  };
}

// A StridedSliceGrad writes zeros and its dy into their slice: a Pad of dy.
std::vector<OpTask> slice_gradient(const ProfiledKernel& k) {
  OpTask t = task_of(k, "Pad");
  t.inputs = {in_plain(k, 0)};
  t.outputs = {largest_output(k)};
  if (t.inputs[0].shape.size() != t.outputs[0].shape.size()) misfit("pads dy to an output of another rank");
  return {t};
}
const Builder picks = [](const ProfiledKernel& k) { return copy_kernel(k, true); };

// Gather (GatherV2) of a table's rows by an index each, on axis 0 as a
// step's embedding lookups run: ONNX's Gather, which pays the scalar unit's
// turn per index. A row whose shapes are not such a gather is timed as the
// copy of what it writes.
std::vector<OpTask> gather_rows(const ProfiledKernel& k) {
  if (k.inputs.size() < 2 || k.outputs.empty()) return copy_kernel(k, true);
  const TensorDesc table = in_plain(k, 0), ids = in_plain(k, 1), y = largest_output(k);
  if (table.shape.empty() || y.elements() != ids.elements() * (table.elements() / std::max<int64_t>(1, table.shape[0])))
    return copy_kernel(k, true);
  OpTask t = step_task(k, "Gather", {table, ids}, {y});
  t.attrs = {{"axis", 0}};
  return {t};
}

// UnsortedSegmentSum: each row of x added into the output row its id names.
// A row whose ids do not lead x's dims is timed as a copy.
std::vector<OpTask> segment_sum(const ProfiledKernel& k) {
  if (k.inputs.size() < 2 || k.outputs.empty()) return copy_kernel(k, false);
  const TensorDesc x = in_plain(k, 0), ids = in_plain(k, 1);
  if (!segment_ids_lead(ids.shape, x.shape)) return copy_kernel(k, false);
  return {step_task(k, "UnsortedSegmentSum", {x, ids}, {largest_output(k)})};
}

// CANN's op types, the fusions of a training step included. The step's
// kernels count their vector instructions where they are modelled
// (training_vector_ops.cpp); the elementwise ones carry theirs in
// vector_ops(), and a fusion not listed is priced by fusion() from its parts.
const std::map<std::string, Builder>& table() {
  static const std::map<std::string, Builder> rows = [] {
    std::map<std::string, Builder> r = {
      {"Conv2D", [](const ProfiledKernel& k) { return conv_forward(k, {}); }},
      {"FusionOp_Conv2D_BNTrainingReduce", [](const ProfiledKernel& k) { return conv_forward(k, {"BNTrainingReduce"}); }},
      {"Conv2DBackpropInput", [](const ProfiledKernel& k) { return conv_data_gradient(k, {}); }},
      {"FusionOp_Conv2DBackpropInput_ReluGradV2",
       [](const ProfiledKernel& k) { return conv_data_gradient(k, {"ReluGradV2"}); }},
      {"FusionOp_Conv2DBackpropInput_AddN_ReluGradV2",
       [](const ProfiledKernel& k) { return conv_data_gradient(k, {"AddN", "ReluGradV2"}); }},
      {"Conv2DBackpropFilter", conv_weight_gradient},
      {"FusedDbnDw", dbn_dw},
      {"BNTrainingReduce",
       [](const ProfiledKernel& k) { return std::vector<OpTask>{step_task(k, "BNTrainingReduce", {in_plain(k, 0)}, small_outputs(k, 2))}; }},
      {"BNTrainingUpdateGrad", bn_statistics_gradient},
      {"BNTrainingReduceGrad",
       [](const ProfiledKernel& k) {
         return std::vector<OpTask>{step_task(k, "BNTrainingReduceGrad", bn_reduce_grad_inputs(k, 0), {largest_output(k)})};
       }},
      {"BNTrainingUpdate", [](const ProfiledKernel& k) { return bn_update(k, {}); }},
      {"FusionOp_BNTrainingUpdate_ReLUV2", [](const ProfiledKernel& k) { return bn_update(k, {"Relu"}); }},
      {"FusionOp_BNTrainingUpdate_Add_ReLUV2", [](const ProfiledKernel& k) { return bn_update(k, {"Add", "Relu"}); }},
      {"ReluGradV2",
       [](const ProfiledKernel& k) {
         return std::vector<OpTask>{step_task(k, "ReluGradV2", {in_plain(k, 0), relu_mask(input(k, 1))}, {largest_output(k)})};
       }},
      {"FusedMulApplyMomentum", mul_apply_momentum},
      {"ApplyMomentum", apply_momentum},
      {"FusedMulAddN",
       [](const ProfiledKernel& k) {
         OpTask t = step_task(k, "FusedMulAddN", {in_plain(k, 0), in_plain(k, 1)}, {largest_output(k)});
         t.attrs = {{"weight_decay", 1e-4}};
         return std::vector<OpTask>{t};
       }},
      {"AddN",
       [](const ProfiledKernel& k) {
         std::vector<TensorDesc> ins;
         for (size_t i = 0; i < k.inputs.size(); ++i) ins.push_back(in_plain(k, i));
         return std::vector<OpTask>{step_task(k, "AddN", ins, {largest_output(k)})};
       }},
      {"Cast",
       [](const ProfiledKernel& k) {
         TensorDesc x = in_plain(k, 0), y = largest_output(k);
         if (x.elements() != y.elements()) misfit("casts " + std::to_string(x.elements()) + " elements to " + std::to_string(y.elements()));
         y.shape = x.shape;
         return std::vector<OpTask>{step_task(k, "Cast", {x}, {y})};
       }},
      {"GeLUGrad",
       [](const ProfiledKernel& k) {
         return std::vector<OpTask>{step_task(k, "GeLUGrad", {in_plain(k, 0), in_plain(k, 1)}, {largest_output(k)})};
       }},
      // Data movers and fills (copy_kernel for those that read more or less than they write).
      {"StridedSlice", picks},
      {"Gather", gather_rows},
      {"UnsortedSegmentSum", segment_sum},
      {"AtomicAddrClean", atomic_clean},
      {"LambApplyOptimizerAssign",
       [](const ProfiledKernel& k) {
         std::vector<TensorDesc> ins, outs;
         for (size_t i = 0; i < 4; ++i) ins.push_back(in_plain(k, i));
         for (size_t i = 0; i < k.outputs.size(); ++i) outs.push_back(plain(output(k, i)));
         OpTask t = step_task(k, "LambApplyOptimizerAssign", ins, outs);
         t.attrs = {{"beta1", 0.9}, {"beta2", 0.999}, {"epsilon", 1e-6}, {"weight_decay", 0.01}, {"step", 1}};
         return std::vector<OpTask>{t};
       }},
      {"LambApplyWeightAssign",
       [](const ProfiledKernel& k) {
         OpTask t = step_task(k, "LambApplyWeightAssign",
                              {one_value(input(k, 0)), one_value(input(k, 1)), in_plain(k, 3), in_plain(k, 4)},
                              {largest_output(k)});
         t.attrs = {{"lr", 1e-4}};
         return std::vector<OpTask>{t};
       }},
      {"SquareSumV1",  // of the whole tensor (LAMB's norms), or along an axis (DeepFM's fields) as a reduction
       [](const ProfiledKernel& k) {
         if (in_plain(k, 0).shape.empty()) misfit("sums the squares of a scalar");
         if (output(k, 0).elements() > 1) return reduction(k);
         return std::vector<OpTask>{step_task(k, "SquareSumV1", {in_plain(k, 0)}, {one_value(output(k, 0))})};
       }},
      {"SquareSumV2", reduction},
      {"ReduceSum", reduction},
      {"ReduceMean", reduction},
      {"BiasAddGrad", bias_gradient},
      {"LayerNormBetaGammaBackpropV2", layer_norm_parameter_gradient},
      {"MatMul", biased_matmul},
      {"BatchMatMul", [](const ProfiledKernel& k) { return matmul(k, {}, "BatchMatMul"); }},
      {"FusionOp_MatMul_Mul", [](const ProfiledKernel& k) { return matmul(k, {"Mul"}); }},
      {"FusionOp_MatMul_AddN", [](const ProfiledKernel& k) { return matmul(k, {"Add"}); }},
      {"FusionOp_MatMul_GeLU", [](const ProfiledKernel& k) { return matmul(k, {"Add", "Gelu"}); }},
      // CANN's GeLUGrad reads the GELU's y too; the step's reads its x only.
      {"FusionOp_MatMul_GeLUGrad", [](const ProfiledKernel& k) { return matmul(k, {"GeLUGrad"}, "BatchMatMul"); }},
      {"FusionOp_MatMul_Tanh",
       [](const ProfiledKernel& k) {
         return matmul(k, k.inputs.size() > 2 ? std::vector<std::string>{"Add", "Tanh"} : std::vector<std::string>{"Tanh"});
       }},
      {"FusionOp_BatchMatMul_FusedMulAdd", [](const ProfiledKernel& k) { return matmul(k, {"Mul", "Add"}); }},
      {"Softmax", [](const ProfiledKernel& k) { return row_op(k, "Softmax"); }},
      {"SoftmaxGradExt", [](const ProfiledKernel& k) { return row_gradient(k, "SoftmaxGradExt", 2, 1); }},
      {"LogSoftmax", [](const ProfiledKernel& k) { return row_op(k, "LogSoftmax"); }},
      {"LogSoftmaxGrad", [](const ProfiledKernel& k) { return row_op(k, "Softmax"); }},
      {"SoftmaxCrossEntropyWithLogits",
       [](const ProfiledKernel& k) { return row_gradient(k, "SoftmaxCrossEntropyWithLogits", 2, 2); }},
      {"LayerNorm", [](const ProfiledKernel& k) { return row_op(k, "LayerNormalization"); }},
      {"LayerNormXBackpropV2",
       [](const ProfiledKernel& k) { return row_gradient(k, "LayerNormXBackpropV2", 5, k.outputs.size() > 1 ? 2 : 1); }},
      {"ConfusionTransposeD", confusion_transpose},
      {"TransData", transdata},
      {"MaxPoolWithArgmax", max_pool},
      {"MaxPoolGradWithArgmax", max_pool_gradient},
      // The kernels of other models' steps and of inference graphs, under
      // CANN's names and their D (constant-folded) and versioned forms.
      {"MatMulV2", biased_matmul},
      {"MatMulV3", biased_matmul},
      {"BatchMatMulV2", [](const ProfiledKernel& k) { return matmul(k, {}, "BatchMatMul"); }},
      {"BatchMatMulV3", [](const ProfiledKernel& k) { return matmul(k, {}, "BatchMatMul"); }},
      {"LayerNormV3", [](const ProfiledKernel& k) { return row_op(k, "LayerNormalization"); }},
      {"LayerNormV4", [](const ProfiledKernel& k) { return row_op(k, "LayerNormalization"); }},
      {"RmsNorm", [](const ProfiledKernel& k) { return row_op(k, "LayerNormalization"); }},  // no mean: priced as LayerNorm
      {"Conv2DBackpropInputD", [](const ProfiledKernel& k) { return conv_data_gradient(k, {}); }},
      {"DepthwiseConv2D", [](const ProfiledKernel& k) { return depthwise(k, input(k, 0), output(k, 0), depthwise_weights(k)); }},
      {"DepthwiseConv2DBackpropInputD",  // filter, dy -> dx
       [](const ProfiledKernel& k) { return depthwise(k, output(k, 0), input(k, 1), depthwise_weights(k)); }},
      {"DepthwiseConv2DBackpropFilterD",  // x, dy -> the filter's gradient
       [](const ProfiledKernel& k) { return depthwise(k, input(k, 0), input(k, 1), depthwise_weights(k)); }},
      {"Conv2DBackpropFilterD", conv_weight_gradient},
      {"MaxPool", [](const ProfiledKernel& k) { return pool(k, "MaxPool"); }},
      {"MaxPoolV3", [](const ProfiledKernel& k) { return pool(k, "MaxPool"); }},
      {"AvgPool", [](const ProfiledKernel& k) { return pool(k, "AveragePool"); }},
      {"AvgPoolV2", [](const ProfiledKernel& k) { return pool(k, "AveragePool"); }},
      {"ReluGrad", [](const ProfiledKernel& k) { return activation_gradient(k, "ReluGradV2"); }},
      {"Relu6Grad", [](const ProfiledKernel& k) { return activation_gradient(k, "Relu6Grad"); }},
      {"SigmoidGrad", [](const ProfiledKernel& k) { return activation_gradient(k, "SigmoidGrad"); }},
      {"HardSwishGrad", [](const ProfiledKernel& k) { return activation_gradient(k, "HardSwishGrad"); }},
      {"HardSigmoidGrad", [](const ProfiledKernel& k) { return activation_gradient(k, "HardSigmoidGrad"); }},
      {"ReduceSumD", reduction},
      {"ReduceMeanD", reduction},
      {"ReduceMax", reduction},
      {"ReduceMaxD", reduction},
      {"ReduceMin", reduction},
      {"ReduceMinD", reduction},
      {"SoftmaxV2", [](const ProfiledKernel& k) { return row_op(k, "Softmax"); }},
      {"LogSoftmaxV2", [](const ProfiledKernel& k) { return row_op(k, "LogSoftmax"); }},
      {"SoftmaxGrad", [](const ProfiledKernel& k) { return row_gradient(k, "SoftmaxGradExt", 2, 1); }},
      {"SparseSoftmaxCrossEntropyWithLogits", [](const ProfiledKernel& k) { return row_op(k, "Softmax"); }},
      {"ApplyAdam", adam},
      {"ApplyAdamD", adam},
      {"ApplyAdagradD", [](const ProfiledKernel& k) { return std::vector<OpTask>{weight_update(k, "ApplyAdagrad")}; }},
      {"AdamApplyOne", adam},
      {"AdamApplyOneAssign", adam},
      {"AdamApplyOneWithDecay", adam},
      {"AdamApplyOneWithDecayAssign", adam},
      {"ApplyRMSProp", rms_prop},
      {"ApplyRMSPropD", rms_prop},
      {"ConcatD", moves},
      {"ConcatV2D", moves},
      {"ConcatV2", moves},
      {"Concat", moves},
      {"SplitD", moves},
      {"SplitVD", moves},
      {"Split", moves},
      {"SplitV", moves},
      {"Slice", picks},
      {"SliceD", picks},
      {"StridedSliceD", picks},
      {"PadD", moves},
      {"Pad", moves},
      {"Tile", moves},  // writes its output whole from a smaller input
      {"OneHot", fill("OneHot")},
      {"ZerosLike", fill("ConstantOfShape")},
      {"OnesLike", fill("ConstantOfShape")},
      {"StridedSliceGrad", slice_gradient},
      {"TileD", moves},
      {"ExpandD", moves},
      {"BroadcastToD", moves},
      {"Fill", moves},
      {"GatherV2", gather_rows},
      {"GatherV2D", gather_rows},
      {"ResizeNearestNeighborV2", moves},
      {"ResizeNearestNeighborV2D", moves},
      {"Identity", moves},
      {"Transpose", transpose},
      {"TransposeD", transpose},
      {"TransposeNOD", transpose},
      {"ResizeNearestNeighbor", moves},
      {"ResizeNearestNeighborGrad", moves},
      {"ResizeNearestNeighborV2Grad", moves},
      {"Adam", adam},
      {"ConfusionSoftmaxGrad", [](const ProfiledKernel& k) { return row_gradient(k, "SoftmaxGradExt", 2, 1); }},
    };
    for (const auto& [type, work] : vector_ops()) r.emplace(type, vector(work.simple, work.transcendental));
    return r;
  }();
  return rows;
}

// A follower of a cube kernel as the epilogue names it, or "" where it fuses none.
std::string epilogue_op(const std::string& cann_type) {
  static const std::map<std::string, std::string> aliases = {
      {"ReLU", "Relu"}, {"ReluV2", "Relu"}, {"ReLUV2", "Relu"},   {"GeLU", "Gelu"},
      {"FastGelu", "Gelu"}, {"RealDiv", "Div"}, {"ClipByValue", "Clip"}};
  const auto alias = aliases.find(cann_type);
  const std::string op = alias == aliases.end() ? cann_type : alias->second;
  const auto known = fused_op_types();
  return std::find(known.begin(), known.end(), op) == known.end() ? "" : op;
}

// A fusion the table does not list, FusionOp_A_B_... as CANN names it:
// elementwise ops in a chain are one vector kernel, their instructions
// summed; a reduction with elementwise ops, the reduction (they run in its
// pass); a product or a conv with ops its epilogue fuses, that kernel with
// them, a bias added first where it reads one input more than they take.
Builder fusion(const std::string& op_type) {
  const std::string prefix = "FusionOp_";
  if (op_type.rfind(prefix, 0) != 0) return nullptr;
  const std::vector<std::string> parts = split_field(op_type.substr(prefix.size()), '_');
  if (parts.size() < 2) return nullptr;
  VectorWork chain{0, 0};
  size_t elementwise = 0;
  for (const auto& part : parts) {
    const auto it = vector_ops().find(part);
    if (it == vector_ops().end()) continue;
    chain.simple += it->second.simple;
    chain.transcendental += it->second.transcendental;
    ++elementwise;
  }
  if (elementwise == parts.size()) return vector(chain.simple, chain.transcendental);
  const auto is_reduction = [](const std::string& t) { return t.rfind("ReduceSum", 0) == 0 || t.rfind("ReduceMean", 0) == 0; };
  if (elementwise + 1 == parts.size() && std::any_of(parts.begin(), parts.end(), is_reduction)) return reduction;

  std::vector<std::string> followers;
  for (size_t i = 1; i < parts.size(); ++i) {
    followers.push_back(epilogue_op(parts[i]));
    if (followers.back().empty()) return nullptr;
  }
  const auto biased = [followers](const ProfiledKernel& k) {
    const auto binary = static_cast<size_t>(std::count_if(followers.begin(), followers.end(), is_binary_fused_op));
    auto ops = followers;
    if (k.inputs.size() > 2 + binary) ops.insert(ops.begin(), "Add");
    return ops;
  };
  const std::string& lead = parts[0];
  if (lead.rfind("MatMul", 0) == 0) return [=](const ProfiledKernel& k) { return matmul(k, biased(k)); };
  if (lead.rfind("BatchMatMul", 0) == 0) return [=](const ProfiledKernel& k) { return matmul(k, biased(k), "BatchMatMul"); };
  if (lead == "Conv2D") return [=](const ProfiledKernel& k) { return conv_forward(k, biased(k)); };
  if (lead.rfind("Conv2DBackpropInput", 0) == 0)
    return [=](const ProfiledKernel& k) { return conv_data_gradient(k, followers); };
  return nullptr;
}

}  // namespace

ModelledKernel modelled_kernel(const ProfiledKernel& kernel) {
  ModelledKernel out;
  const auto it = table().find(kernel.op_type);
  const Builder build = it != table().end() ? it->second : fusion(kernel.op_type);
  if (!build) {
    out.uncovered = "no model of CANN's " + kernel.op_type;
    return out;
  }
  try {
    out.tasks = build(kernel);
  } catch (const std::exception& e) {
    out.tasks.clear();
    out.uncovered = kernel.op_type + " " + e.what();
  }
  return out;
}

std::vector<std::string> modelled_cann_types() {
  std::vector<std::string> out;
  for (const auto& [type, build] : table()) out.push_back(type);
  return out;
}

}  // namespace aoe::sim
