// Nodes and constants a normaliser rule writes in place of a node: in order,
// each constant made once, the ops in the form of the model's opset.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace aoe::host {

struct WrittenNodes {
  std::string base;  // the replaced node's name: the written names start with it
  int64_t opset = 0;
  std::vector<onnx::NodeProto> nodes;
  std::vector<onnx::TensorProto> constants;
  std::set<std::string> made;  // the constants' names, each made once

  void add(const std::string& op, const std::string& name, const std::vector<std::string>& inputs,
           const std::vector<std::string>& outputs, const std::vector<std::pair<std::string, int64_t>>& ints = {});
  // An int64 (or bool) constant of one element named `name`: a scalar, or of shape [1] where `as_list`.
  std::string scalar(const std::string& name, int64_t value, int32_t type = onnx::TensorProto::INT64, bool as_list = false);
  // An int64 list constant named `name`.
  std::string list(const std::string& name, const std::vector<int64_t>& values);
  // `in` with its axes in the order `perm`, by the node `name`.
  void transpose(const std::string& in, const std::vector<int64_t>& perm, const std::string& out, const std::string& name);
  // `in` with a new axis of 1 at `axis`: its axes an input from opset 13, an attribute before.
  void unsqueeze(const std::string& in, int64_t axis, const std::string& out);
  // `in` without its axis `axis` of 1: as unsqueeze.
  void squeeze(const std::string& in, int64_t axis, const std::string& out);
  // `in` summed over `axes`, which go (keepdims 0): the axes an input from opset 13, an attribute before.
  void reduce_sum(const std::string& in, const std::vector<int64_t>& axes, const std::string& out);
  // `x` split along `axis` into parts of `sizes`: the sizes an input from opset 13, an attribute before.
  void split(const std::string& x, const std::vector<int64_t>& sizes, int64_t axis, const std::vector<std::string>& outs);
  // `x`'s element `index` along `axis`, that axis gone: a Gather of a constant
  // index; before opset 10 (whose IR-3 models list every initializer as an
  // input) Slice and Squeeze, their bounds attributes.
  void take(const std::string& x, int64_t index, int64_t axis, const std::string& out);
  // The values joined along a new axis `axis` (a single one only given the axis).
  void stack(const std::vector<std::string>& values, int64_t axis, const std::string& out);

 private:
  void ints_attr(const std::string& name, const std::vector<int64_t>& values);  // on the last node
};

// Each node of `graph` that `write` rewrites (it returns true, having put
// the node's replacement in the WrittenNodes it is given, whose base and
// opset are the node's name and `opset`) replaced in place by it, the
// constants it made added as initializers; returns how many were.
int64_t rewrite_nodes(onnx::GraphProto& graph, int64_t opset,
                      const std::function<bool(const onnx::NodeProto&, WrittenNodes&)>& write);

}  // namespace aoe::host
