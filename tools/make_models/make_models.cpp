// Writes the example ONNX models that the README, tests and benchmarks use; inline weights are
// seeded noise, external ones zeros.
#include <google/protobuf/text_format.h>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <fstream>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "caffe_models.h"
#include "tensorflow_models.h"

namespace {

namespace fs = std::filesystem;

static_assert(std::endian::native == std::endian::little, "ONNX raw_data is little-endian");

// xorshift64*: the same weights on every platform, which std's distributions do not promise.
class Noise {
 public:
  explicit Noise(uint64_t seed) : state_(seed ? seed : 1) {}

  // Uniform in [-scale, scale).
  float next(float scale) {
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    const uint64_t bits = (state_ * 2685821657736338717ull) >> 40;  // 24 bits
    return scale * (static_cast<float>(bits) / static_cast<float>(1u << 23) - 1.0f);
  }

 private:
  uint64_t state_;
};

// A dim is a size or a symbol such as "batch".
struct Dim {
  Dim(int64_t v) : value(v) {}
  Dim(const char* p) : param(p) {}
  int64_t value = -1;
  std::string param;
};

onnx::AttributeProto attr(const std::string& name, int64_t value) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INT);
  a.set_i(value);
  return a;
}

onnx::AttributeProto attr(const std::string& name, float value) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::FLOAT);
  a.set_f(value);
  return a;
}

onnx::AttributeProto attr(const std::string& name, const std::vector<int64_t>& values) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INTS);
  for (auto v : values) a.add_ints(v);
  return a;
}

class ModelBuilder {
 public:
  ModelBuilder(const std::string& name, int64_t opset, uint64_t seed) : noise_(seed) {
    model_.set_ir_version(onnx::IR_VERSION);
    model_.set_producer_name("aoe make_models");
    auto* import = model_.add_opset_import();
    import->set_domain("");
    import->set_version(opset);
    model_.mutable_graph()->set_name(name);
  }

  void input(const std::string& name, const std::vector<Dim>& dims) {
    describe(model_.mutable_graph()->add_input(), name, dims);
  }
  void output(const std::string& name, const std::vector<Dim>& dims) {
    describe(model_.mutable_graph()->add_output(), name, dims);
  }

  // From here on, weights of at least `min_bytes` are stored as external data in
  // `<graph name>.weights` beside the model, as exporters store big models. That file is
  // written sparse (all zeros), so tens of millions of parameters cost neither build time
  // nor disk; small weights stay inline and keep their noise.
  void external_weights(int64_t min_bytes) { external_min_bytes_ = min_bytes; }

  // Uniform noise in [offset - scale, offset + scale).
  void weight(const std::string& name, const std::vector<int64_t>& dims, float scale, float offset = 0.0f) {
    int64_t count = 1;
    for (auto d : dims) count *= d;
    if (external_min_bytes_ > 0 && count * int64_t{sizeof(float)} >= external_min_bytes_) {
      external(name, dims, count * int64_t{sizeof(float)});
      return;
    }
    std::vector<float> values(static_cast<size_t>(count));
    for (auto& v : values) v = offset + noise_.next(scale);
    constant(name, dims, values);
  }

  void constant(const std::string& name, const std::vector<int64_t>& dims, const std::vector<float>& values) {
    auto* tensor = model_.mutable_graph()->add_initializer();
    tensor->set_name(name);
    tensor->set_data_type(onnx::TensorProto::FLOAT);
    for (auto d : dims) tensor->add_dims(d);
    std::string raw(values.size() * sizeof(float), '\0');
    std::memcpy(raw.data(), values.data(), raw.size());
    tensor->set_raw_data(std::move(raw));
  }

  // A 1-D int64 tensor, such as a Reshape target.
  void ints(const std::string& name, const std::vector<int64_t>& values) {
    auto* tensor = model_.mutable_graph()->add_initializer();
    tensor->set_name(name);
    tensor->set_data_type(onnx::TensorProto::INT64);
    tensor->add_dims(static_cast<int64_t>(values.size()));
    std::string raw(values.size() * sizeof(int64_t), '\0');
    std::memcpy(raw.data(), values.data(), raw.size());
    tensor->set_raw_data(std::move(raw));
  }

  void node(const std::string& op, const std::vector<std::string>& inputs,
            const std::vector<std::string>& outputs, const std::vector<onnx::AttributeProto>& attrs = {}) {
    auto* n = model_.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(outputs.front() + "/" + op);
    for (const auto& in : inputs) n->add_input(in);
    for (const auto& out : outputs) n->add_output(out);
    for (const auto& a : attrs) *n->add_attribute() = a;
  }

  const onnx::ModelProto& model() const { return model_; }

