// An op whose output shape depends on its input values (NonZero, Unique,
// NonMaxSuppression): no buffer can be sized before it runs, so it takes
// and gives whole tensors, and the model executor plans what reads them
// once they exist (runtime/dynamic_run.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "aoe/sdk/graph.h"
#include "shape.h"

namespace aoe::cpu {

// A tensor as the device holds it: float32 values, integers and bools as
// the whole numbers they are, row-major.
struct HeldTensor {
  Shape shape;
  std::vector<float> values;
};

class ValueShapedOp {
 public:
  explicit ValueShapedOp(const sdk::Node& node) : name_("node '" + node.name + "' (" + node.op_type + ")") {}
  virtual ~ValueShapedOp() = default;
  // Per ONNX input slot, null where an optional one is omitted; one tensor per output slot.
  virtual std::vector<HeldTensor> run(const std::vector<const HeldTensor*>& inputs) const = 0;
  // Straightforward loops in double precision from the ONNX definition,
  // sharing no code with run().
  virtual std::vector<HeldTensor> reference(const std::vector<const HeldTensor*>& inputs) const = 0;

 protected:
  std::string name_;  // as errors name the node
};

// Registered in cpu_op.cpp: the op types, and the op of a node (throws
// sdk::Error(unsupported) for another type).
bool is_value_shaped_op(const std::string& op_type);
std::unique_ptr<ValueShapedOp> make_value_shaped_op(const sdk::Node& node);
// Each op's own file makes it; its class stays there.
std::unique_ptr<ValueShapedOp> make_non_zero_op(const sdk::Node& node);
std::unique_ptr<ValueShapedOp> make_unique_op(const sdk::Node& node);
std::unique_ptr<ValueShapedOp> make_non_max_suppression_op(const sdk::Node& node);

// Throws sdk::Error(invalid_argument) naming the node for an input it
// cannot take (a missing one, a wrong rank) when it runs.
const HeldTensor& required_input(const std::vector<const HeldTensor*>& inputs, size_t slot, const std::string& what);

}  // namespace aoe::cpu
