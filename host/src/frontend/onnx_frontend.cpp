// The ONNX frontend: protobuf in, checked and shape-inferred, graph IR out.
#include "onnx_frontend.h"

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <fstream>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "aoe/sdk/error.h"
#include "guarded_schemas.h"
#include "if_branches.h"
#include "model_file.h"
#include "model_functions.h"
#include "model_weights.h"
#include "newer_onnx.h"
#include "older_onnx.h"
#include "optional_inputs.h"
#include "constant_folding.h"
#include "einsum_shape_inference.h"
#include "external_data.h"
#include "graph_normaliser.h"
#include "topological_order.h"
#include "zipmap_as_tensor.h"
#include "tensor_bounds.h"

namespace aoe::host {
namespace {

namespace fs = std::filesystem;
using sdk::Error;
using sdk::StatusCode;

constexpr int64_t kMinOpset = 7;
constexpr int64_t kMaxOpset = 17;
constexpr const char* kTrainingDomain = "ai.onnx.preview.training";
constexpr const char* kInputShapeForm =
    R"(expected "name:d0,d1,...;name2:d0,..." with every dim >= 0, e.g. "x:1,3,640,640;y:1,10")";

// ---- --input_shape ----------------------------------------------------------------------

std::string trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(first, last - first + 1));
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const auto end = s.find(sep, start);
    parts.push_back(s.substr(start, end == std::string_view::npos ? s.npos : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

[[noreturn]] void bad_input_shape(const std::string& text, const std::string& part,
                                  const std::string& why) {
  throw Error(StatusCode::invalid_argument, "bad --input_shape \"" + text + "\": in '" + part +
                                                "': " + why + "; " + kInputShapeForm);
}

// A dim of 0 is a size too: a decoder's first step, its past keys and values empty.
int64_t parse_dim(std::string_view raw, const std::string& text, const std::string& part) {
  const std::string dim = trim(raw);
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(dim.data(), dim.data() + dim.size(), value);
  if (dim.empty() || ec != std::errc() || end != dim.data() + dim.size() || value < 0)
    bad_input_shape(text, part,
                    "dim '" + dim + "' is not a whole number of 0 or more (every dim must be fixed; -1 and ? are not allowed)");
  return value;
}

// ---- reading and checking the file --------------------------------------------------------

onnx::ModelProto read_model(const fs::path& path) {
  std::ifstream in = open_model_file(path, "ONNX model", "--model");
  onnx::ModelProto model;
  if (!parse_binary_message(model, in) || !model.has_graph()) {
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    throw Error(StatusCode::invalid_argument,
                "cannot parse ONNX model " + quoted(path) + " (" + std::to_string(ec ? 0 : size) +
                    " bytes): the file is truncated, corrupt or not an ONNX model; export or copy it again");
  }
  return model;
}

int64_t default_opset(onnx::ModelProto& model, const fs::path& path, int64_t oldest = kMinOpset) {
  for (auto& import : *model.mutable_opset_import()) {
    if (!import.domain().empty() && import.domain() != "ai.onnx") continue;
    if (import.version() < oldest || import.version() > kMaxOpset)
      throw Error(StatusCode::unsupported,
                  "ONNX model " + quoted(path) + " uses unknown opset " + std::to_string(import.version()) +
                      " of the default ONNX domain; supported opsets are 1.." + std::to_string(kNewestReadOpset) +
                      ": convert the model to one of them");
    return import.version();
  }
  // The training domain's optimizers (Adam, Adagrad, Momentum) come in models
  // of that domain alone: no node of the default domain, whose opset then
  // changes nothing, so the newest is taken.
  for (const auto& import : model.opset_import())
    if (import.domain() == kTrainingDomain) return kMaxOpset;
  throw Error(StatusCode::unsupported, "ONNX model " + quoted(path) +
                                           " imports no opset of the default ONNX domain; re-export it "
                                           "with an opset in 7.." + std::to_string(kNewestReadOpset));
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

void add_input_like(onnx::GraphProto& graph, const onnx::TensorProto& tensor) {
  auto* input = graph.add_input();
  input->set_name(tensor.name());
  auto* type = input->mutable_type()->mutable_tensor_type();
  type->set_elem_type(tensor.data_type());
  auto* shape = type->mutable_shape();
  for (auto d : tensor.dims()) shape->add_dim()->set_dim_value(d);
}

// ONNX 1.12's checker opens every external data file it is shown, but loading needs only
// dims: while it runs, each external weight stands in the graph as an input of the same
// type. Protobuf moves swap pointers, so no weight is copied.
void check_model(onnx::ModelProto& model, const fs::path& path) {
  auto& graph = *model.mutable_graph();
  std::set<std::string> inputs;
  for (const auto& input : graph.input()) inputs.insert(input.name());
  const int original_inputs = graph.input_size();
  google::protobuf::RepeatedPtrField<onnx::TensorProto> all;
  all.Swap(graph.mutable_initializer());
  const auto external = [](const onnx::TensorProto& t) { return t.data_location() == onnx::TensorProto::EXTERNAL; };
  for (auto& init : all) {
    if (!external(init)) *graph.add_initializer() = std::move(init);
    else if (!inputs.count(init.name())) add_input_like(graph, init);
  }
  // A model input or output may leave its shape out (any rank), as ONNX Runtime takes it
  // and tools that cut models write it; ONNX 1.12's checker asks for one, so it is shown
  // a placeholder. Inference, or --input_shape for an input, gives the real one.
  std::vector<onnx::TypeProto_Tensor*> shapeless;
  for (auto* values : {graph.mutable_input(), graph.mutable_output()})
    for (auto& value : *values)
      if (value.type().has_tensor_type() && !value.type().tensor_type().has_shape()) {
        shapeless.push_back(value.mutable_type()->mutable_tensor_type());
        shapeless.back()->mutable_shape();
      }
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    throw Error(StatusCode::invalid_argument, "ONNX model " + quoted(path) + " is invalid: " +
                                                  first_line(e.what()) + "; fix or re-export the model");
  }
  for (auto* type : shapeless) type->clear_shape();
  int next = 0;
  for (auto& init : all)
    if (!external(init)) init = std::move(*graph.mutable_initializer(next++));
  graph.mutable_initializer()->Swap(&all);
  graph.mutable_input()->DeleteSubrange(original_inputs, graph.input_size() - original_inputs);
}

// ---- inputs and their shapes -------------------------------------------------------------

// Old exporters list initializers among the inputs; those are weights, not inputs.
std::vector<onnx::ValueInfoProto*> real_inputs(onnx::GraphProto& graph) {
  std::set<std::string> initializers;
  for (const auto& init : graph.initializer()) initializers.insert(init.name());
  std::vector<onnx::ValueInfoProto*> inputs;
  for (auto& input : *graph.mutable_input())
    if (!initializers.count(input.name())) inputs.push_back(&input);
  return inputs;
}

bool dim_known(const onnx::TensorShapeProto::Dimension& dim) {
  return dim.has_dim_value() && dim.dim_value() >= 0;
}

// "[?,128,768]", or "(shape unknown)" when not even the rank is known.
std::string shape_text(const onnx::TypeProto_Tensor& type) {
  if (!type.has_shape()) return "(shape unknown)";
  std::string text = "[";
  for (int i = 0; i < type.shape().dim_size(); ++i) {
    const auto& dim = type.shape().dim(i);
    text += (i ? "," : "") + (dim_known(dim) ? std::to_string(dim.dim_value()) : std::string("?"));
  }
  return text + "]";
}

std::string input_names(const std::vector<onnx::ValueInfoProto*>& inputs) {
  std::string names;
  for (const auto* input : inputs) names += (names.empty() ? "'" : ", '") + input->name() + "'";
  return names.empty() ? "none" : names;
}

// Shapes stored in the file were computed for the old input shapes; inference redoes them,
// in the branches and bodies of If, Loop and Scan too.
void forget_stale_shapes(onnx::GraphProto& graph) {
  graph.clear_value_info();
  for (auto& output : *graph.mutable_output())
    if (output.type().has_tensor_type()) output.mutable_type()->mutable_tensor_type()->clear_shape();
  for (auto& node : *graph.mutable_node())
    for (auto& attr : *node.mutable_attribute()) {
      if (attr.has_g()) forget_stale_shapes(*attr.mutable_g());
      for (auto& g : *attr.mutable_graphs()) forget_stale_shapes(g);
    }
}

void apply_input_shapes(onnx::GraphProto& graph, const InputShapes& shapes, const fs::path& path) {
  const auto inputs = real_inputs(graph);
  for (const auto& [name, dims] : shapes) {
    const auto it = std::find_if(inputs.begin(), inputs.end(), [&](auto* in) { return in->name() == name; });
    if (it == inputs.end())
      throw Error(StatusCode::invalid_argument, "--input_shape names input '" + name + "', but ONNX model " +
                                                    quoted(path) + " has inputs " + input_names(inputs) +
                                                    "; use one of those names");
    if (!(*it)->type().has_tensor_type())
      throw Error(StatusCode::unsupported, "input '" + name + "' of ONNX model " + quoted(path) +
                                               " is not a tensor; only tensor inputs can be tuned");
    auto* type = (*it)->mutable_type()->mutable_tensor_type();
    if (type->has_shape() && type->shape().dim_size() != static_cast<int>(dims.size()))
      throw Error(StatusCode::invalid_argument,
                  "--input_shape gives input '" + name + "' " + std::to_string(dims.size()) +
                      " dims, but ONNX model " + quoted(path) + " declares it as " + shape_text(*type) +
                      "; pass " + std::to_string(type->shape().dim_size()) + " dims");
    auto* shape = type->mutable_shape();
    shape->clear_dim();
    for (auto d : dims) shape->add_dim()->set_dim_value(d);
  }
  if (!shapes.empty()) forget_stale_shapes(graph);
}

// "tokens:1,128,768": the input with its unknown dims set to 1, as a starting point.
std::string suggested_shape(const onnx::ValueInfoProto& input) {
  const auto& type = input.type().tensor_type();
  if (!type.has_shape()) return input.name() + ":<dims>";
  std::string text = input.name() + ":";
  for (int i = 0; i < type.shape().dim_size(); ++i) {
    const auto& dim = type.shape().dim(i);
    text += (i ? "," : "") + (dim_known(dim) ? std::to_string(dim.dim_value()) : std::string("1"));
  }
  return text;
}

void require_known_inputs(onnx::GraphProto& graph, const fs::path& path) {
  std::string unknown, suggestion;
  for (const auto* input : real_inputs(graph)) {
    if (!input->type().has_tensor_type())
      throw Error(StatusCode::unsupported, "input '" + input->name() + "' of ONNX model " + quoted(path) +
                                               " is not a tensor; only tensor inputs can be tuned");
    const auto& type = input->type().tensor_type();
    const bool known = type.has_shape() && std::all_of(type.shape().dim().begin(), type.shape().dim().end(),
                                                       [](const auto& dim) { return dim_known(dim); });
    if (known) continue;
    unknown += (unknown.empty() ? "'" : ", '") + input->name() + "' " + shape_text(type);
    suggestion += (suggestion.empty() ? "" : ";") + suggested_shape(*input);
  }
  if (!unknown.empty())
    throw Error(StatusCode::invalid_argument,
                "ONNX model " + quoted(path) + " has inputs with unknown dims: " + unknown +
                    "; fix them with --input_shape \"" + suggestion +
                    "\" (put the sizes to tune for where ? was)");
}

// Why ONNX's inference refuses the model, its first line; empty when it takes it.
std::string inference_error(onnx::ModelProto& model) {
  // Node-level failures (custom ops, values only known at run time) leave those values
  // unknown instead of failing the whole load.
  const onnx::ShapeInferenceOptions options(/*check_type_val=*/false, /*strict_mode_val=*/0,
                                            /*data_prop_val=*/true);
  try {
    onnx::shape_inference::InferShapes(model, &guarded_schemas(), options);
  } catch (const std::exception& e) {
    return first_line(e.what());
  }
  return {};
}

void run_inference(onnx::ModelProto& model, const fs::path& path) {
  if (const auto error = inference_error(model); !error.empty())
    throw Error(StatusCode::invalid_argument, "shape inference failed on ONNX model " + quoted(path) + ": " + error +
                                                  "; check --input_shape against the model's inputs");
}

// The shapes a file declares are hints, as ONNX Runtime reads them: where inference
// disagrees with one (a value_info an older libonnx wrote, sizing a ceil_mode pool by
// its old rule), the file's shapes are dropped and inference redoes them all.
void infer_over_declared_shapes(onnx::ModelProto& model, const fs::path& path) {
  const auto error = inference_error(model);
  if (error.empty()) return;
  forget_stale_shapes(*model.mutable_graph());
  run_inference(model, path);
  spdlog::warn("ONNX model {}: {}; the shapes the file declares are ignored, inferred again without them",
               quoted(path), error);
}

// Inference sizes a window or kernel longer than its padded input (a pool's, a
// conv's) as a negative dim, which ONNX Runtime refuses too: named here, before a
// device takes the size for one known only as the model runs.
void refuse_negative_dims(const onnx::GraphProto& graph, const fs::path& path) {
  for (const auto* values : {&graph.value_info(), &graph.output()})
    for (const auto& value : *values) {
      if (!value.type().has_tensor_type() || !value.type().tensor_type().has_shape()) continue;
      const auto& dims = value.type().tensor_type().shape().dim();
      if (std::none_of(dims.begin(), dims.end(), [](const auto& d) { return d.has_dim_value() && d.dim_value() < 0; }))
        continue;
      std::string made_by;
      for (const auto& node : graph.node())
        if (std::find(node.output().begin(), node.output().end(), value.name()) != node.output().end())
          made_by = " (the output of " + node.op_type() + " '" + node_label(node) + "')";
      std::string text;
      for (const auto& d : dims) text += (text.empty() ? "" : ",") + (d.has_dim_value() ? std::to_string(d.dim_value()) : "?");
      throw Error(StatusCode::invalid_argument, "ONNX model " + quoted(path) + ": '" + value.name() + "'" + made_by +
                                                    " is sized [" + text +
                                                    "], a negative extent: a window or kernel longer than its padded "
                                                    "input; fix the model, or its --input_shape");
    }
}

// Exporters compute Reshape and Expand targets from shapes at run time, which ONNX's own
// inference does not see through. Folded values are pinned as initializers so inference
// reads them, round after round while new ones appear, and removed at the end: the
// graph keeps its nodes and only gains shapes. Each round pins at least one new value,
// so the loop ends.
void infer_shapes(onnx::ModelProto& model, const fs::path& path) {
  auto& graph = *model.mutable_graph();
  infer_over_declared_shapes(model, path);
  const int original_initializers = graph.initializer_size();
  const auto plain_value_info = graph.value_info();
  const auto plain_outputs = graph.output();
  std::set<std::string> constant_names;
  for (const auto& init : graph.initializer()) constant_names.insert(init.name());
  try {
    for (bool pinned = true; pinned;) {
      pinned = false;
      for (const auto& [name, value] : fold_known_values(graph, kShapeElements)) {
        if (!constant_names.insert(name).second) continue;
        *graph.add_initializer() = to_initializer(name, value);
        pinned = true;
      }
      if (pinned) run_inference(model, path);
    }
  } catch (const Error& e) {
    // Inference disagreeing with a folded value is a folding bug; the plain shapes still hold.
    spdlog::warn("shape folding gave up on {}: {}", path.string(), e.what());
    *graph.mutable_value_info() = plain_value_info;
    *graph.mutable_output() = plain_outputs;
  }
  graph.mutable_initializer()->DeleteSubrange(original_initializers,
                                              graph.initializer_size() - original_initializers);
}

// ---- conversion to the graph IR -----------------------------------------------------------

sdk::DType to_dtype(int32_t elem_type) {
  using T = onnx::TensorProto;
  switch (elem_type) {
    case T::FLOAT: return sdk::DType::f32;
    case T::FLOAT16: return sdk::DType::f16;
    case T::BFLOAT16: return sdk::DType::bf16;
    case T::DOUBLE: return sdk::DType::f64;
    case T::INT8: return sdk::DType::i8;
    case T::INT16: return sdk::DType::i16;
    case T::INT32: return sdk::DType::i32;
    case T::INT64: return sdk::DType::i64;
    case T::UINT8: return sdk::DType::u8;
    case T::UINT16: return sdk::DType::u16;
    case T::UINT32: return sdk::DType::u32;
    case T::UINT64: return sdk::DType::u64;
    case T::BOOL: return sdk::DType::boolean;
    default: return sdk::DType::undefined;  // strings, complex: nothing to tune
  }
}

sdk::TensorDesc to_tensor(const onnx::ValueInfoProto& value) {
  sdk::TensorDesc desc{.name = value.name(), .shape = {-1}, .dtype = sdk::DType::undefined};
  if (!value.type().has_tensor_type()) return desc;
  const auto& type = value.type().tensor_type();
  desc.dtype = to_dtype(type.elem_type());
  if (!type.has_shape()) return desc;
  desc.shape.clear();
  for (const auto& dim : type.shape().dim()) desc.shape.push_back(dim_known(dim) ? dim.dim_value() : -1);
  return desc;
}

sdk::TensorDesc to_tensor(const onnx::TensorProto& init) {
  return {.name = init.name(),
          .shape = {init.dims().begin(), init.dims().end()},
          .dtype = to_dtype(init.data_type()),
          .constant = true};
}

// The shortest text that reads back as the same float, so 1e-5f stays 1e-05, not 9.99999974e-06.
double to_double(float value) {
  char text[32];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, value);
  double out = value;
  std::from_chars(text, end, out);
  return out;
}

nlohmann::json to_text(const std::string& bytes) {
  nlohmann::json text = bytes;
  try {
    (void)text.dump();
    return text;
  } catch (const nlohmann::json::type_error&) {  // not UTF-8: keep it printable
    static constexpr char hex[] = "0123456789abcdef";
    std::string out = "0x";
    for (unsigned char c : bytes) out += {hex[c >> 4], hex[c & 15]};
    return out;
  }
}

nlohmann::json tensor_summary(const onnx::TensorProto& tensor) {
  nlohmann::json out = {{"dims", std::vector<int64_t>(tensor.dims().begin(), tensor.dims().end())},
                        {"dtype", sdk::to_string(to_dtype(tensor.data_type()))}};
  // A one-value tensor (ConstantOfShape's fill) carries its value: a device computes with it.
  if (const auto one = read_known(tensor, 1); one && one->size() == 1)
    out["values"] = {one->is_real() ? one->reals[0] : static_cast<double>(one->ints[0])};
  return out;
}

template <typename Repeated, typename Convert>
nlohmann::json to_list(const Repeated& items, Convert convert) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& item : items) list.push_back(convert(item));
  return list;
}

