// The Caffe frontend: each layer becomes the ONNX nodes an exporter would
// write, in an ONNX model built in memory, so one checker and one shape
// inference serve both formats. The weights enter that model as inputs of
// known shape, never with their data: tuning needs their shapes only.
#include "caffe_frontend.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "aoe/sdk/error.h"
#include "caffe.pb.h"
#include "caffe_prior_boxes.h"
#include "model_file.h"
#include "tensor_bounds.h"

namespace aoe::host {
namespace {

namespace fs = std::filesystem;
namespace caffe = aoe::caffe;
using sdk::Error;
using sdk::StatusCode;
using Dims = std::vector<int64_t>;
using Layer = caffe::LayerParameter;

// Softmax takes one axis from opset 13 on, as Caffe's does.
constexpr int64_t kOpset = 13;
// No real network has a window (kernel, stride, pad, dilation) this wide;
// below it, no size arithmetic overflows.
constexpr int64_t kMaxWindow = int64_t{1} << 20;

// ---- reading the files --------------------------------------------------------------------

caffe::NetParameter read_prototxt(const fs::path& path) {
  std::ifstream in = open_model_file(path, "Caffe prototxt", "--model");
  caffe::NetParameter net;
  // Training and solver fields (weight_filler, param, transform_param, ...) say nothing of the shapes.
  if (const std::string error = parse_text_message(net, in, true); !error.empty())
    throw Error(StatusCode::invalid_argument, "cannot read Caffe prototxt " + quoted(path) + ": " + error +
                                                  "; pass the network description (deploy.prototxt) as --model");
  return net;
}

caffe::NetParameter read_caffemodel(const fs::path& path) {
  std::ifstream in = open_model_file(path, "Caffe weights", "--weight");
  caffe::NetParameter net;
  if (!parse_binary_message(net, in))
    throw Error(StatusCode::invalid_argument, "cannot parse Caffe weights " + quoted(path) +
                                                  ": the file is truncated, corrupt or not a caffemodel; pass the "
                                                  ".caffemodel trained with this prototxt as --weight");
  return net;
}

// ---- the layers, in one form ------------------------------------------------------------

const char* v1_type_name(caffe::V1LayerParameter::LayerType type) {
  using T = caffe::V1LayerParameter;
  static const std::map<int, const char*> names = {
      {T::ABSVAL, "AbsVal"},        {T::ACCURACY, "Accuracy"},         {T::ARGMAX, "ArgMax"},
      {T::BNLL, "BNLL"},            {T::CONCAT, "Concat"},             {T::CONTRASTIVE_LOSS, "ContrastiveLoss"},
      {T::CONVOLUTION, "Convolution"}, {T::DATA, "Data"},              {T::DECONVOLUTION, "Deconvolution"},
      {T::DROPOUT, "Dropout"},      {T::DUMMY_DATA, "DummyData"},      {T::EUCLIDEAN_LOSS, "EuclideanLoss"},
      {T::ELTWISE, "Eltwise"},      {T::EXP, "Exp"},                   {T::FLATTEN, "Flatten"},
      {T::HDF5_DATA, "HDF5Data"},   {T::HDF5_OUTPUT, "HDF5Output"},    {T::HINGE_LOSS, "HingeLoss"},
      {T::IM2COL, "Im2col"},        {T::IMAGE_DATA, "ImageData"},      {T::INFOGAIN_LOSS, "InfogainLoss"},
      {T::INNER_PRODUCT, "InnerProduct"}, {T::LRN, "LRN"},             {T::MEMORY_DATA, "MemoryData"},
      {T::MULTINOMIAL_LOGISTIC_LOSS, "MultinomialLogisticLoss"},       {T::MVN, "MVN"},
      {T::POOLING, "Pooling"},      {T::POWER, "Power"},               {T::RELU, "ReLU"},
      {T::SIGMOID, "Sigmoid"},      {T::SIGMOID_CROSS_ENTROPY_LOSS, "SigmoidCrossEntropyLoss"},
      {T::SILENCE, "Silence"},      {T::SOFTMAX, "Softmax"},           {T::SOFTMAX_LOSS, "SoftmaxWithLoss"},
      {T::SPLIT, "Split"},          {T::SLICE, "Slice"},               {T::TANH, "TanH"},
      {T::WINDOW_DATA, "WindowData"}, {T::THRESHOLD, "Threshold"}};
  const auto it = names.find(type);
  return it == names.end() ? "" : it->second;
}

Layer from_v1(const caffe::V1LayerParameter& v1) {
  Layer l;
  l.set_name(v1.name());
  l.set_type(v1_type_name(v1.type()));
  *l.mutable_bottom() = v1.bottom();
  *l.mutable_top() = v1.top();
  *l.mutable_include() = v1.include();
  *l.mutable_exclude() = v1.exclude();
  *l.mutable_blobs() = v1.blobs();
  if (v1.has_concat_param()) *l.mutable_concat_param() = v1.concat_param();
  if (v1.has_convolution_param()) *l.mutable_convolution_param() = v1.convolution_param();
  if (v1.has_dropout_param()) *l.mutable_dropout_param() = v1.dropout_param();
  if (v1.has_eltwise_param()) *l.mutable_eltwise_param() = v1.eltwise_param();
  if (v1.has_inner_product_param()) *l.mutable_inner_product_param() = v1.inner_product_param();
  if (v1.has_lrn_param()) *l.mutable_lrn_param() = v1.lrn_param();
  if (v1.has_pooling_param()) *l.mutable_pooling_param() = v1.pooling_param();
  if (v1.has_relu_param()) *l.mutable_relu_param() = v1.relu_param();
  if (v1.has_softmax_param()) *l.mutable_softmax_param() = v1.softmax_param();
  if (v1.has_exp_param()) *l.mutable_exp_param() = v1.exp_param();
  if (v1.has_power_param()) *l.mutable_power_param() = v1.power_param();
  if (v1.has_slice_param()) *l.mutable_slice_param() = v1.slice_param();
  if (v1.has_threshold_param()) *l.mutable_threshold_param() = v1.threshold_param();
  return l;
}

std::vector<Layer> layers_of(const caffe::NetParameter& net) {
  std::vector<Layer> out(net.layer().begin(), net.layer().end());
  for (const auto& v1 : net.layers()) out.push_back(from_v1(v1));
  return out;
}

// A layer runs in the deployed network unless its rules keep it to training.
bool runs_at_test(const Layer& l) {
  const auto test = [](const caffe::NetStateRule& r) { return !r.has_phase() || r.phase() == caffe::TEST; };
  if (l.include_size() > 0) return std::any_of(l.include().begin(), l.include().end(), test);
  return std::none_of(l.exclude().begin(), l.exclude().end(), test);
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Losses and metrics need labels: a deployed network has none.
bool training_only(const std::string& type) { return ends_with(type, "Loss") || type == "Accuracy" || type == "Silence"; }

bool data_layer(const std::string& type) {
  static const std::set<std::string> types = {"Data",       "ImageData", "MemoryData", "HDF5Data",
                                              "WindowData", "DummyData", "AnnotatedData"};
  return types.count(type) > 0;
}

std::string dims_text(const Dims& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + (dims[i] < 0 ? std::string("?") : std::to_string(dims[i]));
  return s + "]";
}

Dims blob_dims(const caffe::BlobProto& b) {
  if (b.has_shape()) return Dims(b.shape().dim().begin(), b.shape().dim().end());
  return {b.num(), b.channels(), b.height(), b.width()};
}

// The product of the dims, or -1 past kMaxTensorElements; an unknown dim counts 1.
int64_t elements_of(const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d > kMaxTensorElements || (d > 0 && n > kMaxTensorElements / d)) return -1;
    if (d > 0) n *= d;
  }
  return n;
}

// Dims without their 1s: a legacy 4-D blob (1,1,N,K) holds an (N,K) matrix.
Dims squeezed(const Dims& dims) {
  Dims out;
  for (int64_t d : dims)
    if (d != 1) out.push_back(d);
  return out;
}

// ---- the translation --------------------------------------------------------------------

class Translator {
 public:
  Translator(const fs::path& prototxt, const caffe::NetParameter* weights, onnx::GraphProto& graph)
      : path_(prototxt), graph_(graph), checking_(weights != nullptr) {
    if (!weights) return;
    for (const auto& l : weights->layer()) blobs_[l.name()] = &l.blobs();
    for (const auto& l : weights->layers()) blobs_[l.name()] = &l.blobs();
  }

  void input(const std::string& blob, const Dims& dims) {
    const std::string name = define(blob, "", dims);
    auto* value = graph_.add_input();
    value->set_name(name);
    set_type(*value, dims);
  }

