#include "elementwise_model.h"

#include <algorithm>
#include <set>
#include <string>

#include "aoe/sdk/dropout_view.h"
#include "aoe/sdk/error.h"
#include "on_chip.h"
#include "vector_model.h"

namespace aoe::sim {
namespace {

using sdk::Error;
using sdk::StatusCode;

struct OpWork {
  const char* op_type;
  int simple;
  int transcendental;
  int inputs;
  int temps;
};

// Philox4x32-10, CANN's stateless generator: per 4 values 10 rounds of 2
// multiplies (high and low words), 4 xors and 2 key bumps, 25 operations a
// value, then a convert and a scale.
constexpr int kUniformDrawPasses = 28;

// Instruction sequences as CANN's DSL lowers them (inputs: the tensors the
// op reads; 0 for one that only writes, sized by its output): sigmoid = 1/(1+exp(-x))
// is vmuls, vexp, vadds, vdiv; hard_sigmoid = min(max(x*a+b, 0), 1);
// hard_swish = x * hard_sigmoid(x); pow = exp(y * ln x); gelu as the
// epilogue counts it (tanh form: cube, mul-adds, tanh, mul); erf, sin and cos
// as polynomial evaluations; softsign x/(1+|x|); elu and selu through exp;
// comparisons and logic as one compare or select each; celu as elu of x/alpha
// scaled back; fmod as x - trunc(x/y) * y.
// Then: asin and acos as TBE's polynomial with a sqrt for |x| > 0.5; asinh,
// acosh and atanh through log (and sqrt, or a division); bit and logic ops,
// IsNaN (x != x) and IsInf (|x| == inf) as one or two compares; CastLike as
// a Cast; CumSum adds each slice along its axis to the running sum before
// it (a copy and an add); Trilu compares each element's row and column and
// selects it or 0; QuantizeLinear scales, rounds, adds the zero point,
// saturates and casts, DequantizeLinear casts, subtracts the zero point and
// scales; a Dropout that is a kernel copies x and fills its mask (in
// training it draws as well: kDropoutDrawPasses); LRN squares, scales, adds
// its bias, raises to beta (a log and an exp) and divides, its window's
// adds counted from its size.
// Ops that read no input: the random draws (normals by Box-Muller, a log, a
// sqrt and a cosine a value; Bernoulli a uniform and a compare); EyeLike
// compares an index with its row, OneHot each output's index with the
// indices and selects one of its two values; Range scales an index by delta
// and adds start; the windows scale an index, take a cosine (Blackman's
// two), multiply and add; MelWeightMatrix takes a bin's frequency to mel (a
// log) and weighs it by its triangle (a divide, and either side a subtract,
// a compare and a select); ConstantOfShape is one fill.
constexpr OpWork kOps[] = {
    {"Add", 1, 0, 2, 0},         {"Sub", 1, 0, 2, 0},       {"Mul", 1, 0, 2, 0},
    {"Div", 0, 1, 2, 0},         {"Relu", 1, 0, 1, 0},      {"Clip", 2, 0, 1, 0},
    {"Sigmoid", 2, 2, 1, 1},     {"HardSigmoid", 4, 0, 1, 0}, {"HardSwish", 5, 0, 1, 1},
    {"Swish", 3, 2, 1, 1},
    {"Tanh", 3, 2, 1, 1},        {"Exp", 0, 1, 1, 0},       {"Sqrt", 0, 1, 1, 0},
    {"Pow", 1, 2, 2, 1},         {"Cast", 1, 0, 1, 0},      {"Gelu", 6, 2, 1, 1},
    {"Max", 1, 0, 2, 0},         {"Min", 1, 0, 2, 0},       {"Abs", 1, 0, 1, 0},
    {"Neg", 1, 0, 1, 0},         {"Floor", 1, 0, 1, 0},     {"Ceil", 1, 0, 1, 0},
    {"Round", 1, 0, 1, 0},       {"Sign", 2, 0, 1, 1},      {"Log", 0, 1, 1, 0},
    {"Reciprocal", 0, 1, 1, 0},  {"Erf", 5, 2, 1, 1},       {"LeakyRelu", 2, 0, 1, 0},
    {"Softsign", 2, 1, 1, 1},    {"Elu", 3, 1, 1, 1},       {"Selu", 4, 1, 1, 1},
    {"Softplus", 1, 2, 1, 1},    {"Sin", 4, 2, 1, 1},       {"Cos", 4, 2, 1, 1},
    {"Equal", 1, 0, 2, 0},       {"Less", 1, 0, 2, 0},      {"Greater", 1, 0, 2, 0},
    {"Where", 1, 0, 3, 0},       {"Not", 1, 0, 1, 0},       {"And", 1, 0, 2, 0},
    {"Or", 1, 0, 2, 0},          {"PRelu", 2, 0, 2, 0},     {"ThresholdedRelu", 2, 0, 1, 0},
    {"Shrink", 4, 0, 1, 1},      {"Tan", 4, 3, 1, 1},       {"Atan", 4, 2, 1, 1},
    {"Sinh", 2, 2, 1, 1},        {"Cosh", 2, 2, 1, 1},      {"Celu", 4, 1, 1, 1},
    {"Mod", 3, 1, 2, 1},
    {"Asin", 8, 2, 1, 2},        {"Acos", 9, 2, 1, 2},      {"Asinh", 5, 2, 1, 1},
    {"Acosh", 3, 2, 1, 1},       {"Atanh", 3, 2, 1, 1},
    {"BitShift", 1, 0, 2, 0},    {"BitwiseAnd", 1, 0, 2, 0}, {"BitwiseOr", 1, 0, 2, 0},
    {"BitwiseXor", 1, 0, 2, 0},  {"BitwiseNot", 1, 0, 1, 0}, {"Xor", 1, 0, 2, 0},
    {"LessOrEqual", 1, 0, 2, 0}, {"GreaterOrEqual", 1, 0, 2, 0},
    {"IsNaN", 1, 0, 1, 0},       {"IsInf", 2, 0, 1, 0},     {"CastLike", 1, 0, 1, 0},
    {"CumSum", 2, 0, 1, 1},      {"Trilu", 3, 0, 1, 1},
    {"QuantizeLinear", 6, 0, 1, 0}, {"DequantizeLinear", 3, 0, 1, 0},
    {"Dropout", 2, 0, 1, 0},     {"LRN", 3, 3, 1, 1},
    {"RandomUniform", kUniformDrawPasses, 0, 0, 1},     {"RandomUniformLike", kUniformDrawPasses, 0, 0, 1},
    {"RandomNormal", kUniformDrawPasses + 2, 3, 0, 2},  {"RandomNormalLike", kUniformDrawPasses + 2, 3, 0, 2},
    {"Bernoulli", kUniformDrawPasses + 2, 0, 1, 1},
    {"EyeLike", 3, 0, 0, 1},     {"OneHot", 2, 0, 0, 1},    {"Range", 2, 0, 0, 1},
    {"HannWindow", 3, 1, 0, 1},  {"HammingWindow", 3, 1, 0, 1}, {"BlackmanWindow", 5, 2, 0, 1},
    {"MelWeightMatrix", 6, 2, 0, 1}, {"ConstantOfShape", 1, 0, 0, 0},
};

// Ops given inputs besides the one they stream: a dtype, an axis, a
// diagonal, a scale and zero point, a ratio and a training mode.
const std::set<std::string> kGivenMoreThanRead = {"CastLike", "CumSum", "Trilu", "QuantizeLinear", "DequantizeLinear",
                                                  "Dropout"};
// What a Dropout in training adds to its copy: a uniform draw, the compare, the scale.
constexpr int kDropoutDrawPasses = kUniformDrawPasses + 2;

constexpr int64_t kCastMinInputBytesPerCore = 2048;
constexpr int64_t kMinElewiseElementsPerCore = 512;

const OpWork* find_op(const std::string& op_type) {
  for (const auto& op : kOps)
    if (op_type == op.op_type) return &op;
  return nullptr;
}

}  // namespace

bool is_elementwise_op(const std::string& op_type) { return find_op(op_type) != nullptr; }

double ElementwiseProblem::gm_bytes() const {
  double b = static_cast<double>(elements) * (out_bytes + mask_bytes);
  for (int s : streamed_bytes) b += static_cast<double>(elements) * s;
  for (size_t i = 0; i < broadcast_elements.size(); ++i)
    b += static_cast<double>(broadcast_elements[i]) * broadcast_bytes[i];
  return b;
}

double ElementwiseProblem::on_chip_bytes() const {
  double b = out_on_chip ? static_cast<double>(elements) * out_bytes : 0;
  b += static_cast<double>(elements) * streamed_on_chip_per_element();
  for (size_t i = 0; i < broadcast_elements.size(); ++i)
    if (i < broadcast_on_chip.size() && broadcast_on_chip[i]) b += static_cast<double>(broadcast_elements[i]) * broadcast_bytes[i];
  return b;
}

double ElementwiseProblem::streamed_bytes_per_element() const {
  double b = 0;
  for (int s : streamed_bytes) b += s;
  return b;
}

double ElementwiseProblem::streamed_on_chip_per_element() const {
  double b = 0;
  for (size_t i = 0; i < streamed_bytes.size(); ++i)
    if (i < streamed_on_chip.size() && streamed_on_chip[i]) b += streamed_bytes[i];
  return b;
}

// The anchor reads inputs[0] (and inputs[1] if binary); each binary op of
// the chain then reads the next input.
ElementwiseProblem elementwise_problem(const sdk::OpTask& task, const Soc& soc) {
  std::vector<std::string> chain{task.op_type};
  chain.insert(chain.end(), task.fused_ops.begin(), task.fused_ops.end());
  ElementwiseProblem p;
  size_t needed = 0;
  for (const auto& op_type : chain) {
    const OpWork* op = find_op(op_type);
    if (!op)
      not_modelled(soc, op_type);
    needed += needed == 0 ? op->inputs : op->inputs - 1;
    p.simple_passes += op->simple;
    p.transcendental_passes += op->transcendental;
    p.temps = std::max(p.temps, op->temps);
  }
  // A fused op reads the operand after the anchor's: an anchor given inputs
  // it does not read (a shape, a dtype) leaves no such order.
  const bool reads_its_inputs = find_op(task.op_type)->inputs > 0 && !kGivenMoreThanRead.count(task.op_type);
  if (chain.size() > 1 && !reads_its_inputs)
    throw Error(StatusCode::unsupported, soc.target + " simulator does not model ops fused after " + task.op_type);
  require_known_inputs(task.inputs, needed, task.op_type);
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i = 0; i < needed; ++i) shapes.push_back(task.inputs[i].shape);
  // An op that reads nothing is as big as what it writes.
  if (needed == 0) {
    if (task.outputs.empty() || !task.outputs[0].fully_known())
      throw Error(StatusCode::invalid_argument, task.op_type + " needs its output's shape (it reads no input as big)");
    shapes.push_back(task.outputs[0].shape);
  }
  const auto out_shape = broadcast_shapes(shapes, task.op_type);
  p.elements = 1;
  for (auto d : out_shape) p.elements *= d;
  if (p.elements == 0) throw Error(StatusCode::invalid_argument, task.op_type + " has an empty output");
  p.out_bytes = task.outputs.empty() ? sdk::dtype_bytes(task.inputs[0].dtype) : sdk::dtype_bytes(task.outputs[0].dtype);
  if (p.out_bytes == 0) throw Error(StatusCode::invalid_argument, task.op_type + " has an output of undefined dtype");
  p.bytes = p.out_bytes;
  if (task.op_type == "LRN") {
    const int64_t size = attr_int(task.attrs, "size", 0);
    if (size < 1 || size > 1024) throw Error(StatusCode::invalid_argument, "LRN '" + task.name + "' needs a size of 1 to 1024 channels");
    p.simple_passes += static_cast<int>(size) - 1;  // the window's adds
  }
  if (task.op_type == "Dropout") {
    if (task.outputs.size() > 1) p.mask_bytes = std::max(1, sdk::dtype_bytes(task.outputs[1].dtype));
    const bool has_training_input = task.inputs.size() > 2 && !task.inputs[2].name.empty();
    if (!sdk::dropout_is_view(task.attrs, has_training_input, 1)) {
      p.simple_passes += kDropoutDrawPasses;
      p.temps = std::max(p.temps, 1);
    }
  }
  const auto on_chip = OnChip::of(task);
  p.out_on_chip = on_chip.output(0);
  for (size_t i = 0; i < needed; ++i) {
    const auto& t = task.inputs[i];
    const int b = sdk::dtype_bytes(t.dtype);
    if (b == 0) throw Error(StatusCode::invalid_argument, task.op_type + " has an input of undefined dtype");
    p.bytes = std::max(p.bytes, b);
    // A broadcast input too big to keep in UB is re-read tile by tile.
    if (t.elements() == p.elements || t.elements() * b > soc.ub_bytes / 8) {
      p.streamed_bytes.push_back(b);
      p.streamed_on_chip.push_back(on_chip.input(i));
    } else {
      p.broadcast_elements.push_back(t.elements());
      p.broadcast_bytes.push_back(b);
      p.broadcast_on_chip.push_back(on_chip.input(i));
    }
  }
  // CANN's Cast kernel gives each core at least 2 KB of its input [M: every
  // Cast of the Ascend 910 profiles: 768 fp16 on 1 core, 768 fp32 on 2,
  // 16384 fp16 on 16], where other elementwise kernels split by elements.
  // The elewise DSL's own kernels (Add, Mul, RealDiv, Neg, ...) give each
  // core at least 512 elements [M: every one of the profiles that runs on
  // fewer cores than it could: 768 on 2, 1536 on 3, 2560 on 5, 3072 on 6,
  // 3200 on 7], twice what the fused vector kernels of a training step
  // (training_vector_ops.h) take.
  p.min_elements_per_core = kMinElewiseElementsPerCore;
  if (chain.size() == 1 && task.op_type == "Cast")
    p.min_elements_per_core = kCastMinInputBytesPerCore / sdk::dtype_bytes(task.inputs[0].dtype);
  // In NC1HWC0 the stream covers C padded to C0: the pad lanes move and compute too.
  if (!task.outputs.empty() && is_fractal(task.outputs[0]) && task.outputs[0].elements() == p.elements)
    p.elements = stored_elements(task.outputs[0]);
  return p;
}

