// unroll_constant_loop and unroll_scan: Loop and Scan models built here,
// loaded through the ONNX frontend, their normalised graphs checked.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "frontend/onnx_frontend.h"
#include "frontend/unroll_loops.h"
#include "graph_queries.h"
#include "value_types.h"

namespace aoe::host {
namespace {

using test::node_named;
using test::op_types;
using test::set_dims;
using T = onnx::TensorProto;
using Shape = std::vector<int64_t>;
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

void add_scalar(onnx::GraphProto* graph, const std::string& name, int32_t type, int64_t value) {
  auto* t = graph->add_initializer();
  t->set_name(name), t->set_data_type(type);
  if (type == T::BOOL) t->add_int32_data(static_cast<int32_t>(value));
  else t->add_int64_data(value);
}

void add_floats(onnx::GraphProto* graph, const std::string& name, const Shape& dims, float value) {
  auto* t = graph->add_initializer();
  t->set_name(name), t->set_data_type(T::FLOAT);
  int64_t n = 1;
  for (auto d : dims) t->add_dims(d), n *= d;
  for (int64_t i = 0; i < n; ++i) t->add_float_data(value);
}

void add_ints(onnx::NodeProto* node, const std::string& name, const std::vector<int64_t>& values) {
  auto* a = node->add_attribute();
  a->set_name(name), a->set_type(onnx::AttributeProto::INTS);
  for (auto v : values) a->add_ints(v);
}

onnx::GraphProto* add_body(onnx::NodeProto* node) {
  auto* a = node->add_attribute();
  a->set_name("body"), a->set_type(onnx::AttributeProto::GRAPH);
  a->mutable_g()->set_name("body");
  return a->mutable_g();
}

onnx::ModelProto empty_model(int64_t opset = 13) {
  onnx::ModelProto model;
  model.set_ir_version(onnx::IR_VERSION);
  auto* import = model.add_opset_import();
  import->set_domain("");
  import->set_version(opset);
  model.mutable_graph()->set_name("loops");
  return model;
}

// y = sum over i < trips of (x + i), from zeros; its running values the scan
// output. `trips` a constant, or "trips" fed at run time where it is negative.
onnx::ModelProto sum_loop_model(int64_t trips) {
  auto model = empty_model();
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "x", T::FLOAT, {"2"});
  if (trips < 0) set_dims(g->add_input(), "trips", T::INT64, {});
  else add_scalar(g, "trips", T::INT64, trips);
  add_floats(g, "zeros", {2}, 0.0f);
  set_dims(g->add_output(), "y", T::FLOAT, {"2"});
  set_dims(g->add_output(), "ys", T::FLOAT, {trips < 0 || trips > kMaxUnrolledNodes ? "n" : std::to_string(trips), "2"});
  auto* loop = add_node(g, "Loop", {"trips", "", "zeros"}, {"y", "ys"});
  loop->set_name("sum");
  auto* body = add_body(loop);
  set_dims(body->add_input(), "i", T::INT64, {});
  set_dims(body->add_input(), "cond", T::BOOL, {});
  set_dims(body->add_input(), "y_in", T::FLOAT, {"2"});
  auto* cast = add_node(body, "Cast", {"i"}, {"i_float"});
  auto* to = cast->add_attribute();
  to->set_name("to"), to->set_type(onnx::AttributeProto::INT), to->set_i(T::FLOAT);
  add_node(body, "Add", {"y_in", "x"}, {"plus_x"});  // x from the outer scope
  add_node(body, "Add", {"plus_x", "i_float"}, {"y_out"});
  add_node(body, "Identity", {"cond"}, {"cond_out"});
  set_dims(body->add_output(), "cond_out", T::BOOL, {});
  set_dims(body->add_output(), "y_out", T::FLOAT, {"2"});
  set_dims(body->add_output(), "y_out", T::FLOAT, {"2"});
  return model;
}

// A running sum over the columns of xs[2,3], last column first; the sums the
// scan output along axis 1, in reverse where `reverse_output`.
onnx::ModelProto column_scan_model(bool reverse_output) {
  auto model = empty_model(11);
  auto* g = model.mutable_graph();
  set_dims(g->add_input(), "xs", T::FLOAT, {"2", "3"});
  add_floats(g, "zeros", {2}, 0.0f);
  set_dims(g->add_output(), "s", T::FLOAT, {"2"});
  set_dims(g->add_output(), "sums", T::FLOAT, {"2", "3"});
  auto* scan = add_node(g, "Scan", {"zeros", "xs"}, {"s", "sums"});
  scan->set_name("columns");
  auto* num = scan->add_attribute();
  num->set_name("num_scan_inputs"), num->set_type(onnx::AttributeProto::INT), num->set_i(1);
  add_ints(scan, "scan_input_axes", {1});
  add_ints(scan, "scan_input_directions", {1});
  add_ints(scan, "scan_output_axes", {1});
  add_ints(scan, "scan_output_directions", {reverse_output ? 1 : 0});
  auto* body = add_body(scan);
  set_dims(body->add_input(), "s_in", T::FLOAT, {"2"});
  set_dims(body->add_input(), "column", T::FLOAT, {"2"});
  add_node(body, "Add", {"s_in", "column"}, {"s_out"});
  add_node(body, "Identity", {"s_out"}, {"sum"});
  set_dims(body->add_output(), "s_out", T::FLOAT, {"2"});
  set_dims(body->add_output(), "sum", T::FLOAT, {"2"});
  return model;
}

class UnrollLoops : public testing::Test {
 protected:
  void SetUp() override {
    const auto* info = testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(testing::TempDir()) / ("aoe_unroll_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  sdk::Graph load(const onnx::ModelProto& model, const std::string& name, Normalisation& done) {
    const auto path = dir_ / name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    model.SerializeToOstream(&out);
    out.close();
    return load_onnx(path, {}, nullptr, &done);
  }

  fs::path dir_;
};

int64_t count(const std::vector<std::string>& ops, const std::string& op) { return std::count(ops.begin(), ops.end(), op); }

TEST_F(UnrollLoops, ALoopOfAConstantTripCountBecomesCopiesOfItsBody) {
  Normalisation done;
  const auto g = load(sum_loop_model(3), "loop.onnx", done);
  const auto ops = op_types(g);
  EXPECT_EQ(count(ops, "Loop"), 0) << testing::PrintToString(ops);
  EXPECT_EQ(count(ops, "Add"), 6) << testing::PrintToString(ops);  // two a copy; iteration_num's Cast folded
  EXPECT_EQ(count(ops, "Concat"), 1) << testing::PrintToString(ops);
  EXPECT_EQ(done.to_json().value("unroll_constant_loop", 0), 1) << done.to_json().dump();
  // Each copy's names are its own; the outer x stays x.
  const auto& add = node_named(g, "sum/iter2/Add_1");
  EXPECT_EQ(add.inputs, (std::vector<std::string>{"sum/iter1/y_out", "x"}));
  EXPECT_EQ(g.tensor("ys").shape, (Shape{3, 2}));
  EXPECT_EQ(g.tensor("y").shape, (Shape{2}));
  EXPECT_TRUE(done.summary().find("1 Loop nodes with a constant trip count unrolled") != std::string::npos) << done.summary();
}

TEST_F(UnrollLoops, ALoopOfNoIterationsGivesItsInitialValues) {
  auto model = sum_loop_model(0);
  auto* g = model.mutable_graph();
  g->mutable_node(0)->mutable_output()->RemoveLast();  // its scan output unread: 0 iterations have no shape for it
  g->mutable_output()->RemoveLast();
  Normalisation done;
  const auto graph = load(model, "none.onnx", done);
  EXPECT_EQ(count(op_types(graph), "Loop"), 0) << testing::PrintToString(op_types(graph));
  EXPECT_EQ(done.to_json().value("unroll_constant_loop", 0), 1);
  EXPECT_EQ(graph.tensor("y").shape, (Shape{2}));
}

TEST_F(UnrollLoops, ALoopWhoseTripCountIsFedAtRunTimeStays) {
  Normalisation done;
  const auto g = load(sum_loop_model(-1), "fed.onnx", done);
  EXPECT_EQ(op_types(g), (std::vector<std::string>{"Loop"}));
  EXPECT_EQ(done.to_json().value("unroll_constant_loop", 0), 0);
}

TEST_F(UnrollLoops, ALoopPastTheBoundStays) {
  for (const int64_t trips : {kMaxUnrolledNodes, int64_t{1} << 62}) {
    Normalisation done;
    const auto g = load(sum_loop_model(trips), "long.onnx", done);
    EXPECT_EQ(op_types(g), (std::vector<std::string>{"Loop"})) << trips;
  }
}

TEST_F(UnrollLoops, ALoopThatMayStopEarlyStays) {
  auto model = sum_loop_model(3);
  auto* body = model.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_g();
  // The condition out flips each iteration: the loop ends before its trip count.
  for (auto& n : *body->mutable_node())
    if (n.op_type() == "Identity") n.set_op_type("Not");
  Normalisation done;
  const auto g = load(model, "early.onnx", done);
  EXPECT_EQ(count(op_types(g), "Loop"), 1) << testing::PrintToString(op_types(g));
}

TEST_F(UnrollLoops, AScanBecomesStepsOfItsBodyAlongItsAxes) {
  Normalisation done;
  const auto g = load(column_scan_model(true), "scan.onnx", done);
  const auto ops = op_types(g);
  EXPECT_EQ(count(ops, "Scan"), 0) << testing::PrintToString(ops);
  EXPECT_EQ(count(ops, "Gather"), 3) << testing::PrintToString(ops);
  EXPECT_EQ(count(ops, "Add"), 3) << testing::PrintToString(ops);
  EXPECT_EQ(done.to_json().value("unroll_scan", 0), 1) << done.to_json().dump();
  // Step 0 reads the last column, as the input's direction is reverse.
  const auto& first = node_named(g, "columns/iter0/input0");
  EXPECT_EQ(first.inputs.at(0), "xs");
  EXPECT_EQ(g.tensor("sums").shape, (Shape{2, 3}));
  EXPECT_EQ(g.tensor("s").shape, (Shape{2}));
  // The output's direction is reverse too: the last step's sum (the final state) comes first.
  EXPECT_EQ(node_named(g, "sums/concat").inputs.front(), "sums/0");
  EXPECT_EQ(node_named(g, "sums/0").inputs.at(0), "s");
}

TEST_F(UnrollLoops, AScanPastTheBoundStays) {
  auto model = column_scan_model(false);
  for (auto* v : {model.mutable_graph()->mutable_input(0), model.mutable_graph()->mutable_output(1)})
    v->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(1)->set_dim_value(kMaxUnrolledNodes / 4);
  Normalisation done;
  const auto g = load(model, "long.onnx", done);
  EXPECT_EQ(op_types(g), (std::vector<std::string>{"Scan"}));
}

}  // namespace
}  // namespace aoe::host