// Subgraphs, sparse tensors and type protos carry nothing a tuner keys on: skipped.
std::optional<nlohmann::json> attribute_value(const onnx::AttributeProto& attr) {
  using A = onnx::AttributeProto;
  const auto same = [](const auto& v) { return nlohmann::json(v); };
  switch (attr.type()) {
    case A::FLOAT: return to_double(attr.f());
    case A::INT: return attr.i();
    case A::STRING: return to_text(attr.s());
    case A::TENSOR: return tensor_summary(attr.t());
    case A::FLOATS: return to_list(attr.floats(), to_double);
    case A::INTS: return to_list(attr.ints(), same);
    case A::STRINGS: return to_list(attr.strings(), to_text);
    case A::TENSORS: return to_list(attr.tensors(), tensor_summary);
    default: return std::nullopt;
  }
}

sdk::Node to_node(const onnx::NodeProto& proto, size_t index) {
  sdk::Node node{.name = proto.name().empty() ? proto.op_type() + "_" + std::to_string(index) : proto.name(),
                 .op_type = proto.op_type(),
                 .inputs = {proto.input().begin(), proto.input().end()},
                 .outputs = {proto.output().begin(), proto.output().end()}};
  for (const auto& attr : proto.attribute())
    if (auto value = attribute_value(attr)) node.attrs[attr.name()] = std::move(*value);
  return node;
}

