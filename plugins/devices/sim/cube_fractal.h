// The cube unit's fractal, which the matmul, convolution and CANN kernel
// models share: a 16 x 16 tile of fp16 values (512 B), 16 channels of a
// feature map's C0 group, accumulated in fp32.
#pragma once

#include <cstdint>

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

}  // namespace aoe::sim