ElementwiseModel::ElementwiseModel(const Soc& soc, ElementwiseProblem problem) : ProblemModel(soc, std::move(problem)) {
  start_space(kKnobCount, kBlockDim);
  space_.knobs[kUbFactor] = ub_factor_knob(soc_, "ub_factor", p_.elements, p_.bytes);
  space_.knobs[kDb] = db_knob();
  space_.default_config = default_config();
  require_default_fits(soc_, "this elementwise op", check(space_.default_config));
}

// Streamed inputs, the outputs and scratch each hold one tile (twice with
// db); a broadcast input stays whole, once.
int64_t ElementwiseModel::ub_bytes(int64_t ub_factor, bool db) const {
  const int64_t tile = align_up64(ub_factor * p_.bytes, kUbAlignBytes);
  const size_t outputs = p_.mask_bytes > 0 ? 2 : 1;
  const int64_t per_tile = static_cast<int64_t>(p_.streamed_bytes.size() + outputs + p_.temps) * tile;
  int64_t resident = 0;
  for (auto e : p_.broadcast_elements) resident += align_up64(e * p_.bytes, kUbAlignBytes);
  return per_tile * (db ? 2 : 1) + resident;
}

// After CANN's elewise tiling: cores that each get at least a minimum
// chunk, db on, the biggest UB tile that fits, no bigger than a core's slice.
sdk::Config ElementwiseModel::default_config() const {
  const int64_t blocks = ceil_div64(p_.elements, block_elements(p_.bytes));
  const int64_t cores =
      std::clamp<int64_t>(ceil_div64(p_.elements, p_.min_elements_per_core), 1, std::min<int64_t>(soc_.ai_cores, blocks));
  const int64_t slice = ceil_div64(p_.elements, cores);
  const auto& ub = space_.knobs[kUbFactor];
  int64_t factor = largest_fitting(ub, [&](int64_t f) { return ub_bytes(f, true) <= soc_.ub_bytes; });
  while (factor > ub.values.front() && factor / 2 >= slice) factor /= 2;
  return {cores, factor, 1};
}