 private:
  static void describe(onnx::ValueInfoProto* value, const std::string& name, const std::vector<Dim>& dims) {
    value->set_name(name);
    auto* type = value->mutable_type()->mutable_tensor_type();
    type->set_elem_type(onnx::TensorProto::FLOAT);
    auto* shape = type->mutable_shape();
    for (const auto& d : dims) {
      auto* dim = shape->add_dim();
      if (d.param.empty()) dim->set_dim_value(d.value);
      else dim->set_dim_param(d.param);
    }
  }

  void external(const std::string& name, const std::vector<int64_t>& dims, int64_t bytes) {
    auto* tensor = model_.mutable_graph()->add_initializer();
    tensor->set_name(name);
    tensor->set_data_type(onnx::TensorProto::FLOAT);
    for (auto d : dims) tensor->add_dims(d);
    tensor->set_data_location(onnx::TensorProto::EXTERNAL);
    const auto entry = [&](const std::string& key, const std::string& value) {
      auto* e = tensor->add_external_data();
      e->set_key(key);
      e->set_value(value);
    };
    entry("location", model_.graph().name() + ".weights");
    entry("offset", std::to_string(external_bytes_));
    entry("length", std::to_string(bytes));
    external_bytes_ += (bytes + 63) / 64 * 64;  // 64-byte aligned, so a loader can map each in place
  }

  onnx::ModelProto model_;
  Noise noise_;
  int64_t external_min_bytes_ = 0;
  int64_t external_bytes_ = 0;
};

float fan_in_scale(int64_t fan_in) { return 1.0f / std::sqrt(static_cast<float>(fan_in)); }

onnx::ModelProto mlp() {
  ModelBuilder b("mlp", 13, 0x6d6c70);
  b.input("x", {8, 256});
  b.output("y", {8, 64});
  b.weight("W1", {256, 512}, fan_in_scale(256));
  b.weight("b1", {512}, 0.1f);
  b.weight("W2", {128, 512}, fan_in_scale(512));  // stored transposed: Gemm uses transB=1
  b.weight("b2", {128}, 0.1f);
  b.weight("W3", {128, 64}, fan_in_scale(128));
  b.node("MatMul", {"x", "W1"}, {"fc1"});
  b.node("Add", {"fc1", "b1"}, {"fc1_bias"});
  b.node("Relu", {"fc1_bias"}, {"act1"});
  b.node("Gemm", {"act1", "W2", "b2"}, {"fc2"}, {attr("transB", int64_t{1})});
  b.node("Relu", {"fc2"}, {"act2"});
  b.node("MatMul", {"act2", "W3"}, {"y"});
  return b.model();
}

// BERT-base sizes: hidden 768, intermediate 3072, sequence 128. GELU is spelled out
// with Erf, the way PyTorch exports it at opset 13.
onnx::ModelProto bert_ffn(const std::string& name, const Dim& batch) {
  ModelBuilder b(name, 13, 0xbe27);
  b.input("tokens", {batch, 128, 768});
  b.output("query", {batch, 128, 768});
  b.output("ffn_out", {batch, 128, 768});
  b.weight("Wq", {768, 768}, fan_in_scale(768));
  b.weight("bq", {768}, 0.1f);
  b.weight("W_in", {768, 3072}, fan_in_scale(768));
  b.weight("b_in", {3072}, 0.1f);
  b.weight("W_out", {3072, 768}, fan_in_scale(3072));
  b.weight("b_out", {768}, 0.1f);
  b.constant("sqrt2", {}, {std::sqrt(2.0f)});
  b.constant("one", {}, {1.0f});
  b.constant("half", {}, {0.5f});

  b.node("MatMul", {"tokens", "Wq"}, {"q_proj"});
  b.node("Add", {"q_proj", "bq"}, {"query"});

  b.node("MatMul", {"tokens", "W_in"}, {"ffn_in"});
  b.node("Add", {"ffn_in", "b_in"}, {"ffn_in_bias"});
  b.node("Div", {"ffn_in_bias", "sqrt2"}, {"gelu_scaled"});
  b.node("Erf", {"gelu_scaled"}, {"gelu_erf"});
  b.node("Add", {"gelu_erf", "one"}, {"gelu_shift"});
  b.node("Mul", {"ffn_in_bias", "gelu_shift"}, {"gelu_mul"});
  b.node("Mul", {"gelu_mul", "half"}, {"gelu"});
  b.node("MatMul", {"gelu", "W_out"}, {"ffn_proj"});
  b.node("Add", {"ffn_proj", "b_out"}, {"ffn_out"});
  return b.model();
}

