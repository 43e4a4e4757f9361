// load_onnx against the generated example models and against broken or unusual models
// built here with the protobuf API.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "aoe/sdk/error.h"
#include "frontend/onnx_frontend.h"
#include "graph_queries.h"
#include "value_types.h"

namespace aoe::host {
namespace {

using test::node_named;
using test::op_types;
using test::set_dims;

namespace fs = std::filesystem;
using sdk::Error;
using sdk::StatusCode;
using Shape = std::vector<int64_t>;

const fs::path kModels = AOE_MODELS_DIR;

onnx::ModelProto read_proto(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  onnx::ModelProto model;
  if (!model.ParseFromIstream(&in)) throw std::runtime_error("cannot read " + path.string());
  return model;
}

void save(const onnx::ModelProto& model, const fs::path& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!model.SerializeToOstream(&out)) throw std::runtime_error("cannot write " + path.string());
}

onnx::TensorProto* add_int64s(onnx::GraphProto* graph, const std::string& name, const Shape& dims,
                              const std::vector<int64_t>& values) {
  auto* t = graph->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  for (auto d : dims) t->add_dims(d);
  for (auto v : values) t->add_int64_data(v);
  return t;
}

onnx::NodeProto* add_node(onnx::GraphProto* graph, const std::string& op, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs) {
  auto* n = graph->add_node();
  n->set_op_type(op);
  for (const auto& in : inputs) n->add_input(in);
  for (const auto& out : outputs) n->add_output(out);
  return n;
}

// x[2,4] -> MatMul(W[4,cols]) -> Relu -> y, nodes unnamed, opset 13.
onnx::ModelProto tiny_model(int64_t rows = 4, int64_t cols = 3) {
  onnx::ModelProto model;
  model.set_ir_version(onnx::IR_VERSION);
  auto* import = model.add_opset_import();
  import->set_domain("");
  import->set_version(13);
  auto* graph = model.mutable_graph();
  set_dims(graph->add_input(), "x", onnx::TensorProto::FLOAT, {"2", std::to_string(rows)});
  set_dims(graph->add_output(), "y", onnx::TensorProto::FLOAT, {"2", std::to_string(cols)});
  auto* w = graph->add_initializer();
  w->set_name("W");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(rows);
  w->add_dims(cols);
  add_node(graph, "MatMul", {"x", "W"}, {"xw"});
  add_node(graph, "Relu", {"xw"}, {"y"});
  return model;
}

// The matmul outputs, in node order.
std::vector<Shape> matmul_shapes(const sdk::Graph& graph) {
  std::vector<Shape> shapes;
  for (const auto& n : graph.nodes)
    if (n.op_type == "MatMul") shapes.push_back(graph.tensor(n.outputs.at(0)).shape);
  return shapes;
}

class OnnxFrontend : public testing::Test {
 protected:
  void SetUp() override {
    const auto* info = testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(testing::TempDir()) /
           ("aoe_frontend_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The error load_onnx throws; fails the test when it loads.
  Error load_error(const fs::path& path, const InputShapes& shapes = {}) {
    try {
      load_onnx(path, shapes);
    } catch (const Error& e) {
      return e;
    }
    ADD_FAILURE() << path << " loaded";
    return Error(StatusCode::ok, "");
  }

  fs::path dir_;
};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST_F(OnnxFrontend, LoadsMlp) {
  const auto graph = load_onnx(kModels / "mlp.onnx", {});
  EXPECT_EQ(graph.name, "mlp");
  EXPECT_EQ(graph.opset, 13);
  EXPECT_EQ(graph.inputs, std::vector<std::string>{"x"});
  EXPECT_EQ(graph.outputs, std::vector<std::string>{"y"});
  EXPECT_EQ(op_types(graph), (std::vector<std::string>{"MatMul", "Add", "Relu", "Gemm", "Relu", "MatMul"}));
  EXPECT_EQ(matmul_shapes(graph), (std::vector<Shape>{{8, 512}, {8, 64}}));
  EXPECT_EQ(graph.tensor("fc2").shape, (Shape{8, 128}));
  EXPECT_EQ(graph.tensor("act1").shape, (Shape{8, 512}));

  const auto& w2 = graph.tensor("W2");
  EXPECT_TRUE(w2.constant);
  EXPECT_EQ(w2.shape, (Shape{128, 512}));
  EXPECT_EQ(w2.dtype, sdk::DType::f32);
  EXPECT_FALSE(graph.tensor("x").constant);
  EXPECT_FALSE(graph.tensor("fc1").constant);

  const auto& gemm = graph.nodes.at(3);
  EXPECT_EQ(gemm.inputs, (std::vector<std::string>{"act1", "W2", "b2"}));
  EXPECT_EQ(gemm.attrs.at("transB"), 1);
  for (const auto& [name, t] : graph.tensors) EXPECT_TRUE(t.fully_known()) << name;
}

TEST_F(OnnxFrontend, LoadsStaticBertBlock) {
  const auto graph = load_onnx(kModels / "bert_ffn.onnx", {});
  EXPECT_EQ(graph.opset, 13);
  EXPECT_EQ(graph.inputs, std::vector<std::string>{"tokens"});
  EXPECT_EQ(graph.outputs, (std::vector<std::string>{"query", "ffn_out"}));
  EXPECT_EQ(matmul_shapes(graph), (std::vector<Shape>{{1, 128, 768}, {1, 128, 3072}, {1, 128, 768}}));
  EXPECT_EQ(graph.tensor("gelu").shape, (Shape{1, 128, 3072}));
  EXPECT_EQ(graph.tensor("W_in").shape, (Shape{768, 3072}));
  EXPECT_TRUE(graph.tensor("W_in").constant);
  EXPECT_EQ(graph.tensor("sqrt2").shape, Shape{});
  EXPECT_TRUE(graph.tensor("sqrt2").constant);
  const auto ops = op_types(graph);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "Erf"), 1);
}

TEST_F(OnnxFrontend, DynamicBatchNeedsInputShape) {
  const auto e = load_error(kModels / "bert_ffn_dynamic.onnx");
  const std::string message = e.what();
  EXPECT_EQ(e.code(), StatusCode::invalid_argument);
  EXPECT_TRUE(contains(message, "'tokens' [?,128,768]")) << message;
  EXPECT_TRUE(contains(message, "--input_shape \"tokens:1,128,768\"")) << message;
  EXPECT_TRUE(contains(message, "bert_ffn_dynamic.onnx")) << message;
}

TEST_F(OnnxFrontend, DynamicBatchLoadsWithInputShape) {
  const auto graph = load_onnx(kModels / "bert_ffn_dynamic.onnx", parse_input_shape("tokens:1,128,768"));
  EXPECT_EQ(graph.name, "bert_ffn_dynamic");
  EXPECT_EQ(graph.tensor("tokens").shape, (Shape{1, 128, 768}));
  EXPECT_EQ(matmul_shapes(graph), (std::vector<Shape>{{1, 128, 768}, {1, 128, 3072}, {1, 128, 768}}));
  EXPECT_EQ(graph.tensor("query").shape, (Shape{1, 128, 768}));
}

// The file declares its outputs as [batch,128,768] and an override must replace, not merge.
TEST_F(OnnxFrontend, InputShapeOverridesStaticDimsToo) {
  const auto graph = load_onnx(kModels / "bert_ffn.onnx", parse_input_shape("tokens:4,64,768"));
  EXPECT_EQ(matmul_shapes(graph), (std::vector<Shape>{{4, 64, 768}, {4, 64, 3072}, {4, 64, 768}}));
  EXPECT_EQ(graph.tensor("ffn_out").shape, (Shape{4, 64, 768}));
}

TEST_F(OnnxFrontend, LoadsConvBlock) {
  const auto graph = load_onnx(kModels / "conv_block.onnx", {});
  EXPECT_EQ(graph.opset, 11);
  EXPECT_EQ(op_types(graph),
            (std::vector<std::string>{"Conv", "BatchNormalization", "Relu", "Conv", "Add", "Relu"}));
  EXPECT_EQ(graph.tensor("conv1").shape, (Shape{1, 64, 56, 56}));
  EXPECT_EQ(graph.tensor("conv2").shape, (Shape{1, 64, 56, 56}));
  EXPECT_EQ(graph.tensor("conv1_w").shape, (Shape{64, 64, 3, 3}));
  EXPECT_TRUE(graph.tensor("bn_var").constant);
  const auto& conv = graph.nodes.at(0);
  EXPECT_EQ(conv.attrs.at("kernel_shape"), nlohmann::json({3, 3}));
  EXPECT_EQ(conv.attrs.at("pads"), nlohmann::json({1, 1, 1, 1}));
  // Floats keep their shortest spelling, so signatures read 1e-05, not 9.99999974e-06.
  EXPECT_EQ(graph.nodes.at(1).attrs.at("epsilon").get<double>(), 1e-5);
}

TEST_F(OnnxFrontend, MissingFileIsNamed) {
  const auto e = load_error(dir_ / "nowhere.onnx");
  EXPECT_EQ(e.code(), StatusCode::not_found);
  EXPECT_TRUE(contains(e.what(), (dir_ / "nowhere.onnx").string())) << e.what();
}

TEST_F(OnnxFrontend, TruncatedFileIsNamed) {
  const auto path = dir_ / "truncated.onnx";
  fs::copy_file(kModels / "mlp.onnx", path);
  fs::resize_file(path, fs::file_size(path) / 2);
  const auto e = load_error(path);
  EXPECT_EQ(e.code(), StatusCode::invalid_argument);
  EXPECT_TRUE(contains(e.what(), path.string())) << e.what();
  EXPECT_TRUE(contains(e.what(), "truncated")) << e.what();
}

TEST_F(OnnxFrontend, NonOnnxFilesAreRefused) {
  const auto text = dir_ / "notes.onnx";
  std::ofstream(text) << "this is not an onnx model\n";
  EXPECT_TRUE(contains(load_error(text).what(), text.string()));
  const auto empty = dir_ / "empty.onnx";
  std::ofstream{empty};
  EXPECT_TRUE(contains(load_error(empty).what(), empty.string()));
  EXPECT_EQ(load_error(dir_).code(), StatusCode::invalid_argument);
}

TEST_F(OnnxFrontend, UnknownOpsetIsNamed) {
  auto model = read_proto(kModels / "mlp.onnx");
  model.mutable_opset_import(0)->set_version(99);
  save(model, dir_ / "opset99.onnx");
  const auto e = load_error(dir_ / "opset99.onnx");
  EXPECT_EQ(e.code(), StatusCode::unsupported);
  EXPECT_TRUE(contains(e.what(), "unknown opset 99")) << e.what();
  EXPECT_TRUE(contains(e.what(), "opset99.onnx")) << e.what();

  // Opset 6's Add and Gemm read as opset 7's; an op defined otherwise before
  // opset 7 that no opset-7 form computes the same as (LSTM-1) is named.
  model.mutable_opset_import(0)->set_version(6);
  save(model, dir_ / "opset6.onnx");
  EXPECT_EQ(load_onnx(dir_ / "opset6.onnx").opset, 7);
  auto* lstm = model.mutable_graph()->mutable_node(0);
  lstm->set_op_type("LSTM");
  lstm->add_input(lstm->input(1));  // X, W and R: as many inputs as the checker asks of an LSTM
  save(model, dir_ / "lstm6.onnx");
  const auto old = load_error(dir_ / "lstm6.onnx");
  EXPECT_EQ(old.code(), StatusCode::unsupported);
  EXPECT_TRUE(contains(old.what(), "uses opset 6")) << old.what();
  EXPECT_TRUE(contains(old.what(), "whose LSTM differs from opset 7")) << old.what();
}

// A model of the training domain's optimizers alone imports no default
// opset, which then changes nothing; a model importing none at all is refused.
TEST_F(OnnxFrontend, AModelOfTheTrainingDomainAloneIsRead) {
  onnx::ModelProto model;
  model.set_ir_version(7);
  auto* import = model.add_opset_import();
  import->set_domain("ai.onnx.preview.training");
  import->set_version(1);
  auto* g = model.mutable_graph();
  g->set_name("step");
  set_dims(g->add_input(), "R", onnx::TensorProto::FLOAT, {});
  set_dims(g->add_input(), "T", onnx::TensorProto::INT64, {});
  for (const char* name : {"X", "G", "V"}) set_dims(g->add_input(), name, onnx::TensorProto::FLOAT, {"3"});
  set_dims(g->add_output(), "X_new", onnx::TensorProto::FLOAT, {"3"});
  set_dims(g->add_output(), "V_new", onnx::TensorProto::FLOAT, {"n"});
  auto* node = add_node(g, "Momentum", {"R", "T", "X", "G", "V"}, {"X_new", "V_new"});
  node->set_domain("ai.onnx.preview.training");
  for (const auto& [name, value] : {std::pair{"alpha", 0.9f}, {"beta", 1.0f}, {"norm_coefficient", 0.0f}}) {
    auto* a = node->add_attribute();
    a->set_name(name), a->set_type(onnx::AttributeProto::FLOAT), a->set_f(value);
  }
  auto* mode = node->add_attribute();
  mode->set_name("mode"), mode->set_type(onnx::AttributeProto::STRING), mode->set_s("nesterov");
  save(model, dir_ / "step.onnx");
  const auto graph = load_onnx(dir_ / "step.onnx");
  EXPECT_EQ(op_types(graph), (std::vector<std::string>{"Momentum"}));
  EXPECT_EQ(graph.tensor("V_new").shape, (Shape{3}));

  model.clear_opset_import();
  save(model, dir_ / "none.onnx");
  const auto e = load_error(dir_ / "none.onnx");
  EXPECT_TRUE(contains(e.what(), "imports no opset of the default ONNX domain")) << e.what();
  EXPECT_TRUE(contains(e.what(), "none.onnx")) << e.what();
}

// MatMul-1 and Relu-6 are defined at opset 7 as at 6: the model reads as opset 7.
TEST_F(OnnxFrontend, OldOpsetOfUnchangedOpsIsRead) {
  auto model = tiny_model();
  model.mutable_graph()->mutable_initializer(0)->mutable_float_data()->Resize(12, 0.5f);
  model.mutable_opset_import(0)->set_version(6);
  save(model, dir_ / "unchanged6.onnx");
  const auto graph = load_onnx(dir_ / "unchanged6.onnx");
  EXPECT_EQ(graph.opset, 7);
  EXPECT_EQ(op_types(graph), (std::vector<std::string>{"MatMul", "Relu"}));
}

// Before opset 6, Relu took `consumed_inputs` and Cast named its type; at 7 both read as today's.
TEST_F(OnnxFrontend, Opset5sConsumedInputsAndNamedCastTypeAreRead) {
  auto model = tiny_model();
  model.mutable_graph()->mutable_initializer(0)->mutable_float_data()->Resize(12, 0.5f);
  model.mutable_opset_import(0)->set_version(5);
  auto* relu = model.mutable_graph()->mutable_node(1);
  relu->set_output(0, "r");
  auto* consumed = relu->add_attribute();
  consumed->set_name("consumed_inputs"), consumed->set_type(onnx::AttributeProto::INTS), consumed->add_ints(0);
  auto* cast = model.mutable_graph()->add_node();
  cast->set_op_type("Cast"), cast->add_input("r"), cast->add_output("y");
  auto* to = cast->add_attribute();
  to->set_name("to"), to->set_type(onnx::AttributeProto::STRING), to->set_s("DOUBLE");
  model.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::DOUBLE);
  save(model, dir_ / "opset5.onnx");
  const auto graph = load_onnx(dir_ / "opset5.onnx");
  EXPECT_EQ(graph.opset, 7);
  ASSERT_EQ(op_types(graph), (std::vector<std::string>{"MatMul", "Relu", "Cast"}));
  EXPECT_EQ(graph.nodes.at(1).attrs.count("consumed_inputs"), 0u);
  EXPECT_EQ(graph.nodes.at(2).attrs.at("to"), onnx::TensorProto::DOUBLE);

