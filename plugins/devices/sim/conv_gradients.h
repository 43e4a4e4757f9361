// A conv's gradients as the cube runs them: Conv2DBackpropInput as the
// transposed conv of dy (conv_transpose.h), Conv2DBackpropFilter as the
// product dy^T x im2col(x) (matmul_model.h). So each tiles, and is tuned,
// as the kernel it runs as.
#pragma once

#include "aoe/sdk/op_task.h"
#include "soc.h"

namespace aoe::sim {

// The ConvTranspose task a Conv2DBackpropInput task (dy, w -> dx, the
// forward Conv's attributes and input_size) runs as, fused ops kept.
// Throws invalid_argument naming the op and the tensor for shapes and
// attributes that disagree.
sdk::OpTask conv_backprop_input_as_conv_transpose(const sdk::OpTask& task, const Soc& soc);

// The MatMul task a Conv2DBackpropFilter task (x, dy -> dw) runs as: Cout
// rows by Cin/group x KH x KW columns over N x Ho x Wo, one product per group;
// over `images` x Ho x Wo instead where `images` > 0 (one block's share of
// the batch). Throws invalid_argument as above.
sdk::OpTask conv_backprop_filter_as_matmul(const sdk::OpTask& task, const Soc& soc, int64_t images = 0);

}  // namespace aoe::sim
