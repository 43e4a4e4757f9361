#include "epilogue.h"

#include <algorithm>
#include <cmath>

#include "aoe/sdk/error.h"

namespace aoe::sim {
namespace {

struct FusedOpWork {
  const char* op_type;
  int simple;
  int transcendental;
  bool binary;
  bool on_accumulator = false;  // its passes run on the fp32 sums, before the output's cast
};

// Passes are the length of each op's vector instruction sequence [L]:
// e.g. sigmoid = exp(-x) (mul, exp), +1 (add), reciprocal (div-class);
// hard_sigmoid = min(max(x * a + b, 0), 1) (muls, adds, maxs, mins);
// hard_swish = x * hard_sigmoid(x), as the elementwise model lowers them.
constexpr FusedOpWork kFusedOps[] = {
    {"Add", 1, 0, true},      {"Sub", 1, 0, true},       {"Mul", 1, 0, true},
    {"BiasAdd", 1, 0, true},  {"Div", 0, 1, true},       {"Relu", 1, 0, false},
    {"Relu6", 2, 0, false},   {"Clip", 2, 0, false},     {"LeakyRelu", 2, 0, false},
    {"Cast", 1, 0, false},    {"Exp", 0, 1, false},      {"Sigmoid", 2, 2, false},
    {"Tanh", 3, 2, false},    {"Gelu", 6, 2, false},     {"HardSigmoid", 4, 0, false},
    {"HardSwish", 5, 0, false}, {"Swish", 3, 2, false},  // swish = x * sigmoid(x): sigmoid's and one mul
    // CANN's fusions into a training step's cube kernels: batch-norm's sum
    // and square-sum of the output (add, mul, add; in fp32, the dtype the
    // statistics are kept in, on the sums before the cast), ReLU's gradient through
    // its bit mask (one select), GeLU's gradient from x alone (by erf, as the
    // step defines it: Phi = (1 + erf(x / sqrt 2)) / 2 is erf's polynomial
    // and 3; phi = exp(-x^2 / 2) / sqrt(2 pi) 3 and an exp; x * phi, the
    // sum and the product with dy 3), a second gradient added (AddN of two).
    {"BNTrainingReduce", 3, 0, false, true}, {"ReluGradV2", 1, 0, true}, {"GeLUGrad", 14, 3, true},
    {"AddN", 1, 0, true},
};

const FusedOpWork* find_fused_op(const std::string& op_type) {
  for (const auto& op : kFusedOps)
    if (op_type == op.op_type) return &op;
  return nullptr;
}

constexpr int kAccBytes = 4;  // L0C holds fp32

// One instruction covers at most 255 repeats, and each pays its startup.
double repeats(const Soc& soc, int64_t elements, int bytes) {
  return std::ceil(static_cast<double>(elements) * bytes / soc.vector_bytes_per_cycle);
}
double instructions(double repeats) { return std::ceil(repeats / 255.0); }

}  // namespace

double Epilogue::write_back_cycles(const Soc& soc, int64_t rows, int64_t cols, int64_t full, sdk::DType out_dtype,
                                   bool on_chip, int64_t active) const {
  const int64_t elements = rows * cols;
  const int out_bytes = sdk::dtype_bytes(out_dtype);
  const double l0c_to_ub = static_cast<double>(elements * kAccBytes) / soc.l0c_to_ub_rate;
  double vector = vector_cycles(soc, elements, out_bytes);
  if (out_dtype != sdk::DType::f32) vector += vector_pass_cycles(soc, elements, kAccBytes);
  // Requantised: the fp16 the conversion (scale included, vconv_deq) gives, cast to 8 bits.
  if (is_requantised(out_dtype)) vector += vector_pass_cycles(soc, elements, 2);
  const double out = static_cast<double>(elements * out_bytes);
  const double to_gm = on_chip ? out / soc.ub_to_l2_rate
                               : std::max(out / soc.ub_to_gm_rate, out * static_cast<double>(active) / soc.hbm_bytes_per_cycle());
  const double addend_cycles = addend_bytes_per_tile(rows, cols, full) / soc.gm_to_l1_rate;
  // UB is ping-ponged, so a tile drains in chunks of half of it.
  const int64_t half_ub = soc.ub_bytes / 2;
  const double chunks = static_cast<double>((elements * kAccBytes + half_ub - 1) / half_ub);
  const double transfers = chunks * static_cast<double>(2 + addends.size());
  return l0c_to_ub + vector + to_gm + addend_cycles + transfers * soc.dma_cycles;
}

double vector_pass_cycles(const Soc& soc, int64_t elements, int bytes) {
  const double r = repeats(soc, elements, bytes);
  return r + instructions(r) * soc.vector_latency_cycles;
}

double Epilogue::vector_cycles(const Soc& soc, int64_t elements, int bytes) const {
  if (simple_passes == 0 && transcendental_passes == 0 && accumulator_passes == 0) return 0;
  const double transcendental = static_cast<double>(elements) / soc.transcendental_elems_per_cycle +
                                instructions(repeats(soc, elements, bytes)) * soc.transcendental_latency_cycles;
  return simple_passes * vector_pass_cycles(soc, elements, bytes) + transcendental_passes * transcendental +
         accumulator_passes * vector_pass_cycles(soc, elements, kAccBytes);
}

double Epilogue::addend_bytes_per_tile(int64_t rows, int64_t cols, int64_t full, bool on_chip_only) const {
  double bytes = 0;
  for (const auto& a : addends) {
    if (on_chip_only && !a.on_chip) continue;
    // ONNX broadcasting aligns trailing dims: a smaller addend spans columns.
    const int64_t elements = a.elements >= full ? rows * cols : std::min(a.elements, cols);
    bytes += static_cast<double>(elements) * a.bytes;
  }
  return bytes;
}

double Epilogue::addend_bytes_total(bool on_chip_only) const {
  double bytes = 0;
  for (const auto& a : addends)
    if (!on_chip_only || a.on_chip) bytes += static_cast<double>(a.elements) * a.bytes;
  return bytes;
}

void add_fused_op(Epilogue& epilogue, const std::string& op_type, const sdk::TensorDesc* addend,
                  const std::string& target) {
  const FusedOpWork* op = find_fused_op(op_type);
  if (!op)
    throw sdk::Error(sdk::StatusCode::unsupported,
                     target + " simulator does not model fused op '" + op_type + "' yet");
  (op->on_accumulator ? epilogue.accumulator_passes : epilogue.simple_passes) += op->simple;
  epilogue.transcendental_passes += op->transcendental;
  if (!op->binary) return;
  if (!addend || !addend->fully_known())
    throw sdk::Error(sdk::StatusCode::invalid_argument, "fused op '" + op_type + "' needs an addend of known shape");
  epilogue.addends.push_back({addend->elements(), sdk::dtype_bytes(addend->dtype)});
}

bool is_binary_fused_op(const std::string& op_type) {
  const FusedOpWork* op = find_fused_op(op_type);
  return op && op->binary;
}

std::vector<std::string> fused_op_types() {
  std::vector<std::string> out;
  for (const auto& op : kFusedOps) out.emplace_back(op.op_type);
  return out;
}

void add_fused_chain(Epilogue& e, const sdk::OpTask& task, size_t next_input, const sdk::TensorDesc& missing,
                     const OnChip& on_chip, const std::string& target) {
  for (const auto& op : task.fused_ops) {
    const sdk::TensorDesc* addend = nullptr;
    const size_t at = next_input;
    if (is_binary_fused_op(op)) addend = next_input < task.inputs.size() ? &task.inputs[next_input++] : &missing;
    add_fused_op(e, op, addend, target);
    if (addend && addend != &missing) e.addends.back().on_chip = on_chip.input(at);
  }
}

}  // namespace aoe::sim