sdk::Graph to_graph(onnx::GraphProto& proto, int64_t opset) {
  sdk::Graph graph;
  graph.name = proto.name();
  graph.opset = opset;
  for (const auto* input : real_inputs(proto)) graph.inputs.push_back(input->name());
  for (const auto& output : proto.output()) graph.outputs.push_back(output.name());

  const auto add = [&](sdk::TensorDesc desc) { graph.tensors.insert_or_assign(desc.name, std::move(desc)); };
  for (const auto& value : proto.value_info()) add(to_tensor(value));
  for (const auto& value : proto.input()) add(to_tensor(value));
  for (const auto& value : proto.output()) add(to_tensor(value));
  // Initializers last: their dims are exact even where a stale value_info disagrees.
  for (const auto& init : proto.initializer()) add(to_tensor(init));

  for (int i = 0; i < proto.node_size(); ++i) {
    graph.nodes.push_back(to_node(proto.node(i), static_cast<size_t>(i)));
    for (const auto& name : proto.node(i).output()) {
      if (name.empty()) continue;
      auto& desc = graph.tensors.try_emplace(name, sdk::TensorDesc{.name = name, .shape = {-1},
                                                                   .dtype = sdk::DType::undefined})
                       .first->second;
      if (proto.node(i).op_type() == "Constant") desc.constant = true;
    }
    for (const auto& name : proto.node(i).input())
      if (!name.empty())
        graph.tensors.try_emplace(name, sdk::TensorDesc{.name = name, .shape = {-1},
                                                        .dtype = sdk::DType::undefined});
  }
  return graph;
}

}  // namespace

