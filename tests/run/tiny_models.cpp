#include "tiny_models.h"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace aoe::test {
namespace {

using Dims = std::vector<int64_t>;

onnx::ModelProto empty_model() {
  onnx::ModelProto model;
  model.set_ir_version(onnx::IR_VERSION);
  auto* import = model.add_opset_import();
  import->set_domain("");
  import->set_version(13);
  model.mutable_graph()->set_name("tiny");
  return model;
}

void set_dims(onnx::ValueInfoProto* value, const std::string& name, const Dims& dims) {
  value->set_name(name);
  auto* type = value->mutable_type()->mutable_tensor_type();
  type->set_elem_type(onnx::TensorProto::FLOAT);
  auto* shape = type->mutable_shape();  // a scalar's is there, with no dims
  for (auto d : dims) shape->add_dim()->set_dim_value(d);
}

void add_weights(onnx::GraphProto* graph, const std::string& name, const Dims& dims) {
  auto* t = graph->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  int64_t n = 1;
  for (auto d : dims) t->add_dims(d), n *= d;
  for (int64_t i = 0; i < n; ++i) t->add_float_data(0.01f * static_cast<float>(i % 17));
}

void add_int64s(onnx::GraphProto* graph, const std::string& name, const Dims& dims, const std::vector<int64_t>& values) {
  auto* t = graph->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  for (auto d : dims) t->add_dims(d);
  for (auto v : values) t->add_int64_data(v);
}

void add_floats(onnx::GraphProto* graph, const std::string& name, const Dims& dims, const std::vector<float>& values) {
  auto* t = graph->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (auto d : dims) t->add_dims(d);
  for (auto v : values) t->add_float_data(v);
}

void add_int_attribute(onnx::NodeProto* node, const std::string& name, int64_t value) {
  auto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(value);
}

void add_ints_attribute(onnx::NodeProto* node, const std::string& name, const std::vector<int64_t>& values) {
  auto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (auto v : values) a->add_ints(v);
}

void add_string_attribute(onnx::NodeProto* node, const std::string& name, const std::string& value) {
  auto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(value);
}

void add_float_attribute(onnx::NodeProto* node, const std::string& name, float value) {
  auto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(value);
}

onnx::NodeProto* add_node(onnx::GraphProto* graph, const std::string& name, const std::string& op,
                          const std::vector<std::string>& inputs, const std::vector<std::string>& outputs) {
  auto* n = graph->add_node();
  n->set_name(name);
  n->set_op_type(op);
  for (const auto& in : inputs) n->add_input(in);
  for (const auto& out : outputs) n->add_output(out);
  return n;
}

void save(const onnx::ModelProto& model, const std::filesystem::path& file) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!model.SerializeToOstream(&out)) throw std::runtime_error("cannot write " + file.string());
}

void write_unary_model(const std::filesystem::path& file, const std::string& op, const std::string& in,
                       const std::string& out, const Dims& dims) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), in, dims);
  set_dims(g->add_output(), out, dims);
  add_node(g, op + "_0", op, {in}, {out});
  save(model, file);
}

}  // namespace

void write_weights_model(const std::filesystem::path& file, bool external) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {1, 8});
  set_dims(g->add_output(), "y", {1, 8});
  auto* z = g->add_initializer();
  z->set_name("Z");
  z->set_data_type(onnx::TensorProto::FLOAT);
  z->add_dims(1), z->add_dims(8);
  for (int i = 0; i < 8; ++i) z->add_float_data(0.0f);
  auto* w = g->add_initializer();
  w->set_name("W");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(1), w->add_dims(8);
  std::vector<float> values;
  for (int i = 1; i <= 8; ++i) values.push_back(static_cast<float>(i));
  const std::string bytes(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
  if (external) {
    const std::string name = file.stem().string() + ".weights";
    std::ofstream(file.parent_path() / name, std::ios::binary) << "pad!" << bytes;  // at offset 4
    w->set_data_location(onnx::TensorProto::EXTERNAL);
    auto* location = w->add_external_data();
    location->set_key("location"), location->set_value(name);
    auto* offset = w->add_external_data();
    offset->set_key("offset"), offset->set_value("4");
  } else {
    w->set_raw_data(bytes);
  }
  add_node(g, "Mul_0", "Mul", {"x", "Z"}, {"m"});
  add_node(g, "Add_1", "Add", {"m", "W"}, {"y"});
  save(model, file);
}

// x[m,k] -> MatMul(W[k,n]) -> Add(B[n]) -> Relu -> y[m,n].
void write_biased_matmul_model(const std::filesystem::path& file, int64_t m, int64_t k, int64_t n) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {m, k});
  set_dims(g->add_output(), "y", {m, n});
  add_weights(g, "W", {k, n});
  add_weights(g, "B", {n});
  add_node(g, "MatMul_0", "MatMul", {"x", "W"}, {"m"});
  add_node(g, "Add_1", "Add", {"m", "B"}, {"a"});
  add_node(g, "Relu_2", "Relu", {"a"}, {"y"});
  save(model, file);
}

void write_matmul_model(const std::filesystem::path& file) { write_biased_matmul_model(file, 4, 8, 6); }

void write_projection_model(const std::filesystem::path& file) { write_biased_matmul_model(file, 64, 96, 80); }

void write_residual_matmul_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {2, 4, 8});
  set_dims(g->add_output(), "y", {2, 4, 8});
  add_weights(g, "W", {8, 8});
  add_weights(g, "B", {8});
  add_node(g, "MatMul_0", "MatMul", {"x", "W"}, {"m"});
  add_node(g, "Add_1", "Add", {"m", "B"}, {"a"});
  add_node(g, "Add_2", "Add", {"a", "x"}, {"r"});
  add_node(g, "Relu_3", "Relu", {"r"}, {"s"});
  add_node(g, "Add_4", "Add", {"s", "x"}, {"y"});
  save(model, file);
}

void write_conv_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {1, 3, 8, 8});
  set_dims(g->add_output(), "y", {1, 4, 8, 8});
  add_weights(g, "W", {4, 3, 3, 3});
  add_weights(g, "B", {4});
  add_weights(g, "S", {1, 4, 8, 8});
  add_ints_attribute(add_node(g, "Conv_0", "Conv", {"x", "W", "B"}, {"c"}), "pads", {1, 1, 1, 1});
  add_node(g, "Relu_1", "Relu", {"c"}, {"r"});
  add_node(g, "Add_2", "Add", {"r", "S"}, {"y"});
  save(model, file);
}

void write_chain_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {1, 4, 8, 8});
  set_dims(g->add_output(), "y", {1, 4, 8, 8});
  for (const char* name : {"scale", "B", "mean", "var"}) add_weights(g, name, {4});
  add_floats(g, "lower", {}, {0.05f});
  add_floats(g, "upper", {}, {0.1f});
  add_node(g, "BatchNormalization_0", "BatchNormalization", {"x", "scale", "B", "mean", "var"}, {"b"});
  add_node(g, "Clip_1", "Clip", {"b", "lower", "upper"}, {"r"});
  add_node(g, "Sigmoid_2", "Sigmoid", {"r"}, {"y"});
  save(model, file);
}

void write_paddle_hardswish_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {1, 4, 8, 8});
  set_dims(g->add_output(), "y", {1, 4, 8, 8});
  add_weights(g, "W", {4, 4, 3, 3});
  add_floats(g, "three", {1}, {3.0f});
  add_floats(g, "zero", {}, {0.0f});
  add_floats(g, "six", {}, {6.0f});
  add_floats(g, "divisor", {1}, {6.0f});
  add_ints_attribute(add_node(g, "Conv_0", "Conv", {"x", "W"}, {"c"}), "pads", {1, 1, 1, 1});
  add_node(g, "Add_1", "Add", {"c", "three"}, {"a"});
  add_node(g, "Clip_2", "Clip", {"a", "zero", "six"}, {"r"});
  add_node(g, "Mul_3", "Mul", {"c", "r"}, {"m"});
  add_node(g, "Div_4", "Div", {"m", "divisor"}, {"y"});
  save(model, file);
}

void write_swish_model(const std::filesystem::path& file, bool sigmoid_is_output) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {1, 8, 16});
  set_dims(g->add_output(), "y", {1, 8, 16});
  set_dims(g->add_output(), "r", {1, 8, 16});
  if (sigmoid_is_output) set_dims(g->add_output(), "s", {1, 8, 16});
  add_floats(g, "two", {}, {2.0f});
  add_node(g, "Relu_0", "Relu", {"x"}, {"r"});
  add_node(g, "Sigmoid_1", "Sigmoid", {"x"}, {"s"});
  add_node(g, "Mul_2", "Mul", {"x", "s"}, {"m"});
  add_node(g, "Mul_3", "Mul", {"m", "two"}, {"y"});
  save(model, file);
}

void write_conv_silu_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {1, 3, 10, 10});
  set_dims(g->add_output(), "y", {1, 8, 10, 10});
  add_weights(g, "W", {8, 3, 3, 3});
  add_weights(g, "B", {8});
  add_ints_attribute(add_node(g, "Conv_0", "Conv", {"x", "W", "B"}, {"c"}), "pads", {1, 1, 1, 1});
  add_node(g, "Sigmoid_1", "Sigmoid", {"c"}, {"s"});
  add_node(g, "Mul_2", "Mul", {"s", "c"}, {"y"});
  save(model, file);
}

void write_masked_scores_model(const std::filesystem::path& file, bool mask_after) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {1, 2, 4, 8});
  set_dims(g->add_input(), "mask", {1, 1, 1, 8});
  set_dims(g->add_output(), "y", {1, 2, 4, 8});
  add_floats(g, "four", {}, {4.0f});
  add_weights(g, "gamma", {8});
  add_node(g, "Div_0", "Div", {"x", "four"}, {"d"});
  if (mask_after) add_node(g, "Sigmoid_1", "Sigmoid", {"mask"}, {"m"});
  add_node(g, "Add_2", "Add", {"d", mask_after ? "m" : "mask"}, {"a"});
  add_node(g, "Mul_3", "Mul", {"a", "gamma"}, {"y"});
  save(model, file);
}