  to->set_s("FLOAT128");
  save(model, dir_ / "float128.onnx");
  EXPECT_TRUE(contains(load_error(dir_ / "float128.onnx").what(), "casts to 'FLOAT128', no ONNX type"));
}

// Functions each calling the next twice would inline to 2^21 nodes: refused, naming the file.
TEST_F(OnnxFrontend, FunctionsThatInlineToMillionsOfNodesAreRefused) {
  auto model = tiny_model();
  model.mutable_graph()->mutable_initializer(0)->mutable_float_data()->Resize(12, 0.5f);
  auto* import = model.add_opset_import();
  import->set_domain("local"), import->set_version(1);
  model.mutable_graph()->mutable_node(1)->set_op_type("F0");
  model.mutable_graph()->mutable_node(1)->set_domain("local");
  constexpr int kDepth = 21;
  for (int i = 0; i <= kDepth; ++i) {
    auto* fn = model.add_functions();
    fn->set_name("F" + std::to_string(i)), fn->set_domain("local");
    fn->add_input("a"), fn->add_output("b");
    *fn->add_opset_import() = model.opset_import(0);
    *fn->add_opset_import() = *import;
    auto* first = fn->add_node();
    first->add_input("a"), first->add_output(i == kDepth ? "b" : "m");
    first->set_op_type(i == kDepth ? "Relu" : "F" + std::to_string(i + 1));
    if (i == kDepth) continue;
    first->set_domain("local");
    *fn->add_node() = *first;
    fn->mutable_node(1)->set_input(0, "m"), fn->mutable_node(1)->set_output(0, "b");
  }
  save(model, dir_ / "nested.onnx");
  const auto e = load_error(dir_ / "nested.onnx");
  EXPECT_EQ(e.code(), StatusCode::invalid_argument);
  EXPECT_TRUE(contains(e.what(), "nested.onnx")) << e.what();
  EXPECT_TRUE(contains(e.what(), "inlining its functions gives over 1048576 nodes")) << e.what();
}

