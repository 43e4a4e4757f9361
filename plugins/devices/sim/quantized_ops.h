// The integer convolutions and products (ConvInteger, QLinearConv,
// MatMulInteger, QLinearMatMul) as the cube runs int8: its int8 fractal is
// 16 x 32 (512 B, as fp16's 16 x 16) and it multiplies 16 x 32 x 16 a
// cycle, so an 8-bit operand of depth K (channels, for a conv) costs in
// bytes, buffer space and cube cycles what an fp16 one of depth ceil(K / 2)
// does. So each runs as that fp16 Conv or MatMul, tiled and tuned by its
// model. The int32 accumulator leaves as fp32 would; QLinear's 8-bit
// output is requantised on the way out (the epilogue's conversions).
#pragma once

#include <memory>
#include <string>

#include "aoe/sdk/op_task.h"
#include "op_model.h"
#include "soc.h"

namespace aoe::sim {

bool is_quantized_op(const std::string& op_type);

// The fp16 Conv or MatMul task a quantized one runs as. Throws
// invalid_argument, naming the op, for operands not 8-bit integers or
// shapes that disagree.
sdk::OpTask quantized_as_fp16(const sdk::OpTask& task, const Soc& soc);

// DynamicQuantizeLinear (x -> y, y_scale, y_zero_point): the range of x, a
// ReduceMax and a ReduceMin over every element, then x quantized with the
// scale and zero point it gives (QuantizeLinear's passes), one launch; each
// part keeps its knobs ("min_", "quantize_" before the later parts').
std::unique_ptr<OpModel> dynamic_quantize_model(const Soc& soc, const sdk::OpTask& task);

}  // namespace aoe::sim