void write_attention_model(const std::filesystem::path& file, int queries, int keys) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  for (const auto& [name, rows] : {std::pair{"q", queries}, std::pair{"k", keys}, std::pair{"v", keys}})
    set_dims(g->add_input(), name, {1, rows, 2, 4});
  set_dims(g->add_input(), "mask", {1, 1, 1, keys});
  set_dims(g->add_output(), "y", {1, queries, 2, 4});
  add_floats(g, "two", {}, {2.0f});
  add_ints_attribute(add_node(g, "Transpose_q", "Transpose", {"q"}, {"qt"}), "perm", {0, 2, 1, 3});
  add_ints_attribute(add_node(g, "Transpose_k", "Transpose", {"k"}, {"kt"}), "perm", {0, 2, 3, 1});
  add_ints_attribute(add_node(g, "Transpose_v", "Transpose", {"v"}, {"vt"}), "perm", {0, 2, 1, 3});
  add_node(g, "MatMul_scores", "MatMul", {"qt", "kt"}, {"s"});
  add_node(g, "Div_scaled", "Div", {"s", "two"}, {"d"});
  add_node(g, "Add_masked", "Add", {"d", "mask"}, {"a"});
  add_node(g, "Softmax_probs", "Softmax", {"a"}, {"p"});
  add_node(g, "MatMul_context", "MatMul", {"p", "vt"}, {"c"});
  add_ints_attribute(add_node(g, "Transpose_out", "Transpose", {"c"}, {"y"}), "perm", {0, 2, 1, 3});
  save(model, file);
}

void write_bias_ladder_model(const std::filesystem::path& file, int adds) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {1, 4, 8});
  set_dims(g->add_output(), "y", {1, 4, 8});
  std::string last = "x";
  for (int i = 0; i < adds; ++i) {
    const std::string bias = "bias" + std::to_string(i), out = i + 1 == adds ? "y" : "s" + std::to_string(i);
    add_weights(g, bias, {8});
    add_node(g, "Add_" + std::to_string(i), "Add", {last, bias}, {out});
    last = out;
  }
  save(model, file);
}

void write_two_branch_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {1, 4, 8, 8});
  set_dims(g->add_output(), "y", {1, 4, 8, 8});
  add_weights(g, "W1", {4, 4, 1, 1});
  add_weights(g, "W3", {4, 4, 3, 3});
  for (const char* name : {"scale", "B", "mean", "var"}) add_weights(g, name, {4});
  add_node(g, "Conv_1", "Conv", {"x", "W1"}, {"a"});
  add_node(g, "BatchNormalization_2", "BatchNormalization", {"a", "scale", "B", "mean", "var"}, {"b"});
  add_ints_attribute(add_node(g, "Conv_3", "Conv", {"x", "W3"}, {"c"}), "pads", {1, 1, 1, 1});
  add_node(g, "Add_4", "Add", {"b", "c"}, {"s"});
  add_node(g, "Relu_5", "Relu", {"s"}, {"y"});
  save(model, file);
}

void write_wide_conv_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {1, 8, 8, 8});
  set_dims(g->add_output(), "y", {1, 16, 8, 8});
  add_weights(g, "W", {16, 8, 3, 3});
  add_weights(g, "B", {16});
  add_ints_attribute(add_node(g, "Conv_0", "Conv", {"x", "W", "B"}, {"c"}), "pads", {1, 1, 1, 1});
  add_node(g, "Relu_1", "Relu", {"c"}, {"y"});
  save(model, file);
}

void write_depthwise_conv_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {1, 8, 8, 8});
  set_dims(g->add_output(), "y", {1, 8, 8, 8});
  add_weights(g, "W", {8, 1, 3, 3});
  auto* conv = add_node(g, "Conv_0", "Conv", {"x", "W"}, {"c"});
  add_ints_attribute(conv, "pads", {1, 1, 1, 1});
  add_int_attribute(conv, "group", 8);
  add_node(g, "Relu_1", "Relu", {"c"}, {"y"});
  save(model, file);
}

void write_transposed_conv_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {1, 4, 5, 5});
  set_dims(g->add_output(), "y", {1, 6, 10, 10});
  add_weights(g, "W", {4, 3, 3, 3});
  for (const char* name : {"scale", "B", "mean", "var"}) add_weights(g, name, {6});
  auto* up = add_node(g, "ConvTranspose_0", "ConvTranspose", {"x", "W"}, {"c"});
  add_ints_attribute(up, "strides", {2, 2});
  add_ints_attribute(up, "pads", {1, 1, 1, 1});
  add_ints_attribute(up, "output_padding", {1, 1});
  add_int_attribute(up, "group", 2);
  add_node(g, "BatchNormalization_1", "BatchNormalization", {"c", "scale", "B", "mean", "var"}, {"b"});
  add_node(g, "Relu_2", "Relu", {"b"}, {"y"});
  save(model, file);
}

void write_upsample_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {1, 2, 4, 4});
  set_dims(g->add_output(), "y", {1, 3, 9, 9});
  add_weights(g, "W", {2, 3, 3, 3});
  add_weights(g, "B", {3});
  add_node(g, "Relu_0", "Relu", {"x"}, {"r"});
  add_ints_attribute(add_node(g, "ConvTranspose_1", "ConvTranspose", {"r", "W", "B"}, {"y"}), "strides", {2, 2});
  save(model, file);
}

void write_relu_model(const std::filesystem::path& file) { write_unary_model(file, "Relu", "a", "x", {1, 3, 8, 8}); }

void write_small_relu_model(const std::filesystem::path& file) { write_unary_model(file, "Relu", "a", "x", {1, 2}); }

void write_lp_norm_model(const std::filesystem::path& file) { write_unary_model(file, "LpNormalization", "x", "y", {1, 4}); }

void write_lp_and_roi_pools_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {1, 2, 8, 6});
  set_dims(g->add_output(), "a", {1, 2, 4, 5});
  set_dims(g->add_output(), "g", {1, 2, 1, 1});
  set_dims(g->add_output(), "n", {1, 2, 8, 6});
  set_dims(g->add_output(), "r", {3, 2, 2, 2});
  auto* lp = add_node(g, "LpPool_0", "LpPool", {"x"}, {"a"});
  add_ints_attribute(lp, "kernel_shape", {3, 2}), add_ints_attribute(lp, "strides", {2, 1});
  add_ints_attribute(lp, "pads", {1, 0, 1, 0}), add_int_attribute(lp, "p", 2);
  add_int_attribute(add_node(g, "GlobalLpPool_1", "GlobalLpPool", {"x"}, {"g"}), "p", 3);
  auto* norm = add_node(g, "LpNormalization_2", "LpNormalization", {"x"}, {"n"});
  add_int_attribute(norm, "axis", 1), add_int_attribute(norm, "p", 1);
  add_floats(g, "rois", {3, 5}, {0, 0, 0, 11, 15, 0, 2.6f, 3.2f, 7.1f, 9.9f, 0, 20, 20, 30, 30});
  auto* roi = add_node(g, "MaxRoiPool_3", "MaxRoiPool", {"x", "rois"}, {"r"});
  add_ints_attribute(roi, "pooled_shape", {2, 2}), add_float_attribute(roi, "spatial_scale", 0.5f);
  save(model, file);
}

void write_gradient_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* training = model.add_opset_import();
  training->set_domain("ai.onnx.preview.training"), training->set_version(1);
  auto* g = model.mutable_graph();
  for (const char* in : {"a", "b"}) set_dims(g->add_input(), in, {1, 4});
  for (const char* out : {"c", "dc_da", "dc_db"}) set_dims(g->add_output(), out, {1, 4});
  add_node(g, "Add_0", "Add", {"a", "b"}, {"c"});
  auto* gradient = add_node(g, "Gradient_1", "Gradient", {"a", "b"}, {"dc_da", "dc_db"});
  gradient->set_domain("ai.onnx.preview.training");
  auto* xs = gradient->add_attribute();
  xs->set_name("xs"), xs->set_type(onnx::AttributeProto::STRINGS), xs->add_strings("a"), xs->add_strings("b");
  add_string_attribute(gradient, "y", "c");
  save(model, file);
}

void write_data_move_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {2, 5});
  set_dims(g->add_output(), "y", {2, 6});
  set_dims(g->add_output(), "z", {3, 5});
  add_int64s(g, "starts", {1}, {-1});
  // As exporters write some bounds: a Constant node, not an initializer.
  auto* ends = add_node(g, "Constant_ends", "Constant", {}, {"ends"});
  auto* value = ends->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(onnx::TensorProto::INT64);
  value->mutable_t()->add_dims(1);
  value->mutable_t()->add_int64_data(-1000);
  add_int64s(g, "axes", {1}, {-1});
  add_int64s(g, "steps", {1}, {-2});
  add_node(g, "Slice_0", "Slice", {"x", "starts", "ends", "axes", "steps"}, {"s"});
  add_int64s(g, "reflect_pads", {4}, {0, 1, 0, 2});
  auto* reflect = add_node(g, "Pad_1", "Pad", {"s", "reflect_pads"}, {"p"});
  auto* mode = reflect->add_attribute();
  mode->set_name("mode");
  mode->set_type(onnx::AttributeProto::STRING);
  mode->set_s("reflect");
  add_int64s(g, "rows", {2}, {-1, 0});
  add_node(g, "Gather_2", "Gather", {"p", "rows"}, {"y"});
  add_int64s(g, "top_pads", {4}, {1, 0, 0, 0});
  auto* fill = g->add_initializer();
  fill->set_name("fill");
  fill->set_data_type(onnx::TensorProto::FLOAT);
  fill->add_float_data(0.5f);
  add_node(g, "Pad_3", "Pad", {"x", "top_pads", "fill"}, {"z"});
  save(model, file);
}

