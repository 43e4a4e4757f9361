// TensorFlow versions of example models: frozen GraphDefs (.pb) as
// TensorFlow writes them, feature maps in NHWC, weights as Const nodes.
#pragma once

#include "graph.pb.h"

namespace aoe::models {

// conv_block.onnx as a Keras-built TensorFlow graph has it: NHWC, HWIO
// filters read through Identity nodes, FusedBatchNormV3, BiasAdd after the 1x1 conv.
aoe::tensorflow::GraphDef conv_block_tensorflow();

// mlp.onnx's layers: MatMul and BiasAdd, the second weight stored
// transposed (transpose_b) as the ONNX model's Gemm has it.
aoe::tensorflow::GraphDef mlp_tensorflow();

}  // namespace aoe::models
