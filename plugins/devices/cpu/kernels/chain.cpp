#include "chain.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "aoe/sdk/error.h"

namespace aoe::cpu {
namespace {

struct OpInfo {
  const char* type;
  EltOp op;
};

constexpr OpInfo kOps[] = {
    {"Add", EltOp::add},         {"Sub", EltOp::sub},
    {"Mul", EltOp::mul},         {"Div", EltOp::div},
    {"Pow", EltOp::pow},         {"Relu", EltOp::relu},
    {"LeakyRelu", EltOp::leaky_relu}, {"Clip", EltOp::clip},
    {"Sigmoid", EltOp::sigmoid}, {"HardSigmoid", EltOp::hard_sigmoid},
    {"HardSwish", EltOp::hard_swish}, {"Swish", EltOp::swish},
    {"Tanh", EltOp::tanh},
    {"Exp", EltOp::exp},         {"Log", EltOp::log},
    {"Sqrt", EltOp::sqrt},       {"Abs", EltOp::abs},
    {"Neg", EltOp::neg},         {"Reciprocal", EltOp::reciprocal},
    {"Erf", EltOp::erf},         {"Gelu", EltOp::gelu},
    {"Max", EltOp::maximum},     {"Min", EltOp::minimum},
    {"Floor", EltOp::floor},     {"Ceil", EltOp::ceil},
    {"Round", EltOp::round},     {"Sign", EltOp::sign},
    {"Softsign", EltOp::softsign}, {"Elu", EltOp::elu},
    {"Selu", EltOp::selu},       {"Softplus", EltOp::softplus},
    {"Sin", EltOp::sin},         {"Cos", EltOp::cos},
    {"Tan", EltOp::tan},         {"Asin", EltOp::asin},
    {"Acos", EltOp::acos},       {"Atan", EltOp::atan},
    {"Sinh", EltOp::sinh},       {"Cosh", EltOp::cosh},
    {"Asinh", EltOp::asinh},     {"Acosh", EltOp::acosh},
    {"Atanh", EltOp::atanh},     {"PRelu", EltOp::prelu},
    {"ThresholdedRelu", EltOp::thresholded_relu}, {"Shrink", EltOp::shrink},
    {"Celu", EltOp::celu},       {"Mod", EltOp::fmod},
};

const OpInfo* find(const std::string& type) {
  for (const auto& op : kOps)
    if (type == op.type) return &op;
  return nullptr;
}

float number(const nlohmann::json& attrs, const char* key, double fallback) {
  if (!attrs.is_object() || !attrs.contains(key)) return static_cast<float>(fallback);
  const auto& v = attrs.at(key);
  if (!v.is_number()) throw sdk::Error(sdk::StatusCode::invalid_argument, std::string("attribute '") + key + "' must be a number");
  return v.get<float>();
}

}  // namespace

bool is_elementwise_op(const std::string& op_type) { return find(op_type) != nullptr; }

bool is_binary_op(const std::string& op_type) {
  const OpInfo* op = find(op_type);
  return op && is_binary(op->op);
}

std::vector<std::string> elementwise_op_types() {
  std::vector<std::string> out;
  for (const auto& op : kOps) out.emplace_back(op.type);
  return out;
}

nlohmann::json fused_attrs(const nlohmann::json& attrs, size_t i) {
  if (!attrs.is_object() || !attrs.contains("fused_attrs")) return nlohmann::json::object();
  const auto& list = attrs.at("fused_attrs");
  if (!list.is_array() || i >= list.size() || !list[i].is_object()) return nlohmann::json::object();
  return list[i];
}

ChainStep chain_step(const std::string& op_type, const nlohmann::json& attrs) {
  const OpInfo* info = find(op_type);
  if (!info) throw sdk::Error(sdk::StatusCode::unsupported, "the cpu device has no kernel for elementwise op '" + op_type + "'");
  ChainStep s;
  s.op = info->op;
  switch (s.op) {
    case EltOp::leaky_relu: s.p0 = number(attrs, "alpha", 0.01); break;
    case EltOp::elu:
    case EltOp::celu:
    case EltOp::thresholded_relu: s.p0 = number(attrs, "alpha", 1.0); break;
    case EltOp::fmod:
      // Mod's integer semantics (the divisor's sign) are for integer types: float32 takes fmod=1.
      if (!attrs.is_object() || attrs.value("fmod", 0) != 1)
        throw sdk::Error(sdk::StatusCode::invalid_argument, "Mod on float32 takes fmod=1");
      break;
    case EltOp::shrink:
      s.p0 = number(attrs, "lambd", 0.5);
      s.p1 = number(attrs, "bias", 0.0);
      break;
    case EltOp::selu:
      s.p0 = number(attrs, "alpha", 1.67326319217681884765625);
      s.p1 = number(attrs, "gamma", 1.05070102214813232421875);
      break;
    case EltOp::swish: s.p0 = number(attrs, "alpha", 1.0); break;
    case EltOp::hard_sigmoid:
      s.p0 = number(attrs, "alpha", 0.2);
      s.p1 = number(attrs, "beta", 0.5);
      break;
    case EltOp::clip:
      // Bounds given as tensors are not seen here: unbounded then, which costs the same.
      s.p0 = number(attrs, "min", -std::numeric_limits<float>::infinity());
      s.p1 = number(attrs, "max", std::numeric_limits<float>::infinity());
      break;
    case EltOp::gelu: {
      const auto approximate = attrs.is_object() ? attrs.value("approximate", std::string("none")) : std::string("none");
      if (approximate != "none" && approximate != "tanh")
        throw sdk::Error(sdk::StatusCode::invalid_argument, "Gelu approximate must be \"none\" or \"tanh\"");
      s.p0 = approximate == "tanh" ? 1.0f : 0.0f;
      break;
    }
    default: break;
  }
  return s;
}

std::optional<OperandLayout> operand_layout(const Shape& in, const Shape& out, size_t split, bool periodic) {
  const Shape a = align_rank(in, out.size());
  bool all_one = true, all_full = true, last_alone = split + 1 < out.size() && a.back() == out.back() && out.back() > 1;
  for (size_t d = split; d < out.size(); ++d) {
    all_one = all_one && a[d] == 1;
    all_full = all_full && a[d] == out[d];
    if (d + 1 < out.size()) last_alone = last_alone && a[d] == 1;
  }
  const bool repeats = periodic && !all_one && !all_full && last_alone;
  if (!all_one && !all_full && !repeats) return std::nullopt;
  OperandLayout layout;
  layout.col_step = all_full || repeats ? 1 : 0;
  if (repeats) layout.period = out.back();
  // Offsets of each output row in the input: strides of the input's dims, 0 where it broadcasts.
  const auto in_strides = strides_of(a);
  const Shape rows(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(split));
  const int64_t count = elements(rows);
  layout.row_offset.assign(static_cast<size_t>(count), 0);
  std::vector<int64_t> index(split, 0);
  for (int64_t r = 0; r < count; ++r) {
    int64_t off = 0;
    for (size_t d = 0; d < split; ++d) off += a[d] == 1 ? 0 : index[d] * in_strides[d];
    layout.row_offset[static_cast<size_t>(r)] = off;
    for (size_t d = split; d-- > 0;) {
      if (++index[d] < out[d]) break;
      index[d] = 0;
    }
  }
  return layout;
}

void binary_periodic(const IsaKernels& isa, const ChainStep& step, float* x, const float* y, int64_t col, int64_t n,
                     int64_t period) {
  // A part period first where x starts inside one; then whole periods, in
  // one call where the ISA's loop repeats y, else one call each; a part last.
  const int64_t phase = col % period;
  if (phase > 0) {
    const int64_t part = std::min(n, period - phase);
    isa.binary(step.op, step.p0, x, y + phase, 1, part);
    x += part;
    n -= part;
  }
  const int64_t whole = n - n % period;
  if (whole > 0 && period % isa.lanes == 0 && step.op != EltOp::fmod && step.op != EltOp::pow) {
    isa.binary(step.op, step.p0, x, y, -period, whole);
  } else {
    for (int64_t i = 0; i < whole; i += period) isa.binary(step.op, step.p0, x + i, y, 1, period);
  }
  if (n > whole) isa.binary(step.op, step.p0, x + whole, y, 1, n - whole);
}

double apply_step(const ChainStep& s, double x, double y) {
  switch (s.op) {
    case EltOp::copy: return y;
    case EltOp::add: return x + y;
    case EltOp::sub: return x - y;
    case EltOp::mul: return x * y;
    case EltOp::div: return x / y;
    case EltOp::pow: return std::pow(x, y);
    case EltOp::fmod: return std::fmod(x, y);
    case EltOp::maximum: return std::max(x, y);
    case EltOp::minimum: return std::min(x, y);
    case EltOp::prelu: return x < 0 ? y * x : x;
    case EltOp::add_scaled: return x + s.p0 * y;
    case EltOp::relu: return x > 0 ? x : 0;
    case EltOp::leaky_relu: return x < 0 ? s.p0 * x : x;
    case EltOp::clip: return std::min<double>(std::max<double>(x, s.p0), s.p1);
    case EltOp::sigmoid: return 1 / (1 + std::exp(-x));
    case EltOp::hard_sigmoid: return std::min(1.0, std::max(0.0, s.p0 * x + s.p1));
    case EltOp::hard_swish: return x * std::min(1.0, std::max(0.0, x / 6 + 0.5));
    case EltOp::swish: return x / (1 + std::exp(-s.p0 * x));
    case EltOp::tanh: return std::tanh(x);
    case EltOp::exp: return std::exp(x);
    case EltOp::log: return std::log(x);
    case EltOp::sqrt: return std::sqrt(x);
    case EltOp::abs: return std::abs(x);
    case EltOp::neg: return -x;
    case EltOp::reciprocal: return 1 / x;
    case EltOp::erf: return std::erf(x);
    case EltOp::scale: return s.p0 * x;
    case EltOp::gelu:
      return s.p0 != 0 ? 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)))
                       : 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    case EltOp::floor: return std::floor(x);
    case EltOp::ceil: return std::ceil(x);
    case EltOp::round: return std::nearbyint(x);  // the default rounding mode: half to even
    case EltOp::sign: return x > 0 ? 1 : x < 0 ? -1 : x;
    case EltOp::softsign: return x / (1 + std::abs(x));
    case EltOp::elu: return x < 0 ? s.p0 * (std::exp(x) - 1) : x;
    case EltOp::celu: return std::max(0.0, x) + std::min(0.0, s.p0 * (std::exp(x / s.p0) - 1));
    case EltOp::selu: return s.p1 * (x < 0 ? s.p0 * (std::exp(x) - 1) : x);
    case EltOp::softplus: return std::log1p(std::exp(x));
    case EltOp::thresholded_relu: return x > s.p0 ? x : 0;
    case EltOp::shrink: return x < -s.p0 ? x + s.p1 : x > s.p0 ? x - s.p1 : 0;
    case EltOp::sin: return std::sin(x);
    case EltOp::cos: return std::cos(x);
    case EltOp::tan: return std::tan(x);
    case EltOp::asin: return std::asin(x);
    case EltOp::acos: return std::acos(x);
    case EltOp::atan: return std::atan(x);
    case EltOp::sinh: return std::sinh(x);
    case EltOp::cosh: return std::cosh(x);
    case EltOp::asinh: return std::asinh(x);
    case EltOp::acosh: return std::acosh(x);
    case EltOp::atanh: return std::atanh(x);
  }
  return x;
}

void apply_to_rows(const Chain& chain, const IsaKernels& isa, float* data, int64_t row0, int64_t rows, int64_t cols,
                   int threads, ThreadPool& pool) {
  pool.run(rows, threads, [&](int64_t row, int) { chain.apply(isa, data + row * cols, row0 + row, 0, cols); });
}

}  // namespace aoe::cpu