void write_exported_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {1, 3, 4, 4});
  set_dims(g->add_output(), "y", {1, 48});
  set_dims(g->add_output(), "z", {1, 3, 8, 8});
  const auto constant = [&](const std::string& name, int32_t type, const Dims& dims, const std::vector<double>& values) {
    auto* t = add_node(g, "Constant_" + name, "Constant", {}, {name})->add_attribute();
    t->set_name("value");
    t->set_type(onnx::AttributeProto::TENSOR);
    t->mutable_t()->set_data_type(type);
    for (auto d : dims) t->mutable_t()->add_dims(d);
    for (auto v : values) {
      if (type == onnx::TensorProto::FLOAT) t->mutable_t()->add_float_data(static_cast<float>(v));
      else t->mutable_t()->add_int64_data(static_cast<int64_t>(v));
    }
  };
  constant("half", onnx::TensorProto::FLOAT, {}, {0.5});
  add_node(g, "Mul_0", "Mul", {"x", "half"}, {"scaled"});
  add_node(g, "Identity_1", "Identity", {"scaled"}, {"same"});
  add_node(g, "Shape_2", "Shape", {"same"}, {"dims"});
  constant("zero", onnx::TensorProto::INT64, {}, {0});
  add_node(g, "Gather_3", "Gather", {"dims", "zero"}, {"batch"});
  add_int64s(g, "axes", {1}, {0});
  add_node(g, "Unsqueeze_4", "Unsqueeze", {"batch", "axes"}, {"batch_1d"});
  constant("rest", onnx::TensorProto::INT64, {1}, {-1});
  add_int_attribute(add_node(g, "Concat_5", "Concat", {"batch_1d", "rest"}, {"target"}), "axis", 0);
  add_node(g, "Reshape_6", "Reshape", {"same", "target"}, {"flat"});
  add_node(g, "Dropout_7", "Dropout", {"flat"}, {"kept"});
  add_node(g, "Relu_8", "Relu", {"kept"}, {"relu"});
  // A branch on a dim, as scripted exports test one: batch == 1 holds, so y = Sigmoid(relu).
  constant("one", onnx::TensorProto::INT64, {1}, {1});
  add_node(g, "Equal_10", "Equal", {"batch_1d", "one"}, {"single"});
  constant("first", onnx::TensorProto::INT64, {1}, {0});
  add_node(g, "Gather_11", "Gather", {"single", "first"}, {"single_1d"});
  add_int64s(g, "squeeze_axes", {1}, {0});
  add_node(g, "Squeeze_12", "Squeeze", {"single_1d", "squeeze_axes"}, {"cond"});
  auto* branch = add_node(g, "If_13", "If", {"cond"}, {"y"});
  for (const auto& [name, op] : {std::pair{"then_branch", "Sigmoid"}, std::pair{"else_branch", "Tanh"}}) {
    auto* a = branch->add_attribute();
    a->set_name(name), a->set_type(onnx::AttributeProto::GRAPH);
    auto* body = a->mutable_g();
    body->set_name(name);
    add_node(body, std::string(op) + "_in_branch", op, {"relu"}, {std::string(name) + "_y"});
    set_dims(body->add_output(), std::string(name) + "_y", {1, 48});
  }
  // Max of three inputs, one a broadcast scalar: a chain of two-input Max.
  set_dims(g->add_output(), "m", {1, 3, 4, 4});
  add_int_attribute(add_node(g, "Cast_15", "Cast", {"scaled"}, {"scaled_again"}), "to", onnx::TensorProto::FLOAT);  // float to float
  add_node(g, "Max_14", "Max", {"x", "half", "scaled_again"}, {"m"});
  auto* roi = g->add_initializer();  // as Paddle2ONNX writes an unused roi: no elements
  roi->set_name("roi");
  roi->set_data_type(onnx::TensorProto::FLOAT);
  roi->add_dims(0);
  constant("scales", onnx::TensorProto::FLOAT, {4}, {1, 1, 2, 2});
  auto* resize = add_node(g, "Resize_9", "Resize", {"x", "roi", "scales"}, {"z"});
  auto* mode = resize->add_attribute();
  mode->set_name("mode"), mode->set_type(onnx::AttributeProto::STRING), mode->set_s("nearest");
  save(model, file);
}

void write_bilinear_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {1, 1, 2, 3});
  set_dims(g->add_output(), "y", {1, 1, 4, 6});
  add_int64s(g, "sizes", {4}, {1, 1, 4, 6});
  auto* resize = add_node(g, "Resize_0", "Resize", {"x", "", "", "sizes"}, {"y"});
  for (const auto& [name, value] : {std::pair{"mode", "linear"}, {"coordinate_transformation_mode", "half_pixel"}}) {
    auto* a = resize->add_attribute();
    a->set_name(name), a->set_type(onnx::AttributeProto::STRING), a->set_s(value);
  }
  save(model, file);
}

void write_opset11_softmax_model(const std::filesystem::path& file) {
  auto model = empty_model();
  model.mutable_opset_import(0)->set_version(11);
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {2, 3, 4});
  set_dims(g->add_output(), "y", {2, 3, 4});
  set_dims(g->add_output(), "z", {2, 3, 4});
  add_node(g, "Softmax_0", "Softmax", {"x"}, {"y"});
  add_int_attribute(add_node(g, "LogSoftmax_1", "LogSoftmax", {"x"}, {"z"}), "axis", 2);
  save(model, file);
}

void write_einsum_model(const std::filesystem::path& file) {
  auto model = empty_model();
  model.mutable_opset_import(0)->set_version(12);
  auto* g = model.mutable_graph();
  for (const auto& [name, dims] : std::vector<std::pair<std::string, Dims>>{
           {"q", {2, 3, 4}}, {"k", {2, 5, 4}}, {"u", {3}}, {"t", {5}}, {"e", {3, 4}}, {"f", {3, 4}}, {"d", {3, 3}}})
    set_dims(g->add_input(), name, dims);
  std::vector<float> w(24), w2(8);
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.1f * static_cast<float>(i % 7) - 0.3f;
  for (size_t i = 0; i < w2.size(); ++i) w2[i] = 0.25f * static_cast<float>(i) - 1.0f;
  add_floats(g, "w", {4, 2, 3}, w);
  add_floats(g, "w2", {1, 4, 2}, w2);
  for (const auto& [name, inputs, equation, rank] :
       std::vector<std::tuple<std::string, std::vector<std::string>, std::string, int>>{
           {"s", {"q", "k"}, "bij,bkj->bik", 3}, {"p", {"q", "w"}, "bsd,dhk->bhsk", 4}, {"o", {"u", "t"}, "i,j->ij", 2},
           {"c", {"q", "w2"}, "...ij,...jk->...ik", 3}, {"r", {"e", "f"}, "ij,ij->i", 1}, {"g", {"d"}, "ii->i", 1},
           {"m", {"e"}, "ij->i", 1}, {"tr", {"e"}, "ij->ji", 2}}) {
    auto* out = g->add_output();
    out->set_name(name);
    auto* type = out->mutable_type()->mutable_tensor_type();
    type->set_elem_type(onnx::TensorProto::FLOAT);
    for (int i = 0; i < rank; ++i) type->mutable_shape()->add_dim()->set_dim_param(name + std::to_string(i));
    add_string_attribute(add_node(g, "Einsum_" + name, "Einsum", inputs, {name}), "equation", equation);
  }
  save(model, file);
}

void write_sequences_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {6, 4});
  set_dims(g->add_input(), "y", {2, 4});
  // Sequence-typed values as exporters declare them.
  for (const char* name : {"s1", "s2", "s3", "cols", "pair"}) {
    auto* v = g->add_value_info();
    v->set_name(name);
    v->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(
        onnx::TensorProto::FLOAT);
  }
  add_int64s(g, "sizes", {3}, {1, 2, 3});
  add_int64s(g, "one", {}, {1});
  add_int64s(g, "last", {}, {-1});
  add_int64s(g, "second_last", {}, {-2});
  add_node(g, "Split_0", "SplitToSequence", {"x", "sizes"}, {"s1"});
  add_node(g, "Insert_1", "SequenceInsert", {"s1", "y", "one"}, {"s2"});
  add_node(g, "Erase_2", "SequenceErase", {"s2", "last"}, {"s3"});
  add_node(g, "At_3", "SequenceAt", {"s3", "second_last"}, {"a"});
  add_node(g, "Length_4", "SequenceLength", {"s3"}, {"n"});
  add_int_attribute(add_node(g, "Concat_5", "ConcatFromSequence", {"s3"}, {"c"}), "axis", 0);
  auto* cols = add_node(g, "Split_6", "SplitToSequence", {"y"}, {"cols"});
  add_int_attribute(cols, "axis", 1), add_int_attribute(cols, "keepdims", 0);
  auto* stack = add_node(g, "Stack_7", "ConcatFromSequence", {"cols"}, {"st"});
  add_int_attribute(stack, "axis", 0), add_int_attribute(stack, "new_axis", 1);
  add_node(g, "Construct_8", "SequenceConstruct", {"x", "x"}, {"pair"});
  add_int_attribute(add_node(g, "Concat_9", "ConcatFromSequence", {"pair"}, {"cc"}), "axis", -1);
  for (const auto& [name, dims] : std::vector<std::pair<std::string, Dims>>{
           {"a", {2, 4}}, {"c", {5, 4}}, {"st", {4, 2}}, {"cc", {6, 8}}})
    set_dims(g->add_output(), name, dims);
  set_dims(g->add_output(), "n", {});
  g->mutable_output(4)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  save(model, file);
}

void write_past_concat_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "past", {1, 1, 4});
  g->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(1)->set_dim_param("P");
  set_dims(g->add_input(), "x", {1, 3, 4});
  set_dims(g->add_output(), "y", {1, 1, 4});
  g->mutable_output(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(1)->set_dim_param("T");
  add_int_attribute(add_node(g, "Concat_0", "Concat", {"past", "x"}, {"kv"}), "axis", 1);
  add_node(g, "Relu_1", "Relu", {"kv"}, {"y"});
  save(model, file);
}

void write_converted_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {2, 3});
  set_dims(g->add_input(), "lo", {});
  set_dims(g->add_output(), "y", {2, 3});
  add_weights(g, "hi", {});
  // Out of order, as a float16 conversion appends what it adds.
  add_node(g, "Clip_1", "Clip", {"r", "lo", "hi"}, {"y"});
  add_node(g, "Relu_0", "Relu", {"x"}, {"r"});
  save(model, file);
}

void write_lookup_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "ids", {4});
  g->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  set_dims(g->add_output(), "y", {4, 3});
  auto* table = g->add_initializer();
  table->set_name("table");
  table->set_data_type(onnx::TensorProto::FLOAT);
  table->add_dims(5), table->add_dims(3);
  for (int i = 0; i < 15; ++i) table->add_float_data(static_cast<float>(i));
  add_node(g, "Gather_0", "Gather", {"table", "ids"}, {"y"});
  save(model, file);
}