  // Translates `l`; true when it took `next` too (a Scale folded into a BatchNorm).
  bool layer(const Layer& l, const Layer* next) {
    const std::string& t = l.type();
    if (t == "Convolution" || t == "Deconvolution") convolution(l, t == "Deconvolution");
    // Forks' depthwise convolutions: one group per channel, whatever `group` says.
    else if (t == "ConvolutionDepthwise" || t == "DepthwiseConvolution") convolution(l, false, true);
    else if (t == "Pooling") pooling(l);
    else if (t == "InnerProduct") inner_product(l);
    else if (t == "ReLU") relu(l);
    else if (t == "PReLU") prelu(l);
    else if (t == "BatchNorm") return batch_norm(l, next);
    else if (t == "Scale") scale(l);
    else if (t == "Eltwise") eltwise(l);
    else if (t == "Concat") concat(l);
    else if (t == "Softmax") softmax(l);
    else if (t == "LRN") lrn(l);
    else if (t == "Flatten") flatten(l);
    else if (t == "Reshape") reshape(l);
    else if (t == "Sigmoid" || t == "TanH" || t == "AbsVal") unary(l, t == "Sigmoid" ? "Sigmoid" : t == "TanH" ? "Tanh" : "Abs");
    else if (t == "BNLL") unary(l, "Softplus");
    else if (t == "ELU") elu(l);
    else if (t == "Clip") clip(l);
    else if (t == "ReLU6") clamp(l, 0.0f, 6.0f);
    else if (t == "ShuffleChannel") shuffle_channel(l);
    else if (t == "Upsample") upsample(l);
    else if (t == "Interp") interp(l);
    else if (t == "Axpy") axpy(l);
    else if (t == "Swish") swish(l);
    else if (t == "Power") power(l);
    else if (t == "Exp" || t == "Log") exp_log(l, t == "Exp");
    else if (t == "Threshold") threshold(l);
    else if (t == "Bias") bias(l);
    else if (t == "Slice") slice(l);
    else if (t == "Crop") crop(l);
    else if (t == "Tile") tile(l);
    else if (t == "Permute") permute(l);
    else if (t == "Normalize") normalize(l);
    else if (t == "PriorBox") prior_box(l);
    else if (t == "DetectionOutput") detection_output(l);
    else if (t == "Dropout" || t == "Split") alias(l);
    else
      fail(l, "has a type aoe does not read; it reads Input, Convolution, Deconvolution, InnerProduct, Pooling, "
              "ReLU, PReLU, ELU, Clip, Swish, BNLL, BatchNorm, Scale, Bias, Eltwise, Concat, Slice, Crop, Tile, Softmax, LRN, "
              "Dropout, Split, Flatten, Reshape, Sigmoid, TanH, AbsVal, Power, Exp, Log and Threshold, and SSD's "
              "Permute, Normalize, PriorBox and DetectionOutput, SENet's Axpy, and the forks' ReLU6, ShuffleChannel, "
              "Upsample, Interp and ConvolutionDepthwise (losses and data layers of training are left out)");
    return false;
  }

  // What no layer reads is what the network gives.
  void finish() {
    for (const auto& name : produced_)
      if (!consumed_.count(name)) {
        auto* value = graph_.add_output();
        value->set_name(name);
        set_type(*value, dims(name));
      }
    if (graph_.output_size() == 0)
      throw Error(StatusCode::invalid_argument, "Caffe prototxt " + quoted(path_) + " has no layer whose output is left over");
  }

  const std::vector<std::string>& weights() const { return weights_; }
  // The caffemodel's values of the weights, by graph name.
  ModelWeights& values() { return values_; }

 private:
  [[noreturn]] void fail(const Layer& l, const std::string& what) const {
    throw Error(StatusCode::invalid_argument,
                "Caffe layer '" + l.name() + "' (" + l.type() + ") of " + quoted(path_) + " " + what);
  }

  // ---- values ----

  // The value holding bottom i now; a layer that reads it consumes it.
  const std::string& bottom(const Layer& l, int i, bool consume = true) {
    if (l.bottom_size() <= i) fail(l, "has " + std::to_string(l.bottom_size()) + " bottoms; it needs " + std::to_string(i + 1));
    const auto it = current_.find(l.bottom(i));
    if (it == current_.end())
      fail(l, "reads bottom '" + l.bottom(i) + "', which no earlier layer or input gives: check the layer order and names");
    if (consume) consumed_.insert(it->second);
    return it->second;
  }

  const Dims& dims(const std::string& value) const { return dims_.at(value); }

  // A name not taken yet: `wanted`, else with the layer's name, else numbered.
  std::string unique(const std::string& wanted, const std::string& layer) {
    std::string name = wanted;
    if (taken_.count(name) && !layer.empty()) name = wanted + "/" + layer;
    for (int i = 2; taken_.count(name); ++i) name = wanted + "/" + std::to_string(i);
    taken_.insert(name);
    return name;
  }

  // Every tensor's element count is checked before any arithmetic on it can overflow.
  void check_size(const std::string& what, const Dims& d) const {
    if (elements_of(d) < 0)
      throw Error(StatusCode::invalid_argument, "Caffe " + what + " of " + quoted(path_) + " would have shape " +
                                                    dims_text(d) + ", over 2^40 elements: the prototxt is not a real network");
  }

  std::string define(const std::string& blob, const std::string& layer, const Dims& d) {
    check_size("blob '" + blob + "'", d);
    const std::string name = unique(blob, layer);
    current_[blob] = name;
    dims_[name] = d;
    if (!layer.empty()) produced_.push_back(name);
    return name;
  }

  std::string top(const Layer& l, int i, const Dims& d) {
    if (l.top_size() <= i) fail(l, "has " + std::to_string(l.top_size()) + " tops; it needs " + std::to_string(i + 1));
    return define(l.top(i), l.name(), d);
  }

  static void set_type(onnx::ValueInfoProto& value, const Dims& d) {
    auto* tensor = value.mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(onnx::TensorProto::FLOAT);
    auto* shape = tensor->mutable_shape();
    for (int64_t x : d) {
      auto* dim = shape->add_dim();
      if (x > 0) dim->set_dim_value(x);
    }
  }

  // A learned parameter: a graph input of its shape, checked against the
  // caffemodel's blob `blob` when there is one (`blob` < 0: the model has none).
  std::string weight(const Layer& l, const std::string& what, const Dims& d, int blob) {
    if (blob >= 0 && checking_) {
      const auto it = blobs_.find(l.name());
      if (it == blobs_.end() || it->second->size() <= blob)
        fail(l, "has no blob " + std::to_string(blob) + " (" + what +
                    ") in the caffemodel: --weight is not the caffemodel of this prototxt");
      const Dims got = blob_dims(it->second->Get(blob));
      if (squeezed(got) != squeezed(d))
        fail(l, "has " + what + " of shape " + dims_text(got) + " in the caffemodel, but the prototxt makes it " +
                    dims_text(d) + ": --weight is not the caffemodel of this prototxt");
    }
    check_size("weight '" + what + "' of layer '" + l.name() + "'", d);
    const std::string name = unique(l.name() + "/" + what, "");
    if (blob >= 0 && checking_) values_[name] = blob_values(l, what, blobs_.at(l.name())->Get(blob), d);
    auto* value = graph_.add_input();
    value->set_name(name);
    set_type(*value, d);
    weights_.push_back(name);
    return name;
  }

  // A blob's values, as many as the shape `d` holds (its dims were checked against `d`).
  std::vector<float> blob_values(const Layer& l, const std::string& what, const caffe::BlobProto& b, const Dims& d) {
    int64_t count = 1;
    for (int64_t x : d) count *= x;  // bounded by check_size
    if (b.data_size() == count) return {b.data().begin(), b.data().end()};
    if (b.double_data_size() == count) return {b.double_data().begin(), b.double_data().end()};
    fail(l, "has " + what + " of " + std::to_string(std::max(b.data_size(), b.double_data_size())) +
                " values in the caffemodel, but its shape " + dims_text(d) + " holds " + std::to_string(count) +
                ": the caffemodel is damaged or not of this prototxt");
  }

  // A weight whose value the layer fixes (a BatchNorm's scale 1 and bias 0).
  std::string fixed_weight(const Layer& l, const std::string& what, const Dims& d, float value) {
    const std::string name = weight(l, what, d, -1);
    values_[name].assign(static_cast<size_t>(d.at(0)), value);
    return name;
  }

  std::string int64_constant(const std::string& name, const Dims& values) {
    const std::string unique_name = unique(name, "");
    auto* t = graph_.add_initializer();
    t->set_name(unique_name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(values.size()));
    for (int64_t v : values) t->add_int64_data(v);
    return unique_name;
  }

