#include "op_cases.h"

namespace aoe::cuda {
namespace {

using Dims = std::vector<int64_t>;
using nlohmann::json;

struct Tensor {
  Dims shape;
  sdk::DType dtype = sdk::DType::f32;
};

OpCase one_node(const std::string& name, const std::string& op, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
                json attrs = json::object()) {
  OpCase c;
  c.name = name;
  c.graph.name = name;
  c.graph.opset = 17;
  sdk::Node node;
  node.name = name;
  node.op_type = op;
  node.attrs = std::move(attrs);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string t = "x" + std::to_string(i);
    c.graph.tensors[t] = {t, inputs[i].shape, inputs[i].dtype};
    c.graph.inputs.push_back(t);
    node.inputs.push_back(t);
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string t = "y" + std::to_string(i);
    c.graph.tensors[t] = {t, outputs[i].shape, outputs[i].dtype};
    c.graph.outputs.push_back(t);
    node.outputs.push_back(t);
  }
  c.graph.nodes.push_back(node);
  return c;
}

Tensor f(Dims shape) { return {std::move(shape)}; }
Tensor i64(Dims shape) { return {std::move(shape), sdk::DType::i64}; }
Tensor boolean(Dims shape) { return {std::move(shape), sdk::DType::boolean}; }

}  // namespace