void write_shape_arithmetic_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {3, 4});
  set_dims(g->add_input(), "n", {2});
  g->mutable_input(1)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  for (const char* out : {"q", "r", "big"}) {
    set_dims(g->add_output(), out, {2});
    g->mutable_output(g->output_size() - 1)->mutable_type()->mutable_tensor_type()->set_elem_type(
        out == std::string("big") ? onnx::TensorProto::BOOL : onnx::TensorProto::INT64);
  }
  add_int64s(g, "k", {2}, {3, -2});
  add_int64s(g, "c", {1}, {4});
  add_node(g, "Shape_0", "Shape", {"x"}, {"s"});
  add_node(g, "Add_1", "Add", {"n", "s"}, {"a"});
  add_node(g, "Mul_2", "Mul", {"a", "k"}, {"m"});
  add_node(g, "Div_3", "Div", {"m", "c"}, {"q"});
  add_node(g, "Mod_4", "Mod", {"m", "c"}, {"r"});
  add_node(g, "Greater_5", "Greater", {"q", "c"}, {"big"});
  save(model, file);
}

void write_mask_where_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {2, 3});
  set_dims(g->add_input(), "y", {2, 3});
  set_dims(g->add_output(), "z", {2, 3});
  auto* zero = g->add_initializer();
  zero->set_name("zero");
  zero->set_data_type(onnx::TensorProto::FLOAT);
  zero->add_dims(1);
  zero->add_float_data(0.0f);
  add_node(g, "Greater_0", "Greater", {"x", "y"}, {"gt"});
  add_node(g, "Less_1", "Less", {"x", "zero"}, {"neg"});
  add_node(g, "Not_2", "Not", {"neg"}, {"pos"});
  add_node(g, "And_3", "And", {"gt", "pos"}, {"mask"});
  add_node(g, "Where_4", "Where", {"mask", "x", "y"}, {"z"});
  save(model, file);
}

namespace {

onnx::GraphProto* add_body(onnx::NodeProto* node) {
  auto* a = node->add_attribute();
  a->set_name("body"), a->set_type(onnx::AttributeProto::GRAPH);
  a->mutable_g()->set_name(node->name() + "_body");
  return a->mutable_g();
}

// The body of a Loop with one carried value: inputs i (int64), cond (bool)
// and y_in of `dims`; outputs cond_out (bool), y_out carried on and y_out
// again as the scan output. The caller adds the nodes making cond_out and y_out.
onnx::GraphProto* add_carrying_body(onnx::NodeProto* loop, const Dims& dims) {
  auto* body = add_body(loop);
  const auto typed = [](onnx::ValueInfoProto* v, onnx::TensorProto::DataType t) {
    v->mutable_type()->mutable_tensor_type()->set_elem_type(t);
  };
  set_dims(body->add_input(), "i", {});
  typed(body->mutable_input(0), onnx::TensorProto::INT64);
  set_dims(body->add_input(), "cond", {});
  typed(body->mutable_input(1), onnx::TensorProto::BOOL);
  set_dims(body->add_input(), "y_in", dims);
  set_dims(body->add_output(), "cond_out", {});
  typed(body->mutable_output(0), onnx::TensorProto::BOOL);
  set_dims(body->add_output(), "y_out", dims);
  set_dims(body->add_output(), "y_out", dims);
  return body;
}

}  // namespace

void write_sum_loop_model(const std::filesystem::path& file, bool fed_trips) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {2});
  if (fed_trips) {
    set_dims(g->add_input(), "trips", {});
    g->mutable_input(1)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  } else {
    add_int64s(g, "trips", {}, {3});
  }
  auto* zeros = g->add_initializer();
  zeros->set_name("zeros"), zeros->set_data_type(onnx::TensorProto::FLOAT), zeros->add_dims(2);
  zeros->add_float_data(0.0f), zeros->add_float_data(0.0f);
  set_dims(g->add_output(), "y", {2});
  set_dims(g->add_output(), "ys", {3, 2});
  if (fed_trips)  // as many rows as the run's trips
    g->mutable_output(1)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("trips");
  auto* body = add_carrying_body(add_node(g, "sum", "Loop", {"trips", "", "zeros"}, {"y", "ys"}), {2});
  add_int_attribute(add_node(body, "Cast_0", "Cast", {"i"}, {"i_float"}), "to", onnx::TensorProto::FLOAT);
  add_node(body, "Add_1", "Add", {"y_in", "x"}, {"plus_x"});
  add_node(body, "Add_2", "Add", {"plus_x", "i_float"}, {"y_out"});
  add_node(body, "Identity_3", "Identity", {"cond"}, {"cond_out"});
  save(model, file);
}

void write_doubling_while_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {1});
  auto* go = g->add_initializer();
  go->set_name("go"), go->set_data_type(onnx::TensorProto::BOOL), go->add_int32_data(1);
  auto* limit = g->add_initializer();
  limit->set_name("limit"), limit->set_data_type(onnx::TensorProto::FLOAT), limit->add_dims(1), limit->add_float_data(100);
  set_dims(g->add_output(), "y", {1});
  set_dims(g->add_output(), "steps", {1, 1});
  g->mutable_output(1)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("n");
  auto* body = add_carrying_body(add_node(g, "doubling", "Loop", {"", "go", "x"}, {"y", "steps"}), {1});
  auto* two = body->add_initializer();
  two->set_name("two"), two->set_data_type(onnx::TensorProto::FLOAT), two->add_dims(1), two->add_float_data(2);
  add_node(body, "Mul_0", "Mul", {"y_in", "two"}, {"y_out"});
  add_node(body, "Less_1", "Less", {"y_out", "limit"}, {"below"});
  add_node(body, "Squeeze_2", "Squeeze", {"below"}, {"cond_out"});
  save(model, file);
}

void write_list_output_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {2, 3});
  add_node(g, "Relu_0", "Relu", {"x"}, {"r"});
  add_node(g, "Construct_1", "SequenceConstruct", {"r", "x"}, {"list"});
  auto* out = g->add_output();
  out->set_name("list");
  out->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(
      onnx::TensorProto::FLOAT);
  save(model, file);
}

void write_optional_input_model(const std::filesystem::path& file) {
  auto model = empty_model();
  model.mutable_opset_import(0)->set_version(15);
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {2, 3});
  auto* scale = g->add_input();
  scale->set_name("scale");
  auto* held = scale->mutable_type()->mutable_optional_type()->mutable_elem_type()->mutable_tensor_type();
  held->set_elem_type(onnx::TensorProto::FLOAT);
  held->mutable_shape()->add_dim()->set_dim_value(2), held->mutable_shape()->add_dim()->set_dim_value(3);
  add_node(g, "Has_0", "OptionalHasElement", {"scale"}, {"given"});
  auto* branch = add_node(g, "If_1", "If", {"given"}, {"scaled"});
  for (const char* name : {"then_branch", "else_branch"}) {
    auto* a = branch->add_attribute();
    a->set_name(name), a->set_type(onnx::AttributeProto::GRAPH);
    auto* body = a->mutable_g();
    body->set_name(name);
    const std::string out = std::string(name) + "_y";
    if (std::string(name) == "then_branch") {
      add_node(body, "Get_2", "OptionalGetElement", {"scale"}, {"scale_tensor"});
      add_node(body, "Mul_3", "Mul", {"x", "scale_tensor"}, {out});
    } else {
      add_node(body, "Identity_4", "Identity", {"x"}, {out});
    }
    set_dims(body->add_output(), out, {2, 3});
  }
  add_node(g, "Relu_5", "Relu", {"scaled"}, {"y"});
  set_dims(g->add_output(), "y", {2, 3});
  save(model, file);
}

void write_appending_loop_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "n", {});
  g->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  add_floats(g, "x", {2, 3}, {1, -2, 3, 0.5f, 4, -6});
  add_int_attribute(add_node(g, "Empty_0", "SequenceEmpty", {}, {"none"}), "dtype", onnx::TensorProto::FLOAT);
  add_int_attribute(add_node(g, "Empty_1", "SequenceEmpty", {}, {"none_too"}), "dtype", onnx::TensorProto::FLOAT);
  auto* loop = add_node(g, "Loop_2", "Loop", {"n", "", "none", "none_too"}, {"scaled", "shifted"});
  auto* body = add_body(loop);
  const auto sequence = [](onnx::ValueInfoProto* v, const std::string& name) {
    v->set_name(name);
    auto* element = v->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type();
    element->set_elem_type(onnx::TensorProto::FLOAT);
  };
  set_dims(body->add_input(), "i", {});
  body->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  set_dims(body->add_input(), "cond", {});
  body->mutable_input(1)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::BOOL);
  sequence(body->add_input(), "scaled_in");
  sequence(body->add_input(), "shifted_in");
  set_dims(body->add_output(), "cond_out", {});
  body->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::BOOL);
  sequence(body->add_output(), "scaled_out");
  sequence(body->add_output(), "shifted_out");
  add_int_attribute(add_node(body, "Cast_0", "Cast", {"i"}, {"i_float"}), "to", onnx::TensorProto::FLOAT);
  add_node(body, "Mul_1", "Mul", {"x", "i_float"}, {"x_times_i"});
  add_node(body, "Add_2", "Add", {"x", "i_float"}, {"x_plus_i"});
  // The second sequence's append first: rewriting it must not lose the other's place.
  add_node(body, "Insert_3", "SequenceInsert", {"shifted_in", "x_plus_i"}, {"shifted_out"});
  add_node(body, "Insert_4", "SequenceInsert", {"scaled_in", "x_times_i"}, {"scaled_out"});
  add_node(body, "Identity_5", "Identity", {"cond"}, {"cond_out"});
  add_int_attribute(add_node(g, "Cat_3", "ConcatFromSequence", {"scaled"}, {"cat"}), "axis", 0);
  auto* stack = add_node(g, "Stack_4", "ConcatFromSequence", {"shifted"}, {"stack"});
  add_int_attribute(stack, "axis", 1), add_int_attribute(stack, "new_axis", 1);
  set_dims(g->add_output(), "cat", {6, 3});
  set_dims(g->add_output(), "stack", {2, 3, 3});
  g->mutable_output(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("rows");
  g->mutable_output(1)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(1)->set_dim_param("n");
  save(model, file);
}