// RoiAlign had no coordinate_transformation_mode before opset 16, and behaved
// as output_half_pixel, not as opset 16's default half_pixel.
TEST_F(OnnxFrontend, AnOpset11RoiAlignIsGivenTheModeItHad) {
  for (const int64_t opset : {11, 16}) {
    onnx::ModelProto model;
    model.set_ir_version(8);
    model.add_opset_import()->set_version(opset);
    auto* g = model.mutable_graph();
    set_dims(g->add_input(), "x", onnx::TensorProto::FLOAT, {"1", "2", "8", "8"});
    set_dims(g->add_input(), "rois", onnx::TensorProto::FLOAT, {"3", "4"});
    set_dims(g->add_output(), "y", onnx::TensorProto::FLOAT, {"3", "2", "1", "1"});
    add_int64s(g, "batch", {3}, {0, 0, 0});
    add_node(g, "RoiAlign", {"x", "rois", "batch"}, {"y"});
    save(model, dir_ / "roi.onnx");
    Normalisation done;
    const auto graph = load_onnx(dir_ / "roi.onnx", {}, nullptr, &done);
    const auto& attrs = graph.nodes.at(0).attrs;
    if (opset == 11) {
      EXPECT_EQ(attrs.at("coordinate_transformation_mode"), "output_half_pixel") << attrs.dump();
      EXPECT_EQ(done.to_json().at("roi_align_mode_of_its_opset"), 1) << done.to_json().dump();
    } else {
      EXPECT_FALSE(attrs.contains("coordinate_transformation_mode")) << attrs.dump();
    }
  }
}

