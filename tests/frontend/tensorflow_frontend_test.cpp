// load_tensorflow against the generated frozen graphs and graphs written
// here: NHWC kept in the IR, the same tasks as ONNX and Caffe give modulo
// that layout, every op of the list, and bad graphs named by node.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "aoe/sdk/data_layout.h"
#include "aoe/sdk/error.h"
#include "aoe/sdk/fusion.h"
#include "frontend/caffe_frontend.h"
#include "frontend/onnx_frontend.h"
#include "frontend/tensorflow_frontend.h"
#include "graph.pb.h"
#include "graph_queries.h"

namespace aoe::host {
namespace {

using test::node_named;
using test::op_types;

namespace fs = std::filesystem;
namespace tf = aoe::tensorflow;
using sdk::Error;
using Shape = std::vector<int64_t>;

const fs::path kModels = AOE_MODELS_DIR;

// The tasks operator tuning makes of a graph, by signature.
std::multiset<std::string> task_signatures(const sdk::Graph& g, bool channels_first = false) {
  std::multiset<std::string> out;
  for (auto op : sdk::fuse(g, {"Relu", "Add", "Mul", "Clip"})) {
    auto& t = op.task;
    if (channels_first && sdk::data_layout(t.attrs, t.op_type) == sdk::DataLayout::nhwc) {
      // The channels-first twin: no data_format, every 4-D feature map as NCHW.
      t.attrs.erase(sdk::kDataFormatAttr);
      for (auto* tensors : {&t.inputs, &t.outputs})
        for (auto& d : *tensors)
          if (d.shape.size() == 4 && !d.constant) d.shape = sdk::laid_out(sdk::nchw_dims(d.shape, sdk::DataLayout::nhwc), sdk::DataLayout::nchw);
    }
    out.insert(t.signature());
  }
  return out;
}

// ---- writing graphs ----

tf::NodeDef& add(tf::GraphDef& g, const std::string& name, const std::string& op, const std::vector<std::string>& inputs = {}) {
  auto* n = g.add_node();
  n->set_name(name);
  n->set_op(op);
  for (const auto& i : inputs) n->add_input(i);
  return *n;
}

void set_ints(tf::NodeDef& n, const std::string& key, const Shape& values) {
  for (int64_t v : values) (*n.mutable_attr())[key].mutable_list()->add_i(v);
}

void placeholder(tf::GraphDef& g, const std::string& name, const Shape& dims, bool unknown_rank = false) {
  auto& n = add(g, name, "Placeholder");
  (*n.mutable_attr())["dtype"].set_type(tf::DT_FLOAT);
  auto* shape = (*n.mutable_attr())["shape"].mutable_shape();
  shape->set_unknown_rank(unknown_rank);
  for (int64_t d : dims) shape->add_dim()->set_size(d);
}

// A float constant known by its shape; an int one with its values.
void constant(tf::GraphDef& g, const std::string& name, const Shape& dims, const std::vector<int32_t>& ints = {}) {
  auto* t = (*add(g, name, "Const").mutable_attr())["value"].mutable_tensor();
  t->set_dtype(ints.empty() ? tf::DT_FLOAT : tf::DT_INT32);
  for (int64_t d : dims) t->mutable_tensor_shape()->add_dim()->set_size(d);
  for (int32_t v : ints) t->add_int_val(v);
}

void window_op(tf::NodeDef& n, const Shape& strides, const std::string& padding) {
  set_ints(n, "strides", strides);
  (*n.mutable_attr())["padding"].set_s(padding);
}

class TensorFlowFrontend : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("aoe_tf_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const tf::GraphDef& g) const {
    const fs::path p = dir_ / name;
    std::ofstream out(p, std::ios::binary);
    g.SerializeToOstream(&out);
    return p;
  }