void write_empty_slice_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {4, 3});
  add_int64s(g, "starts", {1}, {10});
  add_int64s(g, "ends", {1}, {20});
  add_int64s(g, "axes", {1}, {0});
  set_dims(g->add_output(), "none", {0, 3});
  set_dims(g->add_output(), "y", {4, 3});
  add_node(g, "Slice_0", "Slice", {"x", "starts", "ends", "axes"}, {"none"});
  add_node(g, "Relu_1", "Relu", {"x"}, {"y"});
  save(model, file);
}

void write_empty_axes_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {3, 2, 2});
  set_dims(g->add_input(), "axes", {0});
  g->mutable_input(1)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  set_dims(g->add_output(), "sum", {1, 1, 1});
  set_dims(g->add_output(), "same", {3, 2, 2});
  add_node(g, "ReduceSum_0", "ReduceSum", {"x", "axes"}, {"sum"});
  add_int_attribute(add_node(g, "ReduceSum_1", "ReduceSum", {"x", "axes"}, {"same"}), "noop_with_empty_axes", 1);
  save(model, file);
}

void write_dynamic_quantized_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {4096, 256});
  // Weights spread over [-1, 1] and [-127, 127] by a fixed LCG.
  uint32_t state = 12345;
  const auto next = [&] { return (state = state * 1664525u + 1013904223u) >> 8; };
  std::vector<float> w(256 * 256);
  for (auto& v : w) v = static_cast<float>(next() % 20001) / 10000.0f - 1.0f;
  add_floats(g, "w", {256, 256}, w);
  auto* wq = g->add_initializer();
  wq->set_name("wq"), wq->set_data_type(onnx::TensorProto::INT8), wq->add_dims(256), wq->add_dims(64);
  for (int i = 0; i < 256 * 64; ++i) wq->add_int32_data(static_cast<int32_t>(next() % 255) - 127);
  set_dims(g->add_output(), "y", {4096, 64});
  add_node(g, "MatMul_0", "MatMul", {"x", "w"}, {"h"});
  add_node(g, "Quantize_1", "DynamicQuantizeLinear", {"h"}, {"q", "q_scale", "q_zero"});
  add_node(g, "MatMulInteger_2", "MatMulInteger", {"q", "wq", "q_zero"}, {"sums"});
  add_int_attribute(add_node(g, "Cast_3", "Cast", {"sums"}, {"y"}), "to", onnx::TensorProto::FLOAT);
  save(model, file);
}

void write_column_scan_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "xs", {2, 3});
  auto* zeros = g->add_initializer();
  zeros->set_name("zeros"), zeros->set_data_type(onnx::TensorProto::FLOAT), zeros->add_dims(2);
  zeros->add_float_data(0.0f), zeros->add_float_data(0.0f);
  set_dims(g->add_output(), "s", {2});
  set_dims(g->add_output(), "sums", {2, 3});
  auto* scan = add_node(g, "columns", "Scan", {"zeros", "xs"}, {"s", "sums"});
  add_int_attribute(scan, "num_scan_inputs", 1);
  add_ints_attribute(scan, "scan_input_axes", {1});
  add_ints_attribute(scan, "scan_input_directions", {1});
  add_ints_attribute(scan, "scan_output_axes", {1});
  auto* body = add_body(scan);
  set_dims(body->add_input(), "s_in", {2});
  set_dims(body->add_input(), "column", {2});
  add_node(body, "Add_0", "Add", {"s_in", "column"}, {"s_out"});
  add_node(body, "Identity_1", "Identity", {"s_out"}, {"sum"});
  set_dims(body->add_output(), "s_out", {2});
  set_dims(body->add_output(), "sum", {2});
  save(model, file);
}

void write_positive_positions_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {6});
  auto* zero = g->add_initializer();
  zero->set_name("zero"), zero->set_data_type(onnx::TensorProto::FLOAT), zero->add_dims(1), zero->add_float_data(0.0f);
  set_dims(g->add_output(), "y", {});
  set_dims(g->add_output(), "count", {2});
  g->mutable_output(1)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  add_node(g, "Greater_0", "Greater", {"x", "zero"}, {"positive"});
  add_node(g, "NonZero_1", "NonZero", {"positive"}, {"where"});
  add_int_attribute(add_node(g, "Cast_2", "Cast", {"where"}, {"where_f"}), "to", onnx::TensorProto::FLOAT);
  add_int_attribute(add_node(g, "ReduceSum_3", "ReduceSum", {"where_f"}, {"y"}), "keepdims", 0);
  add_node(g, "Shape_4", "Shape", {"where"}, {"count"});
  save(model, file);
}

void write_run_time_values_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {2, 6});
  add_floats(g, "zero", {1}, {0.0f});
  add_floats(g, "one_f", {1}, {1.0f});
  add_int64s(g, "zero_i", {}, {0});
  add_int64s(g, "one_i", {1}, {1});
  add_int64s(g, "two_i", {1}, {2});
  add_int64s(g, "three_i", {1}, {3});
  add_int64s(g, "step", {}, {1});
  add_node(g, "Greater_0", "Greater", {"x", "zero"}, {"positive"});
  add_node(g, "NonZero_1", "NonZero", {"positive"}, {"where"});
  add_node(g, "Transpose_2", "Transpose", {"where"}, {"at"});
  add_node(g, "GatherND_3", "GatherND", {"x", "at"}, {"v"});  // indices known as the model runs
  add_node(g, "Shape_4", "Shape", {"v"}, {"n"});
  add_node(g, "Min_5", "Min", {"n", "three_i"}, {"k"});
  add_node(g, "TopK_6", "TopK", {"v", "k"}, {"top", "top_at"});
  add_node(g, "Squeeze_7", "Squeeze", {"n"}, {"n_scalar"});
  add_node(g, "Range_8", "Range", {"zero_i", "n_scalar", "step"}, {"count"});
  auto* fill = add_node(g, "ConstantOfShape_9", "ConstantOfShape", {"n"}, {"ones"});
  auto* value = fill->add_attribute();
  value->set_name("value"), value->set_type(onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(onnx::TensorProto::FLOAT), value->mutable_t()->add_dims(1), value->mutable_t()->add_float_data(1.5f);
  add_node(g, "Expand_10", "Expand", {"one_f", "n"}, {"expanded"});
  add_node(g, "Slice_11", "Slice", {"v", "one_i", "k"}, {"sliced"});  // v[1:k]
  add_int_attribute(add_node(g, "Concat_12", "Concat", {"n", "one_i"}, {"column"}), "axis", 0);
  add_node(g, "Reshape_13", "Reshape", {"v", "column"}, {"v_column"});
  add_node(g, "Min_14", "Min", {"n", "two_i"}, {"twice"});
  add_int_attribute(add_node(g, "Concat_15", "Concat", {"one_i", "twice"}, {"repeats"}), "axis", 0);
  add_node(g, "Tile_16", "Tile", {"v_column", "repeats"}, {"tiled"});
  add_node(g, "Min_17", "Min", {"n", "one_i"}, {"first"});
  add_node(g, "Sub_18", "Sub", {"n", "first"}, {"rest"});
  add_int_attribute(add_node(g, "Concat_19", "Concat", {"first", "rest"}, {"sizes"}), "axis", 0);
  add_node(g, "Split_20", "Split", {"v", "sizes"}, {"head", "tail"});
  for (const std::string out : {"top", "count", "ones", "expanded", "sliced", "tiled", "head", "tail"}) {
    auto* type = g->add_output()->mutable_type()->mutable_tensor_type();
    g->mutable_output(g->output_size() - 1)->set_name(out);
    type->set_elem_type(out == "count" ? onnx::TensorProto::INT64 : onnx::TensorProto::FLOAT);
    for (int d = 0; d < (out == "tiled" ? 2 : 1); ++d) type->mutable_shape()->add_dim()->set_dim_param(out + std::to_string(d));
  }
  save(model, file);
}

void write_nms_model(const std::filesystem::path& file, bool constant_limit) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "boxes", {1, 256, 4});
  set_dims(g->add_input(), "scores", {1, 4, 256});
  if (constant_limit) {
    add_int64s(g, "limit", {1}, {8});
  } else {
    set_dims(g->add_input(), "limit", {1});
    g->mutable_input(2)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  }
  add_floats(g, "iou", {1}, {0.5f});
  add_node(g, "NonMaxSuppression_0", "NonMaxSuppression", {"boxes", "scores", "limit", "iou"}, {"selected"});
  auto* type = g->add_output()->mutable_type()->mutable_tensor_type();
  g->mutable_output(0)->set_name("selected");
  type->set_elem_type(onnx::TensorProto::INT64);
  type->mutable_shape()->add_dim()->set_dim_param("selected0");
  type->mutable_shape()->add_dim()->set_dim_value(3);
  save(model, file);
}

namespace {

// Inputs cond[1] (bool) and x[3], and an If "choose" on cond writing
// `out`: its then and else branches, empty.
std::pair<onnx::GraphProto*, onnx::GraphProto*> add_if_on_cond(onnx::GraphProto* g, const std::string& out) {
  set_dims(g->add_input(), "cond", {1});
  g->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::BOOL);
  set_dims(g->add_input(), "x", {3});
  auto* choose = add_node(g, "choose", "If", {"cond"}, {out});
  const auto branch = [&](const char* name) {
    auto* a = choose->add_attribute();
    a->set_name(name), a->set_type(onnx::AttributeProto::GRAPH);
    a->mutable_g()->set_name(std::string("choose_") + name);
    return a->mutable_g();
  };
  auto* then_branch = branch("then_branch");
  return {then_branch, branch("else_branch")};
}

}  // namespace

void write_run_time_if_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  const auto [then_branch, else_branch] = add_if_on_cond(g, "chosen");
  auto* w = g->add_initializer();
  w->set_name("w"), w->set_data_type(onnx::TensorProto::FLOAT), w->add_dims(3);
  for (const float v : {0.5f, -4.0f, 1.0f}) w->add_float_data(v);
  set_dims(g->add_output(), "y", {3});
  auto* two = then_branch->add_initializer();
  two->set_name("two"), two->set_data_type(onnx::TensorProto::FLOAT), two->add_dims(1), two->add_float_data(2.0f);
  add_node(then_branch, "Add_0", "Add", {"x", "w"}, {"sum"});
  add_node(then_branch, "Mul_1", "Mul", {"sum", "two"}, {"twice"});
  set_dims(then_branch->add_output(), "twice", {3});
  auto* ten = add_node(else_branch, "Constant_0", "Constant", {}, {"ten"})->add_attribute();
  ten->set_name("value"), ten->set_type(onnx::AttributeProto::TENSOR);
  ten->mutable_t()->set_data_type(onnx::TensorProto::FLOAT), ten->mutable_t()->add_dims(1), ten->mutable_t()->add_float_data(10.0f);
  add_node(else_branch, "Sub_1", "Sub", {"ten", "x"}, {"rest"});
  set_dims(else_branch->add_output(), "rest", {3});
  add_node(g, "Relu_1", "Relu", {"chosen"}, {"y"});
  save(model, file);
}

