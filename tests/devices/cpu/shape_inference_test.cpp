// The executor's shapes for what ONNX's inference left unknown: from the
// inputs' shapes (the windowed ops, the index ops, Gemm) and, for the ops
// sized by values, from the values computed before them.
#include "shape_inference.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "aoe/sdk/error.h"

namespace aoe::cpu {
namespace {

sdk::Node node(const std::string& op, size_t inputs, nlohmann::json attrs = nlohmann::json::object(), size_t outputs = 1) {
  sdk::Node n;
  n.name = op + "_0";
  n.op_type = op;
  n.attrs = std::move(attrs);
  for (size_t i = 0; i < inputs; ++i) n.inputs.push_back("in" + std::to_string(i));
  for (size_t i = 0; i < outputs; ++i) n.outputs.push_back("out" + std::to_string(i));
  return n;
}

std::vector<Shape> shapes(const sdk::Node& n, const std::vector<Shape>& in, const SlotValues& values = {}) {
  const auto out = infer_output_shapes(sdk::Graph{}, n, in, values);
  if (!out) throw std::runtime_error(n.op_type + ": no shapes");
  return *out;
}

TEST(RunTimeShapes, WindowedOpsFollowONNXsArithmetic) {
  // A mask head's 3x3 conv, its 2x2 transposed conv of stride 2, a pool with ceil_mode and SAME padding.
  EXPECT_EQ(shapes(node("Conv", 2, {{"pads", {1, 1, 1, 1}}}), {{7, 256, 14, 14}, {256, 256, 3, 3}})[0], (Shape{7, 256, 14, 14}));
  EXPECT_EQ(shapes(node("ConvTranspose", 2, {{"strides", {2, 2}}}), {{7, 256, 14, 14}, {256, 64, 2, 2}})[0], (Shape{7, 64, 28, 28}));
  EXPECT_EQ(shapes(node("Conv", 2, {{"strides", {2, 2}}, {"dilations", {2, 2}}}), {{1, 3, 17, 17}, {8, 3, 3, 3}})[0],
            (Shape{1, 8, 7, 7}));
  EXPECT_EQ(shapes(node("MaxPool", 1, {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"ceil_mode", 1}}, 2), {{1, 4, 8, 8}})[1],
            (Shape{1, 4, 4, 4}));
  EXPECT_EQ(shapes(node("AveragePool", 1, {{"kernel_shape", {3}}, {"strides", {2}}, {"auto_pad", "SAME_UPPER"}}), {{1, 4, 9}})[0],
            (Shape{1, 4, 5}));
  EXPECT_THROW(shapes(node("Conv", 2, {{"strides", {1}}}), {{1, 3, 8, 8}, {8, 3, 3, 3}}), sdk::Error);  // one stride for two axes
}

TEST(RunTimeShapes, IndexOpsAndGemm) {
  EXPECT_EQ(shapes(node("GatherND", 2), {{5, 6, 7}, {4, 2}})[0], (Shape{4, 7}));
  EXPECT_EQ(shapes(node("GatherND", 2, {{"batch_dims", 1}}), {{5, 6, 7}, {5, 3, 1}})[0], (Shape{5, 3, 7}));
  EXPECT_EQ(shapes(node("GatherElements", 2), {{5, 6}, {5, 2}})[0], (Shape{5, 2}));
  EXPECT_EQ(shapes(node("ScatterElements", 3), {{9, 4}, {3, 4}, {3, 4}})[0], (Shape{9, 4}));
  EXPECT_EQ(shapes(node("RoiAlign", 3, {{"output_height", 7}, {"output_width", 5}}), {{2, 16, 20, 20}, {11, 4}, {11}})[0],
            (Shape{11, 16, 7, 5}));
  EXPECT_EQ(shapes(node("Gemm", 2, {{"transB", 1}}), {{11, 12544}, {1024, 12544}})[0], (Shape{11, 1024}));
  EXPECT_EQ(shapes(node("Split", 1, {{"axis", 1}}, 3), {{2, 7}}), (std::vector<Shape>{{2, 3}, {2, 3}, {2, 1}}));
}

TEST(RunTimeShapes, OpsSizedByValuesWaitForThem) {
  const auto topk = node("TopK", 2, nlohmann::json::object(), 2);
  EXPECT_FALSE(infer_output_shapes(sdk::Graph{}, topk, {{9, 40}, {1}}, {}).has_value());  // K not known yet
  EXPECT_EQ(shapes(topk, {{9, 40}, {1}}, {{1, {17}}}), (std::vector<Shape>{{9, 17}, {9, 17}}));
  EXPECT_THROW(shapes(topk, {{9, 40}, {1}}, {{1, {41}}}), sdk::Error);
  EXPECT_EQ(shapes(node("Reshape", 2), {{4, 6}, {3}}, {{1, {0, -1, 3}}})[0], (Shape{4, 2, 3}));
  EXPECT_THROW(shapes(node("Reshape", 2), {{4, 6}, {2}}, {{1, {5, -1}}}), sdk::Error);
  EXPECT_EQ(shapes(node("Reshape", 2), {{0, 6}, {2}}, {{1, {0, -1}}})[0], (Shape{0, 0}));  // no detections
  EXPECT_THROW(shapes(node("Reshape", 2, {{"allowzero", 1}}), {{4, 6}, {2}}, {{1, {0, -1}}}), sdk::Error);
  EXPECT_EQ(shapes(node("Expand", 2), {{3, 1}, {3}}, {{1, {2, 1, 4}}})[0], (Shape{2, 3, 4}));
  EXPECT_EQ(shapes(node("Tile", 2), {{3, 2}, {2}}, {{1, {2, 0}}})[0], (Shape{6, 0}));
  EXPECT_EQ(shapes(node("ConstantOfShape", 1), {{2}}, {{0, {5, 0}}})[0], (Shape{5, 0}));
  EXPECT_EQ(shapes(node("Range", 3), {{}, {}, {}}, {{0, {10}}, {1, {1}}, {2, {-3}}})[0], (Shape{3}));
  EXPECT_EQ(shapes(node("Resize", 4), {{1, 1, 14, 14}, {0}, {0}, {4}}, {{3, {1, 1, 31, 20}}})[0], (Shape{1, 1, 31, 20}));
  // Keypoint R-CNN's upsampling of its heatmaps by constant scales (the frontend's attribute).
  EXPECT_EQ(shapes(node("Resize", 3, {{"scales", {1.0, 1.0, 2.0, 1.5}}}), {{7, 17, 28, 11}, {0}, {4}})[0], (Shape{7, 17, 56, 16}));
  EXPECT_EQ(shapes(node("Split", 2, nlohmann::json::object(), 2), {{7}, {2}}, {{1, {0, 7}}}), (std::vector<Shape>{{0}, {7}}));
  // Slice and Pad read the attributes with_value_attributes gives them.
  const auto slice = with_value_attributes(node("Slice", 5), {{1, {-1, 0}}, {2, {-100, 9}}, {3, {0, 1}}, {4, {-2, 4}}});
  EXPECT_EQ(shapes(slice, {{8, 30}, {2}, {2}, {2}, {2}})[0], (Shape{4, 3}));
  const auto pad = with_value_attributes(node("Pad", 2), {{1, {0, 1, 2, 3}}});
  EXPECT_EQ(shapes(pad, {{4, 5}, {4}})[0], (Shape{6, 9}));
}

// Values a model computes can be anything: a shape they give that overflows,
// has a negative dim or passes the most values a run-time tensor holds is
// refused naming the node, before anything is sized by it.
TEST(RunTimeShapes, ValuesGivingAnImpossibleShapeAreRefusedByName) {
  const auto refused = [](const sdk::Node& n, const std::vector<Shape>& in, const SlotValues& values) {
    try {
      shapes(n, in, values);
      return std::string("accepted");
    } catch (const sdk::Error& e) {
      return std::string(e.what());
    }
  };
  const int64_t big = int64_t{1} << 40;
  for (const auto& why : {refused(node("Reshape", 2), {{4, 6}, {3}}, {{1, {big, big, -1}}}),        // overflows
                          refused(node("Tile", 2), {{3, 2}, {2}}, {{1, {big, big}}}),               // overflows
                          refused(node("Tile", 2), {{3, 2}, {2}}, {{1, {-1, 2}}}),                  // negative
                          refused(node("Expand", 2), {{3, 1}, {2}}, {{1, {big, 1}}}),               // too many values
                          refused(node("ConstantOfShape", 1), {{2}}, {{0, {-4, 2}}}),               // negative
                          refused(node("ConstantOfShape", 1), {{2}}, {{0, {kMaxRunTimeValues, 2}}}),  // too many values
                          refused(node("Range", 3), {{}, {}, {}}, {{0, {INT64_MIN}}, {1, {INT64_MAX}}, {2, {1}}}),
                          refused(with_value_attributes(node("Pad", 2), {{1, {0, INT64_MAX, 0, 1}}}), {{4, 5}, {4}}, {}),
                          refused(node("Resize", 3, {{"scales", {1.0, 1.0, 1e300, 1.0}}}), {{1, 1, 4, 4}, {0}, {4}}, {}),
                          // A window's span, a transposed conv's output and its pads from the file's attributes.
                          refused(node("Conv", 2, {{"dilations", {INT64_MAX, 1}}}), {{1, 3, 8, 8}, {8, 3, 3, 3}}, {}),
                          refused(node("ConvTranspose", 2, {{"strides", {INT64_MAX, 1}}}), {{1, 3, 8, 8}, {3, 8, 3, 3}}, {}),
                          refused(node("ConvTranspose", 2, {{"pads", {9, 9, 0, 0}}}), {{1, 3, 2, 2}, {3, 8, 3, 3}}, {}),
                          refused(node("MaxPool", 1, {{"kernel_shape", {3}}, {"pads", {INT64_MAX, 1}}}), {{1, 3, 8}}, {}),
                          refused(node("MaxPool", 1, {{"kernel_shape", {0}}}), {{1, 3, 8}}, {})})
    EXPECT_NE(why.find("_0' ("), std::string::npos) << why;  // names the node
  // At the bound itself, a shape is taken.
  EXPECT_EQ(shapes(node("ConstantOfShape", 1), {{2}}, {{0, {kMaxRunTimeValues, 1}}})[0], (Shape{kMaxRunTimeValues, 1}));
}

TEST(RunTimeShapes, OnlyComputedIntegerInputsAreRunTimeValues) {
  sdk::Graph g;
  g.tensors["in0"] = sdk::TensorDesc{.name = "in0", .shape = {9, 40}};
  g.tensors["in1"] = sdk::TensorDesc{.name = "in1", .shape = {1}, .dtype = sdk::DType::i64};
  const auto topk = node("TopK", 2, nlohmann::json::object(), 2);
  EXPECT_EQ(run_time_value_slots(g, topk), (std::vector<size_t>{1}));
  g.tensors["in1"].constant = true;  // the frontend's to attribute, or lent with the weights
  EXPECT_TRUE(run_time_value_slots(g, topk).empty());
  EXPECT_EQ(value_input_slots(topk), (std::vector<size_t>{1}));
  g.tensors["in1"] = sdk::TensorDesc{.name = "in1", .shape = {1}, .dtype = sdk::DType::f32};
  EXPECT_TRUE(run_time_value_slots(g, topk).empty());  // a float's values are not whole numbers
  const auto gathered = node("GatherND", 2, {{"indices", {0, 1}}});
  EXPECT_TRUE(value_input_slots(gathered).empty());  // already an attribute
  EXPECT_TRUE(run_time_value_slots(g, node("Relu", 1)).empty());
}

}  // namespace
}  // namespace aoe::cpu
