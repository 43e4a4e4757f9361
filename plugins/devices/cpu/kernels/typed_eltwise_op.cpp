// Elementwise ops whose result depends on the dtype or is one: comparisons
// and logic giving bool, bit shifts and bitwise ops, Cast and CastLike,
// IsNaN and IsInf, and integer Div and Mod. Numpy broadcasting; each value
// as the device holds it (held_dtype.h), computed element by element.
#include "op_factories.h"

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"
#include "held_dtype.h"
#include "op_util.h"
#include "reference.h"
#include "threads_kernel.h"

namespace aoe::cpu {
namespace {

// What an op computes, element by element.
enum class Fn { equal, less, greater, less_equal, greater_equal, logic_and, logic_or, logic_xor, logic_not,
                shift_left, shift_right, bit_and, bit_or, bit_xor, bit_not, cast, is_nan, is_inf,
                int_div, int_mod, int_fmod };

const std::map<std::string, Fn>& fns() {
  static const std::map<std::string, Fn> m = {
      {"Equal", Fn::equal},          {"Less", Fn::less},           {"Greater", Fn::greater},
      {"LessOrEqual", Fn::less_equal}, {"GreaterOrEqual", Fn::greater_equal}, {"And", Fn::logic_and},
      {"Or", Fn::logic_or},          {"Xor", Fn::logic_xor},       {"Not", Fn::logic_not},
      {"BitShift", Fn::shift_left},  {"BitwiseAnd", Fn::bit_and},  {"BitwiseOr", Fn::bit_or},
      {"BitwiseXor", Fn::bit_xor},   {"BitwiseNot", Fn::bit_not},  {"Cast", Fn::cast},
      {"CastLike", Fn::cast},        {"IsNaN", Fn::is_nan},        {"IsInf", Fn::is_inf}};
  return m;
}

bool binary(Fn fn) {
  return fn != Fn::logic_not && fn != Fn::bit_not && fn != Fn::cast && fn != Fn::is_nan && fn != Fn::is_inf;
}

// One element, in float as the kernel computes it; `t` the output's dtype.
template <Fn F>
float apply(float x, float y, sdk::DType t, bool pos, bool neg) {
  if constexpr (F == Fn::equal) return x == y ? 1.0f : 0.0f;
  if constexpr (F == Fn::less) return x < y ? 1.0f : 0.0f;
  if constexpr (F == Fn::greater) return x > y ? 1.0f : 0.0f;
  if constexpr (F == Fn::less_equal) return x <= y ? 1.0f : 0.0f;
  if constexpr (F == Fn::greater_equal) return x >= y ? 1.0f : 0.0f;
  if constexpr (F == Fn::logic_and) return (x != 0.0f && y != 0.0f) ? 1.0f : 0.0f;
  if constexpr (F == Fn::logic_or) return (x != 0.0f || y != 0.0f) ? 1.0f : 0.0f;
  if constexpr (F == Fn::logic_xor) return ((x != 0.0f) != (y != 0.0f)) ? 1.0f : 0.0f;
  if constexpr (F == Fn::logic_not) return x == 0.0f ? 1.0f : 0.0f;
  if constexpr (F == Fn::shift_left)
    return static_cast<float>(as_integer(static_cast<double>(static_cast<int64_t>(x) << static_cast<int64_t>(y)), t));
  if constexpr (F == Fn::shift_right) return static_cast<float>(static_cast<int64_t>(x) >> static_cast<int64_t>(y));
  if constexpr (F == Fn::bit_and) return static_cast<float>(static_cast<int64_t>(x) & static_cast<int64_t>(y));
  if constexpr (F == Fn::bit_or) return static_cast<float>(static_cast<int64_t>(x) | static_cast<int64_t>(y));
  if constexpr (F == Fn::bit_xor) return static_cast<float>(static_cast<int64_t>(x) ^ static_cast<int64_t>(y));
  if constexpr (F == Fn::bit_not) return static_cast<float>(as_integer(static_cast<double>(~static_cast<int64_t>(x)), t));
  if constexpr (F == Fn::cast)
    return is_integral(t)            ? static_cast<float>(as_integer(x, t))
           : t == sdk::DType::f16  ? static_cast<float>(as_float16(x))
           : t == sdk::DType::bf16 ? static_cast<float>(as_bfloat16(x))
                                   : x;
  if constexpr (F == Fn::is_nan) return std::isnan(x) ? 1.0f : 0.0f;
  if constexpr (F == Fn::is_inf) return (std::isinf(x) && ((x > 0 && pos) || (x < 0 && neg))) ? 1.0f : 0.0f;
  if constexpr (F == Fn::int_div) return y == 0.0f ? 0.0f : std::trunc(x / y);
  if constexpr (F == Fn::int_mod) {
    if (y == 0.0f) return 0.0f;
    const float r = std::fmod(x, y);
    return (r != 0.0f && ((r < 0) != (y < 0))) ? r + y : r;
  }
  if constexpr (F == Fn::int_fmod) return y == 0.0f ? 0.0f : std::fmod(x, y);
  return 0.0f;
}

// The same in double, written apart for the reference.
double reference_value(Fn fn, double x, double y, sdk::DType t, bool pos, bool neg) {
  const auto b = [](bool v) { return v ? 1.0 : 0.0; };
  const auto i = [](double v) { return static_cast<int64_t>(v); };
  switch (fn) {
    case Fn::equal: return b(x == y);
    case Fn::less: return b(x < y);
    case Fn::greater: return b(x > y);
    case Fn::less_equal: return b(x <= y);
    case Fn::greater_equal: return b(x >= y);
    case Fn::logic_and: return b(x != 0 && y != 0);
    case Fn::logic_or: return b(x != 0 || y != 0);
    case Fn::logic_xor: return b((x != 0) != (y != 0));
    case Fn::logic_not: return b(x == 0);
    case Fn::shift_left: return as_integer(x * std::ldexp(1.0, static_cast<int>(y)), t);
    case Fn::shift_right: return std::floor(x / std::ldexp(1.0, static_cast<int>(y)));
    case Fn::bit_and: return static_cast<double>(i(x) & i(y));
    case Fn::bit_or: return static_cast<double>(i(x) | i(y));
    case Fn::bit_xor: return static_cast<double>(i(x) ^ i(y));
    case Fn::bit_not: return as_integer(static_cast<double>(~i(x)), t);
    case Fn::cast:
      if (is_integral(t)) return as_integer(x, t);
      if (t == sdk::DType::bf16) return as_bfloat16(x);
      return t == sdk::DType::f16 ? as_float16(x) : static_cast<double>(static_cast<float>(x));
    case Fn::is_nan: return b(std::isnan(x));
    case Fn::is_inf: return b(std::isinf(x) && ((x > 0 && pos) || (x < 0 && neg)));
    case Fn::int_div: return y == 0 ? 0 : std::trunc(x / y);
    case Fn::int_mod: return y == 0 ? 0 : x - std::floor(x / y) * y;
    case Fn::int_fmod: return y == 0 ? 0 : std::fmod(x, y);
  }
  return 0;
}

class TypedEltwiseOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };

