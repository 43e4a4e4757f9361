// fold_known_values: the integer ops exporters use for shape arithmetic, one by one.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

#include "frontend/constant_folding.h"

namespace aoe::host {
namespace {

using Ints = std::vector<int64_t>;
using Reals = std::vector<double>;

class ConstantFolding : public testing::Test {
 protected:
  ConstantFolding() {
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

  void reals(const std::string& name, const Ints& dims, const Reals& values) {
    auto* t = graph_.add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (auto d : dims) t->add_dims(d);
    for (auto v : values) t->add_float_data(static_cast<float>(v));
  }

  static void ints_attr(onnx::NodeProto* n, const std::string& name, const Ints& values) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (auto v : values) a->add_ints(v);
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

  KnownTensor folded(const std::string& name) {
    const auto values = fold_known_values(graph_);
    const auto it = values.find(name);
    if (it == values.end()) throw std::runtime_error(name + " was not folded");
    return it->second;
  }

  onnx::GraphProto graph_;
};

TEST_F(ConstantFolding, ShapeOfAKnownTensor) {
  const auto s = folded("s");
  EXPECT_EQ(s.dims, Ints{3});
  EXPECT_EQ(s.ints, (Ints{6, 4, 8}));
}

TEST_F(ConstantFolding, ShapeOfAnUnknownTensorIsNotFolded) {
  graph_.mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(1)->set_dim_param("n");
  EXPECT_EQ(fold_known_values(graph_).count("s"), 0u);
}

TEST_F(ConstantFolding, ShapeWithStartAndEnd) {  // opset 15
  auto* n = node("Shape", {"x"}, "tail");
  int_attr(n, "start", -2);
  const auto tail = folded("tail");
  EXPECT_EQ(tail.ints, (Ints{4, 8}));
}

TEST_F(ConstantFolding, GatherWithANegativeIndexGivesAScalar) {
  constant("last_index", {}, {-1});
  node("Gather", {"s", "last_index"}, "last");
  const auto last = folded("last");
  EXPECT_EQ(last.dims, Ints{});
  EXPECT_EQ(last.ints, Ints{8});
}

TEST_F(ConstantFolding, UnsqueezeThenSqueeze) {
  constant("zero", {}, {0});
  constant("axes", {1}, {0});
  node("Gather", {"s", "zero"}, "first");
  node("Unsqueeze", {"first", "axes"}, "first_1d");
  node("Squeeze", {"first_1d", "axes"}, "first_again");
  EXPECT_EQ(folded("first_1d").dims, Ints{1});
  EXPECT_EQ(folded("first_again").dims, Ints{});
  EXPECT_EQ(folded("first_again").ints, Ints{6});
}

TEST_F(ConstantFolding, SliceBackwardsReverses) {
  constant("starts", {1}, {-1});
  constant("ends", {1}, {INT64_MIN});
  constant("axes", {1}, {0});
  constant("steps", {1}, {-1});
  node("Slice", {"s", "starts", "ends", "axes", "steps"}, "reversed");
  EXPECT_EQ(folded("reversed").ints, (Ints{8, 4, 6}));
}

TEST_F(ConstantFolding, SliceClampsItsBounds) {
  constant("starts", {1}, {1});
  constant("ends", {1}, {INT64_MAX});
  node("Slice", {"s", "starts", "ends"}, "rest");
  EXPECT_EQ(folded("rest").ints, (Ints{4, 8}));
}

TEST_F(ConstantFolding, ArithmeticBroadcastsAScalar) {
  node("Mul", {"s", "two"}, "doubled");
  node("Div", {"s", "two"}, "halved");
  EXPECT_EQ(folded("doubled").ints, (Ints{12, 8, 16}));
  EXPECT_EQ(folded("doubled").dims, Ints{3});
  EXPECT_EQ(folded("halved").ints, (Ints{3, 2, 4}));
}

// A window's padding as Swin exports it: (w - W % w) % w. Mod takes the
// divisor's sign (Python's %); with fmod the dividend's (C's), and floats only so.
TEST_F(ConstantFolding, ModTakesTheDivisorsSignAndFmodTheDividends) {
  constant("seven", {}, {7});
  node("Mod", {"s", "seven"}, "rem");  // 6, 4, 8 mod 7
  EXPECT_EQ(folded("rem").ints, (Ints{6, 4, 1}));
  constant("signs", {4}, {-7, 7, -7, 7});
  constant("three_ways", {4}, {3, -3, -3, 3});
  node("Mod", {"signs", "three_ways"}, "python");
  EXPECT_EQ(folded("python").ints, (Ints{2, -2, -1, 1}));
  int_attr(node("Mod", {"signs", "three_ways"}, "c"), "fmod", 1);
  EXPECT_EQ(folded("c").ints, (Ints{-1, 1, -1, 1}));
  reals("r", {}, {-7.5});
  reals("d", {}, {2});
  int_attr(node("Mod", {"r", "d"}, "real"), "fmod", 1);
  EXPECT_EQ(folded("real").reals, (Reals{-1.5}));
  node("Mod", {"r", "d"}, "no_fmod");  // invalid for floats: left to the device
  EXPECT_EQ(fold_known_values(graph_).count("no_fmod"), 0u);
  constant("zero", {}, {0});
  node("Mod", {"seven", "zero"}, "by_zero");
  EXPECT_EQ(fold_known_values(graph_).count("by_zero"), 0u);
}

// torchvision's detectors pad a batch to the largest of its images' sizes: a ReduceMax of constants.
TEST_F(ConstantFolding, ReductionsOverGivenAxesOrAll) {
  constant("sizes", {2, 3}, {3, 320, 240, 3, 200, 480});
  int_attr(node("ReduceMax", {"sizes"}, "largest"), "keepdims", 0);  // every axis
  EXPECT_EQ(folded("largest").ints, (Ints{480}));
  EXPECT_TRUE(folded("largest").dims.empty());
  ints_attr(node("ReduceMax", {"sizes"}, "per_axis"), "axes", {0});
  EXPECT_EQ(folded("per_axis").ints, (Ints{3, 320, 480}));
  EXPECT_EQ(folded("per_axis").dims, (Ints{1, 3}));
  ints_attr(node("ReduceMin", {"sizes"}, "row_min"), "axes", {-1});
  EXPECT_EQ(folded("row_min").ints, (Ints{3, 3}));
  constant("last", {1}, {1});
  int_attr(node("ReduceSum", {"sizes", "last"}, "row_sum"), "keepdims", 0);  // opset 13: axes an input
  EXPECT_EQ(folded("row_sum").ints, (Ints{563, 683}));
  EXPECT_EQ(folded("row_sum").dims, (Ints{2}));
  node("ReduceProd", {"s"}, "elements");  // 6 * 4 * 8
  EXPECT_EQ(folded("elements").ints, (Ints{192}));
  reals("r", {2, 2}, {1, 2, 3, 5});
  ints_attr(node("ReduceMean", {"r"}, "mean"), "axes", {1});
  EXPECT_EQ(folded("mean").reals, (Reals{1.5, 4}));
  int_attr(node("ReduceSum", {"sizes"}, "noop"), "noop_with_empty_axes", 1);
  EXPECT_EQ(folded("noop").ints, (Ints{3, 320, 240, 3, 200, 480}));
  node("ReduceSum", {"sizes", "x_axes"}, "unknown_axes");  // axes known only as the model runs
  EXPECT_EQ(fold_known_values(graph_).count("unknown_axes"), 0u);
  ints_attr(node("ReduceMax", {"sizes"}, "bad_axis"), "axes", {2});
  EXPECT_EQ(fold_known_values(graph_).count("bad_axis"), 0u);
}

TEST_F(ConstantFolding, CastsBetweenIntegersAndFloats) {
  auto* n = node("Cast", {"s"}, "s32");
  int_attr(n, "to", onnx::TensorProto::INT32);
  auto* f = node("Cast", {"s"}, "s_float");
  int_attr(f, "to", onnx::TensorProto::FLOAT);
  auto* back = node("Cast", {"halves"}, "truncated");
  int_attr(back, "to", onnx::TensorProto::INT64);
  reals("halves", {3}, {2.5, -2.5, 7.9});
  EXPECT_EQ(folded("s32").elem_type, onnx::TensorProto::INT32);
  EXPECT_EQ(folded("s32").ints, (Ints{6, 4, 8}));
  EXPECT_EQ(folded("s_float").elem_type, onnx::TensorProto::FLOAT);
  EXPECT_EQ(folded("s_float").reals, (Reals{6, 4, 8}));
  EXPECT_EQ(folded("truncated").ints, (Ints{2, -2, 7}));  // toward zero, as ONNX Runtime casts
}

TEST_F(ConstantFolding, ConcatOfConstantNodeAndShape) {
  auto* c = node("Constant", {}, "heads");
  auto* value = c->add_attribute();
  value->set_name("value_ints");
  value->set_type(onnx::AttributeProto::INTS);
  value->add_ints(2);
  value->add_ints(4);
  auto* n = node("Concat", {"s", "heads"}, "target");
  int_attr(n, "axis", 0);
  EXPECT_EQ(folded("target").ints, (Ints{6, 4, 8, 2, 4}));
  EXPECT_EQ(folded("target").dims, Ints{5});
}

TEST_F(ConstantFolding, InitializerRoundTrips) {
  const auto proto = to_initializer("s", folded("s"));
  EXPECT_EQ(proto.name(), "s");
  EXPECT_EQ(proto.data_type(), onnx::TensorProto::INT64);
  EXPECT_EQ(Ints(proto.dims().begin(), proto.dims().end()), Ints{3});
  EXPECT_EQ(Ints(proto.int64_data().begin(), proto.int64_data().end()), (Ints{6, 4, 8}));
}

// PyTorch's exports compute a Reshape target from the input's own shape.
TEST_F(ConstantFolding, ReshapeTargetFromShapeArithmetic) {
  constant("zero", {1}, {0});
  constant("minus_one", {1}, {-1});
  node("Gather", {"s", "zero"}, "batch");  // [6]
  int_attr(node("Concat", {"batch", "minus_one"}, "target"), "axis", 0);
  EXPECT_EQ(folded("target").ints, (Ints{6, -1}));
}

TEST_F(ConstantFolding, ReshapeOfAConstantKeepsItsValues) {
  reals("w", {2, 3}, {1, 2, 3, 4, 5, 6});
  constant("to", {2}, {3, -1});
  node("Reshape", {"w", "to"}, "w3");
  const auto w3 = folded("w3");
  EXPECT_EQ(w3.dims, (Ints{3, 2}));
  EXPECT_EQ(w3.reals, (Reals{1, 2, 3, 4, 5, 6}));
}

TEST_F(ConstantFolding, RangeConstantOfShapeAndExpand) {
  constant("start", {}, {0});
  constant("limit", {}, {5});
  constant("delta", {}, {2});
  node("Range", {"start", "limit", "delta"}, "r");
  EXPECT_EQ(folded("r").ints, (Ints{0, 2, 4}));
  constant("dims", {2}, {2, 3});
  node("ConstantOfShape", {"dims"}, "zeros");
  EXPECT_EQ(folded("zeros").dims, (Ints{2, 3}));
  EXPECT_EQ(folded("zeros").reals, Reals(6, 0.0));
  reals("row", {3}, {1, 2, 3});
  node("Expand", {"row", "dims"}, "rows");
  EXPECT_EQ(folded("rows").reals, (Reals{1, 2, 3, 1, 2, 3}));
}

TEST_F(ConstantFolding, TransposeGatherAndSliceOnAMatrix) {
  reals("m", {2, 3}, {1, 2, 3, 4, 5, 6});
  node("Transpose", {"m"}, "mt");
  EXPECT_EQ(folded("mt").reals, (Reals{1, 4, 2, 5, 3, 6}));
  constant("cols", {2}, {2, 0});
  int_attr(node("Gather", {"m", "cols"}, "picked"), "axis", 1);
  EXPECT_EQ(folded("picked").dims, (Ints{2, 2}));
  EXPECT_EQ(folded("picked").reals, (Reals{3, 1, 6, 4}));
  constant("from", {2}, {1, 0});
  constant("to", {2}, {2, 3});
  constant("every", {2}, {1, 2});
  node("Slice", {"m", "from", "to", "", "every"}, "part");  // no axes: the first two
  EXPECT_EQ(folded("part").dims, (Ints{1, 2}));
  EXPECT_EQ(folded("part").reals, (Reals{4, 6}));
}

TEST_F(ConstantFolding, ComparisonsAndWhereOnBroadcastValues) {
  reals("a", {3}, {1, 5, 3});
  reals("b", {}, {3});
  node("Less", {"a", "b"}, "lt");
  EXPECT_EQ(folded("lt").elem_type, onnx::TensorProto::BOOL);
  EXPECT_EQ(folded("lt").ints, (Ints{1, 0, 0}));
  node("Where", {"lt", "a", "b"}, "low");
  EXPECT_EQ(folded("low").reals, (Reals{1, 3, 3}));
}

// Range's expansion clamps its trip count at 0 with a Relu.
TEST_F(ConstantFolding, ReluClampsAtZero) {
  reals("counts", {3}, {-2.0, 0.0, 3.0});
  constant("steps", {2}, {-4, 5});
  node("Relu", {"counts"}, "clamped");
  node("Relu", {"steps"}, "clamped_steps");
  EXPECT_EQ(folded("clamped").reals, (Reals{0, 0, 3}));
  EXPECT_EQ(folded("clamped_steps").ints, (Ints{0, 5}));
}

TEST_F(ConstantFolding, FloatArithmeticRoundsToSinglePrecision) {
  reals("third", {}, {1.0 / 3.0});
  reals("three", {}, {3});
  node("Mul", {"third", "three"}, "one");
  EXPECT_EQ(folded("one").reals, Reals{static_cast<double>(static_cast<float>(1.0 / 3.0) * 3.0f)});
}

TEST_F(ConstantFolding, IntegerOverflowIsNotFolded) {
  constant("big", {}, {int64_t{1} << 62});
  node("Mul", {"big", "big"}, "overflow");
  EXPECT_EQ(fold_known_values(graph_).count("overflow"), 0u);
}

TEST_F(ConstantFolding, ATensorOverTheLimitIsNotFolded) {
  constant("many", {1}, {2000});
  node("ConstantOfShape", {"many"}, "big");
  EXPECT_EQ(fold_known_values(graph_).count("big"), 0u);
  EXPECT_EQ(fold_known_values(graph_, 4096).count("big"), 1u);
}

TEST_F(ConstantFolding, ConstantNodesOfEveryForm) {
  auto* f = node("Constant", {}, "eps");
  auto* a = f->add_attribute();
  a->set_name("value_float"), a->set_type(onnx::AttributeProto::FLOAT), a->set_f(0.5f);
  EXPECT_EQ(folded("eps").reals, Reals{0.5});
  ints_attr(node("Constant", {}, "axes"), "value_ints", {0, 2});
  EXPECT_EQ(folded("axes").ints, (Ints{0, 2}));
}

}  // namespace
}  // namespace aoe::host