  std::string float_tensor(const std::string& name, const Dims& d, const std::vector<float>& values) {
    const std::string unique_name = unique(name, "");
    auto* t = graph_.add_initializer();
    t->set_name(unique_name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t x : d) t->add_dims(x);
    for (float v : values) t->add_float_data(v);
    return unique_name;
  }

  std::string float_constant(const std::string& name, float value) { return float_tensor(name, {}, {value}); }

  // One node of a layer made of several: its output the layer's top when `last`, else a value of its own.
  std::string step(const Layer& l, const std::string& op, const std::vector<std::string>& inputs, const Dims& d,
                   bool last, onnx::NodeProto** made = nullptr) {
    const std::string out = last ? top(l, 0, d) : define(l.name() + "/" + op, l.name(), d);
    onnx::NodeProto& n = node(l, op, inputs, out);
    if (made) *made = &n;
    if (!last) consumed_.insert(out);
    return out;
  }

  // shift + scale * x, as few nodes as it takes (none: x itself); the top when `last`.
  std::string affine(const Layer& l, const std::string& x, float scale, float shift, bool last) {
    const Dims& d = dims(x);
    std::string v = x;
    if (scale != 1.0f) v = step(l, "Mul", {v, float_constant(l.name() + "/scale", scale)}, d, last && shift == 0.0f);
    if (shift != 0.0f) v = step(l, "Add", {v, float_constant(l.name() + "/shift", shift)}, d, last);
    if (last && v == x) v = step(l, "Identity", {x}, d, true);
    return v;
  }

  // Named `wanted`, else the layer's name, numbered for its second node and on.
  onnx::NodeProto& node(const Layer& l, const std::string& op, const std::vector<std::string>& inputs,
                        const std::string& output, const std::string& wanted = "") {
    auto* n = graph_.add_node();
    const std::string base = wanted.empty() ? l.name() : wanted;
    std::string name = base;
    for (int i = 2; !node_names_.insert(name).second; ++i) name = base + "/" + std::to_string(i);
    n->set_name(name);
    n->set_op_type(op);
    for (const auto& i : inputs) n->add_input(i);
    n->add_output(output);
    return *n;
  }