void write_nonzero_output_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {6});
  auto* zero = g->add_initializer();
  zero->set_name("zero"), zero->set_data_type(onnx::TensorProto::FLOAT), zero->add_dims(1), zero->add_float_data(0.0f);
  set_dims(g->add_output(), "where", {1});
  auto* type = g->mutable_output(0)->mutable_type()->mutable_tensor_type();
  type->set_elem_type(onnx::TensorProto::INT64);
  type->mutable_shape()->add_dim()->set_dim_param("k");
  add_node(g, "Greater_0", "Greater", {"x", "zero"}, {"positive"});
  add_node(g, "NonZero_1", "NonZero", {"positive"}, {"where"});
  save(model, file);
}

void write_branch_shapes_if_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  const auto [then_branch, else_branch] = add_if_on_cond(g, "y");
  set_dims(g->add_output(), "y", {});
  g->mutable_output(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_param("n");
  add_node(then_branch, "Add_0", "Add", {"x", "x"}, {"twice"});
  set_dims(then_branch->add_output(), "twice", {3});
  add_int_attribute(add_node(else_branch, "Concat_0", "Concat", {"x", "x"}, {"both"}), "axis", 0);
  set_dims(else_branch->add_output(), "both", {6});
  save(model, file);
}

void write_one_sided_clip_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {4});
  set_dims(g->add_output(), "y", {4});
  set_dims(g->add_output(), "z", {4});
  for (const auto& [name, value] : {std::pair{"half", 0.5f}, std::pair{"one", 1.0f},
                                    std::pair{"above", std::numeric_limits<float>::infinity()},
                                    std::pair{"below", -std::numeric_limits<float>::infinity()}}) {
    auto* t = g->add_initializer();
    t->set_name(name), t->set_data_type(onnx::TensorProto::FLOAT), t->add_float_data(value);
  }
  add_node(g, "Clip_0", "Clip", {"x", "half", "above"}, {"y"});
  add_node(g, "Clip_1", "Clip", {"x", "below", "one"}, {"z"});
  set_dims(g->add_output(), "p", {6});
  add_int64s(g, "pads", {2}, {1, 1});
  add_node(g, "Pad_2", "Pad", {"x", "pads", "below"}, {"p"});
  save(model, file);
}

void write_rate_if_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "sr", {});
  g->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  set_dims(g->add_input(), "x", {3});
  set_dims(g->add_output(), "y", {3});
  add_int64s(g, "rate", {}, {16000});
  add_node(g, "Equal_0", "Equal", {"sr", "rate"}, {"is_16k"});
  auto* by_rate = add_node(g, "by_rate", "If", {"is_16k"}, {"y"});
  for (const auto& [name, op] : {std::pair{"then_branch", "Add"}, std::pair{"else_branch", "Neg"}}) {
    auto* a = by_rate->add_attribute();
    a->set_name(name), a->set_type(onnx::AttributeProto::GRAPH);
    auto* body = a->mutable_g();
    body->set_name(std::string("by_rate_") + name);
    const std::string out = std::string(name) + "_y";
    add_node(body, std::string(op) + "_0", op, std::string(op) == "Add" ? std::vector<std::string>{"x", "x"}
                                                                         : std::vector<std::string>{"x"},
             {out});
    set_dims(body->add_output(), out, {3});
  }
  save(model, file);
}

namespace {

// The graph both forms share: x, its outputs, and the operands they read alike.
onnx::ModelProto newer_opset_frame(int opset, int model_opset) {
  auto model = empty_model();
  model.mutable_opset_import(0)->set_version(model_opset);
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {1, 4, 6, 5});
  set_dims(g->add_output(), "r1", {1, 4, 1, 1});
  set_dims(g->add_output(), "r2", {1, 4, 6, 5});
  set_dims(g->add_output(), "r3", {1, 4, 6});
  // The Split's parts sized along the split axis by a symbol, as exporters leave them: only the sizes it computes tell.
  for (const char* part : {"s0", "s1"}) {
    set_dims(g->add_output(), part, {1, 4, 6});
    g->mutable_output(g->output_size() - 1)->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_param("part");
  }
  set_dims(g->add_output(), "m", {1, 4, 6, 5});
  set_dims(g->add_output(), "z", {1, 4, 12, 10});
  set_dims(g->add_output(), "p", {1, 4, 7, 7});
  set_dims(g->add_output(), "n", {1, 4, 6, 5});
  set_dims(g->add_output(), "q", {1, 8, 6, 7});
  if (opset >= 19) set_dims(g->add_output(), "c", {1, 4, 6, 5});
  if (opset >= 20) set_dims(g->add_output(), "g", {1, 4, 6, 5}), set_dims(g->add_output(), "t", {1, 4, 6, 5});
  add_floats(g, "scales", {4}, {1, 1, 2, 2});
  add_int64s(g, "pads", {8}, {0, 0, 1, 0, 0, 0, 0, 2});
  add_floats(g, "fill", {}, {0.25f});
  add_node(g, "Relu_0", "Relu", {"x"}, {"relu"});
  return model;
}

const std::vector<float> kGroupScale = {0.5f, 2.0f}, kGroupBias = {0.1f, -0.3f};
const std::vector<float> kChannelScale = {0.5f, 2.0f, 1.5f, -1.0f}, kChannelBias = {0.1f, -0.3f, 0.2f, 0.0f};

}  // namespace

void write_newer_opset_model(const std::filesystem::path& file, int opset) {
  auto model = newer_opset_frame(opset, opset);
  model.set_ir_version(10);
  auto* g = model.mutable_graph();
  auto* axes = add_node(g, "Constant_axes", "Constant", {}, {"mean_axes"});
  auto* value = axes->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(onnx::TensorProto::INT64);
  value->mutable_t()->add_dims(2);
  value->mutable_t()->add_int64_data(2), value->mutable_t()->add_int64_data(3);
  add_node(g, "ReduceMean_1", "ReduceMean", {"x", "mean_axes"}, {"r1"});
  add_int_attribute(add_node(g, "ReduceMax_2", "ReduceMax", {"relu"}, {"r2"}), "noop_with_empty_axes", 1);
  add_int64s(g, "last_axis", {1}, {-1});
  add_int_attribute(add_node(g, "ReduceL2_3", "ReduceL2", {"x", "last_axis"}, {"r3"}), "keepdims", 0);
  auto* split = add_node(g, "Split_4", "Split", {"x"}, {"s0", "s1"});
  add_int_attribute(split, "axis", -1);
  add_int_attribute(split, "num_outputs", 2);
  add_node(g, "Mish_5", "Mish", {"x"}, {"m"});
  auto* resize = add_node(g, "Resize_6", "Resize", {"x", "", "scales"}, {"z"});
  add_string_attribute(resize, "mode", "nearest");
  add_int_attribute(resize, "antialias", 0);
  add_string_attribute(resize, "keep_aspect_ratio_policy", "stretch");
  add_node(g, "Pad_7", "Pad", {"x", "pads", "fill"}, {"p"});
  // Pads of the axes listed, one of them counted from the end.
  add_int64s(g, "listed_pads", {4}, {2, 1, 0, 3});
  add_int64s(g, "listed_axes", {2}, {-1, 1});
  add_string_attribute(add_node(g, "Pad_12", "Pad", {"x", "listed_pads", "", "listed_axes"}, {"q"}), "mode", "edge");
  const bool per_channel = opset >= 21;
  add_floats(g, "norm_scale", {per_channel ? 4 : 2}, per_channel ? kChannelScale : kGroupScale);
  add_floats(g, "norm_bias", {per_channel ? 4 : 2}, per_channel ? kChannelBias : kGroupBias);
  auto* norm = add_node(g, "GroupNormalization_8", "GroupNormalization", {"x", "norm_scale", "norm_bias"}, {"n"});
  add_int_attribute(norm, "num_groups", 2);
  add_float_attribute(norm, "epsilon", 1e-5f);
  if (opset >= 19) {
    auto* cast = add_node(g, "Cast_9", "Cast", {"x"}, {"c"});
    add_int_attribute(cast, "to", onnx::TensorProto::FLOAT);
    add_int_attribute(cast, "saturate", 1);
  }
  if (opset >= 20) {
    add_node(g, "Gelu_10", "Gelu", {"x"}, {"g"});
    add_string_attribute(add_node(g, "Gelu_11", "Gelu", {"x"}, {"t"}), "approximate", "tanh");
  }
  save(model, file);
}