onnx::ModelProto conv_block() {
  ModelBuilder b("conv_block", 11, 0xc0);
  b.input("x", {1, 64, 56, 56});
  b.output("y", {1, 64, 56, 56});
  b.weight("conv1_w", {64, 64, 3, 3}, fan_in_scale(64 * 9));
  b.weight("bn_scale", {64}, 0.2f, 1.0f);
  b.weight("bn_bias", {64}, 0.1f);
  b.weight("bn_mean", {64}, 0.1f);
  b.weight("bn_var", {64}, 0.4f, 1.0f);  // stays positive
  b.weight("conv2_w", {64, 64, 1, 1}, fan_in_scale(64));
  b.weight("conv2_b", {64}, 0.1f);
  // Every Conv attribute written out, as PyTorch exports them (and the Caffe frontend reads them).
  b.node("Conv", {"x", "conv1_w"}, {"conv1"},
         {attr("dilations", std::vector<int64_t>{1, 1}), attr("group", int64_t{1}),
          attr("kernel_shape", std::vector<int64_t>{3, 3}), attr("pads", std::vector<int64_t>{1, 1, 1, 1}),
          attr("strides", std::vector<int64_t>{1, 1})});
  b.node("BatchNormalization", {"conv1", "bn_scale", "bn_bias", "bn_mean", "bn_var"}, {"bn1"},
         {attr("epsilon", 1e-5f)});
  b.node("Relu", {"bn1"}, {"act1"});
  b.node("Conv", {"act1", "conv2_w", "conv2_b"}, {"conv2"},
         {attr("dilations", std::vector<int64_t>{1, 1}), attr("group", int64_t{1}),
          attr("kernel_shape", std::vector<int64_t>{1, 1}), attr("pads", std::vector<int64_t>{0, 0, 0, 0}),
          attr("strides", std::vector<int64_t>{1, 1})});
  b.node("Add", {"conv2", "x"}, {"residual"});
  b.node("Relu", {"residual"}, {"y"});
  return b.model();
}

// ---- real architectures -------------------------------------------------------------------

// Weights of 64 KiB and more go to external data: the big conv, MatMul and Gemm weights. BN
// parameters, biases, depthwise kernels and the smallest convs stay inline.
constexpr int64_t kExternalMinBytes = 64 * 1024;

using Ints = std::vector<int64_t>;

// A bias-free Conv, as torchvision builds convs that a BatchNormalization follows.
std::string conv(ModelBuilder& b, const std::string& name, const std::string& in, int64_t cin, int64_t cout,
                 int64_t kernel, int64_t stride, int64_t group = 1) {
  b.weight(name + ".weight", {cout, cin / group, kernel, kernel}, fan_in_scale(cin / group * kernel * kernel));
  const int64_t pad = kernel / 2;
  std::vector<onnx::AttributeProto> attrs = {attr("kernel_shape", Ints{kernel, kernel}),
                                             attr("pads", Ints{pad, pad, pad, pad}),
                                             attr("strides", Ints{stride, stride})};
  if (group != 1) attrs.push_back(attr("group", group));
  b.node("Conv", {in, name + ".weight"}, {name}, attrs);
  return name;
}

std::string batch_norm(ModelBuilder& b, const std::string& name, const std::string& in, int64_t channels) {
  b.weight(name + ".weight", {channels}, 0.2f, 1.0f);
  b.weight(name + ".bias", {channels}, 0.1f);
  b.weight(name + ".running_mean", {channels}, 0.1f);
  b.weight(name + ".running_var", {channels}, 0.4f, 1.0f);  // stays positive
  b.node("BatchNormalization",
         {in, name + ".weight", name + ".bias", name + ".running_mean", name + ".running_var"}, {name},
         {attr("epsilon", 1e-5f)});
  return name;
}

std::string relu(ModelBuilder& b, const std::string& name, const std::string& in) {
  b.node("Relu", {in}, {name});
  return name;
}

// Flatten then a fully connected layer, its weight stored [out, in] as PyTorch keeps it.
std::string classifier(ModelBuilder& b, const std::string& name, const std::string& pooled, int64_t features,
                       int64_t classes, const std::string& out) {
  b.node("Flatten", {pooled}, {name + "/flatten"}, {attr("axis", int64_t{1})});
  b.weight(name + ".weight", {classes, features}, fan_in_scale(features));
  b.weight(name + ".bias", {classes}, 0.1f);
  b.node("Gemm", {name + "/flatten", name + ".weight", name + ".bias"}, {out},
         {attr("alpha", 1.0f), attr("beta", 1.0f), attr("transB", int64_t{1})});
  return out;
}

