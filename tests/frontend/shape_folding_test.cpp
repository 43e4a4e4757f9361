// fold_shape_values: the integer ops exporters use for shape arithmetic, one by one.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

#include "frontend/shape_folding.h"

namespace aoe::host {
namespace {

using Ints = std::vector<int64_t>;

class ShapeFolding : public testing::Test {
 protected:
  ShapeFolding() {
    auto* x = graph_.add_input();
    x->set_name("x");
    auto* type = x->mutable_type()->mutable_tensor_type();
    type->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : {6, 4, 8}) type->mutable_shape()->add_dim()->set_dim_value(d);
    constant("two", {}, {2});
    node("Shape", {"x"}, "s");
  }

  void constant(const std::string& name, const Ints& dims, const Ints& values) {
    auto* t = graph_.add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    for (auto d : dims) t->add_dims(d);
    for (auto v : values) t->add_int64_data(v);
  }

  onnx::NodeProto* node(const std::string& op, const std::vector<std::string>& inputs, const std::string& output) {
    auto* n = graph_.add_node();
    n->set_op_type(op);
    for (const auto& in : inputs) n->add_input(in);
    n->add_output(output);
    return n;
  }

  static void int_attr(onnx::NodeProto* n, const std::string& name, int64_t value) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(value);
  }

  IntTensor folded(const std::string& name) {
    const auto values = fold_shape_values(graph_);
    const auto it = values.find(name);
    if (it == values.end()) throw std::runtime_error(name + " was not folded");
    return it->second;
  }

  onnx::GraphProto graph_;
};

TEST_F(ShapeFolding, ShapeOfAKnownTensor) {
  const auto s = folded("s");
  EXPECT_EQ(s.dims, Ints{3});
  EXPECT_EQ(s.values, (Ints{6, 4, 8}));
}

TEST_F(ShapeFolding, ShapeOfAnUnknownTensorIsNotFolded) {
  graph_.mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(1)->set_dim_param("n");
  EXPECT_EQ(fold_shape_values(graph_).count("s"), 0u);
}

TEST_F(ShapeFolding, ShapeWithStartAndEnd) {  // opset 15
  auto* n = node("Shape", {"x"}, "tail");
  int_attr(n, "start", -2);
  const auto tail = folded("tail");
  EXPECT_EQ(tail.values, (Ints{4, 8}));
}

TEST_F(ShapeFolding, GatherWithANegativeIndexGivesAScalar) {
  constant("last_index", {}, {-1});
  node("Gather", {"s", "last_index"}, "last");
  const auto last = folded("last");
  EXPECT_EQ(last.dims, Ints{});
  EXPECT_EQ(last.values, Ints{8});
}

TEST_F(ShapeFolding, UnsqueezeThenSqueeze) {
  constant("zero", {}, {0});
  constant("axes", {1}, {0});
  node("Gather", {"s", "zero"}, "first");
  node("Unsqueeze", {"first", "axes"}, "first_1d");
  node("Squeeze", {"first_1d", "axes"}, "first_again");
  EXPECT_EQ(folded("first_1d").dims, Ints{1});
  EXPECT_EQ(folded("first_again").dims, Ints{});
  EXPECT_EQ(folded("first_again").values, Ints{6});
}

TEST_F(ShapeFolding, SliceBackwardsReverses) {
  constant("starts", {1}, {-1});
  constant("ends", {1}, {INT64_MIN});
  constant("axes", {1}, {0});
  constant("steps", {1}, {-1});
  node("Slice", {"s", "starts", "ends", "axes", "steps"}, "reversed");
  EXPECT_EQ(folded("reversed").values, (Ints{8, 4, 6}));
}

TEST_F(ShapeFolding, SliceClampsItsBounds) {
  constant("starts", {1}, {1});
  constant("ends", {1}, {INT64_MAX});
  node("Slice", {"s", "starts", "ends"}, "rest");
  EXPECT_EQ(folded("rest").values, (Ints{4, 8}));
}

TEST_F(ShapeFolding, ArithmeticBroadcastsAScalar) {
  node("Mul", {"s", "two"}, "doubled");
  node("Div", {"s", "two"}, "halved");
  EXPECT_EQ(folded("doubled").values, (Ints{12, 8, 16}));
  EXPECT_EQ(folded("doubled").dims, Ints{3});
  EXPECT_EQ(folded("halved").values, (Ints{3, 2, 4}));
}

TEST_F(ShapeFolding, CastToInt32KeepsValues) {
  auto* n = node("Cast", {"s"}, "s32");
  int_attr(n, "to", onnx::TensorProto::INT32);
  auto* f = node("Cast", {"s"}, "s_float");
  int_attr(f, "to", onnx::TensorProto::FLOAT);
  EXPECT_EQ(folded("s32").elem_type, onnx::TensorProto::INT32);
  EXPECT_EQ(folded("s32").values, (Ints{6, 4, 8}));
  EXPECT_EQ(fold_shape_values(graph_).count("s_float"), 0u);
}

TEST_F(ShapeFolding, ConcatOfConstantNodeAndShape) {
  auto* c = node("Constant", {}, "heads");
  auto* value = c->add_attribute();
  value->set_name("value_ints");
  value->set_type(onnx::AttributeProto::INTS);
  value->add_ints(2);
  value->add_ints(4);
  auto* n = node("Concat", {"s", "heads"}, "target");
  int_attr(n, "axis", 0);
  EXPECT_EQ(folded("target").values, (Ints{6, 4, 8, 2, 4}));
  EXPECT_EQ(folded("target").dims, Ints{5});
}

TEST_F(ShapeFolding, InitializerRoundTrips) {
  const auto proto = to_initializer("s", folded("s"));
  EXPECT_EQ(proto.name(), "s");
  EXPECT_EQ(proto.data_type(), onnx::TensorProto::INT64);
  EXPECT_EQ(Ints(proto.dims().begin(), proto.dims().end()), Ints{3});
  EXPECT_EQ(Ints(proto.int64_data().begin(), proto.int64_data().end()), (Ints{6, 4, 8}));
}

}  // namespace
}  // namespace aoe::host