void write_newer_opset_twin(const std::filesystem::path& file, int opset) {
  auto model = newer_opset_frame(opset, 17);
  auto* g = model.mutable_graph();
  add_ints_attribute(add_node(g, "ReduceMean_1", "ReduceMean", {"x"}, {"r1"}), "axes", {2, 3});
  add_node(g, "Identity_2", "Identity", {"relu"}, {"r2"});
  auto* l2 = add_node(g, "ReduceL2_3", "ReduceL2", {"x"}, {"r3"});
  add_ints_attribute(l2, "axes", {-1});
  add_int_attribute(l2, "keepdims", 0);
  add_int64s(g, "split_sizes", {2}, {3, 2});
  add_int_attribute(add_node(g, "Split_4", "Split", {"x", "split_sizes"}, {"s0", "s1"}), "axis", -1);
  add_floats(g, "one", {}, {1.0f});
  add_node(g, "Exp_5", "Exp", {"x"}, {"ex"});
  add_node(g, "Add_5", "Add", {"ex", "one"}, {"ex1"});
  add_node(g, "Log_5", "Log", {"ex1"}, {"softplus"});
  add_node(g, "Tanh_5", "Tanh", {"softplus"}, {"tsp"});
  add_node(g, "Mul_5", "Mul", {"x", "tsp"}, {"m"});
  add_string_attribute(add_node(g, "Resize_6", "Resize", {"x", "", "scales"}, {"z"}), "mode", "nearest");
  add_node(g, "Pad_7", "Pad", {"x", "pads", "fill"}, {"p"});
  add_int64s(g, "every_pad", {8}, {0, 1, 0, 2, 0, 3, 0, 0});
  add_string_attribute(add_node(g, "Pad_12", "Pad", {"x", "every_pad"}, {"q"}), "mode", "edge");
  // Group norm spelled out over x as [1, 2 groups, 60].
  add_int64s(g, "by_group", {3}, {1, 2, 60});
  add_int64s(g, "x_shape", {4}, {1, 4, 6, 5});
  add_floats(g, "eps", {}, {1e-5f});
  add_node(g, "Reshape_8", "Reshape", {"x", "by_group"}, {"xg"});
  add_ints_attribute(add_node(g, "ReduceMean_8", "ReduceMean", {"xg"}, {"mu"}), "axes", {2});
  add_node(g, "Sub_8", "Sub", {"xg", "mu"}, {"dev"});
  add_node(g, "Mul_8", "Mul", {"dev", "dev"}, {"sq"});
  add_ints_attribute(add_node(g, "ReduceMean_8b", "ReduceMean", {"sq"}, {"var"}), "axes", {2});
  add_node(g, "Add_8", "Add", {"var", "eps"}, {"var_eps"});
  add_node(g, "Sqrt_8", "Sqrt", {"var_eps"}, {"sd"});
  add_node(g, "Div_8", "Div", {"dev", "sd"}, {"normal"});
  if (opset >= 21) {
    add_floats(g, "channel_scale", {4, 1, 1}, kChannelScale);
    add_floats(g, "channel_bias", {4, 1, 1}, kChannelBias);
    add_node(g, "Reshape_8b", "Reshape", {"normal", "x_shape"}, {"back"});
    add_node(g, "Mul_8b", "Mul", {"back", "channel_scale"}, {"scaled"});
    add_node(g, "Add_8b", "Add", {"scaled", "channel_bias"}, {"n"});
  } else {
    add_floats(g, "group_scale", {1, 2, 1}, kGroupScale);
    add_floats(g, "group_bias", {1, 2, 1}, kGroupBias);
    add_node(g, "Mul_8b", "Mul", {"normal", "group_scale"}, {"scaled"});
    add_node(g, "Add_8b", "Add", {"scaled", "group_bias"}, {"shifted"});
    add_node(g, "Reshape_8b", "Reshape", {"shifted", "x_shape"}, {"n"});
  }
  if (opset >= 19) add_int_attribute(add_node(g, "Cast_9", "Cast", {"x"}, {"c"}), "to", onnx::TensorProto::FLOAT);
  if (opset >= 20) {
    add_floats(g, "half", {}, {0.5f});
    add_floats(g, "inv_sqrt2", {}, {0.70710678f});
    add_node(g, "Mul_10", "Mul", {"x", "half"}, {"half_x"});
    add_node(g, "Mul_10b", "Mul", {"x", "inv_sqrt2"}, {"scaled_x"});
    add_node(g, "Erf_10", "Erf", {"scaled_x"}, {"erf"});
    add_node(g, "Add_10", "Add", {"erf", "one"}, {"erf1"});
    add_node(g, "Mul_10c", "Mul", {"half_x", "erf1"}, {"g"});
    add_floats(g, "cubic", {}, {0.044715f});
    add_floats(g, "tanh_scale", {}, {0.7978845608f});
    add_node(g, "Mul_11", "Mul", {"x", "x"}, {"x2"});
    add_node(g, "Mul_11b", "Mul", {"x2", "x"}, {"x3"});
    add_node(g, "Mul_11c", "Mul", {"x3", "cubic"}, {"cx3"});
    add_node(g, "Add_11", "Add", {"x", "cx3"}, {"poly"});
    add_node(g, "Mul_11d", "Mul", {"poly", "tanh_scale"}, {"arg"});
    add_node(g, "Tanh_11", "Tanh", {"arg"}, {"th"});
    add_node(g, "Add_11b", "Add", {"th", "one"}, {"th1"});
    add_node(g, "Mul_11e", "Mul", {"half_x", "th1"}, {"t"});
  }
  save(model, file);
}

void write_function_model(const std::filesystem::path& file) {
  auto model = empty_model();
  model.mutable_opset_import(0)->set_version(17);
  auto* custom = model.add_opset_import();
  custom->set_domain("pkg.custom");
  custom->set_version(1);
  const auto function = [&](const std::string& name, const std::string& in, const std::string& out) {
    auto* fn = model.add_functions();
    fn->set_name(name), fn->set_domain("pkg.custom");
    fn->add_input(in), fn->add_output(out);
    auto* import = fn->add_opset_import();
    import->set_domain(""), import->set_version(17);
    import = fn->add_opset_import();
    import->set_domain("pkg.custom"), import->set_version(1);
    return fn;
  };
  auto* swish = function("Swish", "x", "y");
  swish->add_attribute("beta");
  auto* beta = swish->add_node();
  beta->set_op_type("Constant"), beta->add_output("b");
  auto* ref = beta->add_attribute();
  ref->set_name("value_float"), ref->set_type(onnx::AttributeProto::FLOAT), ref->set_ref_attr_name("beta");
  for (const auto& [op, in, out] : {std::tuple{"Mul", std::vector<std::string>{"x", "b"}, "bx"},
                                    std::tuple{"Sigmoid", std::vector<std::string>{"bx"}, "s"},
                                    std::tuple{"Mul", std::vector<std::string>{"x", "s"}, "y"}}) {
    auto* n = swish->add_node();
    n->set_op_type(op);
    for (const auto& i : in) n->add_input(i);
    n->add_output(out);
  }
  onnx::AttributeProto fallback;  // attribute_proto, field 11, which this ONNX's message lacks
  fallback.set_name("beta"), fallback.set_type(onnx::AttributeProto::FLOAT), fallback.set_f(1.0f);
  swish->GetReflection()->MutableUnknownFields(swish)->AddLengthDelimited(11, fallback.SerializeAsString());
  auto* outer = function("Outer", "z", "w");
  auto* call = outer->add_node();
  call->set_op_type("Swish"), call->set_domain("pkg.custom"), call->add_input("z"), call->add_output("sw");
  auto* relu = outer->add_node();
  relu->set_op_type("Relu"), relu->add_input("sw"), relu->add_output("w");
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {2, 3});
  set_dims(g->add_output(), "y1", {2, 3});
  set_dims(g->add_output(), "y2", {2, 3});
  auto* first = add_node(g, "swish_0", "Swish", {"x"}, {"y1"});
  first->set_domain("pkg.custom");
  add_float_attribute(first, "beta", 1.5f);
  add_node(g, "outer_1", "Outer", {"y1"}, {"y2"})->set_domain("pkg.custom");
  save(model, file);
}

void write_conv3d_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {1, 3, 4, 6, 6});
  set_dims(g->add_output(), "y", {1, 4, 4, 3, 3});
  add_weights(g, "W", {4, 3, 3, 3, 3});
  add_weights(g, "B", {4});
  auto* conv = add_node(g, "Conv_0", "Conv", {"x", "W", "B"}, {"c"});
  add_ints_attribute(conv, "pads", {1, 1, 1, 1, 1, 1});
  add_ints_attribute(conv, "strides", {1, 2, 2});
  add_node(g, "Relu_1", "Relu", {"c"}, {"y"});
  save(model, file);
}

void write_random_draws_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {4, 64});
  for (const char* out : {"y", "mask", "n", "u", "b", "m"}) set_dims(g->add_output(), out, {4, 64});
  g->mutable_output(1)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::BOOL);
  g->mutable_output(5)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(1)->set_dim_value(16);
  g->mutable_output(5)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT32);
  add_floats(g, "ratio", {}, {0.25f});
  auto* training = g->add_initializer();
  training->set_name("training"), training->set_data_type(onnx::TensorProto::BOOL), training->add_int32_data(1);
  add_int_attribute(add_node(g, "Dropout_0", "Dropout", {"x", "ratio", "training"}, {"y", "mask"}), "seed", 3);
  auto* normal = add_node(g, "RandomNormalLike_1", "RandomNormalLike", {"x"}, {"n"});
  add_float_attribute(normal, "mean", 1.0f), add_float_attribute(normal, "scale", 0.5f), add_float_attribute(normal, "seed", 5);
  auto* uniform = add_node(g, "RandomUniform_2", "RandomUniform", {}, {"u"});
  add_ints_attribute(uniform, "shape", {4, 64});
  add_float_attribute(uniform, "low", -2.0f), add_float_attribute(uniform, "high", 2.0f);
  add_node(g, "Sigmoid_3", "Sigmoid", {"x"}, {"p"});
  add_node(g, "Bernoulli_4", "Bernoulli", {"p"}, {"b"});
  add_int_attribute(add_node(g, "Multinomial_5", "Multinomial", {"x"}, {"m"}), "sample_size", 16);
  model.mutable_opset_import(0)->set_version(15);
  save(model, file);
}

void write_ceil_pool_model(const std::filesystem::path& file, bool declared_stale) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {1, 1, 4, 5});
  set_dims(g->add_output(), "y", declared_stale ? Dims{1, 1, 3, 2} : Dims{1, 1, 2, 2});
  set_dims(g->add_output(), "z", declared_stale ? Dims{1, 1, 4, 4} : Dims{1, 1, 4, 3});
  if (declared_stale) set_dims(g->add_value_info(), "y", {1, 1, 3, 2});
  auto* max = add_node(g, "MaxPool_0", "MaxPool", {"x"}, {"y"});
  add_ints_attribute(max, "kernel_shape", {1, 3});
  add_ints_attribute(max, "strides", {2, 2});
  add_ints_attribute(max, "dilations", {1, 2});
  add_ints_attribute(max, "pads", {0, 0, 0, 1});
  add_int_attribute(max, "ceil_mode", 1);
  auto* avg = add_node(g, "AveragePool_1", "AveragePool", {"x"}, {"z"});
  add_ints_attribute(avg, "kernel_shape", {1, 2});
  add_ints_attribute(avg, "strides", {1, 2});
  add_ints_attribute(avg, "pads", {0, 1, 0, 1});
  add_int_attribute(avg, "ceil_mode", 1);
  save(model, file);
}