// torchvision's ResNet-50 v1.5: the stride sits on the 3x3 conv of a bottleneck, and the
// first block of each stage projects its shortcut with a strided 1x1 conv. BatchNormalization
// stays a node of its own, as an export without constant folding leaves it.
onnx::ModelProto resnet50() {
  ModelBuilder b("resnet50", 13, 0x7e550);
  b.external_weights(kExternalMinBytes);
  b.input("input", {1, 3, 224, 224});
  b.output("logits", {1, 1000});

  std::string x = relu(b, "relu", batch_norm(b, "bn1", conv(b, "conv1", "input", 3, 64, 7, 2), 64));
  b.node("MaxPool", {x}, {"maxpool"},
         {attr("kernel_shape", Ints{3, 3}), attr("pads", Ints{1, 1, 1, 1}), attr("strides", Ints{2, 2})});
  x = "maxpool";

  struct Stage { int64_t width, blocks, stride; };
  const Stage stages[] = {{64, 3, 1}, {128, 4, 2}, {256, 6, 2}, {512, 3, 2}};
  int64_t channels = 64;
  for (int s = 0; s < 4; ++s) {
    const auto [width, blocks, stage_stride] = stages[s];
    for (int64_t i = 0; i < blocks; ++i) {
      const std::string p = "layer" + std::to_string(s + 1) + "." + std::to_string(i) + "/";
      const int64_t stride = i == 0 ? stage_stride : 1;
      const int64_t out = width * 4;
      std::string y = relu(b, p + "relu1", batch_norm(b, p + "bn1", conv(b, p + "conv1", x, channels, width, 1, 1), width));
      y = relu(b, p + "relu2", batch_norm(b, p + "bn2", conv(b, p + "conv2", y, width, width, 3, stride), width));
      y = batch_norm(b, p + "bn3", conv(b, p + "conv3", y, width, out, 1, 1), out);
      const std::string shortcut =
          i == 0 ? batch_norm(b, p + "downsample.1", conv(b, p + "downsample.0", x, channels, out, 1, stride), out) : x;
      b.node("Add", {y, shortcut}, {p + "add"});
      x = relu(b, p + "relu3", p + "add");
      channels = out;
    }
  }
  b.node("GlobalAveragePool", {x}, {"avgpool"});
  classifier(b, "fc", "avgpool", 2048, 1000, "logits");
  return b.model();
}

// BERT-base has 12 encoder layers; two keep the file and a tuning run small while every
// op signature of a layer is there (the layers are identical, so more only repeats tasks).
// bert_layer has one: a second model that shares its blocks with bert_base.
// bert_encoder12 has all twelve, for gradient communication, where their sizes matter.
constexpr int kBertLayers = 2;
constexpr int kBertBaseLayers = 12;

// LayerNorm decomposed the way PyTorch exports it at opset 13 (LayerNormalization is an
// opset 17 op): mean, centre, mean of squares, epsilon, sqrt, divide, scale, shift.
std::string layer_norm(ModelBuilder& b, const std::string& p, const std::string& in, int64_t hidden) {
  b.weight(p + ".weight", {hidden}, 0.2f, 1.0f);
  b.weight(p + ".bias", {hidden}, 0.1f);
  const auto last_axis = attr("axes", Ints{-1});
  b.node("ReduceMean", {in}, {p + "/mean"}, {last_axis});
  b.node("Sub", {in, p + "/mean"}, {p + "/centred"});
  b.node("Pow", {p + "/centred", "two"}, {p + "/squared"});
  b.node("ReduceMean", {p + "/squared"}, {p + "/variance"}, {last_axis});
  b.node("Add", {p + "/variance", "layer_norm_eps"}, {p + "/variance_eps"});
  b.node("Sqrt", {p + "/variance_eps"}, {p + "/stddev"});
  b.node("Div", {p + "/centred", p + "/stddev"}, {p + "/normed"});
  b.node("Mul", {p + "/normed", p + ".weight"}, {p + "/scaled"});
  b.node("Add", {p + "/scaled", p + ".bias"}, {p});
  return p;
}

std::string linear(ModelBuilder& b, const std::string& p, const std::string& in, int64_t fan_in, int64_t fan_out) {
  b.weight(p + ".weight", {fan_in, fan_out}, fan_in_scale(fan_in));  // stored [in, out], as exported
  b.weight(p + ".bias", {fan_out}, 0.1f);
  b.node("MatMul", {in, p + ".weight"}, {p + "/matmul"});
  b.node("Add", {p + "/matmul", p + ".bias"}, {p});
  return p;
}

