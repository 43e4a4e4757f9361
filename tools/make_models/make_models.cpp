// Writes the example ONNX models that the README and the tests use; weights are seeded noise.
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

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

  // Uniform noise in [offset - scale, offset + scale).
  void weight(const std::string& name, const std::vector<int64_t>& dims, float scale, float offset = 0.0f) {
    int64_t count = 1;
    for (auto d : dims) count *= d;
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

  onnx::ModelProto model_;
  Noise noise_;
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
  b.node("Conv", {"x", "conv1_w"}, {"conv1"},
         {attr("kernel_shape", std::vector<int64_t>{3, 3}), attr("pads", std::vector<int64_t>{1, 1, 1, 1}),
          attr("strides", std::vector<int64_t>{1, 1})});
  b.node("BatchNormalization", {"conv1", "bn_scale", "bn_bias", "bn_mean", "bn_var"}, {"bn1"},
         {attr("epsilon", 1e-5f)});
  b.node("Relu", {"bn1"}, {"act1"});
  b.node("Conv", {"act1", "conv2_w", "conv2_b"}, {"conv2"},
         {attr("kernel_shape", std::vector<int64_t>{1, 1}), attr("strides", std::vector<int64_t>{1, 1})});
  b.node("Add", {"conv2", "x"}, {"residual"});
  b.node("Relu", {"residual"}, {"y"});
  return b.model();
}

// Through a temporary file, so an interrupted run never leaves half a model behind.
void write(const onnx::ModelProto& model, const fs::path& path) {
  onnx::checker::check_model(model);
  const fs::path partial = path.string() + ".partial";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    if (!out || !model.SerializeToOstream(&out) || !out.flush())
      throw std::runtime_error("cannot write '" + partial.string() + "'; check that the directory is writable");
  }
  fs::rename(partial, path);
  std::cout << "wrote " << path.string() << '\n';
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << (argc ? argv[0] : "make_models") << " <out_dir>\n"
              << "writes mlp.onnx, bert_ffn.onnx, bert_ffn_dynamic.onnx and conv_block.onnx\n";
    return 2;
  }
  try {
    const fs::path dir = argv[1];
    fs::create_directories(dir);
    write(mlp(), dir / "mlp.onnx");
    write(bert_ffn("bert_ffn", 1), dir / "bert_ffn.onnx");
    write(bert_ffn("bert_ffn_dynamic", "batch"), dir / "bert_ffn_dynamic.onnx");
    write(conv_block(), dir / "conv_block.onnx");
  } catch (const std::exception& e) {
    std::cerr << "make_models: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