  static void attr(onnx::NodeProto& n, const std::string& name, const Dims& values) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t v : values) a->add_ints(v);
  }
  static void attr(onnx::NodeProto& n, const std::string& name, int64_t value) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(value);
  }
  static void attr(onnx::NodeProto& n, const std::string& name, const char* value) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(value);
  }
  static void attr(onnx::NodeProto& n, const std::string& name, float value) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(value);
  }

  // An image-shaped input, [N, C, H, W], and its channel count.
  const Dims& image(const Layer& l, const std::string& value) {
    const Dims& d = dims(value);
    if (d.size() != 4) fail(l, "reads " + dims_text(d) + "; aoe reads this layer on 4-D [N,C,H,W] blobs only");
    return d;
  }

  int64_t axis_of(const Layer& l, int64_t axis, size_t rank) {
    const int64_t r = static_cast<int64_t>(rank);
    if (axis < -r || axis >= r) fail(l, "names axis " + std::to_string(axis) + " of a " + std::to_string(rank) + "-D blob");
    return axis < 0 ? axis + r : axis;
  }

  // ---- layers ----

  void convolution(const Layer& l, bool transposed, bool depthwise = false) {
    const auto& p = l.convolution_param();
    const std::string x = bottom(l, 0);
    const Dims& in = image(l, x);
    const auto pick = [](const auto& values, int i, int64_t otherwise) -> int64_t {
      if (values.empty()) return otherwise;
      return values.size() > i ? values.Get(i) : values.Get(0);
    };
    const int64_t kh = p.has_kernel_h() ? p.kernel_h() : pick(p.kernel_size(), 0, 0);
    const int64_t kw = p.has_kernel_w() ? p.kernel_w() : pick(p.kernel_size(), 1, 0);
    const int64_t sh = p.has_stride_h() ? p.stride_h() : pick(p.stride(), 0, 1);
    const int64_t sw = p.has_stride_w() ? p.stride_w() : pick(p.stride(), 1, 1);
    const int64_t ph = p.has_pad_h() ? p.pad_h() : pick(p.pad(), 0, 0);
    const int64_t pw = p.has_pad_w() ? p.pad_w() : pick(p.pad(), 1, 0);
    const int64_t dh = pick(p.dilation(), 0, 1), dw = pick(p.dilation(), 1, 1);
    const int64_t outputs = p.num_output(), channels = in[1], group = depthwise ? channels : p.group();
    if (kh <= 0 || kw <= 0 || sh <= 0 || sw <= 0 || dh <= 0 || dw <= 0)
      fail(l, "needs a kernel size, and strides and dilations of at least 1");
    if (std::max({kh, kw, sh, sw, ph, pw, dh, dw}) > kMaxWindow)
      fail(l, "has a kernel, stride, pad or dilation over 2^20");
    if (p.axis() != 1) fail(l, "convolves along axis " + std::to_string(p.axis()) + "; aoe reads axis 1 only");
    if (group <= 0 || outputs <= 0 || channels % group != 0 || outputs % group != 0)
      fail(l, "has " + std::to_string(outputs) + " outputs in " + std::to_string(group) + " groups over " +
                  std::to_string(channels) + " channels: both counts must divide by the groups");
    const auto out_dim = [&](int64_t size, int64_t k, int64_t s, int64_t pad, int64_t d) {
      const int64_t extent = d * (k - 1) + 1;
      return transposed ? s * (size - 1) + extent - 2 * pad : (size + 2 * pad - extent) / s + 1;
    };
    const Dims out = {in[0], outputs, out_dim(in[2], kh, sh, ph, dh), out_dim(in[3], kw, sw, pw, dw)};
    if (out[2] <= 0 || out[3] <= 0) fail(l, "leaves no output of the input " + dims_text(in));
    const Dims w = transposed ? Dims{channels, outputs / group, kh, kw} : Dims{outputs, channels / group, kh, kw};
    std::vector<std::string> inputs = {x, weight(l, "weight", w, 0)};
    if (p.bias_term()) inputs.push_back(weight(l, "bias", {outputs}, 1));
    // The attributes as PyTorch exports them, so both give one bank entry.
    auto& n = node(l, transposed ? "ConvTranspose" : "Conv", inputs, top(l, 0, out));
    attr(n, "dilations", Dims{dh, dw});
    attr(n, "group", group);
    attr(n, "kernel_shape", Dims{kh, kw});
    attr(n, "pads", Dims{ph, pw, ph, pw});
    attr(n, "strides", Dims{sh, sw});
  }

  void pooling(const Layer& l) {
    const auto& p = l.pooling_param();
    if (p.pool() == caffe::PoolingParameter::STOCHASTIC) fail(l, "pools stochastically, which only training does");
    const bool max = p.pool() == caffe::PoolingParameter::MAX;
    const std::string x = bottom(l, 0);
    const Dims& in = image(l, x);
    if (p.global_pooling()) {
      node(l, max ? "GlobalMaxPool" : "GlobalAveragePool", {x}, top(l, 0, {in[0], in[1], 1, 1}));
      return;
    }
    const int64_t kh = p.has_kernel_h() ? p.kernel_h() : p.kernel_size();
    const int64_t kw = p.has_kernel_w() ? p.kernel_w() : p.kernel_size();
    const int64_t sh = p.has_stride_h() ? p.stride_h() : p.stride();
    const int64_t sw = p.has_stride_w() ? p.stride_w() : p.stride();
    const int64_t ph = p.has_pad_h() ? p.pad_h() : p.pad();
    const int64_t pw = p.has_pad_w() ? p.pad_w() : p.pad();
    if (kh <= 0 || kw <= 0 || sh <= 0 || sw <= 0) fail(l, "needs a kernel size and strides of at least 1");
    if (std::max({kh, kw, sh, sw, ph, pw}) > kMaxWindow) fail(l, "has a kernel, stride or pad over 2^20");
    if (ph >= kh || pw >= kw) fail(l, "pads by as much as its kernel");
    // Caffe rounds up unless told otherwise, and never starts a window in the padding alone.
    const bool ceil = p.round_mode() == caffe::PoolingParameter::CEIL;
    const auto out_dim = [&](int64_t size, int64_t k, int64_t s, int64_t pad) {
      const int64_t span = size + 2 * pad - k;
      int64_t out = (ceil ? (span + s - 1) / s : span / s) + 1;
      if (pad > 0 && (out - 1) * s >= size + pad) --out;
      return out;
    };
    const Dims out = {in[0], in[1], out_dim(in[2], kh, sh, ph), out_dim(in[3], kw, sw, pw)};
    if (in[2] + 2 * ph < kh || in[3] + 2 * pw < kw) fail(l, "has a kernel larger than its input " + dims_text(in));
    auto& n = node(l, max ? "MaxPool" : "AveragePool", {x}, top(l, 0, out));
    attr(n, "kernel_shape", Dims{kh, kw});
    attr(n, "pads", Dims{ph, pw, ph, pw});
    attr(n, "strides", Dims{sh, sw});
    // Where rounding up gives another size than ONNX's default rounding down.
    if ((in[2] + 2 * ph - kh) / sh + 1 != out[2] || (in[3] + 2 * pw - kw) / sw + 1 != out[3]) attr(n, "ceil_mode", int64_t{1});
    if (!max && (ph > 0 || pw > 0)) attr(n, "count_include_pad", int64_t{1});
  }

  void inner_product(const Layer& l) {
    const auto& p = l.inner_product_param();
    std::string x = bottom(l, 0);
    const Dims in = dims(x);
    if (p.axis() != 1 || in.size() < 2) fail(l, "multiplies along axis " + std::to_string(p.axis()) + " of " + dims_text(in) + "; aoe reads axis 1 only");
    int64_t features = 1;
    for (size_t i = 1; i < in.size(); ++i) features *= in[i];
    const int64_t outputs = p.num_output();
    if (outputs <= 0) fail(l, "has no num_output");
    if (in.size() > 2) {
      // Caffe flattens what follows the axis implicitly; ONNX exporters write the Flatten.
      const std::string flat = define(l.name() + "/flatten", l.name(), {in[0], features});
      attr(node(l, "Flatten", {x}, flat, l.name() + "/flatten"), "axis", int64_t{1});
      consumed_.insert(flat);
      x = flat;
    }
    std::vector<std::string> inputs = {x, weight(l, "weight", p.transpose() ? Dims{features, outputs} : Dims{outputs, features}, 0)};
    if (p.bias_term()) inputs.push_back(weight(l, "bias", {outputs}, 1));
    auto& n = node(l, "Gemm", inputs, top(l, 0, {in[0], outputs}));
    attr(n, "alpha", 1.0f);
    attr(n, "beta", 1.0f);
    if (!p.transpose()) attr(n, "transB", int64_t{1});
  }

  void relu(const Layer& l) {
    const std::string x = bottom(l, 0);
    const float slope = l.relu_param().negative_slope();
    auto& n = node(l, slope != 0 ? "LeakyRelu" : "Relu", {x}, top(l, 0, dims(x)));
    if (slope != 0) attr(n, "alpha", slope);
  }

  void prelu(const Layer& l) {
    const std::string x = bottom(l, 0);
    const Dims in = dims(x);
    if (in.size() < 2) fail(l, "reads " + dims_text(in) + "; it needs channels on axis 1");
    // The slopes broadcast over what follows the channels.
    Dims slope = {l.prelu_param().channel_shared() ? 1 : in[1]};
    slope.resize(in.size() - 1, 1);
    node(l, "PRelu", {x, weight(l, "slope", slope, 0)}, top(l, 0, in));
  }

  // Caffe's BatchNorm only normalises; the Scale after it, if any, is its
  // gamma and beta: together one BatchNormalization, as in ONNX exports.
  bool batch_norm(const Layer& l, const Layer* next) {
    const std::string x = bottom(l, 0);
    const Dims in = dims(x);
    if (in.size() < 2) fail(l, "reads " + dims_text(in) + "; it needs channels on axis 1");
    const int64_t c = in[1];
    const bool folds = next && next->type() == "Scale" && next->bottom_size() == 1 && next->top_size() == 1 &&
                       l.top_size() == 1 &&
                       next->bottom(0) == l.top(0) && next->scale_param().axis() == 1 && next->scale_param().num_axes() == 1;
    const std::string mean = weight(l, "mean", {c}, 0), var = weight(l, "variance", {c}, 1);
    divide_by_scale_factor(l, {mean, var});
    std::string gamma, beta;
    if (folds) {
      gamma = weight(*next, "scale", {c}, 0);
      beta = next->scale_param().bias_term() ? weight(*next, "bias", {c}, 1) : fixed_weight(*next, "bias", {c}, 0.0f);
    } else {
      gamma = fixed_weight(l, "scale", {c}, 1.0f);
      beta = fixed_weight(l, "bias", {c}, 0.0f);
    }
    const std::string out = folds ? define(next->top(0), next->name(), in) : top(l, 0, in);
    attr(node(l, "BatchNormalization", {x, gamma, beta, mean, var}, out), "epsilon", l.batch_norm_param().eps());
    return folds;
  }

  // Caffe keeps a BatchNorm's running sums with their weight in blob 2:
  // mean and variance are blob / factor (0 when the factor is 0).
  void divide_by_scale_factor(const Layer& l, const std::vector<std::string>& names) {
    if (!checking_) return;
    const auto& blobs = *blobs_.at(l.name());
    if (blobs.size() < 3 || blobs.Get(2).data_size() < 1) return;
    const float factor = blobs.Get(2).data(0);
    for (const auto& name : names)
      for (float& v : values_.at(name)) v = factor == 0.0f ? 0.0f : v / factor;
  }

  // A learned blob of one value per channel, as Scale and Bias take it: [C, 1, ...] to broadcast over x.
  Dims per_channel(const Layer& l, const Dims& in, int64_t axis, int64_t num_axes) const {
    if (l.bottom_size() != 1 || axis != 1 || num_axes != 1 || in.size() < 2)
      fail(l, "is read with one bottom, axis 1 and num_axes 1 only");
    Dims d = {in[1]};
    d.resize(in.size() - 1, 1);
    return d;
  }

  void scale(const Layer& l) {
    const auto& p = l.scale_param();
    if (l.bottom_size() == 2) return scale_by_bottom(l);
    const std::string x = bottom(l, 0);
    const Dims in = dims(x);
    const Dims per_channel = this->per_channel(l, in, p.axis(), p.num_axes());
    const std::string scaled = p.bias_term() ? define(l.name() + "/scaled", l.name(), in) : top(l, 0, in);
    node(l, "Mul", {x, weight(l, "scale", per_channel, 0)}, scaled);
    if (!p.bias_term()) return;
    consumed_.insert(scaled);
    node(l, "Add", {scaled, weight(l, "bias", per_channel, 1)}, top(l, 0, in));
  }

  // x times its second bottom, whose dims are x's from `axis` on (SE blocks
  // scale the map by the [N, C] of their gate, at axis 0); a bias blob after.
  void scale_by_bottom(const Layer& l) {
    const auto& p = l.scale_param();
    const std::string x = bottom(l, 0), factor = bottom(l, 1);
    const Dims in = dims(x), fd = dims(factor);
    const auto axis = static_cast<size_t>(axis_of(l, p.axis(), in.size()));
    if (axis + fd.size() > in.size() || !std::equal(fd.begin(), fd.end(), in.begin() + static_cast<std::ptrdiff_t>(axis)))
      fail(l, "scales " + dims_text(in) + " by " + dims_text(fd) + " at axis " + std::to_string(axis) +
                  ": the second bottom's dims must be the first's from the axis on");
    Dims aligned(axis, 1);
    aligned.insert(aligned.end(), fd.begin(), fd.end());
    aligned.resize(in.size(), 1);
    const std::string shaped = step(l, "Reshape", {factor, int64_constant(l.name() + "/shape", aligned)}, aligned, false);
    const std::string scaled = step(l, "Mul", {x, shaped}, in, !p.bias_term());
    if (p.bias_term()) step(l, "Add", {scaled, weight(l, "bias", aligned, 0)}, in, true);
  }

  // [N, g, C / g, H, W] with its two group axes swapped.
  void shuffle_channel(const Layer& l) {
    const std::string x = bottom(l, 0);
    const Dims in = image(l, x);
    const int64_t g = l.shuffle_channel_param().group();
    if (g < 1 || in[1] % g != 0) fail(l, "shuffles " + std::to_string(in[1]) + " channels in " + std::to_string(g) + " groups");
    const Dims grouped = {in[0], g, in[1] / g, in[2], in[3]}, swapped = {in[0], in[1] / g, g, in[2], in[3]};
    const std::string split = step(l, "Reshape", {x, int64_constant(l.name() + "/groups", grouped)}, grouped, false);
    onnx::NodeProto* n = nullptr;
    const std::string turned = step(l, "Transpose", {split}, swapped, false, &n);
    attr(*n, "perm", Dims{0, 2, 1, 3, 4});
    step(l, "Reshape", {turned, int64_constant(l.name() + "/shape", in)}, in, true);
  }

  // Each value repeated scale x scale times (one bottom: YOLO ports' nearest; SegNet's, with a mask, is not read).
  void upsample(const Layer& l) {
    if (l.bottom_size() != 1) fail(l, "has " + std::to_string(l.bottom_size()) + " bottoms; aoe reads the nearest upsampling of one");
    const std::string x = bottom(l, 0);
    const Dims in = image(l, x);
    const int64_t s = l.upsample_param().scale();
    if (s < 1 || s > kMaxWindow) fail(l, "has scale " + std::to_string(s) + "; it takes a whole factor of at least 1");
    const std::string scales = float_tensor(l.name() + "/scales", {4}, {1, 1, static_cast<float>(s), static_cast<float>(s)});
    auto& n = node(l, "Resize", {x, "", scales}, top(l, 0, {in[0], in[1], in[2] * s, in[3] * s}));
    attr(n, "mode", "nearest");
    attr(n, "coordinate_transformation_mode", "asymmetric");
    attr(n, "nearest_mode", "floor");
  }

  // Bilinear, corners aligned, as PSPNet's Caffe sizes it.
  void interp(const Layer& l) {
    const auto& p = l.interp_param();
    const std::string x = bottom(l, 0);
    const Dims in = image(l, x);
    if (p.pad_beg() != 0 || p.pad_end() != 0) fail(l, "pads (pad_beg, pad_end), which aoe does not read");
    if (p.shrink_factor() < 1 || p.zoom_factor() < 1 || p.zoom_factor() > kMaxWindow) fail(l, "needs zoom and shrink factors of at least 1");
    const bool factors = p.has_shrink_factor() || p.has_zoom_factor();
    if (!factors && !(p.has_height() && p.has_width())) fail(l, "needs a zoom_factor, a shrink_factor, or height and width");
    int64_t h = p.height(), w = p.width();
    if (factors) {
      h = (in[2] - 1) / p.shrink_factor() + 1, w = (in[3] - 1) / p.shrink_factor() + 1;
      h += (h - 1) * (p.zoom_factor() - 1), w += (w - 1) * (p.zoom_factor() - 1);
    }
    if (h < 1 || w < 1 || h > kMaxWindow || w > kMaxWindow) fail(l, "makes a map of " + std::to_string(h) + "x" + std::to_string(w));
    const Dims out = {in[0], in[1], h, w};
    auto& n = node(l, "Resize", {x, "", "", int64_constant(l.name() + "/sizes", out)}, top(l, 0, out));
    attr(n, "mode", "linear");
    attr(n, "coordinate_transformation_mode", "align_corners");
  }

  // SENet's a * x + y, a of [N, C, 1, 1].
  void axpy(const Layer& l) {
    const std::string a = bottom(l, 0), x = bottom(l, 1), y = bottom(l, 2);
    const Dims& in = image(l, x);
    if (dims(a) != Dims{in[0], in[1], 1, 1} || dims(y) != in)
      fail(l, "takes a of [N,C,1,1], x and y of one shape; it reads " + dims_text(dims(a)) + ", " + dims_text(in) + " and " +
                  dims_text(dims(y)));
    step(l, "Add", {step(l, "Mul", {x, a}, in, false), y}, in, true);
  }

  void eltwise(const Layer& l) {
    const auto& p = l.eltwise_param();
    if (l.bottom_size() < 2) fail(l, "needs two bottoms or more");
    const bool weighed = std::any_of(p.coeff().begin(), p.coeff().end(), [](float c) { return c != 1.0f; });
    if (weighed && (p.operation() != caffe::EltwiseParameter::SUM || p.coeff_size() != l.bottom_size()))
      fail(l, "weighs its bottoms by coefficients, which only a SUM with one for each bottom does");
    std::vector<std::string> in;
    for (int i = 0; i < l.bottom_size(); ++i) in.push_back(bottom(l, i));
    const Dims d = dims(in[0]);
    for (const auto& v : in)
      if (dims(v) != d) fail(l, "adds blobs of shapes " + dims_text(d) + " and " + dims_text(dims(v)));
    // A coefficient other than 1 scales its bottom first (-1: a difference of two blobs).
    for (int i = 0; weighed && i < l.bottom_size(); ++i)
      if (p.coeff(i) != 1.0f)
        in[static_cast<size_t>(i)] =
            step(l, "Mul", {in[static_cast<size_t>(i)], float_constant(l.name() + "/coeff", p.coeff(i))}, d, false);
    if (p.operation() == caffe::EltwiseParameter::MAX) {
      node(l, "Max", in, top(l, 0, d));
      return;
    }
    const char* op = p.operation() == caffe::EltwiseParameter::SUM ? "Add" : "Mul";
    std::string acc = in[0];
    for (size_t i = 1; i < in.size(); ++i) {
      const bool last = i + 1 == in.size();
      const std::string out = last ? top(l, 0, d) : define(l.name() + "/" + std::to_string(i), l.name(), d);
      node(l, op, {acc, in[i]}, out);
      if (!last) consumed_.insert(out);
      acc = out;
    }
  }

  void concat(const Layer& l) {
    const auto& p = l.concat_param();
    std::vector<std::string> in;
    for (int i = 0; i < l.bottom_size(); ++i) in.push_back(bottom(l, i));
    if (in.empty()) fail(l, "has no bottom");
    Dims d = dims(in[0]);
    const int64_t axis = axis_of(l, p.has_axis() || !p.has_concat_dim() ? p.axis() : p.concat_dim(), d.size());
    for (size_t i = 1; i < in.size(); ++i) {
      const Dims& o = dims(in[i]);
      for (size_t k = 0; k < d.size(); ++k)
        if (o.size() != d.size() || (static_cast<int64_t>(k) != axis && o[k] != d[k]))
          fail(l, "joins " + dims_text(d) + " and " + dims_text(o) + " along axis " + std::to_string(axis));
      d[axis] += o[axis];
      check_size("layer '" + l.name() + "' output", d);
    }
    attr(node(l, "Concat", in, top(l, 0, d)), "axis", axis);
  }

  void softmax(const Layer& l) {
    const std::string x = bottom(l, 0);
    const Dims in = dims(x);
    attr(node(l, "Softmax", {x}, top(l, 0, in)), "axis", axis_of(l, l.softmax_param().axis(), in.size()));
  }

  void lrn(const Layer& l) {
    const auto& p = l.lrn_param();
    if (p.norm_region() != caffe::LRNParameter::ACROSS_CHANNELS) fail(l, "normalises within channels, which aoe does not read");
    const std::string x = bottom(l, 0);
    auto& n = node(l, "LRN", {x}, top(l, 0, image(l, x)));
    attr(n, "alpha", p.alpha());
    attr(n, "beta", p.beta());
    attr(n, "bias", p.k());
    attr(n, "size", static_cast<int64_t>(p.local_size()));
  }

  void flatten(const Layer& l) {
    const std::string x = bottom(l, 0);
    const Dims in = dims(x);
    const int64_t first = axis_of(l, l.flatten_param().axis(), in.size());
    const int64_t last = axis_of(l, l.flatten_param().end_axis(), in.size());
    if (last < first) fail(l, "ends before it starts");
    Dims out(in.begin(), in.begin() + first);
    int64_t joined = 1;
    for (int64_t i = first; i <= last; ++i) joined *= in[i];
    out.push_back(joined);
    out.insert(out.end(), in.begin() + last + 1, in.end());
    if (first == 1 && last + 1 == static_cast<int64_t>(in.size())) {
      attr(node(l, "Flatten", {x}, top(l, 0, out)), "axis", int64_t{1});
      return;
    }
    node(l, "Reshape", {x, int64_constant(l.name() + "/shape", out)}, top(l, 0, out));
  }

  void reshape(const Layer& l) {
    const auto& p = l.reshape_param();
    if (p.axis() != 0 || p.num_axes() != -1) fail(l, "reshapes part of its blob (axis, num_axes), which aoe does not read");
    const std::string x = bottom(l, 0);
    const Dims in = dims(x);
    Dims out(p.shape().dim().begin(), p.shape().dim().end());
    check_size("layer '" + l.name() + "' shape", out);
    int64_t known = 1, inferred = -1;
    const int64_t total = elements_of(in);
    for (size_t i = 0; i < out.size(); ++i) {
      if (out[i] == 0) {
        if (i >= in.size()) fail(l, "copies dim " + std::to_string(i) + " of " + dims_text(in));
        out[i] = in[i];
      }
      if (out[i] == -1) {
        if (inferred >= 0) fail(l, "infers two dims");
        inferred = static_cast<int64_t>(i);
      } else if (out[i] <= 0) {
        fail(l, "asks for dim " + std::to_string(out[i]));
      } else {
        if (out[i] > kMaxTensorElements / known) fail(l, "asks for more elements than 2^40");
        known *= out[i];
      }
    }
    if (inferred >= 0 && total % known == 0) out[inferred] = total / known;
    if (elements_of(out) != total) fail(l, "cannot make " + dims_text(in) + " into " + dims_text(Dims(p.shape().dim().begin(), p.shape().dim().end())));
    node(l, "Reshape", {x, int64_constant(l.name() + "/shape", out)}, top(l, 0, out));
  }

  void elu(const Layer& l) {
    const std::string x = bottom(l, 0);
    attr(node(l, "Elu", {x}, top(l, 0, dims(x))), "alpha", l.elu_param().alpha());
  }

  void clip(const Layer& l) {
    const auto& p = l.clip_param();
    if (!p.has_min() || !p.has_max() || !(p.min() <= p.max())) fail(l, "needs a min and a max not below it");
    clamp(l, p.min(), p.max());
  }

  // min <= x <= max, as one Clip.
  void clamp(const Layer& l, float min, float max) {
    const std::string x = bottom(l, 0);
    node(l, "Clip", {x, float_constant(l.name() + "/min", min), float_constant(l.name() + "/max", max)}, top(l, 0, dims(x)));
  }

  void swish(const Layer& l) {
    const std::string x = bottom(l, 0);
    const float beta = l.swish_param().beta();
    const std::string gate = step(l, "Sigmoid", {beta == 1.0f ? x : affine(l, x, beta, 0.0f, false)}, dims(x), false);
    step(l, "Mul", {x, gate}, dims(x), true);
  }

  // (shift + scale * x) ^ power
  void power(const Layer& l) {
    const auto& p = l.power_param();
    const std::string x = bottom(l, 0);
    if (p.power() == 1.0f) {
      affine(l, x, p.scale(), p.shift(), true);
      return;
    }
    const std::string v = affine(l, x, p.scale(), p.shift(), false);
    step(l, "Pow", {v, float_constant(l.name() + "/power", p.power())}, dims(x), true);
  }

  // Exp: base ^ (shift + scale * x) = e ^ (ln(base) (shift + scale * x)); Log: ln(shift + scale * x) / ln(base).
  // A base of -1 is e.
  void exp_log(const Layer& l, bool exp) {
    const float base = exp ? l.exp_param().base() : l.log_param().base();
    const float scale = exp ? l.exp_param().scale() : l.log_param().scale();
    const float shift = exp ? l.exp_param().shift() : l.log_param().shift();
    if (base != -1.0f && base <= 0.0f) fail(l, "has base " + std::to_string(base) + "; Caffe takes -1 (e) or a positive base");
    const float ln_base = base == -1.0f ? 1.0f : std::log(base);
    const std::string x = bottom(l, 0);
    const Dims& d = dims(x);
    if (exp) {
      step(l, "Exp", {affine(l, x, scale * ln_base, shift * ln_base, false)}, d, true);
      return;
    }
    const std::string logged = step(l, "Log", {affine(l, x, scale, shift, false)}, d, ln_base == 1.0f);
    if (ln_base != 1.0f) step(l, "Mul", {logged, float_constant(l.name() + "/per_ln_base", 1.0f / ln_base)}, d, true);
  }

  // 1 where x > threshold, else 0.
  void threshold(const Layer& l) {
    const std::string x = bottom(l, 0);
    const Dims& d = dims(x);
    const std::string above = define(l.name() + "/above", l.name(), d);
    node(l, "Greater", {x, float_constant(l.name() + "/threshold", l.threshold_param().threshold())}, above);
    consumed_.insert(above);
    attr(node(l, "Cast", {above}, top(l, 0, d)), "to", int64_t{onnx::TensorProto::FLOAT});
  }

  // A learned per-channel bias, as Scale's second half.
  void bias(const Layer& l) {
    const auto& p = l.bias_param();
    const std::string x = bottom(l, 0);
    const Dims in = dims(x);
    node(l, "Add", {x, weight(l, "bias", per_channel(l, in, p.axis(), p.num_axes()), 0)}, top(l, 0, in));
  }

  // Tops cut along an axis at the slice points, or into equal parts without them.
  void slice(const Layer& l) {
    const auto& p = l.slice_param();
    const std::string x = bottom(l, 0);
    const Dims in = dims(x);
    const int64_t axis = axis_of(l, p.has_axis() || !p.has_slice_dim() ? p.axis() : p.slice_dim(), in.size());
    const int64_t parts = l.top_size();
    if (parts < 1) fail(l, "has no top");
    Dims sizes;
    if (p.slice_point_size() > 0) {
      if (p.slice_point_size() != parts - 1)
        fail(l, "has " + std::to_string(p.slice_point_size()) + " slice points for " + std::to_string(parts) + " tops");
      int64_t from = 0;
      for (int64_t point : p.slice_point()) {
        if (point <= from || point >= in[axis]) fail(l, "has slice points that do not rise inside " + dims_text(in));
        sizes.push_back(point - from);
        from = point;
      }
      sizes.push_back(in[axis] - from);
    } else {
      if (in[axis] % parts != 0) fail(l, "cannot cut " + dims_text(in) + " into " + std::to_string(parts) + " equal parts");
      sizes.assign(static_cast<size_t>(parts), in[axis] / parts);
    }
    auto* n = graph_.add_node();
    n->set_name(l.name());
    node_names_.insert(l.name());
    n->set_op_type("Split");
    n->add_input(x);
    n->add_input(int64_constant(l.name() + "/split", sizes));
    for (int64_t i = 0; i < parts; ++i) {
      Dims d = in;
      d[axis] = sizes[static_cast<size_t>(i)];
      n->add_output(top(l, static_cast<int>(i), d));
    }
    attr(*n, "axis", axis);
  }

  // The first bottom cut to the second's dims from `axis` on, at the offsets.
  void crop(const Layer& l) {
    const auto& p = l.crop_param();
    const std::string x = bottom(l, 0), like = bottom(l, 1);
    const Dims in = dims(x), ref = dims(like);
    if (in.size() != ref.size()) fail(l, "crops " + dims_text(in) + " like " + dims_text(ref) + ", of another rank");
    const int64_t axis = axis_of(l, p.axis(), in.size());
    const int64_t cut = static_cast<int64_t>(in.size()) - axis;
    if (p.offset_size() > 1 && p.offset_size() != cut)
      fail(l, "has " + std::to_string(p.offset_size()) + " offsets for " + std::to_string(cut) + " axes");
    Dims starts, ends, axes, out = in;
    for (int64_t a = axis; a < static_cast<int64_t>(in.size()); ++a) {
      const int64_t offset = p.offset_size() == 0 ? 0 : p.offset(p.offset_size() == 1 ? 0 : static_cast<int>(a - axis));
      if (offset + ref[a] > in[a]) fail(l, "crops " + dims_text(ref) + " at offset " + std::to_string(offset) + " out of " + dims_text(in));
      starts.push_back(offset);
      ends.push_back(offset + ref[a]);
      axes.push_back(a);
      out[a] = ref[a];
    }
    node(l, "Slice",
         {x, int64_constant(l.name() + "/starts", starts), int64_constant(l.name() + "/ends", ends),
          int64_constant(l.name() + "/axes", axes)},
         top(l, 0, out));
  }

  void tile(const Layer& l) {
    const auto& p = l.tile_param();
    const std::string x = bottom(l, 0);
    const Dims in = dims(x);
    const int64_t axis = axis_of(l, p.axis(), in.size());
    if (p.tiles() < 1) fail(l, "needs tiles of at least 1");
    Dims repeats(in.size(), 1), out = in;
    repeats[axis] = p.tiles();
    out[axis] *= p.tiles();
    node(l, "Tile", {x, int64_constant(l.name() + "/repeats", repeats)}, top(l, 0, out));
  }

  // ---- SSD's layers ----

  void permute(const Layer& l) {
    const std::string x = bottom(l, 0);
    const Dims in = dims(x);
    Dims perm;
    for (const uint32_t axis : l.permute_param().order()) {
      if (axis >= in.size() || std::count(perm.begin(), perm.end(), axis) > 0)
        fail(l, "orders axis " + std::to_string(axis) + " of a " + std::to_string(in.size()) + "-D blob twice or past its rank");
      perm.push_back(axis);
    }
    for (int64_t axis = 0; axis < static_cast<int64_t>(in.size()); ++axis)
      if (std::count(perm.begin(), perm.end(), axis) == 0) perm.push_back(axis);
    Dims out;
    for (int64_t axis : perm) out.push_back(in[static_cast<size_t>(axis)]);
    attr(node(l, "Transpose", {x}, top(l, 0, out)), "perm", perm);
  }

  // x / sqrt(sum of x^2 + eps) * scale, as SSD's Caffe computes it.
  void normalize(const Layer& l) {
    const auto& p = l.norm_param();
    const std::string x = bottom(l, 0);
    const Dims in = image(l, x);
    onnx::NodeProto* sum = nullptr;
    const std::string squares = step(l, "ReduceSumSquare", {x}, {in[0], 1, p.across_spatial() ? 1 : in[2], p.across_spatial() ? 1 : in[3]}, false, &sum);
    attr(*sum, "axes", p.across_spatial() ? Dims{1, 2, 3} : Dims{1});
    const Dims& sd = dims(squares);
    const std::string norm = step(l, "Sqrt", {step(l, "Add", {squares, float_constant(l.name() + "/eps", p.eps())}, sd, false)}, sd, false);
    const std::string unit = step(l, "Div", {x, norm}, in, false);
    step(l, "Mul", {unit, weight(l, "scale", p.channel_shared() ? Dims{1} : Dims{1, in[1], 1, 1}, 0)}, in, true);
  }

  // A constant of the feature map's size (bottom 0) and the image's (bottom 1).
  void prior_box(const Layer& l) {
    const auto& p = l.prior_box_param();
    if (const std::string why = prior_box_error(p); !why.empty()) fail(l, why);
    const Dims& feature = image(l, bottom(l, 0));
    const Dims& picture = image(l, bottom(l, 1));
    // A real network's priors number thousands; past this the prototxt is not one.
    constexpr int64_t kMaxPriorValues = int64_t{1} << 26;
    const int64_t per_cell = priors_per_cell(p);
    if (per_cell > kMaxPriorValues || feature[2] * feature[3] > kMaxPriorValues / (8 * per_cell))
      fail(l, "makes " + std::to_string(per_cell) + " boxes per cell of a " + dims_text(feature) +
                  " map, over 2^26 values: the prototxt is not a real network");
    const Dims d = {1, 2, feature[2] * feature[3] * per_cell * 4};
    const std::string priors = float_tensor(l.name() + "/priors", d, prior_boxes(p, feature[2], feature[3], picture[2], picture[3]));
    node(l, "Identity", {priors}, top(l, 0, d));
  }

  // Boxes decoded from the priors, SSD's per-class NMS (the top_k best above
  // the confidence threshold, then greedy), the keep_top_k best of all kept,
  // as rows [image, label, score, xmin, ymin, xmax, ymax] by label, then by
  // score; one row [0, -1, ...] when none is kept. One image, as SSD's Caffe.
  void detection_output(const Layer& l) {
    const auto& p = l.detection_output_param();
    if (l.bottom_size() != 3) fail(l, "has " + std::to_string(l.bottom_size()) + " bottoms; aoe reads location, confidence and priors");
    const std::string loc = bottom(l, 0), conf = bottom(l, 1), prior = bottom(l, 2);
    const Dims& pd = dims(prior);
    const int64_t classes = p.num_classes();
    if (pd.size() != 3 || pd[0] != 1 || pd[1] != 2 || pd[2] % 4 != 0)
      fail(l, "reads priors of shape " + dims_text(pd) + "; a PriorBox gives [1, 2, 4 * boxes]");
    const int64_t boxes = pd[2] / 4;
    if (!p.share_location()) fail(l, "has share_location false, which aoe does not read");
    if (p.nms_param().eta() != 1.0f) fail(l, "has an adaptive NMS (eta " + std::to_string(p.nms_param().eta()) + "), which aoe does not read");
    if (classes < 1) fail(l, "needs num_classes");
    if (elements_of(dims(loc)) != boxes * 4 || elements_of(dims(conf)) != boxes * classes)
      fail(l, "reads locations " + dims_text(dims(loc)) + " and confidences " + dims_text(dims(conf)) + " for " +
                  std::to_string(boxes) + " priors of " + std::to_string(classes) + " classes; aoe reads one image (batch 1)");
    Dims kept_classes;
    std::vector<float> labels;
    for (int64_t c = 0; c < classes; ++c)
      if (c != p.background_label_id()) kept_classes.push_back(c), labels.push_back(static_cast<float>(c));
    const auto kept = static_cast<int64_t>(kept_classes.size());
    const bool limited = p.nms_param().has_top_k() && p.nms_param().top_k() >= 0;
    const int64_t candidates = limited ? std::min<int64_t>(p.nms_param().top_k(), boxes) : boxes;
    if (kept == 0 || candidates == 0) fail(l, "keeps no class or no candidate box");
    // The rows are put in order by label * (kept * candidates + 1) + rank, exact in a float.
    const int64_t stride = kept * candidates + 1;
    if (static_cast<double>(classes) * static_cast<double>(stride) >= 0x1p24)
      fail(l, "has more classes and candidates than aoe puts in order (2^24)");

    const auto ints = [&](const std::string& what, const Dims& v) { return int64_constant(l.name() + "/" + what, v); };
    const auto op = [&](const std::string& type, const std::vector<std::string>& in, const Dims& d,
                        const std::function<void(onnx::NodeProto&)>& set = nullptr) {
      onnx::NodeProto* n = nullptr;
      const std::string out = step(l, type, in, d, false, &n);
      if (set) set(*n);
      return out;
    };
    const auto on_axis = [](int64_t axis) { return [axis](onnx::NodeProto& n) { attr(n, "axis", axis); }; };
    const auto slice = [&](const std::string& x, int64_t axis, int64_t begin, int64_t end, const Dims& d) {
      return op("Slice", {x, ints("begin", {begin}), ints("end", {end}), ints("axis", {axis})}, d);
    };
    // TopK's values, and its indices as a value of their own.
    const auto top_k = [&](const std::string& x, const std::string& k, const Dims& d, int64_t axis, bool largest,
                           std::string& index) {
      onnx::NodeProto* n = nullptr;
      const std::string values = step(l, "TopK", {x, k}, d, false, &n);
      attr(*n, "axis", axis);
      attr(*n, "largest", int64_t{largest ? 1 : 0});
      index = define(l.name() + "/TopK/index", l.name(), d);
      n->add_output(index);
      consumed_.insert(index);
      return values;
    };

    // Decoded boxes, [boxes, 4] of corners.
    const Dims pairs = {boxes, 2}, quads = {boxes, 4};
    const std::string table = op("Reshape", {prior, ints("table", {2, boxes, 4})}, {2, boxes, 4});
    const std::string quad_shape = ints("quads", quads);
    const std::string corners = op("Reshape", {slice(table, 0, 0, 1, {1, boxes, 4}), quad_shape}, quads);
    const std::string variances = op("Reshape", {slice(table, 0, 1, 2, {1, boxes, 4}), quad_shape}, quads);
    std::string offsets = op("Reshape", {loc, quad_shape}, quads);
    if (!p.variance_encoded_in_target()) offsets = op("Mul", {variances, offsets}, quads);
    const std::string low = slice(corners, 1, 0, 2, pairs), high = slice(corners, 1, 2, 4, pairs);
    const std::string size = op("Sub", {high, low}, pairs);
    std::string decoded;
    if (p.code_type() == caffe::PriorBoxParameter::CORNER) {
      decoded = op("Add", {corners, offsets}, quads);
    } else if (p.code_type() == caffe::PriorBoxParameter::CORNER_SIZE) {
      decoded = op("Add", {corners, op("Mul", {offsets, op("Concat", {size, size}, quads, on_axis(1))}, quads)}, quads);
    } else {
      const std::string half = float_constant(l.name() + "/half", 0.5f);
      const std::string center = op("Add", {op("Mul", {slice(offsets, 1, 0, 2, pairs), size}, pairs),
                                            op("Mul", {op("Add", {low, high}, pairs), half}, pairs)}, pairs);
      const std::string extent = op("Mul", {op("Mul", {op("Exp", {slice(offsets, 1, 2, 4, pairs)}, pairs), size}, pairs), half}, pairs);
      decoded = op("Concat", {op("Sub", {center, extent}, pairs), op("Add", {center, extent}, pairs)}, quads, on_axis(1));
    }

    // Per class but the background: its best candidates, their boxes one NMS batch.
    const std::string by_class = op("Transpose", {op("Reshape", {conf, ints("scores", {boxes, classes})}, {boxes, classes})},
                                    {classes, boxes}, [](onnx::NodeProto& n) { attr(n, "perm", Dims{1, 0}); });
    const std::string scores = op("Gather", {by_class, ints("classes", kept_classes)}, {kept, boxes});
    std::string best_box;
    const std::string best = top_k(scores, ints("candidates", {candidates}), {kept, candidates}, 1, true, best_box);
    std::vector<std::string> nms = {op("Gather", {decoded, best_box}, {kept, candidates, 4}),
                                    op("Reshape", {best, ints("nms_scores", {kept, 1, candidates})}, {kept, 1, candidates}),
                                    ints("per_class", {candidates}), float_constant(l.name() + "/iou", p.nms_param().nms_threshold())};
    if (p.has_confidence_threshold()) nms.push_back(float_constant(l.name() + "/confidence", p.confidence_threshold()));
    const std::string selected = op("NonMaxSuppression", nms, {-1, 3});
    const std::string class_column = slice(selected, 1, 0, 1, {-1, 1});
    const std::string at = op("Concat", {class_column, slice(selected, 1, 2, 3, {-1, 1})}, {-1, 2}, on_axis(1));
    const std::string score = op("GatherND", {best, at}, {-1});
    const std::string box = op("Gather", {decoded, op("GatherND", {best_box, at}, {-1})}, {-1, 4});
    const std::string label = op("Gather", {float_tensor(l.name() + "/labels", {kept}, labels),
                                            op("Reshape", {class_column, ints("column", {-1})}, {-1})}, {-1});

    // The keep_top_k best, then put in order by label, then by rank.
    std::string count = op("Shape", {score}, {1});
    if (p.keep_top_k() >= 0) count = op("Min", {count, ints("keep_top_k", {p.keep_top_k()})}, {1});
    std::string by_score, by_label;
    top_k(score, count, {-1}, 0, true, by_score);
    const std::string rank = op("Cast", {op("Range", {op("Squeeze", {ints("zero", {0})}, {}), op("Squeeze", {count}, {}),
                                                       op("Squeeze", {ints("one", {1})}, {})}, {-1})},
                                {-1}, [](onnx::NodeProto& n) { attr(n, "to", int64_t{onnx::TensorProto::FLOAT}); });
    const std::string order_key = op("Add", {op("Mul", {op("Gather", {label, by_score}, {-1}),
                                                        float_constant(l.name() + "/stride", static_cast<float>(stride))}, {-1}), rank}, {-1});
    top_k(order_key, count, {-1}, 0, false, by_label);
    const std::string rows = op("Gather", {by_score, by_label}, {-1});
    const auto column = [&](const std::string& x) {
      return op("Unsqueeze", {op("Gather", {x, rows}, {-1}), ints("axes", {1})}, {-1, 1});
    };
    const std::string label_column = column(label);
    const std::string found = op("Concat", {op("Sub", {label_column, label_column}, {-1, 1}), label_column, column(score),
                                            op("Gather", {box, rows}, {-1, 4})}, {-1, 7}, on_axis(1));
    const std::string none = float_tensor(l.name() + "/none", {1, 7}, {0, -1, -1, -1, -1, -1, -1});
    const std::string padded = op("Concat", {found, none}, {-1, 7}, on_axis(0));
    const std::string shown = op("Slice", {padded, ints("begin", {0}), op("Max", {count, ints("one", {1})}, {1}), ints("axis", {0})}, {-1, 7});
    step(l, "Reshape", {shown, ints("rows", {1, 1, -1, 7})}, {1, 1, -1, 7}, true);
  }

  void unary(const Layer& l, const char* op) {
    const std::string x = bottom(l, 0);
    node(l, op, {x}, top(l, 0, dims(x)));
  }

  // Identity at test time: every top is the bottom.
  void alias(const Layer& l) {
    const std::string x = bottom(l, 0, false);
    for (const auto& t : l.top()) current_[t] = x;
  }

  fs::path path_;
  onnx::GraphProto& graph_;
  bool checking_;                                                // against a caffemodel's blobs
  std::map<std::string, const google::protobuf::RepeatedPtrField<caffe::BlobProto>*> blobs_;  // by layer name
  std::map<std::string, std::string> current_;                   // Caffe blob -> the value holding it now
  std::map<std::string, Dims> dims_;                             // value -> its shape
  std::set<std::string> taken_, consumed_, node_names_;
  std::vector<std::string> produced_, weights_;
  ModelWeights values_;
};