// The encoder of BERT-base at batch 1, sequence 128: the input is the embeddings' output and
// the mask is already additive (0 to attend, -10000 to mask) and broadcast over heads and rows.
onnx::ModelProto bert_encoder(const std::string& name, int layers) {
  constexpr int64_t seq = 128, hidden = 768, heads = 12, head_dim = hidden / heads, ffn = 3072;
  ModelBuilder b(name, 13, 0xbe27ba5e);
  b.external_weights(kExternalMinBytes);
  b.input("hidden_states", {1, seq, hidden});
  b.input("attention_mask", {1, 1, 1, seq});
  // 0 keeps the input's dim, so a copy whose batch is symbolic runs at any batch.
  b.ints("heads_shape", {0, seq, heads, head_dim});
  b.ints("hidden_shape", {0, seq, hidden});
  b.constant("head_dim_sqrt", {}, {std::sqrt(static_cast<float>(head_dim))});
  b.constant("two", {}, {2.0f});
  b.constant("layer_norm_eps", {}, {1e-12f});
  b.constant("sqrt2", {}, {std::sqrt(2.0f)});
  b.constant("one", {}, {1.0f});
  b.constant("half", {}, {0.5f});

  std::string x = "hidden_states";
  for (int layer = 0; layer < layers; ++layer) {
    const std::string p = "encoder.layer." + std::to_string(layer) + "/";
    // [1, seq, hidden] -> [1, heads, seq, head_dim]; keys go to [1, heads, head_dim, seq].
    const auto to_heads = [&](const std::string& name, const Ints& perm) {
      const std::string proj = linear(b, p + "attention.self." + name, x, hidden, hidden);
      b.node("Reshape", {proj, "heads_shape"}, {proj + "/heads"});
      b.node("Transpose", {proj + "/heads"}, {proj + "/transposed"}, {attr("perm", perm)});
      return proj + "/transposed";
    };
    const std::string q = to_heads("query", {0, 2, 1, 3});
    const std::string k = to_heads("key", {0, 2, 3, 1});
    const std::string v = to_heads("value", {0, 2, 1, 3});
    const std::string a = p + "attention.self/";
    b.node("MatMul", {q, k}, {a + "scores"});
    b.node("Div", {a + "scores", "head_dim_sqrt"}, {a + "scaled"});
    b.node("Add", {a + "scaled", "attention_mask"}, {a + "masked"});
    b.node("Softmax", {a + "masked"}, {a + "probs"}, {attr("axis", int64_t{-1})});
    b.node("MatMul", {a + "probs", v}, {a + "context"});
    b.node("Transpose", {a + "context"}, {a + "context_transposed"}, {attr("perm", Ints{0, 2, 1, 3})});
    b.node("Reshape", {a + "context_transposed", "hidden_shape"}, {a + "context_merged"});
    const std::string attn = linear(b, p + "attention.output.dense", a + "context_merged", hidden, hidden);
    b.node("Add", {attn, x}, {p + "attention.output/residual"});
    x = layer_norm(b, p + "attention.output.LayerNorm", p + "attention.output/residual", hidden);

    const std::string up = linear(b, p + "intermediate.dense", x, hidden, ffn);
    const std::string g = p + "intermediate/gelu";  // x * 0.5 * (1 + erf(x / sqrt 2))
    b.node("Div", {up, "sqrt2"}, {g + "/scaled"});
    b.node("Erf", {g + "/scaled"}, {g + "/erf"});
    b.node("Add", {g + "/erf", "one"}, {g + "/shifted"});
    b.node("Mul", {up, g + "/shifted"}, {g + "/mul"});
    b.node("Mul", {g + "/mul", "half"}, {g});
    const std::string down = linear(b, p + "output.dense", g, ffn, hidden);
    b.node("Add", {down, x}, {p + "output/residual"});
    x = layer_norm(b, p + "output.LayerNorm", p + "output/residual", hidden);
  }
  b.output(x, {1, seq, hidden});
  return b.model();
}

// Relu6 as opset 11 exports it: Clip with its bounds as constant inputs.
std::string relu6(ModelBuilder& b, const std::string& name, const std::string& in) {
  b.node("Clip", {in, "relu6_min", "relu6_max"}, {name});
  return name;
}

std::string conv_bn_relu6(ModelBuilder& b, const std::string& p, const std::string& in, int64_t cin, int64_t cout,
                          int64_t kernel, int64_t stride, int64_t group = 1) {
  return relu6(b, p + "/relu6", batch_norm(b, p + ".1", conv(b, p + ".0", in, cin, cout, kernel, stride, group), cout));
}

