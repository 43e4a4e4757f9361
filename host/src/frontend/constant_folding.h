// Evaluates, before the model runs, what a graph computes from constants and
// known shapes: the Shape -> Gather -> Concat -> Reshape arithmetic exporters
// emit, casts of constants, constant Range / ConstantOfShape / Expand.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace aoe::host {

// A tensor whose values are known before the model runs: integer and bool
// types keep them in `ints`, FLOAT and DOUBLE in `reals` (exactly one of the
// two holds the elements, row-major).
struct KnownTensor {
  int32_t elem_type = onnx::TensorProto::INT64;
  std::vector<int64_t> dims;
  std::vector<int64_t> ints;
  std::vector<double> reals;

  bool is_real() const;
  size_t size() const { return is_real() ? reals.size() : ints.size(); }
};

// Shape arithmetic holds a handful of numbers: the limit for pinning shapes
// during shape inference. Folding a model's constants allows tensors of weights' size.
inline constexpr int64_t kShapeElements = 1024;
inline constexpr int64_t kConstantElements = int64_t{1} << 22;

// The tensor's values, when it is an integer, bool, FLOAT or DOUBLE tensor held
// in the file (not external data) of at most `max_elements` elements.
std::optional<KnownTensor> read_known(const onnx::TensorProto& tensor, int64_t max_elements = kConstantElements);

// Every value the graph computes from initializers, Constant nodes and known
// shapes, by name, each of at most `max_elements` elements. Shapes are read
// from the graph's inputs, outputs and value_info, so run shape inference
// first. Initializers themselves are not listed. Ops: Constant, Shape, Size,
// Identity, Cast, Reshape, Flatten, Squeeze, Unsqueeze, Concat, Split, Gather, Slice,
// Transpose, Expand, Range, ConstantOfShape, Where, Not, Neg, Abs, Sqrt,
// Floor, Ceil, Reciprocal, Relu and the broadcasting Add, Sub, Mul, Div, Pow, Max,
// Min, Mod, Equal, Less, Greater, And, Or; ReduceMax, ReduceMin, ReduceSum,
// ReduceProd, ReduceMean. Anything else is left out.
std::map<std::string, KnownTensor> fold_known_values(const onnx::GraphProto& graph,
                                                     int64_t max_elements = kShapeElements);

// A tensor type's dims, -1 where unknown, where it gives its rank; else nullopt.
std::optional<std::vector<int64_t>> ranked_shape(const onnx::TypeProto& type);
// A tensor type's dims when every one is known, else nullopt.
std::optional<std::vector<int64_t>> known_shape(const onnx::TypeProto& type);
// A value's dims where the graph's inputs, value_info, outputs or initializers know them all.
std::optional<std::vector<int64_t>> known_dims(const onnx::GraphProto& graph, const std::string& name);

// A value's dims, -1 where unknown, where the graph knows its rank.
std::optional<std::vector<int64_t>> ranked_dims(const onnx::GraphProto& graph, const std::string& name);

// A node a normaliser rule writes: its op, name, inputs and outputs.
onnx::NodeProto make_node(const std::string& op, const std::string& name, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs);
// Whether the node is of ONNX's default domain.
bool default_domain(const onnx::NodeProto& node);
// The node's attribute `name`, or null.
const onnx::AttributeProto* find_attr(const onnx::NodeProto& node, const std::string& name);
// The node's int attribute `name`, or `fallback` where it has none.
int64_t int_attr(const onnx::NodeProto& node, const std::string& name, int64_t fallback);
// Removes the node's attribute `name`, where it has one.
void drop_attr(onnx::NodeProto& node, const std::string& name);
// How a message names the node: its name, else its first output, else its op.
std::string node_label(const onnx::NodeProto& node);

// The graph's initializers by name.
std::map<std::string, const onnx::TensorProto*> initializers_by_name(const onnx::GraphProto& graph);

// The one integer the initializer `name` holds, or nullopt.
std::optional<int64_t> constant_int(const std::map<std::string, const onnx::TensorProto*>& initializers,
                                    const std::string& name);

// The value as an initializer named `name`.
onnx::TensorProto to_initializer(const std::string& name, const KnownTensor& tensor);

}  // namespace aoe::host