void write_shapeless_output_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {2, 3});
  auto* y = g->add_output();
  y->set_name("y");
  y->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  add_node(g, "Relu_0", "Relu", {"x"}, {"y"});
  save(model, file);
}

void write_narrow_conv_chain_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {1, 2, 6, 5});
  set_dims(g->add_output(), "y", {1, 2, 1, 1});
  add_weights(g, "w1", {3, 2, 3, 2});
  add_weights(g, "w2", {2, 3, 3, 3});
  add_weights(g, "b2", {2});
  auto* first = add_node(g, "Conv_0", "Conv", {"x", "w1"}, {"c"});
  add_ints_attribute(first, "dilations", {1, 2});
  add_ints_attribute(first, "pads", {0, 1, 1, 1});
  auto* second = add_node(g, "Conv_1", "Conv", {"c", "w2", "b2"}, {"y"});
  add_string_attribute(second, "auto_pad", "VALID");
  add_ints_attribute(second, "dilations", {2, 2});
  save(model, file);
}

void write_opset10_resize_model(const std::filesystem::path& file, bool mixed) {
  auto model = empty_model();
  model.mutable_opset_import(0)->set_version(10);
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {1, 1, 3, 4});
  set_dims(g->add_input(), "w", {1, 1, 5, 7});
  set_dims(g->add_output(), "up", {1, 1, 6, 6});
  set_dims(g->add_output(), "down", {1, 1, 3, 3});
  set_dims(g->add_output(), "lin", {1, 1, 1, 6});
  add_floats(g, "grow", {4}, {1, 1, 2, 1.5f});
  add_floats(g, "shrink", {4}, {1, 1, 0.6f, 0.45f});
  add_floats(g, "half_and_more", {4}, {1, 1, 0.5f, 1.5f});
  add_node(g, "Resize_0", "Resize", {"x", "grow"}, {"up"});
  add_node(g, "Resize_1", "Resize", {"w", "shrink"}, {"down"});
  add_string_attribute(add_node(g, "Resize_2", "Resize", {"x", "half_and_more"}, {"lin"}), "mode", "linear");
  if (mixed) {
    set_dims(g->add_output(), "both", {1, 1, 3, 10});
    add_floats(g, "shrink_and_grow", {4}, {1, 1, 0.6f, 1.5f});
    add_node(g, "Resize_3", "Resize", {"w", "shrink_and_grow"}, {"both"});
  }
  save(model, file);
}

void write_align_corners_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {1, 1, 6, 2});
  set_dims(g->add_output(), "lin", {1, 1, 4, 3});
  set_dims(g->add_output(), "near", {1, 1, 4, 3});
  add_floats(g, "scales", {4}, {1, 1, 0.75f, 1.5f});
  for (const auto& [name, mode] : {std::pair<std::string, std::string>{"lin", "linear"}, {"near", "nearest"}}) {
    auto* resize = add_node(g, "Resize_" + name, "Resize", {"x", "", "scales"}, {name});
    add_string_attribute(resize, "mode", mode);
    add_string_attribute(resize, "coordinate_transformation_mode", "align_corners");
  }
  save(model, file);
}

void write_short_kernel_same_deconv_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {2, 2, 1, 1});
  set_dims(g->add_output(), "y", {2, 4, 1, 1});
  add_floats(g, "w", {2, 2, 2, 1}, std::vector<float>(8, 1.0f));
  auto* deconv = add_node(g, "ConvTranspose_0", "ConvTranspose", {"x", "w"}, {"y"});
  add_int_attribute(deconv, "group", 2);
  add_ints_attribute(deconv, "kernel_shape", {2, 1});
  add_ints_attribute(deconv, "strides", {1, 2});
  add_string_attribute(deconv, "auto_pad", "SAME_UPPER");
  save(model, file);
}

void write_div_mod_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {3});
  set_dims(g->add_output(), "y", {3});
  add_floats(g, "a", {}, {1.5f});
  add_floats(g, "b", {3}, {0.7f, 0.9f, 1.3f});
  add_node(g, "Div_0", "Div", {"x", "a"}, {"q"});
  add_int_attribute(add_node(g, "Mod_1", "Mod", {"q", "b"}, {"y"}), "fmod", 1);
  save(model, file);
}

void write_scalar_expand_model(const std::filesystem::path& file, bool each_an_output) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {1});
  set_dims(g->add_output(), "y", {});
  if (each_an_output)
    for (const char* name : {"s", "e", "t"}) set_dims(g->add_output(), name, {});
  add_int64s(g, "axes", {1}, {0});
  add_int64s(g, "no_dims", {0}, {});
  add_floats(g, "two", {}, {2});
  add_node(g, "Squeeze_0", "Squeeze", {"x", "axes"}, {"s"});
  add_node(g, "Expand_1", "Expand", {"s", "no_dims"}, {"e"});
  add_node(g, "Tile_2", "Tile", {"e", "no_dims"}, {"t"});
  add_node(g, "Mul_3", "Mul", {"t", "two"}, {"y"});
  save(model, file);
}

void write_oversized_pool_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {1, 1, 2, 2});
  auto* y = g->add_output();
  y->set_name("y");
  y->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  add_ints_attribute(add_node(g, "pool", "MaxPool", {"x"}, {"y"}), "kernel_shape", {4, 4});
  save(model, file);
}

namespace {

// A float16's bits for a float16 value held in a float (no rounding needed).
uint16_t half_bits(float value) {
  uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  if ((bits & 0x7fffffff) == 0) return sign;
  const auto exponent = static_cast<int>((bits >> 23) & 0xff) - 127 + 15;
  return static_cast<uint16_t>(sign | (exponent << 10) | ((bits >> 13) & 0x3ff));
}

// `t`'s values as `bytes`, moved to the end of `data` (a file beside the model).
void keep_external(onnx::TensorProto* t, const std::filesystem::path& data, const std::string& bytes) {
  const auto offset = std::filesystem::exists(data) ? std::filesystem::file_size(data) : 0;
  std::ofstream(data, std::ios::binary | std::ios::app) << bytes;
  t->set_data_location(onnx::TensorProto::EXTERNAL);
  const std::pair<const char*, std::string> entries[] = {
      {"location", data.filename().string()}, {"offset", std::to_string(offset)}, {"length", std::to_string(bytes.size())}};
  for (const auto& [key, value] : entries) {
    auto* e = t->add_external_data();
    e->set_key(key), e->set_value(value);
  }
}

}  // namespace

void write_external_half_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  const auto data = file.parent_path() / (file.stem().string() + ".data");
  std::filesystem::remove(data);
  set_dims(g->add_input(), "x", {1, 4});
  set_dims(g->add_output(), "y", {90, 100});
  auto* w = g->add_initializer();
  w->set_name("W");
  w->set_data_type(onnx::TensorProto::FLOAT16);
  w->add_dims(4), w->add_dims(9000);
  std::string halves;
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 9000; ++j) {
      const uint16_t h = half_bits(external_half_weight(k, j));
      halves.append(reinterpret_cast<const char*>(&h), sizeof h);
    }
  keep_external(w, data, halves);
  auto* shape = g->add_initializer();
  shape->set_name("shape");
  shape->set_data_type(onnx::TensorProto::INT64);
  shape->add_dims(2);
  const int64_t dims[] = {90, 100};
  keep_external(shape, data, std::string(reinterpret_cast<const char*>(dims), sizeof dims));
  auto* reversed = g->add_initializer();
  reversed->set_name("reversed");
  reversed->set_data_type(onnx::TensorProto::INT64);
  reversed->add_dims(9000);
  std::vector<int64_t> indices(9000);
  for (int64_t j = 0; j < 9000; ++j) indices[static_cast<size_t>(j)] = 8999 - j;
  keep_external(reversed, data, std::string(reinterpret_cast<const char*>(indices.data()), indices.size() * sizeof(int64_t)));
  set_dims(g->add_output(), "g", {1, 9000});
  add_int_attribute(add_node(g, "Cast_0", "Cast", {"x"}, {"xh"}), "to", onnx::TensorProto::FLOAT16);
  add_node(g, "MatMul_1", "MatMul", {"xh", "W"}, {"mh"});
  add_int_attribute(add_node(g, "Cast_2", "Cast", {"mh"}, {"m"}), "to", onnx::TensorProto::FLOAT);
  add_node(g, "Reshape_3", "Reshape", {"m", "shape"}, {"y"});
  add_int_attribute(add_node(g, "Gather_4", "Gather", {"m", "reversed"}, {"g"}), "axis", 1);
  save(model, file);
}

void write_conv_row_scale_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {1, 1, 3, 3});
  set_dims(g->add_output(), "y", {1, 2, 3, 3});
  add_floats(g, "w", {2, 1, 1, 1}, {1, 2});
  add_floats(g, "rows", {1, 1, 3, 1}, {1, 10, 100});
  add_node(g, "Conv_0", "Conv", {"x", "w"}, {"c"});
  add_node(g, "Mul_1", "Mul", {"c", "rows"}, {"y"});
  save(model, file);
}

void write_split_pads_model(const std::filesystem::path& file) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", {1, 2, 2, 3});
  set_dims(g->add_output(), "y", {1, 2, 3, 5});
  add_int64s(g, "pairs", {8}, {0, 0, 0, 0, 1, 0, 0, 2});
  add_floats(g, "scale", {2}, {3.0f, 5.0f});
  std::vector<std::string> parts;
  for (int i = 0; i < 8; ++i) parts.push_back("p" + std::to_string(i));
  add_ints_attribute(add_node(g, "Split_0", "Split", {"pairs"}, parts), "split", {1, 1, 1, 1, 1, 1, 1, 1});
  add_int_attribute(add_node(g, "Concat_1", "Concat", {"p0", "p2", "p4", "p6", "p1", "p3", "p5", "p7"}, {"pads"}), "axis", 0);
  add_node(g, "Split_2", "Split", {"scale"}, {"s0", "s1"});
  add_node(g, "Pad_3", "Pad", {"x", "pads"}, {"padded"});
  add_node(g, "Mul_4", "Mul", {"padded", "s0"}, {"y"});
  model.mutable_opset_import(0)->set_version(11);
  save(model, file);
}

}  // namespace aoe::test