TEST_F(OnnxFrontend, CheckerComplaintsAreReported) {
  auto model = read_proto(kModels / "mlp.onnx");
  model.mutable_graph()->mutable_node(0)->set_input(0, "nowhere");
  save(model, dir_ / "dangling.onnx");
  const auto e = load_error(dir_ / "dangling.onnx");
  EXPECT_TRUE(contains(e.what(), "is invalid")) << e.what();
  EXPECT_TRUE(contains(e.what(), "nowhere")) << e.what();
  EXPECT_TRUE(contains(e.what(), "dangling.onnx")) << e.what();
}

TEST_F(OnnxFrontend, InputShapeForAnUnknownInputListsTheRealOnes) {
  const auto e = load_error(kModels / "mlp.onnx", parse_input_shape("input:8,256"));
  EXPECT_EQ(e.code(), StatusCode::invalid_argument);
  EXPECT_TRUE(contains(e.what(), "'input'")) << e.what();
  EXPECT_TRUE(contains(e.what(), "has inputs 'x'")) << e.what();
}

TEST_F(OnnxFrontend, InputShapeOfTheWrongRankIsRefused) {
  const auto e = load_error(kModels / "mlp.onnx", parse_input_shape("x:8,16,16"));
  EXPECT_TRUE(contains(e.what(), "gives input 'x' 3 dims")) << e.what();
  EXPECT_TRUE(contains(e.what(), "[8,256]")) << e.what();
}

// Old exporters list every initializer among the graph inputs.
TEST_F(OnnxFrontend, InitializersListedAsInputsAreNotInputs) {
  auto model = read_proto(kModels / "mlp.onnx");
  set_dims(model.mutable_graph()->add_input(), "W1", onnx::TensorProto::FLOAT, {"256", "512"});
  save(model, dir_ / "old_style.onnx");
  const auto graph = load_onnx(dir_ / "old_style.onnx", {});
  EXPECT_EQ(graph.inputs, std::vector<std::string>{"x"});
  EXPECT_TRUE(graph.tensor("W1").constant);
  EXPECT_TRUE(contains(load_error(dir_ / "old_style.onnx", parse_input_shape("W1:1,1")).what(), "has inputs 'x'"));
}

TEST_F(OnnxFrontend, UnnamedNodesGetStableNames) {
  auto model = tiny_model();
  model.mutable_graph()->mutable_initializer(0)->mutable_float_data()->Resize(12, 0.5f);
  save(model, dir_ / "tiny.onnx");
  const auto graph = load_onnx(dir_ / "tiny.onnx", {});
  EXPECT_EQ(graph.name, "tiny");  // no graph name: the file stem
  EXPECT_EQ(graph.nodes.at(0).name, "MatMul_0");
  EXPECT_EQ(graph.nodes.at(1).name, "Relu_1");
  EXPECT_EQ(graph.tensor("xw").shape, (Shape{2, 3}));
}

// Only dims are needed, so a weights file that is not there must not matter.
TEST_F(OnnxFrontend, ExternalWeightsAreNeverRead) {
  auto model = tiny_model();
  auto* w = model.mutable_graph()->mutable_initializer(0);
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* location = w->add_external_data();
  location->set_key("location");
  location->set_value("missing_weights.bin");
  auto* length = w->add_external_data();
  length->set_key("length");
  length->set_value("48");
  save(model, dir_ / "external.onnx");
  ASSERT_FALSE(fs::exists(dir_ / "missing_weights.bin"));

  const auto graph = load_onnx(dir_ / "external.onnx", {});
  EXPECT_EQ(graph.inputs, std::vector<std::string>{"x"});
  EXPECT_EQ(graph.tensor("W").shape, (Shape{4, 3}));
  EXPECT_TRUE(graph.tensor("W").constant);
  EXPECT_EQ(graph.tensor("xw").shape, (Shape{2, 3}));
  EXPECT_EQ(graph.tensor("y").shape, (Shape{2, 3}));
}

