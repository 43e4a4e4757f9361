// The kernels for AVX-512 (F, DQ, BW, VL) with FMA, built with -mavx512f and 512-bit vectors.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "isa.h"

#define AOE_CPU_LANES 16
namespace aoe::cpu::avx512 {
#include "isa/all.inl"
}  // namespace aoe::cpu::avx512
