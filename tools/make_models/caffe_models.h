// Caffe versions of example models: the network (its layers, written as a
// prototxt) and, where asked, the trained weights (a caffemodel's blobs).
#pragma once

#include "caffe.pb.h"

namespace aoe::models {

// conv_block.onnx as Caffe writes it: BatchNorm and Scale in place after the
// first conv, an Eltwise sum for the residual.
aoe::caffe::NetParameter conv_block_caffe(bool with_weights);

// An MLP of InnerProduct layers, 256 -> 512 -> 128 -> 64, batch 8.
aoe::caffe::NetParameter mlp_caffe(bool with_weights);

// ResNet-50 in the layers of the original Caffe release (the shapes of
// torchvision's v1.5: the stride on each bottleneck's 3x3 conv).
aoe::caffe::NetParameter resnet50_caffe();

}  // namespace aoe::models