// Ops of other domains have no schema here: their outputs stay unknown, the load goes on.
TEST_F(OnnxFrontend, CustomOpsLeaveTheirOutputsUnknown) {
  auto model = tiny_model();
  model.mutable_graph()->mutable_initializer(0)->mutable_float_data()->Resize(12, 0.5f);
  auto* import = model.add_opset_import();
  import->set_domain("com.example");
  import->set_version(1);
  auto* relu = model.mutable_graph()->mutable_node(1);
  relu->set_input(0, "custom");
  auto* custom = model.mutable_graph()->add_node();
  custom->set_op_type("FancyGelu");
  custom->set_domain("com.example");
  custom->add_input("xw");
  custom->add_output("custom");
  model.mutable_graph()->mutable_node()->SwapElements(1, 2);
  auto* y_shape = model.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  y_shape->mutable_dim(0)->clear_dim_value();
  y_shape->mutable_dim(1)->clear_dim_value();
  save(model, dir_ / "custom.onnx");

  const auto graph = load_onnx(dir_ / "custom.onnx", {});
  EXPECT_EQ(op_types(graph), (std::vector<std::string>{"MatMul", "FancyGelu", "Relu"}));
  EXPECT_EQ(graph.tensor("xw").shape, (Shape{2, 3}));
  EXPECT_FALSE(graph.tensor("custom").fully_known());
  EXPECT_FALSE(graph.tensor("y").fully_known());
}

// Protobuf refuses messages over 64 MB unless told otherwise.
TEST_F(OnnxFrontend, LoadsModelsOver64MB) {
  constexpr int64_t rows = 4096, cols = 4352;  // 71 MB of float weights
  auto model = tiny_model(rows, cols);
  model.mutable_graph()->mutable_initializer(0)->set_raw_data(std::string(rows * cols * sizeof(float), '\0'));
  save(model, dir_ / "big.onnx");
  ASSERT_GT(fs::file_size(dir_ / "big.onnx"), 64u << 20);
  const auto graph = load_onnx(dir_ / "big.onnx", {});
  EXPECT_EQ(graph.tensor("W").shape, (Shape{rows, cols}));
  EXPECT_EQ(graph.tensor("y").shape, (Shape{2, cols}));
}

// Running needs the weights' values: they move out of the model as it is
// read, after every step that reads them (a Clip bound taken from one).
TEST_F(OnnxFrontend, WeightsMoveOutOfTheModelOnceItIsRead) {
  auto model = tiny_model(4, 3);
  std::vector<float> w(12);
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.25f * static_cast<float>(i) - 1.0f;
  model.mutable_graph()->mutable_initializer(0)->set_raw_data(w.data(), w.size() * sizeof(float));
  auto* graph = model.mutable_graph();
  auto* low = graph->add_initializer();
  low->set_name("low");
  low->set_data_type(onnx::TensorProto::FLOAT);
  low->add_float_data(-0.5f);
  graph->mutable_node(1)->set_op_type("Clip");
  graph->mutable_node(1)->add_input("low");
  ModelWeights weights;
  const auto loaded = load_onnx_model(model, dir_ / "tiny.onnx", {}, &weights);
  EXPECT_EQ(weights.at("W"), w);
  EXPECT_EQ(weights.at("low"), std::vector<float>{-0.5f});
  EXPECT_EQ(loaded.nodes.at(1).attrs.at("min"), -0.5);
  for (const auto& t : model.graph().initializer()) {
    EXPECT_TRUE(t.raw_data().empty()) << t.name();
    EXPECT_EQ(t.float_data_size(), 0) << t.name();
  }
}

// PyTorch computes reshape targets from the input's own shape:
// Shape -> Gather -> Unsqueeze -> Concat -> Reshape, and Shape -> Expand.
TEST_F(OnnxFrontend, ShapeArithmeticIsFolded) {
  onnx::ModelProto model;
  model.set_ir_version(onnx::IR_VERSION);
  auto* import = model.add_opset_import();
  import->set_version(13);
  auto* g = model.mutable_graph();
  g->set_name("heads");
  set_dims(g->add_input(), "tokens", onnx::TensorProto::FLOAT, {"batch", "seq", "768"});
  set_dims(g->add_output(), "heads", onnx::TensorProto::FLOAT, {"batch", "seq", "12", "64"});
  set_dims(g->add_output(), "mask", onnx::TensorProto::FLOAT, {"batch", "seq", "768"});
  add_int64s(g, "zero", {}, {0});
  add_int64s(g, "one", {}, {1});
  add_int64s(g, "axes", {1}, {0});
  add_node(g, "Shape", {"tokens"}, {"tokens_shape"});
  add_node(g, "Gather", {"tokens_shape", "zero"}, {"batch_dim"});
  add_node(g, "Gather", {"tokens_shape", "one"}, {"seq_dim"});
  add_node(g, "Unsqueeze", {"batch_dim", "axes"}, {"batch_1d"});
  add_node(g, "Unsqueeze", {"seq_dim", "axes"}, {"seq_1d"});
  auto* heads_const = add_node(g, "Constant", {}, {"heads_dims"});
  auto* value = heads_const->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(onnx::TensorProto::INT64);
  value->mutable_t()->add_dims(2);
  value->mutable_t()->add_int64_data(12);
  value->mutable_t()->add_int64_data(64);
  auto* concat = add_node(g, "Concat", {"batch_1d", "seq_1d", "heads_dims"}, {"target"});
  auto* axis = concat->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(0);
  add_node(g, "Reshape", {"tokens", "target"}, {"heads"});
  auto* fill = add_node(g, "Constant", {}, {"fill"});
  auto* fill_value = fill->add_attribute();
  fill_value->set_name("value");
  fill_value->set_type(onnx::AttributeProto::TENSOR);
  fill_value->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  fill_value->mutable_t()->add_float_data(1.0f);
  add_node(g, "Expand", {"fill", "tokens_shape"}, {"mask"});
  // Only computable once the first Reshape has a shape: a second round of folding.
  set_dims(g->add_output(), "merged", onnx::TensorProto::FLOAT, {"batch", "seq", "768"});
  add_int64s(g, "lead_starts", {1}, {0});
  add_int64s(g, "lead_ends", {1}, {2});
  add_int64s(g, "hidden", {1}, {768});
  add_node(g, "Shape", {"heads"}, {"heads_shape"});
  add_node(g, "Slice", {"heads_shape", "lead_starts", "lead_ends"}, {"lead"});
  auto* back = add_node(g, "Concat", {"lead", "hidden"}, {"back_target"});
  *back->add_attribute() = *axis;
  add_node(g, "Reshape", {"heads", "back_target"}, {"merged"});
  save(model, dir_ / "heads.onnx");

  const auto graph = load_onnx(dir_ / "heads.onnx", parse_input_shape("tokens:2,128,768"));
  EXPECT_EQ(graph.tensor("target").shape, Shape{4});
  EXPECT_EQ(graph.tensor("heads").shape, (Shape{2, 128, 12, 64}));
  EXPECT_EQ(graph.tensor("mask").shape, (Shape{2, 128, 768}));
  EXPECT_EQ(graph.tensor("merged").shape, (Shape{2, 128, 768}));
  // The arithmetic itself is folded away: the Reshapes read their targets as
  // constants, and the graph output computed from constants keeps its node.
  EXPECT_TRUE(graph.tensor("target").constant);
  EXPECT_TRUE(graph.tensor("back_target").constant);
  EXPECT_EQ(graph.tensors.count("heads_dims"), 0u);
  std::vector<std::string> ops;
  for (const auto& node : graph.nodes) ops.push_back(node.op_type);
  EXPECT_EQ(ops, (std::vector<std::string>{"Reshape", "Expand", "Reshape"}));
}