std::vector<OpCase> op_cases() {
  std::vector<OpCase> out;
  // Elementwise: broadcasts of every kind, each op once.
  out.push_back(one_node("add_broadcast_6d", "Add", {f({2, 1, 3, 1, 2, 5}), f({3, 4, 1, 5})}, {f({2, 1, 3, 4, 2, 5})}));
  out.push_back(one_node("sub_row", "Sub", {f({7, 33}), f({33})}, {f({7, 33})}));
  out.push_back(one_node("mul_column", "Mul", {f({7, 1}), f({7, 33})}, {f({7, 33})}));
  out.push_back(one_node("div_scalar", "Div", {f({3, 50}), f({})}, {f({3, 50})}));
  out.push_back(one_node("pow", "Pow", {f({40}), f({40})}, {f({40})}));
  out.push_back(one_node("max3", "Max", {f({2, 9}), f({9}), f({2, 1})}, {f({2, 9})}));
  out.push_back(one_node("min2", "Min", {f({2, 9}), f({2, 9})}, {f({2, 9})}));
  out.push_back(one_node("sum5", "Sum", {f({3, 4}), f({4}), f({3, 1}), f({1}), f({3, 4})}, {f({3, 4})}));
  out.push_back(one_node("mean3", "Mean", {f({3, 4}), f({4}), f({3, 4})}, {f({3, 4})}));
  out.push_back(one_node("where", "Where", {boolean({4, 1}), f({4, 6}), f({6})}, {f({4, 6})}));
  for (const char* op : {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"})
    out.push_back(one_node(std::string("compare_") + op, op, {f({5, 6}), f({6})}, {boolean({5, 6})}));
  for (const char* op : {"Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Reciprocal", "Neg", "Abs", "Floor", "Ceil", "Erf",
                         "HardSwish", "Softplus", "Softsign", "Sign", "Swish"})
    out.push_back(one_node(std::string("unary_") + op, op, {f({3, 37})}, {f({3, 37})}));
  out.push_back(one_node("gelu_erf", "Gelu", {f({2, 300})}, {f({2, 300})}));
  out.push_back(one_node("gelu_tanh", "Gelu", {f({2, 300})}, {f({2, 300})}, {{"approximate", "tanh"}}));
  out.push_back(one_node("leaky_relu", "LeakyRelu", {f({50})}, {f({50})}, {{"alpha", 0.3}}));
  out.push_back(one_node("hard_sigmoid", "HardSigmoid", {f({50})}, {f({50})}, {{"alpha", 0.25}, {"beta", 0.4}}));
  out.push_back(one_node("clip_attrs", "Clip", {f({50})}, {f({50})}, {{"min", -0.25}, {"max", 0.5}}));
  out.push_back(one_node("clip_min_only", "Clip", {f({50})}, {f({50})}, {{"min", 0.0}}));
  out.push_back(one_node("cast_to_int", "Cast", {f({40})}, {i64({40})}, {{"to", 7}}));
  out.push_back(one_node("cast_to_bool", "Cast", {f({40})}, {boolean({40})}, {{"to", 9}}));
  out.push_back(one_node("batch_norm", "BatchNormalization", {f({2, 3, 4, 5}), f({3}), f({3}), f({3}), f({3})}, {f({2, 3, 4, 5})},
                         {{"epsilon", 1e-3}}));
  out.push_back(one_node("expand", "Expand", {f({3, 1}), i64({3})}, {f({2, 3, 4})}, {{"shape", {2, 3, 4}}}));
  // Rows: softmax along the last and a middle axis, layer norm with and without its affine part.
  out.push_back(one_node("softmax_last", "Softmax", {f({3, 300})}, {f({3, 300})}));
  out.push_back(one_node("softmax_middle", "Softmax", {f({2, 5, 3})}, {f({2, 5, 3})}, {{"axis", 1}}));
  out.push_back(one_node("log_softmax", "LogSoftmax", {f({4, 17})}, {f({4, 17})}));
  out.push_back(one_node("layer_norm", "LayerNormalization", {f({3, 4, 70}), f({70}), f({70})}, {f({3, 4, 70})}, {{"epsilon", 1e-5}}));
  out.push_back(one_node("layer_norm_statistics", "LayerNormalization", {f({3, 4, 33}), f({33})}, {f({3, 4, 33}), f({3, 4, 1}), f({3, 4, 1})}));
  out.push_back(one_node("layer_norm_two_axes", "LayerNormalization", {f({3, 4, 10}), f({4, 10})}, {f({3, 4, 10})}, {{"axis", 1}}));
  // Moves.
  out.push_back(one_node("transpose_0213", "Transpose", {f({2, 3, 4, 5})}, {f({2, 4, 3, 5})}, {{"perm", {0, 2, 1, 3}}}));
  out.push_back(one_node("transpose_default", "Transpose", {f({3, 7})}, {f({7, 3})}));
  out.push_back(one_node("concat_axis1", "Concat", {f({2, 3, 4}), f({2, 1, 4}), f({2, 5, 4})}, {f({2, 9, 4})}, {{"axis", 1}}));
  out.push_back(one_node("concat_last", "Concat", {f({3, 2}), f({3, 5})}, {f({3, 7})}, {{"axis", -1}}));
  out.push_back(one_node("split_last", "Split", {f({2, 3, 10})}, {f({2, 3, 4}), f({2, 3, 6})}, {{"axis", 2}, {"split", {4, 6}}}));
  out.push_back(one_node("slice_steps", "Slice", {f({6, 10}), i64({2}), i64({2}), i64({2}), i64({2})}, {f({3, 3})},
                         {{"starts", {1, -1}}, {"ends", {100, 2}}, {"axes", {0, 1}}, {"steps", {2, -3}}}));
  out.push_back(one_node("slice_one_axis", "Slice", {f({4, 8, 3}), i64({1}), i64({1}), i64({1})}, {f({4, 3, 3})},
                         {{"starts", {2}}, {"ends", {5}}, {"axes", {1}}}));
  out.push_back(one_node("gather_indices_input", "Gather", {f({5, 4, 3}), i64({2, 3})}, {f({5, 2, 3, 3})}, {{"axis", 1}}));
  out.push_back(one_node("gather_constant_indices", "Gather", {f({6, 4}), i64({3})}, {f({3, 4})}, {{"indices", {0, -1, 2}}}));
  out.push_back(one_node("pad_constant", "Pad", {f({2, 3, 4}), i64({6})}, {f({3, 5, 5})}, {{"pads", {0, 1, 2, 1, 1, -1}}, {"value", 1.5}}));
  out.push_back(one_node("pad_edge", "Pad", {f({3, 4}), i64({4})}, {f({5, 7})}, {{"pads", {1, 2, 1, 1}}, {"mode", "edge"}}));
  out.push_back(one_node("pad_reflect", "Pad", {f({3, 4}), i64({4})}, {f({5, 7})}, {{"pads", {1, 2, 1, 1}}, {"mode", "reflect"}}));
  out.push_back(one_node("tile", "Tile", {f({2, 3}), i64({2})}, {f({4, 9})}, {{"repeats", {2, 3}}}));
  // Reductions and pools.
  out.push_back(one_node("reduce_mean_last", "ReduceMean", {f({3, 4, 50})}, {f({3, 4, 1})}, {{"axes", {-1}}}));
  out.push_back(one_node("reduce_sum_outer", "ReduceSum", {f({3, 4, 5})}, {f({4})}, {{"axes", {0, 2}}, {"keepdims", 0}}));
  out.push_back(one_node("reduce_max_all", "ReduceMax", {f({3, 4, 5})}, {f({1, 1, 1})}));
  out.push_back(one_node("reduce_l2", "ReduceL2", {f({3, 40})}, {f({3, 1})}, {{"axes", {1}}}));
  out.push_back(one_node("global_average_pool", "GlobalAveragePool", {f({2, 3, 5, 7})}, {f({2, 3, 1, 1})}));
  out.push_back(one_node("max_pool", "MaxPool", {f({1, 2, 7, 8})}, {f({1, 2, 4, 4})},
                         {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}));
  out.push_back(one_node("max_pool_ceil_dilated", "MaxPool", {f({1, 2, 9, 9})}, {f({1, 2, 3, 3})},
                         {{"kernel_shape", {2, 2}}, {"strides", {3, 3}}, {"dilations", {2, 2}}, {"ceil_mode", 1}}));
  out.push_back(one_node("average_pool_pad", "AveragePool", {f({2, 1, 6, 6})}, {f({2, 1, 3, 3})},
                         {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}));
  out.push_back(one_node("average_pool_count_pad_ceil", "AveragePool", {f({1, 2, 6, 7})}, {f({1, 2, 3, 4})},
                         {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 0, 0}}, {"count_include_pad", 1}, {"ceil_mode", 1}}));
  out.push_back(one_node("average_pool_1d", "AveragePool", {f({2, 3, 10})}, {f({2, 3, 4})}, {{"kernel_shape", {4}}, {"strides", {2}}}));
  // Convolutions.
  out.push_back(one_node("conv_bias_strided", "Conv", {f({2, 3, 7, 6}), f({4, 3, 3, 3}), f({4})}, {f({2, 4, 4, 3})},
                         {{"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}));
  out.push_back(one_node("conv_grouped_dilated", "Conv", {f({1, 4, 8, 8}), f({6, 2, 3, 3})}, {f({1, 6, 4, 4})},
                         {{"group", 2}, {"dilations", {2, 2}}}));
  out.push_back(one_node("conv_depthwise_same", "Conv", {f({1, 3, 5, 5}), f({3, 1, 3, 3}), f({3})}, {f({1, 3, 5, 5})},
                         {{"group", 3}, {"auto_pad", "SAME_UPPER"}}));
  out.push_back(one_node("conv_1d", "Conv", {f({2, 2, 9}), f({3, 2, 3})}, {f({2, 3, 7})}));
  out.push_back(one_node("conv_pointwise", "Conv", {f({1, 8, 3, 3}), f({5, 8, 1, 1})}, {f({1, 5, 3, 3})}));
  // Convolutions as implicit GEMMs: tiles of 16, 32 and 64 filters, edges masked.
  out.push_back(one_node("conv_gemm_16", "Conv", {f({2, 16, 6, 5}), f({20, 16, 3, 3}), f({20})}, {f({2, 20, 6, 5})},
                         {{"pads", {1, 1, 1, 1}}}));
  out.push_back(one_node("conv_gemm_32_grouped_strided", "Conv", {f({1, 8, 9, 9}), f({64, 4, 3, 3})}, {f({1, 64, 4, 4})},
                         {{"group", 2}, {"strides", {2, 2}}, {"dilations", {1, 1}}}));
  out.push_back(one_node("conv_gemm_64_dilated", "Conv", {f({1, 4, 12, 10}), f({70, 4, 3, 2}), f({70})}, {f({1, 70, 8, 8})},
                         {{"dilations", {2, 2}}, {"pads", {0, 0, 0, 0}}}));
  // Transposed convolutions: the input positions and taps that land on each output element.
  out.push_back(one_node("conv_transpose_strided_bias", "ConvTranspose", {f({1, 4, 3, 3}), f({4, 3, 2, 2}), f({3})}, {f({1, 3, 6, 6})},
                         {{"strides", {2, 2}}}));
  out.push_back(one_node("conv_transpose_grouped_output_padding", "ConvTranspose", {f({2, 4, 4, 4}), f({4, 3, 3, 3})},
                         {f({2, 6, 8, 8})}, {{"group", 2}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}, {"output_padding", {1, 1}}}));
  out.push_back(one_node("conv_transpose_1d_same_dilated", "ConvTranspose", {f({1, 2, 5}), f({2, 2, 3})}, {f({1, 2, 10})},
                         {{"strides", {2}}, {"dilations", {2}}, {"auto_pad", "SAME_UPPER"}}));
  // An output_shape past what the pads give: the output extends at the end.
  out.push_back(one_node("conv_transpose_output_shape", "ConvTranspose", {f({1, 1, 3, 3}), f({1, 2, 3, 3})}, {f({1, 2, 10, 8})},
                         {{"strides", {3, 3}}, {"output_shape", {10, 8}}}));
  // The rest of the elementwise ops.
  out.push_back(one_node("prelu_channel", "PRelu", {f({2, 3, 4}), f({3, 1})}, {f({2, 3, 4})}));
  for (const char* op : {"And", "Or", "Xor"})
    out.push_back(one_node(std::string("logic_") + op, op, {boolean({4, 5}), boolean({5})}, {boolean({4, 5})}));
  out.push_back(one_node("logic_Not", "Not", {boolean({20})}, {boolean({20})}));
  for (const char* op : {"Round", "Sin", "Cos"}) out.push_back(one_node(std::string("unary_") + op, op, {f({3, 37})}, {f({3, 37})}));
  out.push_back(one_node("elu", "Elu", {f({50})}, {f({50})}, {{"alpha", 0.7}}));
  out.push_back(one_node("selu", "Selu", {f({50})}, {f({50})}));
  out.push_back(one_node("clip_inputs", "Clip", {f({4, 10}), f({}), f({})}, {f({4, 10})}));
  out.push_back(one_node("where_constant_condition", "Where", {boolean({2, 3}), f({2, 3}), f({})}, {f({2, 3})},
                         {{"condition", {1, 0, 0, 1, 1, 0}}}));
  // Rows and reductions longer than a block.
  out.push_back(one_node("softmax_long_row", "Softmax", {f({2, 1000})}, {f({2, 1000})}));
  out.push_back(one_node("layer_norm_long_row", "LayerNormalization", {f({2, 700}), f({700}), f({700})}, {f({2, 700})}));
  out.push_back(one_node("reduce_mean_long", "ReduceMean", {f({2, 30, 40})}, {f({2})}, {{"axes", {1, 2}}, {"keepdims", 0}}));
  for (const char* op : {"ReduceMin", "ReduceSumSquare", "ReduceL1"})
    out.push_back(one_node(std::string("reduce_") + op, op, {f({3, 4, 5})}, {f({3, 1, 5})}, {{"axes", {1}}}));
  out.push_back(one_node("global_max_pool", "GlobalMaxPool", {f({2, 3, 5, 7})}, {f({2, 3, 1, 1})}));
  out.push_back(one_node("split_equal", "Split", {f({6, 4})}, {f({2, 4}), f({2, 4}), f({2, 4})}));
  out.push_back(one_node("gather_last_axis", "Gather", {f({3, 7}), i64({4})}, {f({3, 4})}, {{"axis", -1}}));
  // Resize: nearest and linear, the common coordinate modes.
  out.push_back(one_node("resize_nearest_up", "Resize", {f({1, 2, 3, 4})}, {f({1, 2, 6, 8})},
                         {{"mode", "nearest"}, {"scales", {1.0, 1.0, 2.0, 2.0}}}));
  out.push_back(one_node("resize_nearest_asymmetric_floor", "Resize", {f({1, 1, 5, 5})}, {f({1, 1, 3, 3})},
                         {{"mode", "nearest"}, {"coordinate_transformation_mode", "asymmetric"}, {"nearest_mode", "floor"}}));
  out.push_back(one_node("resize_linear_half_pixel", "Resize", {f({1, 2, 4, 5})}, {f({1, 2, 8, 7})}, {{"mode", "linear"}}));
  out.push_back(one_node("resize_linear_align_corners", "Resize", {f({2, 3, 3})}, {f({2, 5, 7})},
                         {{"mode", "linear"}, {"coordinate_transformation_mode", "align_corners"}}));
  out.push_back(one_node("resize_linear_pytorch", "Resize", {f({1, 1, 6, 6})}, {f({1, 1, 3, 4})},
                         {{"mode", "linear"}, {"coordinate_transformation_mode", "pytorch_half_pixel"}}));
  // Big enough for several blocks of 4 items.
  out.push_back(one_node("add_many_blocks", "Add", {f({64, 80}), f({80})}, {f({64, 80})}));
  return out;
}

}  // namespace aoe::cuda
