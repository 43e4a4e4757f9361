// Elementwise ops whose result depends on the dtype or is one: comparisons
// and logic giving bool, bit shifts and bitwise ops, Cast and CastLike,
// IsNaN and IsInf, and integer Div and Mod. Numpy broadcasting; each value
// as the device holds it (held_dtype.h), computed element by element.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"

namespace aoe::cpu {

// Whether the task is one of these: its op type, or Div or Mod on integers.
bool is_typed_eltwise(const sdk::OpTask& task);
std::vector<std::string> typed_eltwise_op_types();

class TypedEltwiseOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };
  enum class Fn { equal, less, greater, less_equal, greater_equal, logic_and, logic_or, logic_xor, logic_not,
                  shift_left, shift_right, bit_and, bit_or, bit_xor, bit_not, cast, is_nan, is_inf,
                  int_div, int_mod, int_fmod };

  TypedEltwiseOp(const sdk::OpTask& task, const HostCpu& host);
  ValueRange input_range(size_t i) const override;
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class TypedEltwiseKernel;
  Fn fn_ = Fn::cast;
  size_t operands_ = 1;
  sdk::DType in_dtype_ = sdk::DType::f32, out_dtype_ = sdk::DType::f32;
  bool inf_positive_ = true, inf_negative_ = true;
  BroadcastRows rows_;  // the operands
};

}  // namespace aoe::cpu