// A ConstantOfShape of a constant shape is a Constant in all but name: a
// graph output it makes is an Identity of its value, held as a weight.
TEST_F(OnnxFrontend, ConstantOfShapeMakingAnOutputIsItsValue) {
  auto model = tiny_model();
  model.mutable_graph()->mutable_initializer(0)->mutable_float_data()->Resize(12, 1.0f);
  auto* g = model.mutable_graph();
  add_int64s(g, "dims", {2}, {2, 3});
  auto* fill = add_node(g, "ConstantOfShape", {"dims"}, {"halves"});
  auto* value = fill->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  value->mutable_t()->add_dims(1);
  value->mutable_t()->add_float_data(0.5f);
  set_dims(g->add_output(), "halves", onnx::TensorProto::FLOAT, {"2", "3"});
  ModelWeights weights;
  const auto graph = load_onnx_model(model, dir_ / "fill.onnx", {}, &weights);
  EXPECT_EQ(op_types(graph), (std::vector<std::string>{"MatMul", "Relu", "Identity"}));
  EXPECT_EQ(graph.tensor("halves").shape, (Shape{2, 3}));
  EXPECT_EQ(weights.at("halves/value"), std::vector<float>(6, 0.5f));
}

// Slice's bounds, Pad's widths and fill, Gather's indices: constants of the
// model (initializers, Constant nodes) become the node's attributes, under
// the names opset 1 and 2 gave them; a value fed at run time does not.
TEST_F(OnnxFrontend, ValueInputsThatAreConstantsBecomeAttributes) {
  onnx::ModelProto model;
  model.set_ir_version(onnx::IR_VERSION);
  model.add_opset_import()->set_version(13);
  auto* g = model.mutable_graph();
  g->set_name("moves");
  set_dims(g->add_input(), "x", onnx::TensorProto::FLOAT, {"2", "6"});
  set_dims(g->add_input(), "ids", onnx::TensorProto::INT64, {"3"});
  set_dims(g->add_output(), "picked", onnx::TensorProto::FLOAT, {"2", "1"});
  set_dims(g->add_output(), "looked_up", onnx::TensorProto::FLOAT, {"3", "6"});
  add_int64s(g, "starts", {1}, {1});
  add_int64s(g, "axes", {1}, {-1});
  add_int64s(g, "steps", {1}, {2});
  auto* ends = add_node(g, "Constant", {}, {"ends"});
  auto* ends_value = ends->add_attribute();
  ends_value->set_name("value_ints");
  ends_value->set_type(onnx::AttributeProto::INTS);
  ends_value->add_ints(-1);
  add_node(g, "Slice", {"x", "starts", "ends", "axes", "steps"}, {"sliced"})->set_name("slice");
  add_int64s(g, "pads", {4}, {0, 1, 0, 1});
  auto* fill = g->add_initializer();
  fill->set_name("fill");
  fill->set_data_type(onnx::TensorProto::FLOAT);
  fill->add_float_data(0.5f);
  add_node(g, "Pad", {"sliced", "pads", "fill"}, {"padded"})->set_name("pad");
  add_int64s(g, "last", {1}, {-1});
  auto* pick = add_node(g, "Gather", {"padded", "last"}, {"picked"});
  pick->set_name("pick");
  auto* axis = pick->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(1);
  add_node(g, "Gather", {"x", "ids"}, {"looked_up"})->set_name("lookup");
  add_node(g, "Clip", {"x", "fill", ""}, {"clipped"})->set_name("clip");
  save(model, dir_ / "moves.onnx");

  const auto graph = load_onnx(dir_ / "moves.onnx");
  const auto& slice = node_named(graph, "slice").attrs;
  EXPECT_EQ(slice.at("starts"), nlohmann::json({1}));
  EXPECT_EQ(slice.at("ends"), nlohmann::json({-1}));
  EXPECT_EQ(slice.at("axes"), nlohmann::json({-1}));
  EXPECT_EQ(slice.at("steps"), nlohmann::json({2}));
  EXPECT_EQ(graph.tensor("sliced").shape, (Shape{2, 2}));
  EXPECT_EQ(node_named(graph, "pad").attrs.at("pads"), nlohmann::json({0, 1, 0, 1}));
  EXPECT_EQ(node_named(graph, "pad").attrs.at("value"), 0.5);
  EXPECT_EQ(node_named(graph, "pick").attrs.at("indices"), nlohmann::json({-1}));
  EXPECT_EQ(node_named(graph, "pick").attrs.at("axis"), 1);
  EXPECT_FALSE(node_named(graph, "lookup").attrs.contains("indices"));
  EXPECT_EQ(node_named(graph, "clip").attrs.at("min"), 0.5);
  EXPECT_FALSE(node_named(graph, "clip").attrs.contains("max"));
}