  // load_tensorflow's error text, or "" when it loads.
  static std::string error_of(const fs::path& pb, const InputShapes& shapes = {}) {
    try {
      load_tensorflow(pb, shapes);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
};

TEST_F(TensorFlowFrontend, ConvBlockKeepsItsNhwcFeatureMaps) {
  const auto g = load_tensorflow(kModels / "conv_block.pb");
  // The BiasAdd is the second conv's bias; the Identity of a read filter is no op.
  EXPECT_EQ(op_types(g), (std::vector<std::string>{"Conv", "BatchNormalization", "Relu", "Conv", "Add", "Relu"}));
  EXPECT_EQ(g.inputs, std::vector<std::string>{"x"});
  EXPECT_EQ(g.outputs, std::vector<std::string>{"y"});
  EXPECT_EQ(g.tensor("conv1").shape, (Shape{1, 56, 56, 64}));
  const auto& conv1 = node_named(g, "conv1");
  EXPECT_EQ(conv1.attrs["data_format"], "NHWC");
  EXPECT_EQ(conv1.attrs["pads"], nlohmann::json({1, 1, 1, 1}));
  // The HWIO filter enters the IR as the OIHW weights of ONNX's Conv.
  EXPECT_EQ(g.tensor(conv1.inputs[1]).shape, (Shape{64, 64, 3, 3}));
  EXPECT_TRUE(g.tensor(conv1.inputs[1]).constant);
  EXPECT_EQ(node_named(g, "conv2").inputs.size(), 3u);
  EXPECT_EQ(node_named(g, "bn1").attrs["data_format"], "NHWC");
}

// The text form tf.io.write_graph writes by default reads as the binary one.
TEST_F(TensorFlowFrontend, ATextGraphReadsAsItsBinaryTwin) {
  tf::GraphDef def;
  std::ifstream in(kModels / "conv_block.pb", std::ios::binary);
  ASSERT_TRUE(def.ParseFromIstream(&in));
  std::string text;
  ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(def, &text));
  const fs::path pbtxt = dir_ / "conv_block.pbtxt";
  std::ofstream(pbtxt) << text;
  const auto binary = load_tensorflow(kModels / "conv_block.pb"), from_text = load_tensorflow(pbtxt);
  EXPECT_EQ(op_types(from_text), op_types(binary));
  for (const auto& [name, t] : binary.tensors) EXPECT_EQ(from_text.tensor(name).shape, t.shape) << name;
  std::ofstream(dir_ / "bad.pbtxt") << text.substr(0, text.size() / 2) << " node { name: ";
  const std::string bad = error_of(dir_ / "bad.pbtxt");
  EXPECT_NE(bad.find("cannot parse TensorFlow graph"), std::string::npos) << bad;
  EXPECT_NE(bad.find("line "), std::string::npos) << bad;
}

TEST_F(TensorFlowFrontend, TheSameNetworkGivesOnnxsAndCaffesTasksModuloLayout) {
  const auto onnx = load_onnx(kModels / "conv_block.onnx");
  const auto caffe = load_caffe(kModels / "conv_block.prototxt", kModels / "conv_block.caffemodel");
  const auto tensorflow = load_tensorflow(kModels / "conv_block.pb");
  ASSERT_EQ(task_signatures(onnx).size(), 2u);
  EXPECT_EQ(task_signatures(caffe), task_signatures(onnx));
  // The layout is part of what a task computes, so of its bank key ...
  EXPECT_NE(task_signatures(tensorflow), task_signatures(onnx));
  // ... and the only difference.
  EXPECT_EQ(task_signatures(tensorflow, true), task_signatures(onnx));
  // No op of an MLP has a layout: the same tasks, the same bank entries.
  EXPECT_EQ(task_signatures(load_tensorflow(kModels / "mlp.pb")), task_signatures(load_onnx(kModels / "mlp.onnx")));
}

TEST_F(TensorFlowFrontend, EveryOpOfTheListWithItsShapes) {
  tf::GraphDef g;
  placeholder(g, "image", {1, 32, 32, 8});
  constant(g, "dw/filter", {3, 3, 8, 2});
  auto& dw = add(g, "dw", "DepthwiseConv2dNative", {"image", "dw/filter"});
  window_op(dw, {1, 2, 2, 1}, "SAME");
  add(g, "dw/relu6", "Relu6", {"dw"});
  auto& max = add(g, "max", "MaxPool", {"dw/relu6"});
  set_ints(max, "ksize", {1, 2, 2, 1});
  window_op(max, {1, 2, 2, 1}, "VALID");
  auto& avg = add(g, "avg", "AvgPool", {"max"});
  set_ints(avg, "ksize", {1, 3, 3, 1});
  window_op(avg, {1, 1, 1, 1}, "SAME");
  constant(g, "axis", {}, {-1});
  add(g, "cat", "ConcatV2", {"max", "avg", "axis"});
  constant(g, "flat", {2}, {1, -1});
  add(g, "reshape", "Reshape", {"cat", "flat"});
  constant(g, "fc/W", {2048, 10});
  add(g, "fc", "MatMul", {"reshape", "fc/W"});
  constant(g, "scale", {10});
  add(g, "scaled", "Mul", {"fc", "scale"});
  add(g, "prob", "Softmax", {"scaled", "^fc"});
  const auto ir = load_tensorflow(write("ops.pb", g));
  EXPECT_EQ(op_types(ir), (std::vector<std::string>{"Conv", "Clip", "MaxPool", "AveragePool", "Concat", "Reshape", "MatMul",
                                                    "Mul", "Softmax"}));
  EXPECT_EQ(ir.tensor("dw").shape, (Shape{1, 16, 16, 16}));
  EXPECT_EQ(node_named(ir, "dw").attrs["group"], 8);
  EXPECT_EQ(ir.tensor(node_named(ir, "dw").inputs[1]).shape, (Shape{16, 1, 3, 3}));
  EXPECT_EQ(node_named(ir, "dw").attrs["pads"], nlohmann::json({0, 0, 1, 1}));  // SAME pads the end first
  EXPECT_EQ(ir.tensor("max").shape, (Shape{1, 8, 8, 16}));
  EXPECT_EQ(node_named(ir, "dw/relu6").attrs["min"], 0.0);
  EXPECT_EQ(node_named(ir, "dw/relu6").attrs["max"], 6.0);
  EXPECT_EQ(node_named(ir, "avg").attrs["data_format"], "NHWC");
  EXPECT_EQ(ir.tensor("cat").shape, (Shape{1, 8, 8, 32}));
  EXPECT_EQ(node_named(ir, "cat").attrs["axis"], 3);
  EXPECT_EQ(ir.tensor("reshape").shape, (Shape{1, 2048}));
  EXPECT_EQ(ir.tensor("prob").shape, (Shape{1, 10}));
  EXPECT_EQ(node_named(ir, "prob").attrs["axis"], 1);
  EXPECT_EQ(ir.outputs, std::vector<std::string>{"prob"});

  // A GraphDef may list its nodes in any order.
  tf::GraphDef reversed;
  for (int i = g.node_size() - 1; i >= 0; --i) *reversed.add_node() = g.node(i);
  fs::create_directories(dir_ / "reversed");
  EXPECT_EQ(nlohmann::json(load_tensorflow(write("reversed/ops.pb", reversed))).dump(), nlohmann::json(ir).dump());
}

// What frozen classifiers hold besides convolutions: padding, global means,
// squeezes, normalising arithmetic, transposes, each with its shape.
TEST_F(TensorFlowFrontend, ClassifierHeadsAndArithmeticWithTheirShapes) {
  tf::GraphDef g;
  placeholder(g, "image", {1, 7, 7, 16});
  constant(g, "paddings", {4, 2}, {0, 0, 1, 1, 2, 2, 0, 0});
  add(g, "pad", "Pad", {"image", "paddings"});
  auto& mirror = add(g, "mirror", "MirrorPad", {"image", "paddings"});
  (*mirror.mutable_attr())["mode"].set_s("REFLECT");
  constant(g, "hw", {2}, {1, 2});
  auto& mean = add(g, "mean", "Mean", {"pad", "hw"});
  (*mean.mutable_attr())["keep_dims"].set_b(true);
  auto& squeeze = add(g, "squeeze", "Squeeze", {"mean"});
  set_ints(squeeze, "squeeze_dims", {1, 2});
  add(g, "sq", "Square", {"squeeze"});
  constant(g, "last", {1}, {-1});
  add(g, "sum", "Sum", {"sq", "last"});
  add(g, "inv", "Rsqrt", {"sum"});
  add(g, "normed", "RealDiv", {"squeeze", "sum"});
  add(g, "centred", "Sub", {"normed", "inv"});
  add(g, "floor", "Maximum", {"centred", "normed"});
  auto& leaky = add(g, "leaky", "LeakyRelu", {"floor"});
  (*leaky.mutable_attr())["alpha"].set_f(0.1f);
  constant(g, "zero", {}, {0});
  add(g, "expanded", "ExpandDims", {"leaky", "zero"});
  constant(g, "perm", {3}, {0, 2, 1});
  add(g, "transposed", "Transpose", {"expanded", "perm"});
  const auto ir = load_tensorflow(write("heads.pb", g));
  EXPECT_EQ(op_types(ir), (std::vector<std::string>{"Pad", "Pad", "ReduceMean", "Squeeze", "Mul", "ReduceSum", "Sqrt",
                                                    "Reciprocal", "Div", "Sub", "Max", "LeakyRelu", "Unsqueeze",
                                                    "Transpose"}));
  EXPECT_EQ(ir.tensor("pad").shape, (Shape{1, 9, 11, 16}));
  EXPECT_EQ(node_named(ir, "pad").attrs["pads"], nlohmann::json({0, 1, 2, 0, 0, 1, 2, 0}));
  EXPECT_EQ(node_named(ir, "mirror").attrs["mode"], "reflect");
  EXPECT_EQ(ir.tensor("mean").shape, (Shape{1, 1, 1, 16}));
  EXPECT_EQ(node_named(ir, "mean").attrs["axes"], nlohmann::json({1, 2}));
  EXPECT_EQ(ir.tensor("squeeze").shape, (Shape{1, 16}));
  EXPECT_EQ(ir.tensor("sum").shape, (Shape{1}));
  EXPECT_EQ(ir.tensor("inv").shape, (Shape{1}));
  EXPECT_EQ(ir.tensor("floor").shape, (Shape{1, 16}));
  EXPECT_EQ(node_named(ir, "leaky").attrs["alpha"].get<double>(), 0.1f);
  EXPECT_EQ(ir.tensor("transposed").shape, (Shape{1, 16, 1}));
  EXPECT_EQ(ir.outputs, (std::vector<std::string>{"mirror", "transposed"}));

  auto& bad = add(g, "bad", "Squeeze", {"pad"});
  set_ints(bad, "squeeze_dims", {1});
  EXPECT_NE(error_of(write("bad.pb", g)).find("squeezes dim 1 of [1,9,11,16], which is not 1"), std::string::npos)
      << error_of(write("bad.pb", g));
}

TEST_F(TensorFlowFrontend, NchwGraphsGiveOnnxsOwnConv) {
  tf::GraphDef g;
  placeholder(g, "x", {1, 8, 16, 16});
  constant(g, "w", {3, 3, 8, 4});
  auto& conv = add(g, "conv", "Conv2D", {"x", "w"});
  window_op(conv, {1, 1, 1, 1}, "VALID");
  (*conv.mutable_attr())["data_format"].set_s("NCHW");
  constant(g, "b", {4});
  (*add(g, "bias", "BiasAdd", {"conv", "b"}).mutable_attr())["data_format"].set_s("NCHW");
  add(g, "out", "Relu", {"bias"});
  add(g, "also", "Relu", {"conv"});  // a second reader keeps the bias an Add
  const auto ir = load_tensorflow(write("nchw.pb", g));
  EXPECT_FALSE(node_named(ir, "conv").attrs.contains("data_format"));
  EXPECT_EQ(ir.tensor("conv").shape, (Shape{1, 4, 14, 14}));
  EXPECT_EQ(node_named(ir, "bias").op_type, "Add");
  EXPECT_EQ(ir.tensor(node_named(ir, "bias").inputs[1]).shape, (Shape{4, 1, 1}));
}

TEST_F(TensorFlowFrontend, APlaceholderWithoutAShapeNeedsInputShape) {
  tf::GraphDef g;
  placeholder(g, "x", {}, true);
  add(g, "y", "Relu", {"x"});
  const auto p = write("dynamic.pb", g);
  EXPECT_NE(error_of(p).find("give it with --input_shape"), std::string::npos) << error_of(p);
  EXPECT_EQ(load_tensorflow(p, {{"x:0", {2, 3}}}).tensor("y").shape, (Shape{2, 3}));
  EXPECT_EQ(load_tensorflow(p, {{"x", {4}}}).tensor("y").shape, (Shape{4}));
  EXPECT_NE(error_of(p, {{"image", {1, 2}}}).find("not a Placeholder"), std::string::npos);
}

TEST_F(TensorFlowFrontend, BadGraphsAreErrorsNamingTheNode) {
  const auto with = [&](const std::string& name, const std::function<void(tf::GraphDef&)>& more) {
    tf::GraphDef g;
    placeholder(g, "x", {1, 8, 8, 4});
    more(g);
    return error_of(write(name, g));
  };
  const auto unknown = with("unknown.pb", [](tf::GraphDef& g) { add(g, "roi", "CropAndResize", {"x"}); });
  EXPECT_NE(unknown.find("node 'roi' (CropAndResize)"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("is an op aoe does not read"), std::string::npos) << unknown;

  const auto missing = with("missing.pb", [](tf::GraphDef& g) { add(g, "act", "Relu", {"nothing:0"}); });
  EXPECT_NE(missing.find("node 'act' (Relu)"), std::string::npos) << missing;
  EXPECT_NE(missing.find("has no node 'nothing'"), std::string::npos) << missing;

  const auto cycle = with("cycle.pb", [](tf::GraphDef& g) {
    add(g, "a", "Relu", {"b"});
    add(g, "b", "Relu", {"a"});
  });
  EXPECT_NE(cycle.find("on a cycle"), std::string::npos) << cycle;

  const auto training = with("training.pb", [](tf::GraphDef& g) {
    for (const char* p : {"s", "o", "m", "v"}) constant(g, p, {4});
    add(g, "bn", "FusedBatchNormV3", {"x", "s", "o", "m", "v"});
  });
  EXPECT_NE(training.find("node 'bn' (FusedBatchNormV3)"), std::string::npos) << training;
  EXPECT_NE(training.find("is_training"), std::string::npos) << training;

  const auto channels = with("channels.pb", [](tf::GraphDef& g) {
    constant(g, "w", {3, 3, 3, 8});
    window_op(add(g, "conv", "Conv2D", {"x", "w"}), {1, 1, 1, 1}, "SAME");
  });
  EXPECT_NE(channels.find("node 'conv' (Conv2D)"), std::string::npos) << channels;
  EXPECT_NE(channels.find("channels must split into groups"), std::string::npos) << channels;

  const auto window = with("window.pb", [](tf::GraphDef& g) {
    constant(g, "w", {3, 3, 4, 8});
    window_op(add(g, "conv", "Conv2D", {"x", "w"}), {1, 1 << 30, 1, 1}, "SAME");
  });
  EXPECT_NE(window.find("out of 1..2^20"), std::string::npos) << window;

  const auto second_output = with("port.pb", [](tf::GraphDef& g) { add(g, "act", "Relu", {"x:3"}); });
  EXPECT_NE(second_output.find("output 0 of a node only"), std::string::npos) << second_output;

  tf::GraphDef huge;
  placeholder(huge, "x", {100000000, 100000000});
  add(huge, "y", "Relu", {"x"});
  EXPECT_NE(error_of(write("huge.pb", huge)).find("over 2^40 elements"), std::string::npos);

  const fs::path junk = dir_ / "junk.pb";
  std::ofstream(junk) << "\xff\xff\xff not protobuf";
  EXPECT_NE(error_of(junk).find("cannot parse TensorFlow graph"), std::string::npos) << error_of(junk);
  EXPECT_NE(error_of(dir_ / "absent.pb").find("--model"), std::string::npos);
}

}  // namespace
}  // namespace aoe::host