InputShapes parse_input_shape(const std::string& text) {
  InputShapes shapes;
  if (trim(text).empty()) return shapes;
  auto parts = split(text, ';');
  if (parts.size() > 1 && trim(parts.back()).empty()) parts.pop_back();  // a trailing ';' is harmless
  for (const auto raw : parts) {
    const std::string part = trim(raw);
    if (part.empty()) bad_input_shape(text, part, "an empty entry between ';'");
    const auto colon = part.rfind(':');  // names such as "input:0" keep their own ':'
    if (colon == std::string::npos) bad_input_shape(text, part, "no ':' between the input name and its dims");
    const std::string name = trim(std::string_view(part).substr(0, colon));
    if (name.empty()) bad_input_shape(text, part, "the input name is empty");
    const std::string dims_text = trim(std::string_view(part).substr(colon + 1));
    if (dims_text.empty()) bad_input_shape(text, part, "no dims after ':'");
    std::vector<int64_t> dims;
    for (const auto dim : split(dims_text, ',')) dims.push_back(parse_dim(dim, text, part));
    if (!shapes.emplace(name, std::move(dims)).second)
      bad_input_shape(text, part, "input '" + name + "' is given twice");
  }
  return shapes;
}

sdk::Graph load_onnx(const std::filesystem::path& path, const InputShapes& input_shapes, ModelWeights* weights, Normalisation* normalised) {
  onnx::ModelProto model = read_model(path);
  return load_onnx_model(model, path, input_shapes, weights, normalised);
}

