#include "older_onnx.h"

#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "aoe/sdk/error.h"
#include "constant_folding.h"
#include "guarded_schemas.h"
#include "model_file.h"

namespace aoe::host {
namespace {

namespace fs = std::filesystem;
using sdk::Error;
using sdk::StatusCode;
using onnx::NodeProto;

constexpr int kOlderNodesReadAs = 7;

// The binary ops whose `broadcast` and `axis` opset 7 replaced by NumPy's broadcasting.
const std::set<std::string> kLegacyBroadcast = {"Add", "Sub", "Mul",     "Div",  "Pow", "And",
                                                "Or",  "Xor", "Equal", "Greater", "Less"};

// The ops whose change at opset 6 took `consumed_inputs` away and nothing else.
const std::set<std::string> kConsumedInputsOnly = {
    "Abs",       "Ceil", "Clip", "Elu", "Exp", "Floor",      "HardSigmoid", "InstanceNormalization",
    "LeakyRelu", "Log",  "Max",  "Mean", "Min", "Neg",       "Reciprocal",  "Relu",
    "Selu",      "Sigmoid", "Sqrt", "Sum", "Tanh"};

// Every value's rank the model's own shape inference, at its own opset, finds. It runs on
// a copy whose initializers hold their dims alone: inference reads no weight's values.
std::map<std::string, int64_t> ranks_of(const onnx::ModelProto& model) {
  onnx::ModelProto copy;
  copy.set_ir_version(model.ir_version());
  *copy.mutable_opset_import() = model.opset_import();
  const auto& source = model.graph();
  auto& graph = *copy.mutable_graph();
  graph.set_name(source.name());
  *graph.mutable_node() = source.node();
  *graph.mutable_input() = source.input();
  *graph.mutable_output() = source.output();
  *graph.mutable_value_info() = source.value_info();
  for (const auto& init : source.initializer()) {
    auto* dims_only = graph.add_initializer();
    dims_only->set_name(init.name());
    dims_only->set_data_type(init.data_type());
    *dims_only->mutable_dims() = init.dims();
  }
  try {
    onnx::shape_inference::InferShapes(copy, &guarded_schemas(), onnx::ShapeInferenceOptions(false, 0, false));
  } catch (const std::exception&) {  // what it could not infer stays unknown
  }
  std::map<std::string, int64_t> ranks;
  const auto& g = copy.graph();
  for (const auto* list : {&g.input(), &g.value_info(), &g.output()})
    for (const auto& v : *list)
      if (v.type().has_tensor_type() && v.type().tensor_type().has_shape())
        ranks[v.name()] = v.type().tensor_type().shape().dim_size();
  for (const auto& init : g.initializer()) ranks[init.name()] = init.dims_size();
  return ranks;
}

class OlderNodeRewriter {
 public:
  OlderNodeRewriter(const fs::path& path, int64_t opset, std::map<std::string, int64_t> ranks)
      : path_(path), opset_(opset), ranks_(std::move(ranks)) {}

  [[noreturn]] void refuse(const NodeProto& node, const std::string& why = "") const {
    throw Error(StatusCode::unsupported,
                "ONNX model " + quoted(path_) + " uses opset " + std::to_string(opset_) +
                    " of the default ONNX domain, whose " + node.op_type() + " differs from opset 7's" +
                    (why.empty() ? "" : " (node '" + node_label(node) + "' " + why + ")") +
                    "; supported opsets are 7..21: convert the model to one of them");
  }

  std::optional<int64_t> rank(const std::string& name) const {
    const auto it = ranks_.find(name);
    return it == ranks_.end() ? std::nullopt : std::optional<int64_t>(it->second);
  }

  // `input` of `node` unsqueezed at its end by `extra` axes, in a node added to `out`; the new name.
  std::string trailing_ones(const NodeProto& node, const std::string& input, int64_t rank, int64_t extra,
                            std::vector<NodeProto>& out) {
    NodeProto u;
    const std::string name = node.output(0) + "/opset7_" + std::to_string(next_++) + "_unsqueezed";
    u.set_name(name);
    u.set_op_type("Unsqueeze");
    u.add_input(input);
    u.add_output(name);
    auto* axes = u.add_attribute();
    axes->set_name("axes");
    axes->set_type(onnx::AttributeProto::INTS);
    for (int64_t i = 0; i < extra; ++i) axes->add_ints(rank + i);
    out.push_back(std::move(u));
    return name;
  }