sdk::Measurement ElementwiseModel::check(const sdk::Config& c) const {
  if (!space_.in_domain(c)) return refuse("a value lies outside its knob's domain");
  const bool db = c[kDb] != 0;
  if (c[kUbFactor] * p_.bytes % kUbAlignBytes != 0)
    return refuse("ub_factor " + std::to_string(c[kUbFactor]) + " breaks UB's 32 B alignment");
  const int64_t need = ub_bytes(c[kUbFactor], db);
  if (need > soc_.ub_bytes)
    return ub_overflow(std::string(db ? "double-buffered " : "") + "input, output and scratch tiles", need, soc_.ub_bytes);
  const int64_t blocks = ceil_div64(p_.elements, block_elements(p_.bytes));
  if (c[kBlockDim] > blocks) return too_many_cores(c[kBlockDim], blocks, "32 B blocks of output");
  return {};
}

double ElementwiseModel::vector_cycles_for(int64_t elements) const {
  return p_.simple_passes * vector_cycles(soc_, VecClass::simple, elements, p_.bytes) +
         p_.transcendental_passes * vector_cycles(soc_, VecClass::transcendental, elements, p_.bytes) +
         p_.output_passes * vector_cycles(soc_, VecClass::simple, elements, p_.out_bytes);
}

// Each core's slice is whole 32 B blocks; its tiles split it evenly.
double ElementwiseModel::time_us(const sdk::Config& c) const {
  const int64_t block = block_elements(p_.bytes);
  const int64_t active = c[kBlockDim];
  const int64_t slice = align_up64(ceil_div64(p_.elements, active), block);
  const int64_t tiles = ceil_div64(slice, c[kUbFactor]);
  const int64_t tile = align_up64(ceil_div64(slice, tiles), block);
  TileStages s;
  double in_bytes = 0;
  for (int b : p_.streamed_bytes) in_bytes += static_cast<double>(tile) * b;
  const double in_on_chip = static_cast<double>(tile) * p_.streamed_on_chip_per_element();
  const double out_bytes = static_cast<double>(tile) * (p_.out_bytes + p_.mask_bytes);
  const double out_on_chip = p_.out_on_chip ? out_bytes : 0;
  // Each streamed input is its own copy-in, paying its own DMA issue.
  const auto extra_copies = static_cast<double>(std::max<size_t>(p_.streamed_bytes.size(), 1) - 1);
  s.in = gm_to_ub_cycles(soc_, in_bytes, active, in_on_chip) + extra_copies * soc_.dma_cycles;
  s.vec = vector_cycles_for(tile);
  s.out = ub_to_gm_cycles(soc_, out_bytes, active, out_on_chip) + (p_.mask_bytes > 0 ? soc_.dma_cycles : 0);
  s.hbm = hbm_share_cycles(soc_, in_bytes - in_on_chip + out_bytes - out_on_chip, active);
  double resident = 0;
  for (size_t i = 0; i < p_.broadcast_elements.size(); ++i) {
    const double b = static_cast<double>(p_.broadcast_elements[i]) * p_.broadcast_bytes[i];
    resident += gm_to_ub_cycles(soc_, b, active, i < p_.broadcast_on_chip.size() && p_.broadcast_on_chip[i] ? b : 0);
  }
  return kernel_us(soc_, resident + pipeline_cycles(soc_, s, tiles, c[kDb] != 0), roofline_us(), c[kBlockDim]);
}

double ElementwiseModel::roofline_us() const {
  return vector_roofline_us(soc_, p_.gm_bytes(), vector_cycles_for(p_.elements), p_.on_chip_bytes());
}

}  // namespace aoe::sim