// ---- inputs ---------------------------------------------------------------------------------

struct NetInput {
  std::string name;
  Dims dims;  // -1 where unknown
};

std::vector<NetInput> declared_inputs(const caffe::NetParameter& net, const std::vector<Layer>& layers, const fs::path& path) {
  std::vector<NetInput> out;
  for (int i = 0; i < net.input_size(); ++i) {
    Dims d;
    if (i < net.input_shape_size()) d.assign(net.input_shape(i).dim().begin(), net.input_shape(i).dim().end());
    else if (net.input_dim_size() >= 4 * (i + 1)) d.assign(net.input_dim().begin() + 4 * i, net.input_dim().begin() + 4 * i + 4);
    out.push_back({net.input(i), d});
  }
  for (const Layer& l : layers) {
    if (!runs_at_test(l)) continue;
    if (l.type() == "Input")
      for (int t = 0; t < l.top_size(); ++t) {
        const auto& shapes = l.input_param().shape();
        Dims d;
        if (!shapes.empty()) {
          const auto& s = shapes.Get(t < shapes.size() ? t : 0);
          d.assign(s.dim().begin(), s.dim().end());
        }
        out.push_back({l.top(t), d});
      }
    // A data layer's first top is the batch of images; the rest (labels) only training reads.
    if (data_layer(l.type()) && l.top_size() > 0) out.push_back({l.top(0), {}});
  }
  if (out.empty())
    throw Error(StatusCode::invalid_argument, "Caffe prototxt " + quoted(path) +
                                                  " declares no input (an Input layer, or input: with input_shape)");
  return out;
}

