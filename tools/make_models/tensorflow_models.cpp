#include "tensorflow_models.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace aoe::models {
namespace {

namespace tf = aoe::tensorflow;
using Dims = std::vector<int64_t>;

static_assert(std::endian::native == std::endian::little, "TensorProto tensor_content is little-endian");

tf::NodeDef& node(tf::GraphDef& g, const std::string& name, const std::string& op, const std::vector<std::string>& inputs) {
  auto* n = g.add_node();
  n->set_name(name);
  n->set_op(op);
  for (const auto& i : inputs) n->add_input(i);
  return *n;
}

void set_type(tf::NodeDef& n, const std::string& key = "T") { (*n.mutable_attr())[key].set_type(tf::DT_FLOAT); }
void set_string(tf::NodeDef& n, const std::string& key, const std::string& value) { (*n.mutable_attr())[key].set_s(value); }
void set_ints(tf::NodeDef& n, const std::string& key, const Dims& values) {
  for (int64_t v : values) (*n.mutable_attr())[key].mutable_list()->add_i(v);
}

// Small deterministic values, as raw bytes the way TensorFlow stores big constants.
void weight(tf::GraphDef& g, const std::string& name, const Dims& dims, float scale, float offset = 0.0f) {
  auto& n = node(g, name, "Const", {});
  (*n.mutable_attr())["dtype"].set_type(tf::DT_FLOAT);
  auto* t = (*n.mutable_attr())["value"].mutable_tensor();
  t->set_dtype(tf::DT_FLOAT);
  int64_t count = 1;
  for (int64_t d : dims) t->mutable_tensor_shape()->add_dim()->set_size(d), count *= d;
  std::vector<float> values(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) values[static_cast<size_t>(i)] = offset + scale * static_cast<float>((i * 7919) % 201 - 100) / 100.0f;
  t->set_tensor_content(std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
}

void placeholder(tf::GraphDef& g, const std::string& name, const Dims& dims) {
  auto& n = node(g, name, "Placeholder", {});
  (*n.mutable_attr())["dtype"].set_type(tf::DT_FLOAT);
  auto* shape = (*n.mutable_attr())["shape"].mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_size(d);
}

void conv2d(tf::GraphDef& g, const std::string& name, const std::string& in, const std::string& filter, const std::string& padding) {
  auto& n = node(g, name, "Conv2D", {in, filter});
  set_type(n);
  set_ints(n, "strides", {1, 1, 1, 1});
  set_ints(n, "dilations", {1, 1, 1, 1});
  set_string(n, "padding", padding);
  set_string(n, "data_format", "NHWC");
  (*n.mutable_attr())["use_cudnn_on_gpu"].set_b(true);
}

void versions(tf::GraphDef& g) { g.mutable_versions()->set_producer(1286); }

}  // namespace

tf::GraphDef conv_block_tensorflow() {
  tf::GraphDef g;
  versions(g);
  placeholder(g, "x", {1, 56, 56, 64});
  weight(g, "conv1/kernel", {3, 3, 64, 64}, 0.04f);
  set_type(node(g, "conv1/kernel/read", "Identity", {"conv1/kernel"}));
  conv2d(g, "conv1", "x", "conv1/kernel/read", "SAME");
  weight(g, "bn1/gamma", {64}, 0.2f, 1.0f);
  weight(g, "bn1/beta", {64}, 0.1f);
  weight(g, "bn1/moving_mean", {64}, 0.1f);
  weight(g, "bn1/moving_variance", {64}, 0.4f, 1.0f);
  auto& bn = node(g, "bn1", "FusedBatchNormV3", {"conv1", "bn1/gamma", "bn1/beta", "bn1/moving_mean", "bn1/moving_variance"});
  set_type(bn);
  (*bn.mutable_attr())["U"].set_type(tf::DT_FLOAT);
  (*bn.mutable_attr())["epsilon"].set_f(1e-5f);
  (*bn.mutable_attr())["is_training"].set_b(false);
  set_string(bn, "data_format", "NHWC");
  set_type(node(g, "act1", "Relu", {"bn1"}));
  weight(g, "conv2/kernel", {1, 1, 64, 64}, 0.12f);
  conv2d(g, "conv2", "act1", "conv2/kernel", "VALID");
  weight(g, "conv2/bias", {64}, 0.1f);
  auto& bias = node(g, "conv2/BiasAdd", "BiasAdd", {"conv2", "conv2/bias"});
  set_type(bias);
  set_string(bias, "data_format", "NHWC");
  set_type(node(g, "residual", "AddV2", {"conv2/BiasAdd", "x"}));
  set_type(node(g, "y", "Relu", {"residual"}));
  return g;
}

tf::GraphDef mlp_tensorflow() {
  tf::GraphDef g;
  versions(g);
  placeholder(g, "x", {8, 256});
  const auto dense = [&](const std::string& name, const std::string& in, const Dims& w, bool transposed, bool bias,
                         const std::string& out) {
    weight(g, name + "/W", w, 0.06f);
    auto& mm = node(g, bias ? name : out, "MatMul", {in, name + "/W"});
    set_type(mm);
    (*mm.mutable_attr())["transpose_a"].set_b(false);
    (*mm.mutable_attr())["transpose_b"].set_b(transposed);
    if (!bias) return;
    const int64_t outputs = transposed ? w[0] : w[1];
    weight(g, name + "/b", {outputs}, 0.1f);
    auto& b = node(g, name + "/BiasAdd", "BiasAdd", {name, name + "/b"});
    set_type(b);
    set_string(b, "data_format", "NHWC");
    set_type(node(g, out, "Relu", {name + "/BiasAdd"}));
  };
  dense("fc1", "x", {256, 512}, false, true, "act1");
  dense("fc2", "act1", {128, 512}, true, true, "act2");
  dense("fc3", "act2", {128, 64}, false, false, "y");
  return g;
}

}  // namespace aoe::models
