// Evaluates the small integer shape arithmetic exporters emit (Shape -> Gather -> Concat -> Reshape).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace aoe::host {

// An integer tensor whose values are known before the model runs.
struct IntTensor {
  int32_t elem_type = onnx::TensorProto::INT64;  // INT64 or INT32
  std::vector<int64_t> dims;
  std::vector<int64_t> values;
};

// Every integer value the graph computes from constants and known shapes, by name:
// Constant, small initializers, Shape, Gather, Unsqueeze, Squeeze, Concat, Slice, Cast,
// Identity and elementwise Add/Sub/Mul/Div. Shapes are read from the graph's inputs,
// outputs and value_info, so run shape inference first. Anything else is left out.
std::map<std::string, IntTensor> fold_shape_values(const onnx::GraphProto& graph);

// The folded value as an initializer named `name`, for shape inference to read.
onnx::TensorProto to_initializer(const std::string& name, const IntTensor& tensor);

}  // namespace aoe::host
