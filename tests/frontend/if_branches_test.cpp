// lift_branch_constants and the branches an If carries to the devices: a
// model whose If's condition is fed, loaded through the ONNX frontend.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "frontend/onnx_frontend.h"
#include "graph_queries.h"
#include "value_types.h"

namespace aoe::host {
namespace {

using test::node_named;
using test::op_types;
using test::set_dims;
using T = onnx::TensorProto;
namespace fs = std::filesystem;

onnx::NodeProto* add_node(onnx::GraphProto* graph, const std::string& op, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs) {
  auto* n = graph->add_node();
  n->set_op_type(op);
  n->set_name(op + "_" + std::to_string(graph->node_size() - 1));
  for (const auto& in : inputs) n->add_input(in);
  for (const auto& out : outputs) n->add_output(out);
  return n;
}

void add_floats(onnx::GraphProto* graph, const std::string& name, const std::vector<float>& values) {
  auto* t = graph->add_initializer();
  t->set_name(name), t->set_data_type(T::FLOAT), t->add_dims(static_cast<int64_t>(values.size()));
  for (const float v : values) t->add_float_data(v);
}

onnx::GraphProto* add_branch(onnx::NodeProto* node, const std::string& name) {
  auto* a = node->add_attribute();
  a->set_name(name), a->set_type(onnx::AttributeProto::GRAPH);
  a->mutable_g()->set_name(name);
  return a->mutable_g();
}

// y = cond ? (x + w) * k : k2 - Shape-folded reshape of x, where the then
// branch's initializer `k` shares its name with the model's own `k`, and
// the else branch holds a Constant and shape arithmetic on the outer x.
onnx::ModelProto fed_if_model() {
  onnx::ModelProto model;
  model.set_ir_version(onnx::IR_VERSION);
  auto* import = model.add_opset_import();
  import->set_domain(""), import->set_version(13);
  auto* g = model.mutable_graph();
  g->set_name("fed_if");
  set_dims(g->add_input(), "cond", T::BOOL, {"1"});
  set_dims(g->add_input(), "x", T::FLOAT, {"3"});
  add_floats(g, "w", {1, 2, 3});
  add_floats(g, "k", {7});
  add_node(g, "Mul", {"x", "k"}, {"x_k"});
  set_dims(g->add_output(), "x_k", T::FLOAT, {"3"});
  set_dims(g->add_output(), "y", T::FLOAT, {"3"});
  auto* if_node = add_node(g, "If", {"cond"}, {"y"});
  auto* then_branch = add_branch(if_node, "then_branch");
  add_floats(then_branch, "k", {2});
  add_node(then_branch, "Add", {"x", "w"}, {"sum"});
  add_node(then_branch, "Mul", {"sum", "k"}, {"twice"});
  set_dims(then_branch->add_output(), "twice", T::FLOAT, {"3"});
  auto* else_branch = add_branch(if_node, "else_branch");
  auto* value = add_node(else_branch, "Constant", {}, {"ten"})->add_attribute();
  value->set_name("value"), value->set_type(onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(T::FLOAT), value->mutable_t()->add_dims(1), value->mutable_t()->add_float_data(10);
  add_node(else_branch, "Shape", {"x"}, {"x_shape"});
  add_node(else_branch, "Reshape", {"x", "x_shape"}, {"x_again"});
  add_node(else_branch, "Sub", {"ten", "x_again"}, {"rest"});
  set_dims(else_branch->add_output(), "rest", T::FLOAT, {"3"});
  return model;
}

class IfBranches : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(testing::TempDir()) / ("aoe_if_branches_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(IfBranches, AFedConditionKeepsTheIfWithBothBranchesAndTheirConstantsAsWeights) {
  const auto path = dir_ / "fed_if.onnx";
  {
    std::ofstream out(path, std::ios::binary);
    ASSERT_TRUE(fed_if_model().SerializeToOstream(&out));
  }
  ModelWeights weights;
  Normalisation done;
  const sdk::Graph g = load_onnx(path, {}, &weights, &done);
  EXPECT_EQ(op_types(g), (std::vector<std::string>{"Mul", "If"}));
  // k, ten, and x_shape folded from x's shape.
  EXPECT_EQ(done.to_json()["lift_branch_constants"], 3) << done.to_json().dump();
  const auto& if_node = node_named(g, "If_1");
  ASSERT_TRUE(if_node.attrs.contains("then_branch") && if_node.attrs.contains("else_branch")) << if_node.attrs.dump();

  // The then branch's k, renamed beside the model's own k, which keeps its value.
  const auto then_branch = if_node.attrs["then_branch"].get<sdk::Graph>();
  EXPECT_EQ(op_types(then_branch), (std::vector<std::string>{"Add", "Mul"}));
  const std::string k = node_named(then_branch, "Mul_1").inputs[1];
  EXPECT_NE(k, "k");
  EXPECT_EQ(weights.at(k), (std::vector<float>{2}));
  EXPECT_EQ(weights.at("k"), (std::vector<float>{7}));
  // The outer names it reads, described as the model describes them.
  EXPECT_EQ(then_branch.tensor("x").shape, (std::vector<int64_t>{3}));
  EXPECT_TRUE(then_branch.tensor("w").constant);
  EXPECT_EQ(then_branch.outputs, (std::vector<std::string>{"twice"}));

  // The else branch normalised: its Constant a weight, its shape arithmetic on the outer x folded.
  const auto else_branch = if_node.attrs["else_branch"].get<sdk::Graph>();
  EXPECT_EQ(op_types(else_branch), (std::vector<std::string>{"Reshape", "Sub"}));
  EXPECT_EQ(weights.at("ten"), (std::vector<float>{10}));
  EXPECT_TRUE(g.tensors.count("ten") && g.tensor("ten").constant);
  const std::string shape = node_named(else_branch, "Reshape_2").inputs[1];
  EXPECT_TRUE(g.tensors.count(shape) && g.tensor(shape).constant) << shape;
}

}  // namespace
}  // namespace aoe::host