  TypedEltwiseOp(const sdk::OpTask& task, const HostCpu& host) {
    const std::string who = task.op_type + " '" + task.name + "'";
    if (auto it = fns().find(task.op_type); it != fns().end()) fn_ = it->second;
    else if (task.op_type == "Div") fn_ = Fn::int_div;
    else fn_ = int_attr(task.attrs, "fmod", 0) == 1 ? Fn::int_fmod : Fn::int_mod;
    if (task.op_type == "BitShift") {
      const std::string direction = string_attr(task.attrs, "direction", "");
      if (direction != "LEFT" && direction != "RIGHT") invalid(who + ": direction must be LEFT or RIGHT");
      fn_ = direction == "LEFT" ? Fn::shift_left : Fn::shift_right;
    }
    if (fn_ == Fn::is_inf) {
      inf_positive_ = int_attr(task.attrs, "detect_positive", 1) != 0;
      inf_negative_ = int_attr(task.attrs, "detect_negative", 1) != 0;
    }
    operands_ = binary(fn_) ? 2 : 1;
    // CastLike's second input gives only its dtype.
    const size_t takes = task.op_type == "CastLike" ? 2 : operands_;
    if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after " + task.op_type);
    require_inputs(task, takes, takes);
    if (task.outputs.size() != 1) invalid(who + " gives one output");
    require_dtypes(task, Takes::held);
    in_dtype_ = task.inputs[0].dtype;
    out_dtype_ = task.outputs[0].dtype;
    const bool bitwise = fn_ == Fn::shift_left || fn_ == Fn::shift_right || fn_ == Fn::bit_and || fn_ == Fn::bit_or ||
                         fn_ == Fn::bit_xor || fn_ == Fn::bit_not;
    if (bitwise || fn_ == Fn::int_div || fn_ == Fn::int_mod || fn_ == Fn::int_fmod)
      for (size_t i = 0; i < operands_; ++i) require_dtype(task, i, false, Takes::integral);
    for (size_t i = 0; i < operands_; ++i) inputs_.push_back(task.inputs[i].shape);
    if (takes > operands_) inputs_.push_back(task.inputs[1].shape);
    const Shape out = broadcast(std::vector<Shape>(inputs_.begin(), inputs_.begin() + static_cast<std::ptrdiff_t>(operands_)), who);
    std::vector<Shape> aligned;
    for (size_t i = 0; i < operands_; ++i) aligned.push_back(align_rank(inputs_[i], out.size()));
    rows_ = BroadcastRows(out, aligned);
    outputs_ = {out};
    require_output_shape(task, out);
    space_ = threads_space(host, static_cast<double>(elements(out)) * 2.0);
  }