 private:
  const fs::path& path_;
  int64_t opset_;
  std::map<std::string, int64_t> ranks_;
  int64_t next_ = 0;
};

// B broadcast to A from `axis` on (legacy) is B with trailing ones under NumPy's rule.
void legacy_broadcast(OlderNodeRewriter& rw, NodeProto& node, std::vector<NodeProto>& out) {
  const bool broadcast = int_attr(node, "broadcast", 0) != 0;
  const auto* axis = find_attr(node, "axis");
  if (broadcast && axis && node.input_size() == 2) {
    const auto a = rw.rank(node.input(0)), b = rw.rank(node.input(1));
    if (!a || !b) rw.refuse(node, "broadcasts at an axis, and its inputs' ranks are not known");
    const int64_t at = axis->i() < 0 ? axis->i() + *a : axis->i();
    const int64_t extra = *a - at - *b;
    if (at < 0 || extra < 0) rw.refuse(node, "broadcasts at an axis its inputs' ranks do not allow");
    if (extra > 0) node.set_input(1, rw.trailing_ones(node, node.input(1), *b, extra, out));
  }
  drop_attr(node, "broadcast");
  drop_attr(node, "axis");
}

// Before 7, PRelu's slope of C values applies per channel (axis 1); opset 7 broadcasts it as NumPy does.
void per_channel_slope(OlderNodeRewriter& rw, NodeProto& node, std::vector<NodeProto>& out) {
  const auto x = rw.rank(node.input(0)), slope = rw.rank(node.input(1));
  if (!x || !slope) rw.refuse(node, "has a slope whose rank, or whose input's rank, is not known");
  if (*slope == 1 && *x >= 3) node.set_input(1, rw.trailing_ones(node, node.input(1), 1, *x - 2, out));
}

// Cast-1 names its target type ("FLOAT"); Cast-6 gives TensorProto's number for it.
void cast_to_enum(OlderNodeRewriter& rw, NodeProto& node) {
  for (auto& to : *node.mutable_attribute()) {
    if (to.name() != "to" || to.type() != onnx::AttributeProto::STRING) continue;
    onnx::TensorProto::DataType type{};
    if (!onnx::TensorProto::DataType_Parse(to.s(), &type)) rw.refuse(node, "casts to '" + to.s() + "', no ONNX type");
    to.clear_s();
    to.set_type(onnx::AttributeProto::INT);
    to.set_i(type);
  }
}

bool rewrite(OlderNodeRewriter& rw, NodeProto node, std::vector<NodeProto>& out) {
  const std::string text = node.SerializeAsString();
  const std::string& op = node.op_type();
  drop_attr(node, "consumed_inputs");
  if (kLegacyBroadcast.count(op)) {
    legacy_broadcast(rw, node, out);
  } else if (op == "Gemm") {
    drop_attr(node, "broadcast");  // Gemm-7 broadcasts C as Gemm-6's broadcast = 1 did, and an exact C either way
  } else if (op == "PRelu") {
    per_channel_slope(rw, node, out);
  } else if (op == "BatchNormalization" || op == "Dropout") {
    if (int_attr(node, "is_test", 0) == 0 && node.output_size() > 1)
      rw.refuse(node, "computes training statistics (is_test 0)");
    drop_attr(node, "is_test");
  } else if (op == "Cast") {
    cast_to_enum(rw, node);
  } else if (op != "AveragePool" && !kConsumedInputsOnly.count(op)) {  // AveragePool-7 adds count_include_pad, 0 as before
    rw.refuse(node);
  }
  const bool changed = !out.empty() || node.SerializeAsString() != text;
  out.push_back(std::move(node));
  return changed;
}

}  // namespace

int64_t read_as_opset7(onnx::ModelProto& model, const fs::path& path) {
  int64_t opset = 0;
  onnx::OperatorSetIdProto* import = nullptr;
  for (auto& i : *model.mutable_opset_import())
    if (i.domain().empty() || i.domain() == "ai.onnx") import = &i, opset = i.version();
  if (!import || opset < 1 || opset >= kOlderNodesReadAs) return 0;
  const auto* registry = onnx::OpSchemaRegistry::Instance();
  OlderNodeRewriter rw(path, opset, ranks_of(model));
  int64_t rewritten = 0;
  std::vector<NodeProto> nodes;
  for (auto& node : *model.mutable_graph()->mutable_node()) {
    if (!default_domain(node))
      throw Error(StatusCode::unsupported, "ONNX model " + quoted(path) + " uses opset " + std::to_string(opset) +
                                               " with " + node.op_type() + " of domain " + node.domain() +
                                               "; supported opsets are 7..21: convert the model to one of them");
    for (const auto& a : node.attribute())
      if (a.has_g() || a.graphs_size() > 0) rw.refuse(node, "holds a subgraph");
    const auto* then = registry->GetSchema(node.op_type(), static_cast<int>(opset));
    const auto* now = registry->GetSchema(node.op_type(), kOlderNodesReadAs);
    if (!then || !now) rw.refuse(node, "is not an op of both opsets");
    if (then->since_version() == now->since_version()) {
      nodes.push_back(std::move(node));
      continue;
    }
    std::vector<NodeProto> out;
    if (rewrite(rw, std::move(node), out)) ++rewritten;
    for (auto& n : out) nodes.push_back(std::move(n));
  }
  model.mutable_graph()->clear_node();
  for (auto& n : nodes) *model.mutable_graph()->add_node() = std::move(n);
  import->set_version(kOlderNodesReadAs);
  return rewritten;
}

}  // namespace aoe::host
