#include "caffe_models.h"

#include <cstdint>
#include <string>
#include <vector>

namespace aoe::models {
namespace {

using aoe::caffe::LayerParameter;
using aoe::caffe::NetParameter;
using Dims = std::vector<int64_t>;

// Small deterministic values: the weights only have to be of the right shapes.
void blob(LayerParameter& l, const Dims& dims, bool with_data) {
  auto* b = l.add_blobs();
  int64_t n = 1;
  for (int64_t d : dims) b->mutable_shape()->add_dim(d), n *= d;
  if (!with_data) return;
  for (int64_t i = 0; i < n; ++i) b->add_data(static_cast<float>((i * 7919) % 201 - 100) / 1000.0f);
}

LayerParameter& layer(NetParameter& net, const std::string& name, const std::string& type,
                      const std::vector<std::string>& bottoms, const std::string& top) {
  auto* l = net.add_layer();
  l->set_name(name);
  l->set_type(type);
  for (const auto& b : bottoms) l->add_bottom(b);
  l->add_top(top);
  return *l;
}

void input(NetParameter& net, const std::string& name, const Dims& dims) {
  auto* shape = layer(net, name, "Input", {}, name).mutable_input_param()->add_shape();
  for (int64_t d : dims) shape->add_dim(d);
}

// Weights are blobs of the layer only in a caffemodel; a prototxt has none.
void conv(NetParameter& net, const std::string& name, const std::string& in, int64_t cin, int64_t cout, int64_t kernel,
          int64_t stride, bool bias, bool weights) {
  auto& l = layer(net, name, "Convolution", {in}, name);
  auto* p = l.mutable_convolution_param();
  p->set_num_output(static_cast<uint32_t>(cout));
  p->set_bias_term(bias);
  p->add_kernel_size(static_cast<uint32_t>(kernel));
  if (kernel / 2) p->add_pad(static_cast<uint32_t>(kernel / 2));
  if (stride != 1) p->add_stride(static_cast<uint32_t>(stride));
  if (!weights) return;
  blob(l, {cout, cin, kernel, kernel}, true);
  if (bias) blob(l, {cout}, true);
}

// BatchNorm then Scale, in place on `x`, as Caffe's ResNets have them.
void batch_norm(NetParameter& net, const std::string& name, const std::string& x, int64_t channels, bool weights) {
  auto& bn = layer(net, name, "BatchNorm", {x}, x);
  bn.mutable_batch_norm_param()->set_eps(1e-5f);
  auto& scale = layer(net, name + "_scale", "Scale", {x}, x);
  scale.mutable_scale_param()->set_bias_term(true);
  if (!weights) return;
  blob(bn, {channels}, true);  // the running mean's sum
  auto* variance = bn.add_blobs();  // the running variance's sum: positive, as a variance is
  variance->mutable_shape()->add_dim(channels);
  for (int64_t i = 0; i < channels; ++i) variance->add_data(0.5f + static_cast<float>(i % 7) / 4.0f);
  auto* factor = bn.add_blobs();  // the sums' weight: mean and variance are the sums over it
  factor->mutable_shape()->add_dim(1);
  factor->add_data(2.0f);
  blob(scale, {channels}, true);
  blob(scale, {channels}, true);
}

void relu(NetParameter& net, const std::string& name, const std::string& x) { layer(net, name, "ReLU", {x}, x); }

void inner_product(NetParameter& net, const std::string& name, const std::string& in, int64_t fan_in, int64_t fan_out,
                   bool bias, bool weights) {
  auto& l = layer(net, name, "InnerProduct", {in}, name);
  l.mutable_inner_product_param()->set_num_output(static_cast<uint32_t>(fan_out));
  l.mutable_inner_product_param()->set_bias_term(bias);
  if (!weights) return;
  blob(l, {fan_out, fan_in}, true);
  if (bias) blob(l, {fan_out}, true);
}

}  // namespace

NetParameter conv_block_caffe(bool with_weights) {
  NetParameter net;
  net.set_name("conv_block");
  input(net, "x", {1, 64, 56, 56});
  conv(net, "conv1", "x", 64, 64, 3, 1, false, with_weights);
  batch_norm(net, "bn1", "conv1", 64, with_weights);
  relu(net, "act1", "conv1");
  conv(net, "conv2", "conv1", 64, 64, 1, 1, true, with_weights);
  layer(net, "residual", "Eltwise", {"conv2", "x"}, "residual");
  layer(net, "y", "ReLU", {"residual"}, "y");
  return net;
}

NetParameter mlp_caffe(bool with_weights) {
  NetParameter net;
  net.set_name("mlp");
  input(net, "x", {8, 256});
  inner_product(net, "fc1", "x", 256, 512, true, with_weights);
  relu(net, "act1", "fc1");
  inner_product(net, "fc2", "fc1", 512, 128, true, with_weights);
  relu(net, "act2", "fc2");
  inner_product(net, "fc3", "fc2", 128, 64, false, with_weights);
  return net;
}

NetParameter resnet50_caffe() {
  NetParameter net;
  net.set_name("resnet50");
  input(net, "data", {1, 3, 224, 224});
  conv(net, "conv1", "data", 3, 64, 7, 2, false, false);
  batch_norm(net, "bn_conv1", "conv1", 64, false);
  relu(net, "conv1_relu", "conv1");
  // Caffe rounds pooled sizes up: no padding gives torchvision's 56x56.
  auto& pool = layer(net, "pool1", "Pooling", {"conv1"}, "pool1");
  pool.mutable_pooling_param()->set_kernel_size(3);
  pool.mutable_pooling_param()->set_stride(2);

  struct Stage {
    int64_t width, blocks, stride;
  };
  const Stage stages[] = {{64, 3, 1}, {128, 4, 2}, {256, 6, 2}, {512, 3, 2}};
  std::string x = "pool1";
  int64_t channels = 64;
  for (int s = 0; s < 4; ++s) {
    for (int64_t i = 0; i < stages[s].blocks; ++i) {
      const std::string p = "res" + std::to_string(s + 2) + std::string(1, static_cast<char>('a' + i));
      const int64_t stride = i == 0 ? stages[s].stride : 1, width = stages[s].width, out = width * 4;
      std::string shortcut = x;
      if (i == 0) {
        conv(net, p + "_branch1", x, channels, out, 1, stride, false, false);
        batch_norm(net, "bn" + p.substr(3) + "_branch1", p + "_branch1", out, false);
        shortcut = p + "_branch1";
      }
      conv(net, p + "_branch2a", x, channels, width, 1, 1, false, false);
      batch_norm(net, "bn" + p.substr(3) + "_branch2a", p + "_branch2a", width, false);
      relu(net, p + "_branch2a_relu", p + "_branch2a");
      conv(net, p + "_branch2b", p + "_branch2a", width, width, 3, stride, false, false);
      batch_norm(net, "bn" + p.substr(3) + "_branch2b", p + "_branch2b", width, false);
      relu(net, p + "_branch2b_relu", p + "_branch2b");
      conv(net, p + "_branch2c", p + "_branch2b", width, out, 1, 1, false, false);
      batch_norm(net, "bn" + p.substr(3) + "_branch2c", p + "_branch2c", out, false);
      layer(net, p, "Eltwise", {shortcut, p + "_branch2c"}, p);
      relu(net, p + "_relu", p);
      x = p;
      channels = out;
    }
  }
  auto& pool5 = layer(net, "pool5", "Pooling", {x}, "pool5");
  pool5.mutable_pooling_param()->set_pool(aoe::caffe::PoolingParameter::AVE);
  pool5.mutable_pooling_param()->set_global_pooling(true);
  inner_product(net, "fc1000", "pool5", 2048, 1000, true, false);
  layer(net, "prob", "Softmax", {"fc1000"}, "prob");
  return net;
}

}  // namespace aoe::models
