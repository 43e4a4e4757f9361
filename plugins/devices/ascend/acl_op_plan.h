// How an op task runs through AscendCL: the single ops it becomes (the
// anchor, then each fused op on its output), their attributes, and the
// tuning space over what public ACL lets a caller choose: the storage
// formats of the anchor's inputs (Format) and the implementation mode (Impl).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aoe/sdk/op_task.h"
#include "aoe/sdk/tuning_space.h"
#include "storage_format.h"

namespace aoe::ascend {

struct AclAttr {
  enum class Kind { boolean, integer, text, ints };
  std::string name;
  Kind kind = Kind::integer;
  int64_t value = 0;
  std::string text;
  std::vector<int64_t> values;
};

// One aclopCompileAndExecute: values are numbered task inputs first, then
// each call's output in call order.
struct AclCall {
  std::string op_type;  // CANN's: MatMul, Conv2D, Add, Relu, ...
  std::vector<size_t> inputs;
  size_t output = 0;
  std::vector<AclAttr> attrs;
};

// A Format knob: the storage formats one task input may take, the first
// being the model's layout.
struct FormatChoice {
  size_t input = 0;
  std::vector<StorageFormat> formats;
};

// The ONNX op types the device runs fused after an anchor, each as one more ACL op.
std::vector<std::string> fusable_op_types();

// The implementation modes of ACL_OP_SELECT_IMPL_MODE, in the Impl knob's order.
const std::vector<std::string>& impl_modes();

struct OpPlan {
  std::vector<std::vector<int64_t>> shapes;  // of each value
  std::vector<AclCall> calls;
  std::vector<FormatChoice> formats;  // knobs 0 .. formats.size() - 1
  size_t impl_knob = 0;               // the last knob
  sdk::TuningSpace space;

  size_t output() const { return calls.back().output; }
  // The storage format of every value under `config` (intermediates keep the model's layout).
  std::vector<StorageFormat> value_formats(const sdk::Config& config) const;
  const std::string& impl_mode(const sdk::Config& config) const { return impl_modes().at(config[impl_knob]); }
};

// Throws sdk::Error(unsupported) for an op, fused op, rank or dtype the
// device does not run, naming it; invalid_argument for a malformed task.
OpPlan plan_op(const sdk::OpTask& task);

}  // namespace aoe::ascend
