#include "einsum_as_matmul.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "aoe/sdk/einsum_equation.h"
#include "constant_folding.h"
#include "written_nodes.h"

namespace aoe::host {
namespace {

// The labels of a two-operand contraction, each list in the order the
// rewrite lays its axes out: batch (both operands and the output), free of
// the first operand (m) and of the second (n), summed (k, both operands).
struct Contraction {
  sdk::EinsumLabels labels;
  std::vector<int64_t> dims[2];
  std::vector<int> batch, m, n, k;
};

bool has(const std::vector<int>& list, int label) { return std::find(list.begin(), list.end(), label) != list.end(); }

std::optional<Contraction> contraction_of(const onnx::GraphProto& graph, const onnx::NodeProto& node) {
  const auto* equation = find_attr(node, "equation");
  if (!equation || node.input_size() != 2 || node.output_size() != 1) return std::nullopt;
  Contraction c;
  for (int i = 0; i < 2; ++i) {
    auto dims = known_dims(graph, node.input(i));
    if (!dims) return std::nullopt;
    c.dims[i] = std::move(*dims);
  }
  auto labels = sdk::einsum_labels(equation->s(), {c.dims[0], c.dims[1]});
  if (!labels) return std::nullopt;
  c.labels = std::move(*labels);
  const auto& a = c.labels.dim_labels[0];
  const auto& b = c.labels.dim_labels[1];
  for (const auto* operand : {&a, &b})
    for (const int label : *operand)
      if (std::count(operand->begin(), operand->end(), label) > 1) return std::nullopt;  // a diagonal
  for (const int label : c.labels.out_labels) {
    if (has(a, label) && has(b, label)) c.batch.push_back(label);
    else (has(a, label) ? c.m : c.n).push_back(label);
  }
  for (const int label : a)
    if (!has(c.labels.out_labels, label)) {
      if (!has(b, label)) return std::nullopt;  // a sum over one operand's axis
      c.k.push_back(label);
    }
  for (const int label : b)
    if (!has(c.labels.out_labels, label) && !has(a, label)) return std::nullopt;
  return c;
}

int64_t product(const sdk::EinsumLabels& labels, const std::vector<int>& of) {
  int64_t p = 1;
  for (const int label : of) p *= labels.extents[static_cast<size_t>(label)];
  return p;
}

// Emits the rewrite of one Einsum into `out`: its nodes and shape constants.
class Rewrite {
 public:
  Rewrite(const onnx::NodeProto& node, const Contraction& c, WrittenNodes& out) : node_(node), c_(c), out_(out) {}

  void emit() {
    const auto& labels = c_.labels;
    const std::string a = matrix(0, c_.m, c_.k), b = matrix(1, c_.k, c_.n);
    std::vector<int> order = c_.batch;  // the product's axes, once reshaped
    order.insert(order.end(), c_.m.begin(), c_.m.end());
    order.insert(order.end(), c_.n.begin(), c_.n.end());
    const bool reshaped = c_.m.size() != 1 || c_.n.size() != 1;
    const bool transposed = order != labels.out_labels;
    std::string product = step("matmul");
    if (!reshaped && !transposed) product = node_.output(0);
    out_.add("MatMul", step("matmul"), {a, b}, {product});
    if (reshaped) {
      std::vector<int64_t> dims;
      for (const int label : order) dims.push_back(labels.extents[static_cast<size_t>(label)]);
      const std::string to = transposed ? step("unflatten") : node_.output(0);
      out_.add("Reshape", step("unflatten"), {product, out_.list(step("unflatten_shape"), dims)}, {to});
      product = to;
    }
    if (transposed) {
      std::vector<int64_t> perm;
      for (const int label : labels.out_labels) perm.push_back(std::find(order.begin(), order.end(), label) - order.begin());
      out_.transpose(product, perm, node_.output(0), step("to_output"));
    }
  }

 private:
  std::string step(const std::string& what) const { return node_.output(0) + "/einsum_" + what; }

  // Operand `i` as [batch..., rows, columns]: transposed, then reshaped, each where needed.
  std::string matrix(int i, const std::vector<int>& rows, const std::vector<int>& columns) {
    const auto& labels = c_.labels.dim_labels[static_cast<size_t>(i)];
    std::vector<int> order = c_.batch;
    order.insert(order.end(), rows.begin(), rows.end());
    order.insert(order.end(), columns.begin(), columns.end());
    std::vector<int64_t> perm, dims;
    for (const int label : order) perm.push_back(std::find(labels.begin(), labels.end(), label) - labels.begin());
    std::string name = node_.input(i);
    const std::string tag = i == 0 ? "a" : "b";
    bool identity = true;
    for (size_t j = 0; j < perm.size(); ++j) identity = identity && perm[j] == static_cast<int64_t>(j);
    if (!identity) {
      out_.transpose(name, perm, step(tag + "_transposed"), step(tag + "_transposed"));
      name = step(tag + "_transposed");
    }
    for (size_t j = 0; j < c_.batch.size(); ++j) dims.push_back(c_.dims[i][static_cast<size_t>(perm[j])]);
    dims.push_back(product(c_.labels, rows));
    dims.push_back(product(c_.labels, columns));
    std::vector<int64_t> transposed_dims;
    for (const int64_t p : perm) transposed_dims.push_back(c_.dims[i][static_cast<size_t>(p)]);
    if (dims == transposed_dims) return name;
    const std::string to = step(tag + "_matrix");
    out_.add("Reshape", to, {name, out_.list(to + "_shape", dims)}, {to});
    return to;
  }

  const onnx::NodeProto& node_;
  const Contraction& c_;
  WrittenNodes& out_;
};

}  // namespace

int64_t einsum_as_matmul(onnx::GraphProto& graph, int64_t opset) {
  return rewrite_nodes(graph, opset, [&](const onnx::NodeProto& node, WrittenNodes& out) {
    const auto c = default_domain(node) && node.op_type() == "Einsum" ? contraction_of(graph, node) : std::nullopt;
    if (c) Rewrite(node, *c, out).emit();
    return c.has_value();
  });
}

}  // namespace aoe::host
