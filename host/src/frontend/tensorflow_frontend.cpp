// The TensorFlow frontend: each node of a frozen GraphDef becomes the ONNX
// op an exporter would write, straight into the graph IR. ONNX's shape
// inference knows no NHWC conv, so the shapes are inferred here, op by op;
// constants enter the IR by their shapes alone, never their data.
#include "tensorflow_frontend.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "aoe/sdk/data_layout.h"
#include "aoe/sdk/error.h"
#include "graph.pb.h"
#include "model_file.h"
#include "tensor_bounds.h"

namespace aoe::host {
namespace {

namespace fs = std::filesystem;
namespace tf = aoe::tensorflow;
using sdk::DataLayout;
using sdk::DType;
using sdk::Error;
using sdk::StatusCode;
using Dims = std::vector<int64_t>;

// The ONNX opset whose operators the IR nodes follow (Softmax on one axis, Clip with inputs).
constexpr int64_t kOpset = 13;
// No real network has a window (kernel, stride, pad, dilation) this wide;
// below it, no size arithmetic overflows.
constexpr int64_t kMaxWindow = int64_t{1} << 20;
constexpr size_t kMaxRank = 8;
// The int constants whose values are read (shapes, axes) are this small in any real graph.
constexpr int64_t kMaxReadValues = 64;

// A binary GraphDef, or the text form tf.io.write_graph writes by default (.pbtxt).
tf::GraphDef read_graph(const fs::path& path) {
  tf::GraphDef graph;
  {
    std::ifstream in = open_model_file(path, "TensorFlow graph", "--model");
    // Protobuf keeps fields of another message as unknown ones: another format may parse, but as no node.
    if (parse_binary_message(graph, in) && graph.node_size() > 0) return graph;
  }
  graph.Clear();
  std::ifstream in = open_model_file(path, "TensorFlow graph", "--model");
  const std::string text_error = parse_text_message(graph, in, false);
  if (text_error.empty() && graph.node_size() > 0) return graph;
  throw Error(StatusCode::invalid_argument,
              "cannot parse TensorFlow graph " + quoted(path) +
                  ": the file is truncated, corrupt or not a GraphDef (it has no node), binary or text (" +
                  (text_error.empty() ? "no node" : "as text, " + text_error) + "); pass a frozen graph (.pb or .pbtxt) as --model");
}

std::string dims_text(const Dims& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + (dims[i] < 0 ? std::string("?") : std::to_string(dims[i]));
  return s + "]";
}

// The product of the dims, or -1 past kMaxTensorElements.
int64_t elements_of(const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0 || d > kMaxTensorElements || (d > 0 && n > kMaxTensorElements / d)) return -1;
    n *= d;
  }
  return n;
}

std::optional<DType> dtype_of(tf::DataType t) {
  switch (t) {
    case tf::DT_FLOAT: return DType::f32;
    case tf::DT_HALF: return DType::f16;
    case tf::DT_BFLOAT16: return DType::bf16;
    case tf::DT_DOUBLE: return DType::f64;
    case tf::DT_INT8: return DType::i8;
    case tf::DT_INT16: return DType::i16;
    case tf::DT_INT32: return DType::i32;
    case tf::DT_INT64: return DType::i64;
    case tf::DT_UINT8: return DType::u8;
    case tf::DT_UINT16: return DType::u16;
    case tf::DT_UINT32: return DType::u32;
    case tf::DT_UINT64: return DType::u64;
    case tf::DT_BOOL: return DType::boolean;
    default: return std::nullopt;
  }
}

// "node", "node:2" or "^node" (a control edge: an order, no data).
struct Ref {
  std::string node;
  int64_t output = 0;
  bool control = false;
};

