// A node of the graph as its kernels read it: its tensors' shapes, its
// attributes with ONNX's defaults, and the errors that name it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aoe/sdk/graph.h"

namespace aoe::cuda {

using Dims = std::vector<int64_t>;

class OpNode {
 public:
  OpNode(const sdk::Graph& graph, const sdk::Node& node) : graph_(graph), node_(node) {}

  const sdk::Node& node() const { return node_; }
  const std::string& op() const { return node_.op_type; }
  // Whether input `i` is given (present and not "").
  bool has_input(size_t i) const { return i < node_.inputs.size() && !node_.inputs[i].empty(); }
  size_t input_count() const { return node_.inputs.size(); }
  size_t output_count() const { return node_.outputs.size(); }
  const sdk::TensorDesc& input(size_t i) const;
  const sdk::TensorDesc& output(size_t i) const;
  Dims in_shape(size_t i) const { return input(i).shape; }
  Dims out_shape(size_t i) const { return output(i).shape; }

  bool has_attr(const char* key) const { return node_.attrs.is_object() && node_.attrs.contains(key); }
  int64_t int_attr(const char* key, int64_t fallback) const;
  double float_attr(const char* key, double fallback) const;
  std::vector<int64_t> ints_attr(const char* key, std::vector<int64_t> fallback = {}) const;
  std::vector<double> floats_attr(const char* key, std::vector<double> fallback = {}) const;
  std::string string_attr(const char* key, const std::string& fallback) const;
  // An axis attribute in [0, rank), counted from the end where negative.
  int64_t axis_attr(const char* key, int64_t fallback, int64_t rank) const;

  // sdk::Error(unsupported) / (invalid_argument): "cuda device: <op> '<node>': <why>".
  [[noreturn]] void unsupported(const std::string& why) const;
  [[noreturn]] void invalid(const std::string& why) const;

 private:
  const sdk::Graph& graph_;
  const sdk::Node& node_;
};

int64_t element_count(const Dims& dims);
// Row-major strides of `dims`.
Dims strides_of(const Dims& dims);
std::string to_string(const Dims& dims);

}  // namespace aoe::cuda