// torchvision's MobileNetV2 1.0 at 224x224: inverted residual blocks (expand 1x1, depthwise
// 3x3, linear project 1x1), the shortcut only where stride 1 keeps the channels.
onnx::ModelProto mobilenet_v2() {
  ModelBuilder b("mobilenet_v2", 11, 0x30b11e);
  b.external_weights(kExternalMinBytes);
  b.input("input", {1, 3, 224, 224});
  b.output("logits", {1, 1000});
  b.constant("relu6_min", {}, {0.0f});
  b.constant("relu6_max", {}, {6.0f});

  std::string x = conv_bn_relu6(b, "features.0", "input", 3, 32, 3, 2);
  struct Setting { int64_t expand, channels, blocks, stride; };
  const Setting settings[] = {{1, 16, 1, 1},  {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                              {6, 96, 3, 1},  {6, 160, 3, 2}, {6, 320, 1, 1}};
  int64_t channels = 32;
  int feature = 1;
  for (const auto& [expand, out, blocks, first_stride] : settings) {
    for (int64_t i = 0; i < blocks; ++i, ++feature) {
      const std::string p = "features." + std::to_string(feature) + ".conv";
      const int64_t stride = i == 0 ? first_stride : 1;
      const int64_t hidden = channels * expand;
      std::string y = x;
      int part = 0;
      if (expand != 1) y = conv_bn_relu6(b, p + "." + std::to_string(part++), y, channels, hidden, 1, 1);
      y = conv_bn_relu6(b, p + "." + std::to_string(part++), y, hidden, hidden, 3, stride, hidden);
      y = batch_norm(b, p + "." + std::to_string(part + 1),
                     conv(b, p + "." + std::to_string(part), y, hidden, out, 1, 1), out);
      if (stride == 1 && channels == out) {
        b.node("Add", {y, x}, {p + "/add"});
        y = p + "/add";
      }
      x = y;
      channels = out;
    }
  }
  x = conv_bn_relu6(b, "features." + std::to_string(feature), x, channels, 1280, 1, 1);
  b.node("GlobalAveragePool", {x}, {"avgpool"});
  classifier(b, "classifier.1", "avgpool", 1280, 1000, "logits");
  return b.model();
}

std::string hard_swish(ModelBuilder& b, const std::string& name, const std::string& in) {
  b.node("HardSwish", {in}, {name});
  return name;
}

// Conv + BatchNormalization (folded by the fuser) + an activation.
std::string conv_bn_act(ModelBuilder& b, const std::string& p, const std::string& in, int64_t cin, int64_t cout,
                        int64_t kernel, int64_t stride, const std::string& act, int64_t group = 1) {
  const std::string y = batch_norm(b, p + ".bn", conv(b, p + ".conv", in, cin, cout, kernel, stride, group), cout);
  if (act == "hardswish") return hard_swish(b, p + "/hardswish", y);
  if (act == "relu6") return relu6(b, p + "/relu6", y);
  return relu(b, p + "/relu", y);
}

// Depthwise 3x3 then pointwise 1x1, each with BN and an activation: PP-LCNet's block.
std::string depthwise_separable(ModelBuilder& b, const std::string& p, const std::string& in, int64_t cin,
                                int64_t cout, int64_t stride, const std::string& act) {
  const std::string dw = conv_bn_act(b, p + ".dw", in, cin, cin, 3, stride, act, cin);
  return conv_bn_act(b, p + ".pw", dw, cin, cout, 1, 1, act);
}

// Resize by a whole factor on H and W (opset 13 on: X, roi left out, scales).
std::string upsample(ModelBuilder& b, const std::string& name, const std::string& in, float factor,
                     const std::string& mode) {
  b.constant(name + ".scales", {4}, {1.0f, 1.0f, factor, factor});
  onnx::AttributeProto m;
  m.set_name("mode");
  m.set_type(onnx::AttributeProto::STRING);
  m.set_s(mode);
  b.node("Resize", {in, "", name + ".scales"}, {name}, {m});
  return name;
}

// A 2x2 stride-2 ConvTranspose with bias: the DB head's upsampling.
std::string deconv(ModelBuilder& b, const std::string& name, const std::string& in, int64_t cin, int64_t cout) {
  b.weight(name + ".weight", {cin, cout, 2, 2}, fan_in_scale(cin * 4));
  b.weight(name + ".bias", {cout}, 0.1f);
  b.node("ConvTranspose", {in, name + ".weight", name + ".bias"}, {name},
         {attr("kernel_shape", Ints{2, 2}), attr("strides", Ints{2, 2})});
  return name;
}

// A small PP-OCR-style text detector (DBNet): a depthwise-separable
// backbone with HardSwish, an FPN neck that upsamples (Resize nearest and
// linear), adds and concatenates, and a DB head of ConvTransposes with a
// BatchNormalization no Conv folds, ending in a Sigmoid probability map.
onnx::ModelProto ocr_det() {
  ModelBuilder b("ocr_det", 14, 0x0c7de7);
  b.input("image", {1, 3, 160, 160});
  b.output("prob", {1, 1, 160, 160});
  b.constant("relu6_min", {}, {0.0f});
  b.constant("relu6_max", {}, {6.0f});
  std::string x = conv_bn_act(b, "stem", "image", 3, 16, 3, 2, "hardswish");   // 80
  const std::string c2 = depthwise_separable(b, "stage2", x, 16, 24, 2, "hardswish");  // 40
  const std::string c3 = depthwise_separable(b, "stage3", c2, 24, 32, 2, "hardswish");  // 20
  const std::string c4 = depthwise_separable(b, "stage4", c3, 32, 48, 2, "relu6");  // 10
  const std::string in2 = conv(b, "neck.in2", c2, 24, 24, 1, 1);
  const std::string in3 = conv(b, "neck.in3", c3, 32, 24, 1, 1);
  const std::string in4 = conv(b, "neck.in4", c4, 48, 24, 1, 1);
  b.node("Add", {in3, upsample(b, "neck.up4", in4, 2.0f, "nearest")}, {"neck.p3"});
  b.node("Add", {in2, upsample(b, "neck.up3", "neck.p3", 2.0f, "nearest")}, {"neck.p2"});
  const std::string p3 = upsample(b, "neck.p3_up", "neck.p3", 2.0f, "linear");
  const std::string p4 = upsample(b, "neck.p4_up", in4, 4.0f, "nearest");
  b.node("Concat", {"neck.p2", p3, p4}, {"neck.fuse"}, {attr("axis", int64_t{1})});
  x = relu(b, "neck/relu", batch_norm(b, "neck.bn", "neck.fuse", 72));
  x = conv_bn_act(b, "head.conv", x, 72, 18, 3, 1, "relu");  // 40
  x = relu(b, "head.up1/relu", batch_norm(b, "head.up1.bn", deconv(b, "head.up1", x, 18, 18), 18));  // 80
  b.node("Sigmoid", {deconv(b, "head.up2", x, 18, 1)}, {"prob"});  // 160
  return b.model();
}

// A small PP-OCR-style text direction classifier: depthwise-separable
// blocks with HardSwish and Relu6, a squeeze-excite gate (HardSigmoid), a
// channel split and swapped concat, a mean over the map and a Gemm.
onnx::ModelProto ocr_cls() {
  ModelBuilder b("ocr_cls", 14, 0x0c7c15);
  b.input("image", {1, 3, 48, 192});
  b.output("probs", {1, 2});
  b.constant("relu6_min", {}, {0.0f});
  b.constant("relu6_max", {}, {6.0f});
  std::string x = conv_bn_act(b, "stem", "image", 3, 16, 3, 2, "hardswish");  // 24 x 96
  x = conv_bn_act(b, "block1.dw", x, 16, 16, 3, 1, "relu6", 16);
  b.node("GlobalAveragePool", {x}, {"se.pool"});
  b.weight("se.fc1.weight", {4, 16, 1, 1}, fan_in_scale(16));
  b.node("Conv", {"se.pool", "se.fc1.weight"}, {"se.fc1"});
  b.weight("se.fc2.weight", {16, 4, 1, 1}, fan_in_scale(4));
  b.node("Conv", {relu(b, "se/relu", "se.fc1"), "se.fc2.weight"}, {"se.fc2"});
  b.node("HardSigmoid", {"se.fc2"}, {"se.gate"}, {attr("alpha", 0.2f), attr("beta", 0.5f)});
  b.node("Mul", {x, "se.gate"}, {"se.out"});
  x = conv_bn_act(b, "block1.pw", "se.out", 16, 32, 1, 1, "hardswish");
  b.ints("shuffle.split", {16, 16});
  b.node("Split", {x, "shuffle.split"}, {"shuffle.a", "shuffle.b"}, {attr("axis", int64_t{1})});
  b.node("Concat", {"shuffle.b", "shuffle.a"}, {"shuffle"}, {attr("axis", int64_t{1})});
  x = depthwise_separable(b, "block2", "shuffle", 32, 64, 2, "hardswish");  // 12 x 48
  b.node("ReduceMean", {x}, {"pool"}, {attr("axes", Ints{2, 3}), attr("keepdims", int64_t{0})});
  b.weight("fc.weight", {2, 64}, fan_in_scale(64));
  b.weight("fc.bias", {2}, 0.1f);
  b.node("Gemm", {"pool", "fc.weight", "fc.bias"}, {"logits"}, {attr("transB", int64_t{1})});
  b.node("Softmax", {"logits"}, {"probs"}, {attr("axis", int64_t{1})});
  return b.model();
}

// Through a temporary file, so an interrupted run never leaves half a file behind.
void replace_with(const fs::path& path, const std::function<void(std::ofstream&)>& fill,
                  const std::function<void(const fs::path&)>& check = {}) {
  const fs::path partial = path.string() + ".partial";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    if (out) fill(out);
    if (!out || !out.flush())
      throw std::runtime_error("cannot write '" + partial.string() + "'; check that the directory is writable");
  }
  if (check) check(partial);
  fs::rename(partial, path);
}

