// Caffe's trained weights (--weight x.caffemodel) on any bytes, beside a
// small network that has a blob of each kind (conv weights and bias,
// BatchNorm's statistics and factor, Scale's, InnerProduct's): its weights'
// values read, or refused with sdk::Error.
#include <string>

#include "aoe/sdk/error.h"
#include "frontend/caffe_frontend.h"
#include "fuzz_file.h"

namespace {

const std::string kNetwork = R"(name: "tiny"
layer { name: "x" type: "Input" top: "x" input_param { shape { dim: 1 dim: 2 dim: 2 dim: 2 } } }
layer { name: "conv1" type: "Convolution" bottom: "x" top: "conv1" convolution_param { num_output: 2 pad: 1 kernel_size: 3 } }
layer { name: "bn1" type: "BatchNorm" bottom: "conv1" top: "conv1" }
layer { name: "sc1" type: "Scale" bottom: "conv1" top: "conv1" scale_param { bias_term: true } }
layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
layer { name: "fc" type: "InnerProduct" bottom: "conv1" top: "fc" inner_product_param { num_output: 3 } }
)";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto prototxt = aoe::fuzz::write_file(
      "model/tiny.prototxt", reinterpret_cast<const uint8_t*>(kNetwork.data()), kNetwork.size());
  const auto caffemodel = aoe::fuzz::write_file("model/tiny.caffemodel", data, size);
  try {
    aoe::host::ModelWeights weights;
    aoe::host::load_caffe(prototxt, caffemodel, {}, &weights);
  } catch (const aoe::sdk::Error&) {
  }
  return 0;
}