void apply_shapes(std::vector<NetInput>& inputs, const InputShapes& shapes, const fs::path& path) {
  std::string names;
  for (const auto& i : inputs) names += (names.empty() ? "" : ", ") + i.name;
  for (const auto& [name, dims] : shapes) {
    const auto it = std::find_if(inputs.begin(), inputs.end(), [&](const NetInput& i) { return i.name == name; });
    if (it == inputs.end())
      throw Error(StatusCode::invalid_argument, "--input_shape names '" + name + "', which is not an input of Caffe prototxt " +
                                                    quoted(path) + "; its inputs: " + names);
    it->dims = dims;
  }
  for (auto& i : inputs) {
    const bool known = !i.dims.empty() && std::all_of(i.dims.begin(), i.dims.end(), [](int64_t d) { return d >= 1; });
    if (!known)
      throw Error(StatusCode::invalid_argument, "input '" + i.name + "' of Caffe prototxt " + quoted(path) + " has no fixed shape (" +
                                                    dims_text(i.dims) + "): give it with --input_shape, e.g. \"" + i.name +
                                                    ":1,3,224,224\"");
  }
}

}  // namespace

sdk::Graph load_caffe(const fs::path& prototxt, const std::optional<fs::path>& caffemodel, const InputShapes& input_shapes,
                      ModelWeights* weights, Normalisation* normalised) {
  const caffe::NetParameter net = read_prototxt(prototxt);
  const std::optional<caffe::NetParameter> trained =
      caffemodel ? std::optional<caffe::NetParameter>(read_caffemodel(*caffemodel)) : std::nullopt;
  const std::vector<Layer> layers = layers_of(net);
  std::vector<NetInput> inputs = declared_inputs(net, layers, prototxt);
  apply_shapes(inputs, input_shapes, prototxt);

  onnx::ModelProto model;
  model.set_ir_version(7);
  model.set_producer_name("aoe caffe frontend");
  model.add_opset_import()->set_version(kOpset);
  auto& graph = *model.mutable_graph();
  graph.set_name(net.name().empty() ? prototxt.stem().string() : net.name());
  Translator translate(prototxt, trained ? &*trained : nullptr, graph);
  for (const auto& i : inputs) translate.input(i.name, i.dims);
  std::vector<const Layer*> running;
  for (const Layer& l : layers)
    if (runs_at_test(l) && l.type() != "Input" && !data_layer(l.type()) && !training_only(l.type())) running.push_back(&l);
  for (size_t i = 0; i < running.size(); ++i)
    if (translate.layer(*running[i], i + 1 < running.size() ? running[i + 1] : nullptr)) ++i;
  translate.finish();

  // The constants the layers hold (Power's exponent, Crop's bounds) are the graph's initializers.
  ModelWeights constants;
  sdk::Graph out = load_onnx_model(model, prototxt, {}, weights ? &constants : nullptr, normalised);
  // The weights were inputs only so that their shapes were known.
  for (const auto& w : translate.weights()) {
    out.tensors.at(w).constant = true;
    out.inputs.erase(std::remove(out.inputs.begin(), out.inputs.end(), w), out.inputs.end());
  }
  if (weights) {
    *weights = std::move(translate.values());
    for (auto& [name, values] : constants) weights->emplace(name, std::move(values));
  }
  return out;
}

}  // namespace aoe::host