// Values JSON cannot carry to a device: a Clip bound of -inf (min) or +inf
// (max) is no bound, so no attribute; a Pad fill of -inf stays the input the
// device reads as the model runs; a Clip min of +inf is refused by name.
TEST_F(OnnxFrontend, InfiniteConstantsBecomeNoAttribute) {
  const auto write = [&](float low, const fs::path& file) {
    onnx::ModelProto model;
    model.set_ir_version(onnx::IR_VERSION);
    model.add_opset_import()->set_version(13);
    auto* g = model.mutable_graph();
    g->set_name("bounds");
    set_dims(g->add_input(), "x", onnx::TensorProto::FLOAT, {"2"});
    set_dims(g->add_output(), "clipped", onnx::TensorProto::FLOAT, {"2"});
    set_dims(g->add_output(), "padded", onnx::TensorProto::FLOAT, {"4"});
    for (const auto& [name, value] : {std::pair{"low", low}, std::pair{"high", std::numeric_limits<float>::infinity()},
                                      std::pair{"fill", -std::numeric_limits<float>::infinity()}}) {
      auto* t = g->add_initializer();
      t->set_name(name), t->set_data_type(onnx::TensorProto::FLOAT), t->add_float_data(value);
    }
    add_int64s(g, "pads", {2}, {1, 1});
    add_node(g, "Clip", {"x", "low", "high"}, {"clipped"})->set_name("clip");
    add_node(g, "Pad", {"x", "pads", "fill"}, {"padded"})->set_name("pad");
    save(model, file);
  };
  write(0.5f, dir_ / "bounds.onnx");
  const auto graph = load_onnx(dir_ / "bounds.onnx");
  EXPECT_EQ(node_named(graph, "clip").attrs.at("min"), 0.5);
  EXPECT_FALSE(node_named(graph, "clip").attrs.contains("max"));
  EXPECT_EQ(node_named(graph, "pad").attrs.at("pads"), nlohmann::json({1, 1}));
  EXPECT_FALSE(node_named(graph, "pad").attrs.contains("value"));

  write(std::numeric_limits<float>::infinity(), dir_ / "inf_min.onnx");
  const auto e = load_error(dir_ / "inf_min.onnx");
  EXPECT_EQ(e.code(), StatusCode::invalid_argument);
  EXPECT_TRUE(contains(e.what(), "Clip 'clip': min inf")) << e.what();
}

// libonnx 1.12 infers a onesided STFT's bins as the frame's length; the
// frontend infers the operator's frame_length / 2 + 1 and names the slots
// of the optional inputs present.
TEST_F(OnnxFrontend, StftShapeIsTheOperators) {
  onnx::ModelProto model;
  model.set_ir_version(onnx::IR_VERSION);
  model.add_opset_import()->set_version(17);
  auto* g = model.mutable_graph();
  g->set_name("spectra");
  set_dims(g->add_input(), "signal", onnx::TensorProto::FLOAT, {"1", "128", "1"});
  set_dims(g->add_output(), "y", onnx::TensorProto::FLOAT, {"1", "15", "9", "2"});
  set_dims(g->add_output(), "z", onnx::TensorProto::FLOAT, {"1", "15", "16", "2"});
  add_int64s(g, "step", {}, {8});
  add_int64s(g, "length", {}, {16});
  auto* window = g->add_initializer();
  window->set_name("window");
  window->set_data_type(onnx::TensorProto::FLOAT);
  window->add_dims(16);
  for (int i = 0; i < 16; ++i) window->add_float_data(1.0f);
  add_node(g, "STFT", {"signal", "step", "", "length"}, {"half"})->set_name("half_stft");
  auto* full = add_node(g, "STFT", {"signal", "step", "window"}, {"full"});
  full->set_name("full_stft");
  auto* onesided = full->add_attribute();
  onesided->set_name("onesided");
  onesided->set_type(onnx::AttributeProto::INT);
  onesided->set_i(0);
  add_node(g, "Relu", {"half"}, {"y"});
  add_node(g, "Relu", {"full"}, {"z"});
  save(model, dir_ / "spectra.onnx");

  const auto graph = load_onnx(dir_ / "spectra.onnx");
  EXPECT_EQ(graph.tensor("half").shape, (Shape{1, 15, 9, 2}));
  EXPECT_EQ(graph.tensor("full").shape, (Shape{1, 15, 16, 2}));
  EXPECT_EQ(node_named(graph, "half_stft").attrs.at("input_slots"), nlohmann::json({0, 1, 3}));
  EXPECT_EQ(node_named(graph, "full_stft").attrs.at("input_slots"), nlohmann::json({0, 1, 2}));
}