Ref parse_ref(const std::string& text) {
  Ref r;
  std::string s = text;
  if (!s.empty() && s[0] == '^') {
    r.control = true;
    s.erase(0, 1);
  }
  const auto colon = s.rfind(':');
  if (colon != std::string::npos && colon + 1 < s.size() && colon + 10 > s.size() &&
      std::all_of(s.begin() + static_cast<std::ptrdiff_t>(colon) + 1, s.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    r.output = std::stoll(s.substr(colon + 1));
    s.erase(colon);
  }
  r.node = s;
  return r;
}

// What a node's output 0 holds: an IR tensor, made when an op first reads
// it for a constant, and the values of a small int constant.
struct Value {
  std::string tensor;
  Dims dims;
  DType dtype = DType::f32;
  bool constant = false;
  std::optional<Dims> ints;
};

// One spatial axis of a conv or a pool, TensorFlow's padding rules.
struct Axis {
  int64_t out = 0, pad_begin = 0, pad_end = 0;
};

// TensorFlow's elementwise ops that are ONNX ops under another name.
const std::map<std::string, std::string> kBinary = {
    {"Add", "Add"},         {"AddV2", "Add"}, {"Sub", "Sub"},         {"Mul", "Mul"},
    {"RealDiv", "Div"},     {"Pow", "Pow"},   {"Maximum", "Max"},     {"Minimum", "Min"}};
const std::map<std::string, std::string> kUnary = {
    {"Relu", "Relu"}, {"Sigmoid", "Sigmoid"}, {"Tanh", "Tanh"}, {"Elu", "Elu"}, {"Selu", "Selu"},
    {"Softplus", "Softplus"}, {"Exp", "Exp"}, {"Log", "Log"}, {"Sqrt", "Sqrt"}, {"Neg", "Neg"}, {"Abs", "Abs"}};
const std::map<std::string, std::string> kReduce = {
    {"Mean", "ReduceMean"}, {"Sum", "ReduceSum"}, {"Max", "ReduceMax"}, {"Min", "ReduceMin"}, {"Prod", "ReduceProd"}};

class Translator {
 public:
  Translator(const fs::path& path, const tf::GraphDef& def, const InputShapes& shapes, sdk::Graph& graph)
      : path_(path), def_(def), shapes_(shapes), graph_(graph) {
    for (const auto& n : def_.node()) {
      if (n.name().empty()) throw Error(StatusCode::invalid_argument, "TensorFlow graph " + quoted(path_) + " has a node without a name");
      if (!nodes_.emplace(n.name(), &n).second)
        throw Error(StatusCode::invalid_argument, "TensorFlow graph " + quoted(path_) + " has two nodes named '" + n.name() + "'");
    }
    for (const auto& n : def_.node())
      for (const auto& text : n.input()) {
        const Ref r = parse_ref(text);
        if (!nodes_.count(r.node))
          fail(n, "reads '" + text + "', but the graph has no node '" + r.node +
                      "': the graph is not whole; export it again with every node it needs");
        if (!r.control) ++readers_[r.node + ":" + std::to_string(r.output)];
      }
  }

  void run() {
    for (const auto& n : def_.node())
      if (n.op() == "Placeholder") placeholders_.insert(n.name());
    for (const auto& name : shapes_)
      if (!placeholders_.count(name.first) && !placeholders_.count(strip_port(name.first)))
        throw Error(StatusCode::invalid_argument, "--input_shape names '" + name.first +
                                                      "', which is not a Placeholder of TensorFlow graph " + quoted(path_) +
                                                      "; its Placeholders: " + placeholder_names());
    for (const tf::NodeDef* n : in_order()) translate(*n);
    for (const auto& t : produced_)
      if (!consumed_.count(t)) graph_.outputs.push_back(t);
    if (graph_.outputs.empty())
      throw Error(StatusCode::invalid_argument, "TensorFlow graph " + quoted(path_) + " computes nothing: it has no op aoe reads");
  }

 private:
  [[noreturn]] void fail(const tf::NodeDef& n, const std::string& what) const {
    throw Error(StatusCode::invalid_argument,
                "TensorFlow node '" + n.name() + "' (" + n.op() + ") of " + quoted(path_) + " " + what);
  }

  static std::string strip_port(const std::string& name) {
    return name.size() > 2 && name.compare(name.size() - 2, 2, ":0") == 0 ? name.substr(0, name.size() - 2) : name;
  }

  std::string placeholder_names() const {
    std::string out;
    for (const auto& p : placeholders_) out += (out.empty() ? "" : ", ") + p;
    return out.empty() ? "none" : out;
  }

  // Every node after the nodes it reads, else in the file's order: a
  // GraphDef may list its nodes in any order.
  std::vector<const tf::NodeDef*> in_order() const {
    const auto& nodes = def_.node();
    std::map<std::string, int> index, waiting;
    for (int i = 0; i < nodes.size(); ++i) index[nodes.Get(i).name()] = i;
    std::map<std::string, std::vector<int>> readers;
    std::set<int> ready;
    for (int i = 0; i < nodes.size(); ++i) {
      std::set<std::string> sources;
      for (const auto& text : nodes.Get(i).input()) sources.insert(parse_ref(text).node);
      waiting[nodes.Get(i).name()] = static_cast<int>(sources.size());
      for (const auto& s : sources) readers[s].push_back(i);
      if (sources.empty()) ready.insert(i);
    }
    std::vector<const tf::NodeDef*> out;
    while (!ready.empty()) {
      const tf::NodeDef& n = nodes.Get(*ready.begin());
      ready.erase(ready.begin());
      out.push_back(&n);
      for (int r : readers[n.name()])
        if (--waiting[nodes.Get(r).name()] == 0) ready.insert(r);
    }
    if (out.size() != static_cast<size_t>(nodes.size()))
      for (const auto& n : nodes)
        if (waiting[n.name()] > 0) fail(n, "is on a cycle of nodes that read each other: a frozen graph has no loops");
    return out;
  }

  // ---- attributes ----

  const tf::AttrValue* find_attr(const tf::NodeDef& n, const std::string& key) const {
    const auto it = n.attr().find(key);
    return it == n.attr().end() ? nullptr : &it->second;
  }

  std::string attr_string(const tf::NodeDef& n, const std::string& key, const std::string& otherwise) const {
    const auto* a = find_attr(n, key);
    if (!a) return otherwise;
    if (a->value_case() != tf::AttrValue::kS) fail(n, "has attribute '" + key + "' that is not a string");
    return a->s();
  }

  Dims attr_ints(const tf::NodeDef& n, const std::string& key, const Dims& otherwise) const {
    const auto* a = find_attr(n, key);
    if (!a) return otherwise;
    if (a->value_case() != tf::AttrValue::kList) fail(n, "has attribute '" + key + "' that is not a list of ints");
    return Dims(a->list().i().begin(), a->list().i().end());
  }

  bool attr_bool(const tf::NodeDef& n, const std::string& key, bool otherwise) const {
    const auto* a = find_attr(n, key);
    if (!a) return otherwise;
    if (a->value_case() != tf::AttrValue::kB) fail(n, "has attribute '" + key + "' that is not a bool");
    return a->b();
  }

  float attr_float(const tf::NodeDef& n, const std::string& key, float otherwise) const {
    const auto* a = find_attr(n, key);
    if (!a) return otherwise;
    if (a->value_case() != tf::AttrValue::kF) fail(n, "has attribute '" + key + "' that is not a float");
    return a->f();
  }

  DType attr_dtype(const tf::NodeDef& n, tf::DataType t) const {
    const auto d = dtype_of(t);
    if (!d) fail(n, "holds " + tf::DataType_Name(t) + " values, which aoe does not tune");
    return *d;
  }

  DataLayout layout(const tf::NodeDef& n) const {
    const std::string f = attr_string(n, "data_format", "NHWC");
    if (f == "NHWC") return DataLayout::nhwc;
    if (f == "NCHW") return DataLayout::nchw;
    fail(n, "has data_format '" + f + "'; aoe reads NHWC and NCHW");
  }

  // ---- values ----

  void check_dims(const tf::NodeDef& n, const std::string& what, const Dims& d) const {
    if (d.size() > kMaxRank) fail(n, "makes " + what + " of " + std::to_string(d.size()) + " dims; aoe reads up to 8");
    if (elements_of(d) < 0)
      fail(n, "makes " + what + " of shape " + dims_text(d) + ", with a negative dim or over 2^40 elements: the graph is not a real network");
  }

  // Data input i (control edges are not counted).
  const Value& input(const tf::NodeDef& n, int i) {
    int seen = 0;
    for (const auto& text : n.input()) {
      const Ref r = parse_ref(text);
      if (r.control) continue;
      if (seen++ != i) continue;
      const auto it = values_.find(r.node);
      if (it == values_.end() || r.output != 0)
        fail(n, "reads '" + text + "', which gives no tensor aoe reads" +
                    (r.output != 0 ? std::string(" (aoe reads output 0 of a node only)") : std::string()));
      return it->second;
    }
    fail(n, "has " + std::to_string(seen) + " data inputs; it needs " + std::to_string(i + 1));
  }

  int data_inputs(const tf::NodeDef& n) const {
    return static_cast<int>(std::count_if(n.input().begin(), n.input().end(), [](const std::string& s) { return s.empty() || s[0] != '^'; }));
  }

  // A tensor name no other tensor has, nor another node will give its
  // output (constants enter the IR when first read); `own`: the node's own name.
  std::string unique(const std::string& wanted, bool own = false) const {
    const auto taken = [&](const std::string& name) { return graph_.tensors.count(name) || (!own && nodes_.count(name)); };
    std::string name = wanted;
    for (int i = 2; taken(name); ++i) name = wanted + "/" + std::to_string(i);
    return name;
  }

  // The IR tensor an op reads for `v`; a constant enters the IR here.
  std::string use(const Value& v) {
    if (!graph_.tensors.count(v.tensor)) graph_.tensors[v.tensor] = sdk::TensorDesc{v.tensor, v.dims, v.dtype, "ND", true};
    consumed_.insert(v.tensor);
    return v.tensor;
  }

  // A constant read in another shape than the graph's (a filter as OIHW).
  std::string use_as(const tf::NodeDef& n, const Value& v, const Dims& shape, const std::string& role) {
    if (!v.constant) fail(n, "reads its " + role + " from a computed tensor; aoe reads frozen graphs, whose " + role + " is a Const");
    const std::string name = unique(v.tensor + "/" + role);
    graph_.tensors[name] = sdk::TensorDesc{name, shape, v.dtype, "ND", true};
    return name;
  }

  std::string define(const tf::NodeDef& n, const Dims& d, DType dtype) {
    check_dims(n, "an output", d);
    const std::string name = unique(n.name(), true);
    graph_.tensors[name] = sdk::TensorDesc{name, d, dtype, "ND", false};
    values_[n.name()] = Value{name, d, dtype, false, std::nullopt};
    produced_.push_back(name);
    return name;
  }

  sdk::Node& emit(const tf::NodeDef& n, const std::string& op, const std::vector<std::string>& inputs, const std::string& output) {
    sdk::Node node;
    node.name = n.name();
    node.op_type = op;
    node.inputs = inputs;
    node.outputs = {output};
    producer_[output] = graph_.nodes.size();
    graph_.nodes.push_back(std::move(node));
    return graph_.nodes.back();
  }

  int64_t axis_of(const tf::NodeDef& n, int64_t axis, size_t rank) const {
    const auto r = static_cast<int64_t>(rank);
    if (axis < -r || axis >= r) fail(n, "names axis " + std::to_string(axis) + " of a " + std::to_string(rank) + "-D tensor");
    return axis < 0 ? axis + r : axis;
  }

  const Dims& ints_of(const tf::NodeDef& n, const Value& v, const std::string& role) const {
    if (!v.ints) fail(n, "takes its " + role + " from '" + v.tensor + "', which is not a small int Const; aoe reads constant " + role + "s only");
    return *v.ints;
  }

  // ---- the ops ----

  void translate(const tf::NodeDef& n) {
    const std::string& op = n.op();
    if (op == "Placeholder") placeholder(n);
    else if (op == "Const") constant(n);
    else if (op == "Identity" || op == "StopGradient" || op == "Snapshot") values_[n.name()] = input(n, 0);
    else if (op == "NoOp") return;
    else if (op == "Conv2D" || op == "DepthwiseConv2dNative") conv(n, op == "DepthwiseConv2dNative");
    else if (op == "MatMul") matmul(n);
    else if (op == "BiasAdd") bias_add(n);
    else if (op == "FusedBatchNorm" || op == "FusedBatchNormV2" || op == "FusedBatchNormV3") batch_norm(n);
    else if (op == "Relu6") relu6(n);
    else if (op == "MaxPool" || op == "AvgPool") pool(n, op == "MaxPool");
    else if (op == "ConcatV2") concat(n);
    else if (op == "Reshape") reshape(n);
    else if (op == "Softmax") softmax(n);
    else if (const auto it = kBinary.find(op); it != kBinary.end()) binary(n, it->second);
    else if (const auto it = kUnary.find(op); it != kUnary.end()) unary(n, it->second);
    else if (op == "LeakyRelu") unary(n, "LeakyRelu").attrs["alpha"] = attr_float(n, "alpha", 0.2f);
    else if (op == "Square") square(n);
    else if (op == "Rsqrt") rsqrt(n);
    else if (kReduce.count(op)) reduce(n, kReduce.at(op));
    else if (op == "Squeeze") squeeze(n);
    else if (op == "ExpandDims") expand_dims(n);
    else if (op == "Pad" || op == "PadV2" || op == "MirrorPad") pad(n);
    else if (op == "Transpose") transpose(n);
    else
      fail(n, "is an op aoe does not read; it reads Placeholder, Const, Identity, Conv2D, DepthwiseConv2dNative, MatMul, "
              "BiasAdd, FusedBatchNorm(V2, V3), Relu, Relu6, LeakyRelu, Elu, Selu, Softplus, Sigmoid, Tanh, Exp, Log, "
              "Sqrt, Rsqrt, Square, Neg, Abs, MaxPool, AvgPool, ConcatV2, Reshape, Squeeze, ExpandDims, Transpose, "
              "Pad, PadV2, MirrorPad, Mean, Sum, Max, Min, Prod, Softmax, Add, AddV2, Sub, Mul, RealDiv, Maximum, "
              "Minimum and Pow; export the model to ONNX (--framework 5) if it has others");
  }

  void placeholder(const tf::NodeDef& n) {
    const auto* type = find_attr(n, "dtype");
    const DType dtype = attr_dtype(n, type ? type->type() : tf::DT_FLOAT);
    Dims d;
    bool known = false;
    if (const auto* shape = find_attr(n, "shape"); shape && shape->has_shape() && !shape->shape().unknown_rank()) {
      for (const auto& dim : shape->shape().dim()) d.push_back(dim.size());
      known = std::all_of(d.begin(), d.end(), [](int64_t x) { return x >= 1; });
    }
    auto given = shapes_.find(n.name());
    if (given == shapes_.end()) given = shapes_.find(n.name() + ":0");
    if (given != shapes_.end()) {
      if (!d.empty() && d.size() != given->second.size())
        throw Error(StatusCode::invalid_argument, "--input_shape gives Placeholder '" + n.name() + "' " +
                                                      std::to_string(given->second.size()) + " dims; TensorFlow graph " +
                                                      quoted(path_) + " gives it " + dims_text(d));
      d = given->second;
      known = true;
    }
    if (!known)
      throw Error(StatusCode::invalid_argument, "Placeholder '" + n.name() + "' of TensorFlow graph " + quoted(path_) +
                                                    " has no fixed shape (" + (d.empty() ? "unknown rank" : dims_text(d)) +
                                                    "): give it with --input_shape, e.g. \"" + n.name() + ":1,224,224,3\"");
    check_dims(n, "an input", d);
    const std::string name = unique(n.name(), true);
    graph_.tensors[name] = sdk::TensorDesc{name, d, dtype, "ND", false};
    graph_.inputs.push_back(name);
    values_[n.name()] = Value{name, d, dtype, false, std::nullopt};
  }

  void constant(const tf::NodeDef& n) {
    const auto* a = find_attr(n, "value");
    if (!a || a->value_case() != tf::AttrValue::kTensor) fail(n, "has no tensor 'value'");
    const auto& t = a->tensor();
    Dims d;
    for (const auto& dim : t.tensor_shape().dim()) d.push_back(dim.size());
    check_dims(n, "a constant", d);
    Value v{n.name(), d, attr_dtype(n, t.dtype()), true, std::nullopt};
    const int64_t count = elements_of(d);
    if ((t.dtype() == tf::DT_INT32 || t.dtype() == tf::DT_INT64) && count <= kMaxReadValues) v.ints = int_values(n, t, count);
    values_[n.name()] = std::move(v);
  }

  // The values of an int tensor: raw bytes, or the typed field, where one value stands for all.
  Dims int_values(const tf::NodeDef& n, const tf::TensorProto& t, int64_t count) const {
    const bool wide = t.dtype() == tf::DT_INT64;
    Dims out;
    if (!t.tensor_content().empty()) {
      const size_t width = wide ? 8 : 4;
      if (t.tensor_content().size() != static_cast<size_t>(count) * width)
        fail(n, "holds " + std::to_string(t.tensor_content().size()) + " bytes for " + std::to_string(count) + " values");
      for (int64_t i = 0; i < count; ++i) {
        const char* at = t.tensor_content().data() + static_cast<size_t>(i) * width;
        if (wide) {
          int64_t x;
          std::memcpy(&x, at, 8);
          out.push_back(x);
        } else {
          int32_t x;
          std::memcpy(&x, at, 4);
          out.push_back(x);
        }
      }
      return out;
    }
    if (wide) out.assign(t.int64_val().begin(), t.int64_val().end());
    else out.assign(t.int_val().begin(), t.int_val().end());
    if (out.size() == 1 && count > 1) out.assign(static_cast<size_t>(count), out[0]);
    if (out.size() != static_cast<size_t>(count) && !(out.empty() && count > 0))
      fail(n, "holds " + std::to_string(out.size()) + " values for its " + std::to_string(count) + " elements");
    if (out.empty()) out.assign(static_cast<size_t>(count), 0);
    return out;
  }

  // strides or dilations: 1 on the batch and channel axes, a window on H and W.
  std::pair<int64_t, int64_t> window(const tf::NodeDef& n, const std::string& key, DataLayout l, bool required) const {
    const Dims v = attr_ints(n, key, required ? Dims{} : Dims{1, 1, 1, 1});
    if (v.size() != 4) fail(n, "has " + std::to_string(v.size()) + " values in '" + key + "'; it needs 4");
    const size_t h = l == DataLayout::nhwc ? 1 : 2, c = l == DataLayout::nhwc ? 3 : 1;
    if (v[0] != 1 || v[c] != 1) fail(n, "has '" + key + "' " + dims_text(v) + " over the batch or channels; aoe reads windows over H and W only");
    if (std::min(v[h], v[h + 1]) < 1 || std::max(v[h], v[h + 1]) > kMaxWindow) fail(n, "has '" + key + "' " + dims_text(v) + " out of 1..2^20");
    return {v[h], v[h + 1]};
  }

  Axis spatial(const tf::NodeDef& n, const std::string& padding, int64_t in, int64_t k, int64_t s, int64_t d,
               int64_t explicit_begin, int64_t explicit_end) const {
    const int64_t span = (k - 1) * d + 1;
    Axis a;
    if (padding == "SAME") {
      a.out = (in + s - 1) / s;
      const int64_t total = std::max<int64_t>(0, (a.out - 1) * s + span - in);
      a.pad_begin = total / 2;
      a.pad_end = total - a.pad_begin;
    } else if (padding == "VALID" || padding == "EXPLICIT") {
      a.pad_begin = padding == "EXPLICIT" ? explicit_begin : 0;
      a.pad_end = padding == "EXPLICIT" ? explicit_end : 0;
      if (in + a.pad_begin + a.pad_end < span) fail(n, "has a window wider than its padded input");
      a.out = (in + a.pad_begin + a.pad_end - span) / s + 1;
    } else {
      fail(n, "has padding '" + padding + "'; aoe reads SAME, VALID and EXPLICIT");
    }
    return a;
  }

  // A 4-D feature map's N, C, H, W.
  std::array<int64_t, 4> image(const tf::NodeDef& n, const Value& x, DataLayout l) const {
    if (x.dims.size() != 4 || *std::min_element(x.dims.begin(), x.dims.end()) < 1)
      fail(n, "reads " + dims_text(x.dims) + "; it needs a 4-D " + sdk::to_string(l) + " feature map, no dim empty");
    return sdk::nchw_dims(x.dims, l);
  }

  static void mark_layout(sdk::Node& node, DataLayout l) {
    if (l == DataLayout::nhwc) node.attrs[sdk::kDataFormatAttr] = "NHWC";
  }

  void conv(const tf::NodeDef& n, bool depthwise) {
    const DataLayout l = layout(n);
    const Value x = input(n, 0), filter = input(n, 1);
    const auto [batch, c, h, w] = image(n, x, l);
    if (filter.dims.size() != 4) fail(n, "has a filter of shape " + dims_text(filter.dims) + "; it needs [H,W,in,out]");
    const int64_t kh = filter.dims[0], kw = filter.dims[1], fin = filter.dims[2], fout = filter.dims[3];
    if (std::min({kh, kw, fin, fout}) < 1 || std::max(kh, kw) > kMaxWindow) fail(n, "has a filter of shape " + dims_text(filter.dims));
    int64_t group = 1, cout = fout;
    Dims oihw;
    if (depthwise) {
      if (fin != c) fail(n, "has a depthwise filter for " + std::to_string(fin) + " channels on an input of " + std::to_string(c));
      group = c, cout = c * fout;
      oihw = {cout, 1, kh, kw};
    } else {
      if (c % fin != 0 || fout % (c / fin) != 0)
        fail(n, "has a filter of " + std::to_string(fin) + " input channels for an input of " + std::to_string(c) +
                    ": the channels must split into groups of the filter's");
      group = c / fin;
      oihw = {cout, fin, kh, kw};
    }
    const auto [sh, sw] = window(n, "strides", l, true);
    const auto [dh, dw] = window(n, "dilations", l, false);
    const std::string padding = attr_string(n, "padding", "");
    Dims explicit_pads(8, 0);
    if (padding == "EXPLICIT") {
      explicit_pads = attr_ints(n, "explicit_paddings", {});
      if (explicit_pads.size() != 8 || *std::min_element(explicit_pads.begin(), explicit_pads.end()) < 0 ||
          *std::max_element(explicit_pads.begin(), explicit_pads.end()) > kMaxWindow)
        fail(n, "needs 8 explicit_paddings of 0..2^20");
    }
    const size_t hp = l == DataLayout::nhwc ? 2 : 4;  // where H's pair starts
    const Axis rows = spatial(n, padding, h, kh, sh, dh, explicit_pads[hp], explicit_pads[hp + 1]);
    const Axis cols = spatial(n, padding, w, kw, sw, dw, explicit_pads[hp + 2], explicit_pads[hp + 3]);
    const std::string out = define(n, sdk::laid_out({batch, cout, rows.out, cols.out}, l), x.dtype);
    auto& node = emit(n, "Conv", {use(x), use_as(n, filter, oihw, "filter")}, out);
    // ONNX's attributes as PyTorch exports them, so a model gives one task whichever way it came.
    node.attrs = {{"dilations", Dims{dh, dw}},
                  {"group", group},
                  {"kernel_shape", Dims{kh, kw}},
                  {"pads", Dims{rows.pad_begin, cols.pad_begin, rows.pad_end, cols.pad_end}},
                  {"strides", Dims{sh, sw}}};
    mark_layout(node, l);
  }

  void matmul(const tf::NodeDef& n) {
    const Value a = input(n, 0), b = input(n, 1);
    const bool ta = attr_bool(n, "transpose_a", false), tb = attr_bool(n, "transpose_b", false);
    if (a.dims.size() != 2 || b.dims.size() != 2) fail(n, "multiplies " + dims_text(a.dims) + " by " + dims_text(b.dims) + "; MatMul takes matrices");
    const int64_t m = ta ? a.dims[1] : a.dims[0], k = ta ? a.dims[0] : a.dims[1];
    const int64_t kb = tb ? b.dims[1] : b.dims[0], cols = tb ? b.dims[0] : b.dims[1];
    if (k != kb) fail(n, "multiplies " + dims_text(a.dims) + " by " + dims_text(b.dims) + ", whose inner dims differ");
    const std::string out = define(n, {m, cols}, a.dtype);
    // Transposed operands are Gemm's, as ONNX exporters write them.
    auto& node = emit(n, ta || tb ? "Gemm" : "MatMul", {use(a), use(b)}, out);
    if (ta) node.attrs["transA"] = 1;
    if (tb) node.attrs["transB"] = 1;
  }

  // Folded into the Conv or Gemm before it, as their bias input, when
  // nothing else reads their output; an Add otherwise.
  void bias_add(const tf::NodeDef& n) {
    const DataLayout l = layout(n);
    const Value x = input(n, 0), bias = input(n, 1);
    if (x.dims.size() < 2) fail(n, "adds a bias to " + dims_text(x.dims) + "; it needs 2 dims or more");
    const int64_t c = x.dims[sdk::channel_axis(l, x.dims.size())];
    if (bias.dims != Dims{c}) fail(n, "adds a bias of shape " + dims_text(bias.dims) + " to " + std::to_string(c) + " channels");
    const auto producer = producer_.find(x.tensor);
    const std::string source = parse_ref(n.input(0)).node;
    if (producer != producer_.end() && readers_[source + ":0"] == 1) {
      auto& anchor = graph_.nodes[producer->second];
      if (anchor.name == source && (anchor.op_type == "Conv" || anchor.op_type == "Gemm") && anchor.inputs.size() == 2) {
        anchor.inputs.push_back(use(bias));
        values_[n.name()] = x;
        return;
      }
    }
    std::string addend = use(bias);
    if (l == DataLayout::nchw && x.dims.size() > 2) {
      Dims per_channel(x.dims.size() - 1, 1);
      per_channel[0] = c;
      addend = use_as(n, bias, per_channel, "bias");
    }
    emit(n, "Add", {use(x), addend}, define(n, x.dims, x.dtype));
  }

  void batch_norm(const tf::NodeDef& n) {
    const DataLayout l = layout(n);
    if (attr_bool(n, "is_training", true))
      fail(n, "normalises by the batch's statistics (is_training); freeze the graph for inference");
    const Value x = input(n, 0);
    const int64_t c = image(n, x, l)[1];
    std::vector<std::string> inputs = {use(x)};
    for (int i = 1; i <= 4; ++i) {
      const Value& p = input(n, i);
      if (p.dims != Dims{c}) fail(n, "has input " + std::to_string(i) + " of shape " + dims_text(p.dims) + " for " + std::to_string(c) + " channels");
      inputs.push_back(use(p));
    }
    auto& node = emit(n, "BatchNormalization", inputs, define(n, x.dims, x.dtype));
    node.attrs["epsilon"] = attr_float(n, "epsilon", 1e-4f);
    mark_layout(node, l);
  }

  sdk::Node& unary(const tf::NodeDef& n, const std::string& op) {
    const Value x = input(n, 0);
    return emit(n, op, {use(x)}, define(n, x.dims, x.dtype));
  }

  // A value of the node's own before its output: `what` after its name.
  std::string inner(const tf::NodeDef& n, const std::string& what, const Value& like) {
    const std::string name = unique(n.name() + "/" + what);
    graph_.tensors[name] = sdk::TensorDesc{name, like.dims, like.dtype, "ND", false};
    consumed_.insert(name);
    return name;
  }

  void square(const tf::NodeDef& n) {
    const Value x = input(n, 0);
    const std::string t = use(x);
    emit(n, "Mul", {t, t}, define(n, x.dims, x.dtype));
  }

  // 1 / sqrt(x): ONNX has no Rsqrt.
  void rsqrt(const tf::NodeDef& n) {
    const Value x = input(n, 0);
    const std::string root = inner(n, "sqrt", x);
    emit(n, "Sqrt", {use(x)}, root);
    emit(n, "Reciprocal", {root}, define(n, x.dims, x.dtype));
  }

  // Mean, Sum, Max, Min, Prod over constant axes (reduction_indices), keep_dims.
  void reduce(const tf::NodeDef& n, const std::string& op) {
    const Value x = input(n, 0), axes_value = input(n, 1);
    const bool keep = attr_bool(n, "keep_dims", false);
    std::vector<bool> reduced(x.dims.size(), false);
    Dims axes;
    for (int64_t a : ints_of(n, axes_value, "axes")) {
      const int64_t axis = axis_of(n, a, x.dims.size());
      if (!reduced[static_cast<size_t>(axis)]) axes.push_back(axis);
      reduced[static_cast<size_t>(axis)] = true;
    }
    Dims out;
    for (size_t i = 0; i < x.dims.size(); ++i)
      if (!reduced[i]) out.push_back(x.dims[i]);
      else if (keep) out.push_back(1);
    std::sort(axes.begin(), axes.end());
    auto& node = emit(n, op, op == "ReduceSum" ? std::vector<std::string>{use(x), use(axes_value)} : std::vector<std::string>{use(x)},
                      define(n, out, x.dtype));
    node.attrs["axes"] = axes;
    node.attrs["keepdims"] = keep ? 1 : 0;
  }

  // TensorFlow's squeeze_dims, or every dim of 1.
  void squeeze(const tf::NodeDef& n) {
    const Value x = input(n, 0);
    Dims axes;
    for (int64_t a : attr_ints(n, "squeeze_dims", {})) axes.push_back(axis_of(n, a, x.dims.size()));
    if (axes.empty())
      for (size_t i = 0; i < x.dims.size(); ++i)
        if (x.dims[i] == 1) axes.push_back(static_cast<int64_t>(i));
    std::sort(axes.begin(), axes.end());
    Dims out;
    for (size_t i = 0; i < x.dims.size(); ++i) {
      const bool gone = std::binary_search(axes.begin(), axes.end(), static_cast<int64_t>(i));
      if (gone && x.dims[i] != 1) fail(n, "squeezes dim " + std::to_string(i) + " of " + dims_text(x.dims) + ", which is not 1");
      if (!gone) out.push_back(x.dims[i]);
    }
    emit(n, "Squeeze", {use(x)}, define(n, out, x.dtype)).attrs["axes"] = axes;
  }

  void expand_dims(const tf::NodeDef& n) {
    const Value x = input(n, 0), axis_value = input(n, 1);
    const Dims& a = ints_of(n, axis_value, "axis");
    if (a.size() != 1) fail(n, "has an axis of " + std::to_string(a.size()) + " values");
    const int64_t axis = axis_of(n, a[0], x.dims.size() + 1);
    Dims out = x.dims;
    out.insert(out.begin() + axis, 1);
    emit(n, "Unsqueeze", {use(x)}, define(n, out, x.dtype)).attrs["axes"] = Dims{axis};
  }

  // paddings [rank, 2] as ONNX's pads (every begin, then every end); MirrorPad as reflect or edge.
  void pad(const tf::NodeDef& n) {
    const Value x = input(n, 0), paddings = input(n, 1);
    const Dims& p = ints_of(n, paddings, "paddings");
    const size_t rank = x.dims.size();
    if (p.size() != 2 * rank) fail(n, "has " + std::to_string(p.size()) + " paddings for a " + std::to_string(rank) + "-D tensor");
    Dims pads(2 * rank), out = x.dims;
    for (size_t i = 0; i < rank; ++i) {
      if (p[2 * i] < 0 || p[2 * i + 1] < 0 || std::max(p[2 * i], p[2 * i + 1]) > kMaxWindow) fail(n, "has paddings out of 0..2^20");
      pads[i] = p[2 * i], pads[rank + i] = p[2 * i + 1];
      out[i] += p[2 * i] + p[2 * i + 1];
    }
    auto& node = emit(n, "Pad", {use(x)}, define(n, out, x.dtype));
    node.attrs["pads"] = pads;
    if (n.op() == "MirrorPad") {
      const std::string mode = attr_string(n, "mode", "REFLECT");
      if (mode != "REFLECT" && mode != "SYMMETRIC") fail(n, "has mode '" + mode + "'; aoe reads REFLECT and SYMMETRIC");
      // SYMMETRIC repeats the edge row itself: ONNX's edge mode for pads of 1, else not ONNX's.
      if (mode == "SYMMETRIC" && *std::max_element(pads.begin(), pads.end()) > 1)
        fail(n, "mirrors symmetrically by more than 1, which no ONNX Pad mode does");
      node.attrs["mode"] = mode == "REFLECT" ? "reflect" : "edge";
    }
    // PadV2's fill value changes no shape nor time, and a TensorFlow graph is read for its shapes alone.
  }

  void transpose(const tf::NodeDef& n) {
    const Value x = input(n, 0), perm_value = input(n, 1);
    const Dims& perm = ints_of(n, perm_value, "perm");
    if (perm.size() != x.dims.size()) fail(n, "has a perm of " + std::to_string(perm.size()) + " for " + dims_text(x.dims));
    Dims out;
    std::vector<bool> seen(perm.size(), false);
    for (int64_t a : perm) {
      const int64_t axis = axis_of(n, a, x.dims.size());
      if (seen[static_cast<size_t>(axis)]) fail(n, "has perm " + dims_text(perm) + ", which repeats an axis");
      seen[static_cast<size_t>(axis)] = true;
      out.push_back(x.dims[static_cast<size_t>(axis)]);
    }
    emit(n, "Transpose", {use(x)}, define(n, out, x.dtype)).attrs["perm"] = perm;
  }

  // Relu6 as opset 11 exports it: Clip with its bounds as constant inputs,
  // their values also as attributes, as the ONNX frontend gives constant bounds.
  void relu6(const tf::NodeDef& n) {
    const Value x = input(n, 0);
    std::vector<std::string> inputs = {use(x)};
    for (const char* bound : {"min", "max"}) {
      const std::string name = unique(n.name() + "/" + bound);
      graph_.tensors[name] = sdk::TensorDesc{name, {}, x.dtype, "ND", true};
      inputs.push_back(name);
    }
    sdk::Node& clip = emit(n, "Clip", inputs, define(n, x.dims, x.dtype));
    clip.attrs["min"] = 0.0;
    clip.attrs["max"] = 6.0;
  }

  void pool(const tf::NodeDef& n, bool max) {
    const DataLayout l = layout(n);
    const Value x = input(n, 0);
    const auto [batch, c, h, w] = image(n, x, l);
    const auto [kh, kw] = window(n, "ksize", l, true);
    const auto [sh, sw] = window(n, "strides", l, true);
    const std::string padding = attr_string(n, "padding", "");
    if (padding == "EXPLICIT") fail(n, "has padding 'EXPLICIT', which pools do not take");
    const Axis rows = spatial(n, padding, h, kh, sh, 1, 0, 0), cols = spatial(n, padding, w, kw, sw, 1, 0, 0);
    const std::string out = define(n, sdk::laid_out({batch, c, rows.out, cols.out}, l), x.dtype);
    // ONNX's AveragePool leaves the padding out of the count by default, as TensorFlow's SAME does.
    auto& node = emit(n, max ? "MaxPool" : "AveragePool", {use(x)}, out);
    node.attrs = {{"kernel_shape", Dims{kh, kw}},
                  {"pads", Dims{rows.pad_begin, cols.pad_begin, rows.pad_end, cols.pad_end}},
                  {"strides", Dims{sh, sw}}};
    mark_layout(node, l);
  }

  void concat(const tf::NodeDef& n) {
    const int count = data_inputs(n) - 1;
    if (count < 1) fail(n, "has no tensor to join");
    const Value axis_value = input(n, count);
    const Dims& axis_ints = ints_of(n, axis_value, "axis");
    if (axis_ints.size() != 1) fail(n, "has an axis of " + std::to_string(axis_ints.size()) + " values");
    Dims d = input(n, 0).dims;
    const int64_t axis = axis_of(n, axis_ints[0], d.size());
    std::vector<std::string> inputs;
    const DType dtype = input(n, 0).dtype;
    for (int i = 0; i < count; ++i) {
      const Value v = input(n, i);
      if (i > 0) {
        for (size_t k = 0; k < d.size(); ++k)
          if (v.dims.size() != d.size() || (static_cast<int64_t>(k) != axis && v.dims[k] != d[k]))
            fail(n, "joins " + dims_text(d) + " and " + dims_text(v.dims) + " along axis " + std::to_string(axis));
        d[static_cast<size_t>(axis)] += v.dims[static_cast<size_t>(axis)];
        check_dims(n, "an output", d);
      }
      inputs.push_back(use(v));
    }
    emit(n, "Concat", inputs, define(n, d, dtype)).attrs["axis"] = axis;
  }

  void reshape(const tf::NodeDef& n) {
    const Value x = input(n, 0), shape = input(n, 1);
    Dims out = ints_of(n, shape, "shape");
    const int64_t total = elements_of(x.dims);
    int64_t known = 1;
    std::optional<size_t> inferred;
    for (size_t i = 0; i < out.size(); ++i) {
      if (out[i] == -1 && !inferred) inferred = i;
      else if (out[i] < 1) fail(n, "asks for dim " + std::to_string(out[i]) + " in shape " + dims_text(out));
      else if (out[i] > kMaxTensorElements / known) fail(n, "asks for more than 2^40 elements");
      else known *= out[i];
    }
    if (inferred && total % known == 0) out[*inferred] = total / known;
    if (elements_of(out) != total) fail(n, "cannot make " + dims_text(x.dims) + " into " + dims_text(*shape.ints));
    emit(n, "Reshape", {use(x), use(shape)}, define(n, out, x.dtype));
  }

  void softmax(const tf::NodeDef& n) {
    const Value x = input(n, 0);
    if (x.dims.empty()) fail(n, "reads a scalar");
    // TensorFlow normalises the last axis.
    emit(n, "Softmax", {use(x)}, define(n, x.dims, x.dtype)).attrs["axis"] = static_cast<int64_t>(x.dims.size()) - 1;
  }

  // NumPy broadcasting, as TensorFlow's and ONNX's elementwise ops both do.
  void binary(const tf::NodeDef& n, const std::string& op) {
    const Value a = input(n, 0), b = input(n, 1);
    const size_t rank = std::max(a.dims.size(), b.dims.size());
    Dims out(rank, 1);
    for (size_t i = 0; i < rank; ++i) {
      const int64_t da = i < rank - a.dims.size() ? 1 : a.dims[i - (rank - a.dims.size())];
      const int64_t db = i < rank - b.dims.size() ? 1 : b.dims[i - (rank - b.dims.size())];
      if (da != db && da != 1 && db != 1) fail(n, "cannot broadcast " + dims_text(a.dims) + " with " + dims_text(b.dims));
      out[i] = da == 1 ? db : da;
    }
    emit(n, op, {use(a), use(b)}, define(n, out, a.dtype));
  }

  fs::path path_;
  const tf::GraphDef& def_;
  const InputShapes& shapes_;
  sdk::Graph& graph_;
  std::map<std::string, const tf::NodeDef*> nodes_;
  std::map<std::string, int> readers_;            // "node:k" -> data edges reading it
  std::map<std::string, Value> values_;           // node -> what its output 0 holds
  std::map<std::string, size_t> producer_;        // IR tensor -> the IR node writing it
  std::set<std::string> placeholders_, consumed_;
  std::vector<std::string> produced_;
};

}  // namespace

sdk::Graph load_tensorflow(const fs::path& model, const InputShapes& input_shapes) {
  const tf::GraphDef def = read_graph(model);
  sdk::Graph graph;
  graph.name = model.stem().string();
  graph.opset = kOpset;
  Translator(model, def, input_shapes, graph).run();
  return graph;
}

}  // namespace aoe::host