  ValueRange input_range(size_t i) const override {
    // Whole numbers where integer semantics matter: a divisor away from zero,
    // shifts within the width.
    if ((fn_ == Fn::int_div || fn_ == Fn::int_mod || fn_ == Fn::int_fmod) && i == 1) return {1.0f, 9.0f, true};
    if ((fn_ == Fn::shift_left || fn_ == Fn::shift_right) && i == 1) return {0.0f, 3.0f, true};
    if (is_integral(in_dtype_)) return {is_unsigned(in_dtype_) ? 0.0f : -9.0f, 9.0f, true};
    return {};
  }

  std::string check(const sdk::Config&) const override { return {}; }
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const Shape& o = outputs_[0];
    for_each_index(o, [&](const std::vector<int64_t>& index, int64_t flat) {
      const double x = at_broadcast(in[0], inputs_[0], o, index);
      const double y = operands_ > 1 ? at_broadcast(in[1], inputs_[1], o, index) : 0.0;
      out[0][flat] = static_cast<float>(reference_value(fn_, x, y, out_dtype_, inf_positive_, inf_negative_));
    });
  }

 private:
  friend class TypedEltwiseKernel;
  Fn fn_ = Fn::cast;
  size_t operands_ = 1;
  sdk::DType in_dtype_ = sdk::DType::f32, out_dtype_ = sdk::DType::f32;
  bool inf_positive_ = true, inf_negative_ = true;
  BroadcastRows rows_;  // the operands
};

class TypedEltwiseKernel final : public ThreadsKernel<TypedEltwiseOp> {
 public:
  using ThreadsKernel::ThreadsKernel;

  void run(ThreadPool& pool) override {
    switch (op_.fn_) {
#define AOE_TYPED_CASE(F) \
  case Fn::F: return rows<Fn::F>(pool);
      AOE_TYPED_CASE(equal) AOE_TYPED_CASE(less) AOE_TYPED_CASE(greater) AOE_TYPED_CASE(less_equal)
      AOE_TYPED_CASE(greater_equal) AOE_TYPED_CASE(logic_and) AOE_TYPED_CASE(logic_or) AOE_TYPED_CASE(logic_xor)
      AOE_TYPED_CASE(logic_not) AOE_TYPED_CASE(shift_left) AOE_TYPED_CASE(shift_right) AOE_TYPED_CASE(bit_and)
      AOE_TYPED_CASE(bit_or) AOE_TYPED_CASE(bit_xor) AOE_TYPED_CASE(bit_not) AOE_TYPED_CASE(cast)
      AOE_TYPED_CASE(is_nan) AOE_TYPED_CASE(is_inf) AOE_TYPED_CASE(int_div) AOE_TYPED_CASE(int_mod)
      AOE_TYPED_CASE(int_fmod)
#undef AOE_TYPED_CASE
    }
  }

 private:
  // Output rows in parallel, each operand's row walked with its step.
  template <Fn F>
  void rows(ThreadPool& pool) {
    const BroadcastRows& walk = op_.rows_;
    const int64_t cols = walk.cols();
    const bool binary = op_.operands_ > 1;
    const sdk::DType t = op_.out_dtype_;
    const bool pos = op_.inf_positive_, neg = op_.inf_negative_;
    float* y = outputs_[0].data();
    pool.run(walk.rows(), threads_, [&](int64_t r, int) {
      const auto x = walk.operand(0, r), z = binary ? walk.operand(1, r) : x;
      const float* a = inputs_[0] + x.offset;
      const float* b = binary ? inputs_[1] + z.offset : a;
      float* dst = y + r * cols;
      for (int64_t c = 0; c < cols; ++c) dst[c] = apply<F>(a[c * x.step], b[c * z.step], t, pos, neg);
    });
  }

};

std::unique_ptr<Kernel> TypedEltwiseOp::build(const sdk::Config& c) const { return threads_kernel<TypedEltwiseKernel>(*this, c); }

}  // namespace

bool is_typed_eltwise(const sdk::OpTask& task) {
  if (fns().count(task.op_type)) return true;
  const bool integral = !task.outputs.empty() && is_integral(task.outputs[0].dtype);
  return integral && (task.op_type == "Div" || task.op_type == "Mod");
}

std::vector<std::string> typed_eltwise_op_types() {
  std::vector<std::string> out;
  for (const auto& [name, fn] : fns()) out.push_back(name);
  return out;
}

std::unique_ptr<CpuOp> make_typed_eltwise_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<TypedEltwiseOp>(task, host);
}

}  // namespace aoe::cpu