// The size of each external data file the model points at.
std::map<std::string, int64_t> external_files(const onnx::ModelProto& model) {
  std::map<std::string, int64_t> files;
  for (const auto& tensor : model.graph().initializer()) {
    if (tensor.data_location() != onnx::TensorProto::EXTERNAL) continue;
    std::map<std::string, std::string> entries;
    for (const auto& e : tensor.external_data()) entries[e.key()] = e.value();
    auto& size = files[entries.at("location")];
    size = std::max<int64_t>(size, std::stoll(entries.at("offset")) + std::stoll(entries.at("length")));
  }
  return files;
}

void write(const onnx::ModelProto& model, const fs::path& path) {
  const auto weights = external_files(model);
  // A hole up to the last byte: the size is right, the data reads as zeros, nothing is stored.
  for (const auto& [location, size] : weights)
    replace_with(path.parent_path() / location, [size = size](std::ofstream& out) {
      out.seekp(size - 1);
      out.put('\0');
    });
  // The checker finds external data only from the model's path, so those models are checked on
  // disk, beside their weights, before they take the final name.
  if (weights.empty()) onnx::checker::check_model(model);
  replace_with(
      path, [&](std::ofstream& out) { if (!model.SerializeToOstream(&out)) out.setstate(std::ios::failbit); },
      [&](const fs::path& written) { if (!weights.empty()) onnx::checker::check_model(written.string()); });
  std::cout << "wrote " << path.string() << '\n';
}