sdk::Graph load_onnx_bytes(std::string_view bytes, const std::filesystem::path& name, const InputShapes& input_shapes,
                           ModelWeights* weights, Normalisation* normalised) {
  if (bytes.size() > static_cast<size_t>(INT_MAX))
    throw Error(StatusCode::invalid_argument, "ONNX model " + quoted(name) + " in memory is " +
                                                  std::to_string(bytes.size()) +
                                                  " bytes, over protobuf's 2 GB: keep its weights as external data");
  onnx::ModelProto model;
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())) || !model.has_graph())
    throw Error(StatusCode::invalid_argument, "cannot parse ONNX model " + quoted(name) + " in memory (" +
                                                  std::to_string(bytes.size()) +
                                                  " bytes): they are truncated or not a serialized ONNX ModelProto");
  return load_onnx_model(model, name, input_shapes, weights, normalised);
}

sdk::Graph load_onnx_model(onnx::ModelProto& model, const std::filesystem::path& path, const InputShapes& input_shapes,
                           ModelWeights* weights, Normalisation* normalised) {
  Normalisation done;
  auto& graph = *model.mutable_graph();
  // Before the rewrites, the checker and inference, which read initializers and multiply dims.
  check_initializers(graph, path);
  done.add("external_constants_read", read_external_constants(graph, path));
  done.add("inline_functions", inline_model_functions(model, path));
  done.add("read_as_opset_17", read_as_opset17(model, path));
  // The checker insists on a graph name; a nameless graph is still a usable one.
  if (graph.name().empty()) graph.set_name(path.stem().string());
  done.add("topological_order", order_topologically(graph, path));
  done.add("zipmap_as_tensor", zipmap_as_tensor(graph));
  default_opset(model, path, 1);  // an unknown opset is named before the checker reads it
  check_model(model, path);
  // An opset-1..6 model is checked at its own opset first: its rewrite runs ONNX's shape
  // inference, which dereferences what only the checker guarantees is there.
  if (const int64_t rewritten = read_as_opset7(model, path)) {
    done.add("read_as_opset_7", rewritten);
    check_model(model, path);
  }
  const int64_t opset = default_opset(model, path);
  done.add("optional_inputs_as_tensors", optional_inputs_as_tensors(graph));  // before the inputs are checked
  apply_input_shapes(graph, input_shapes, path);
  require_known_inputs(graph, path);
  infer_shapes(model, path);
  refuse_negative_dims(graph, path);
  try {
    for (const auto& [rule, count] : normalise_graph(graph, opset, [&] { infer_shapes(model, path); }).counts)
      done.add(rule, count);
  } catch (const Error& e) {
    if (std::string_view(e.what()).find(path.string()) != std::string_view::npos) throw;
    throw Error(e.code(), "ONNX model " + quoted(path) + ": " + e.what());
  }
  const int64_t lifted = lift_branch_constants(graph, opset, [&] { infer_shapes(model, path); });
  if (lifted) {
    done.add("lift_branch_constants", lifted);
    infer_shapes(model, path);  // the branches' shapes, now their arithmetic is folded, reach the If's outputs
  }
  check_einsum_equations(graph, path);
  sdk::Graph out = to_graph(graph, opset);
  normalise_converted(graph, opset, out, done);
  attach_if_branches(graph, graph, opset, [&](onnx::GraphProto& branch) { return to_graph(branch, opset); }, out);
  spdlog::info("normalised {}: {}", path.filename().string(), done.summary());
  if (normalised) *normalised = std::move(done);
  check_tensor_sizes(out, path);
  if (weights) *weights = take_initializers(graph, path);
  return out;
}

}  // namespace aoe::host
