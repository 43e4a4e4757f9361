// The kernels for AVX-512 (F, DQ, BW, VL) with FMA, built with -mavx512f and 512-bit vectors.
#include <immintrin.h>

#include <cstdint>

#include "isa.h"

#define AOE_CPU_LANES 16
namespace aoe::cpu::avx512 {
#include "isa/all.inl"
}  // namespace aoe::cpu::avx512

namespace aoe::cpu {
const IsaKernels& avx512_kernels() { return avx512::table(); }
}  // namespace aoe::cpu