// A Caffe network as a prototxt (text) or a caffemodel (binary).
void write_caffe(const aoe::caffe::NetParameter& net, const fs::path& path, bool binary) {
  replace_with(path, [&](std::ofstream& out) {
    std::string bytes;
    const bool ok = binary ? net.SerializeToString(&bytes) : google::protobuf::TextFormat::PrintToString(net, &bytes);
    if (!ok) out.setstate(std::ios::failbit);
    out << bytes;
  });
  std::cout << "wrote " << path.string() << '\n';
}

// A TensorFlow frozen graph, binary as TensorFlow writes it.
void write_tensorflow(const aoe::tensorflow::GraphDef& graph, const fs::path& path) {
  replace_with(path, [&](std::ofstream& out) {
    if (!graph.SerializeToOstream(&out)) out.setstate(std::ios::failbit);
  });
  std::cout << "wrote " << path.string() << '\n';
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << (argc ? argv[0] : "make_models") << " <out_dir>\n"
              << "writes mlp.onnx, bert_ffn.onnx, bert_ffn_dynamic.onnx, conv_block.onnx, and resnet50.onnx,\n"
              << "bert_base.onnx, bert_layer.onnx, bert_encoder12.onnx and mobilenet_v2.onnx with their weights\n"
              << "(ocr_det.onnx and ocr_cls.onnx, PP-OCR-style detector and classifier, inline)\n"
              << "as external data in\n"
              << "<model>.weights; Caffe's conv_block and mlp (.prototxt, .caffemodel) and resnet50.prototxt;\n"
              << "and TensorFlow's conv_block.pb and mlp.pb (frozen graphs, NHWC)\n";
    return 2;
  }
  try {
    const fs::path dir = argv[1];
    fs::create_directories(dir);
    write(mlp(), dir / "mlp.onnx");
    write(bert_ffn("bert_ffn", 1), dir / "bert_ffn.onnx");
    write(bert_ffn("bert_ffn_dynamic", "batch"), dir / "bert_ffn_dynamic.onnx");
    write(conv_block(), dir / "conv_block.onnx");
    write(resnet50(), dir / "resnet50.onnx");
    write(bert_encoder("bert_base", kBertLayers), dir / "bert_base.onnx");
    write(bert_encoder("bert_layer", 1), dir / "bert_layer.onnx");
    write(bert_encoder("bert_encoder12", kBertBaseLayers), dir / "bert_encoder12.onnx");
    write(mobilenet_v2(), dir / "mobilenet_v2.onnx");
    write(ocr_det(), dir / "ocr_det.onnx");
    write(ocr_cls(), dir / "ocr_cls.onnx");
    write_caffe(aoe::models::conv_block_caffe(false), dir / "conv_block.prototxt", false);
    write_caffe(aoe::models::conv_block_caffe(true), dir / "conv_block.caffemodel", true);
    write_caffe(aoe::models::mlp_caffe(false), dir / "mlp.prototxt", false);
    write_caffe(aoe::models::mlp_caffe(true), dir / "mlp.caffemodel", true);
    write_caffe(aoe::models::resnet50_caffe(), dir / "resnet50.prototxt", false);
    write_tensorflow(aoe::models::conv_block_tensorflow(), dir / "conv_block.pb");
    write_tensorflow(aoe::models::mlp_tensorflow(), dir / "mlp.pb");
  } catch (const std::exception& e) {
    std::cerr << "make_models: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
