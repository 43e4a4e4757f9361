// The cube unit's fractal, which the matmul, convolution and CANN kernel
// models share: a 16 x 16 tile of fp16 values (512 B), 16 channels of a
// feature map's C0 group, accumulated in fp32; and the dtypes it takes.
#pragma once

#include <cstdint>
#include <string>

#include "aoe/sdk/error.h"
#include "epilogue.h"
#include "vector_model.h"

namespace aoe::sim {

inline constexpr int64_t kC0 = 16;
inline constexpr int64_t kFractalBytes = kC0 * kC0 * 2;
// A fractal of the fp32 accumulator (L0C).
inline constexpr int64_t kAccFractalBytes = kC0 * kC0 * 4;
// Upper end of the L0 tile knobs, in fractals a side: 16 x 16 fractals fill L0C.
inline constexpr int64_t kMaxL0 = 16;

// Fractals (or C0 groups) that cover `elements` along one side.
inline int64_t fractals(int64_t elements) { return ceil_div64(elements, kC0); }

// The 910 cube has no fp32 mode (its ini lists f16 and int8 mmad only);
// fp32 operands are cast to fp16 as CANN's default precision mode does. An
// output may also be 8-bit, requantised on its way out (quantized_ops.h).
inline void require_cube_dtype(sdk::DType t, const std::string& op_type, const Soc& soc, bool output = false) {
  if (t != sdk::DType::f16 && t != sdk::DType::f32 && !(output && is_requantised(t)))
    throw sdk::Error(sdk::StatusCode::unsupported,
                     soc.target + " simulator models " + op_type + " on float16 and float32, not " + sdk::to_string(t));
}

}  // namespace aoe::sim
