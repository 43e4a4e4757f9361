// ConvTranspose as CANN's Conv2DTranspose (Conv3DTranspose) runs it on the cube: the input
// dilated by the strides (zeros between pixels) and convolved, stride 1,
// by the kernel with the complementary pads. So it tiles, and is tuned,
// as that Conv.
#pragma once

#include "aoe/sdk/op_task.h"
#include "soc.h"

namespace aoe::sim {

// The Conv task a ConvTranspose task runs as. Throws invalid_argument,
// naming the op, for shapes and attributes that disagree, unsupported for
// what it does not cover (not 1-D to 3-D, pads past the dilated kernel).
sdk::OpTask conv_transpose_as_conv(const sdk::OpTask& task, const Soc& soc);

}  // namespace aoe::sim