// libonnx 1.12 infers an Einsum's rank alone, and PyTorch declares the
// output of "bij,bkj->bik" with unknown dims: the frontend works its dims
// out of the equation as the cpu device reads it. An equation its inputs do
// not fit is an error naming the node and what does not fit.
TEST_F(OnnxFrontend, EinsumShapeFromItsEquation) {
  const auto write = [&](const std::string& second, const fs::path& file) {
    onnx::ModelProto model;
    model.set_ir_version(onnx::IR_VERSION);
    model.add_opset_import()->set_version(12);
    auto* g = model.mutable_graph();
    g->set_name("einsum");
    set_dims(g->add_input(), "x", onnx::TensorProto::FLOAT, {"2", "8", "16"});
    set_dims(g->add_output(), "scores", onnx::TensorProto::FLOAT, {"s0", "s1", "s2"});
    set_dims(g->add_output(), "projected", onnx::TensorProto::FLOAT, {"p0", "p1", "p2"});
    auto* w = g->add_initializer();
    w->set_name("w"), w->set_data_type(onnx::TensorProto::FLOAT), w->add_dims(16), w->add_dims(4);
    for (int i = 0; i < 64; ++i) w->add_float_data(0.5f);
    const auto equation = [](onnx::NodeProto* n, const std::string& text) {
      auto* a = n->add_attribute();
      a->set_name("equation"), a->set_type(onnx::AttributeProto::STRING), a->set_s(text);
    };
    auto* scores = add_node(g, "Einsum", {"x", "x"}, {"scores"});
    scores->set_name("scores");
    equation(scores, "bij,bkj->bik");
    auto* projected = add_node(g, "Einsum", {"x", "w"}, {"projected"});
    projected->set_name("projected");
    equation(projected, second);
    save(model, file);
  };
  write("...ij, jk", dir_ / "einsum.onnx");  // implicit: the ellipsis' dims, then i and k
  const auto graph = load_onnx(dir_ / "einsum.onnx");
  EXPECT_EQ(graph.tensor("scores").shape, (Shape{2, 8, 8}));
  EXPECT_EQ(graph.tensor("projected").shape, (Shape{2, 8, 4}));

  write("bij,kj->bik", dir_ / "mismatch.onnx");
  const auto e = load_error(dir_ / "mismatch.onnx");
  EXPECT_EQ(e.code(), StatusCode::invalid_argument);
  for (const std::string part : {"mismatch.onnx", "Einsum node 'projected'", "bij,kj->bik", "'j'", "fix the equation"})
    EXPECT_TRUE(contains(e.what(), part)) << e.what();
}

}  // namespace
// A float16 conversion appends its input casts after the nodes that read
// them; ONNX Runtime sorts such a graph, and so does the frontend.
TEST_F(OnnxFrontend, NodesOutOfOrderAreSortedAndCounted) {
  auto model = tiny_model();
  auto* graph = model.mutable_graph();
  graph->mutable_node()->SwapElements(0, 1);  // Relu before the MatMul it reads
  for (int i = 0; i < 4 * 3; ++i) graph->mutable_initializer(0)->add_float_data(0.5f);
  const auto path = dir_ / "unsorted.onnx";
  save(model, path);
  Normalisation done;
  const auto g = load_onnx(path, {}, nullptr, &done);
  EXPECT_EQ(op_types(g), (std::vector<std::string>{"MatMul", "Relu"}));
  EXPECT_EQ(done.to_json().value("topological_order", 0), 2);
  EXPECT_TRUE(contains(done.summary(), "2 nodes put in topological order")) << done.summary();
}

TEST_F(OnnxFrontend, ACycleOfNodesIsAnErrorNamingANode) {
  auto model = tiny_model();
  auto* graph = model.mutable_graph();
  // MatMul reads what Relu makes, and Relu what MatMul makes.
  graph->mutable_node(0)->set_input(0, "y");
  graph->mutable_node(0)->set_name("mm");
  for (int i = 0; i < 4 * 3; ++i) graph->mutable_initializer(0)->add_float_data(0.5f);
  const auto path = dir_ / "cycle.onnx";
  save(model, path);
  const auto e = load_error(path);
  EXPECT_EQ(e.code(), StatusCode::invalid_argument);
  EXPECT_TRUE(contains(e.what(), "cycle")) << e.what();
  EXPECT_TRUE(contains(e.what(), "cycle.onnx")) << e.what();
  EXPECT_TRUE(contains(e.what(), "node 'mm' (MatMul)") || contains(e.what(), "(Relu)")) << e.what();
}

// A Clip bound fed at run time is data to the op that reads it: Max, then Min.
TEST_F(OnnxFrontend, AClipBoundComputedAtRunTimeBecomesMaxAndMin) {
  onnx::ModelProto model;
  model.set_ir_version(onnx::IR_VERSION);
  auto* import = model.add_opset_import();
  import->set_domain("");
  import->set_version(13);
  auto* graph = model.mutable_graph();
  graph->set_name("clip");
  set_dims(graph->add_input(), "x", onnx::TensorProto::FLOAT, {"2", "3"});
  set_dims(graph->add_input(), "lo", onnx::TensorProto::FLOAT, {});
  set_dims(graph->add_output(), "y", onnx::TensorProto::FLOAT, {"2", "3"});
  auto* hi = graph->add_initializer();
  hi->set_name("hi");
  hi->set_data_type(onnx::TensorProto::FLOAT);
  hi->add_float_data(6.0f);
  add_node(graph, "Clip", {"x", "lo", "hi"}, {"y"})->set_name("clip");
  const auto path = dir_ / "clip.onnx";
  save(model, path);
  Normalisation done;
  const auto g = load_onnx(path, {}, nullptr, &done);
  EXPECT_EQ(op_types(g), (std::vector<std::string>{"Max", "Min"}));
  EXPECT_EQ(g.nodes[0].inputs, (std::vector<std::string>{"x", "lo"}));
  EXPECT_EQ(g.nodes[1].inputs[1], "hi");
  EXPECT_EQ(g.tensor(g.nodes[0].outputs[0]).shape, (Shape{2, 3}));
  EXPECT_EQ(done.to_json().value("clip_bounds_as_max_min", 0), 1);
}

}  // namespace aoe::host
