// The TensorFlow frontend (AOE's --framework 3): a frozen GraphDef (.pb) in,
// the graph IR out, its feature maps in the layout the graph gives them.
#pragma once

#include <filesystem>

#include "aoe/sdk/graph.h"
#include "onnx_frontend.h"

namespace aoe::host {

// Reads the GraphDef's nodes (in any order), maps each to the ONNX operator
// an exporter would write, and infers every shape. Ops TensorFlow runs on
// NHWC feature maps (Conv2D, DepthwiseConv2dNative, MaxPool, AvgPool,
// FusedBatchNorm) keep NHWC: their IR ops carry data_format = "NHWC"
// (aoe/sdk/data_layout.h), and their filters are given in ONNX's OIHW, as
// the device lays constants out itself. A Placeholder without a fixed shape
// takes it from input_shapes, by node name ("x" or "x:0"). Throws sdk::Error
// naming the file and the node.
sdk::Graph load_tensorflow(const std::filesystem::path& model, const InputShapes& input_shapes = {});

}  // namespace aoe::host
