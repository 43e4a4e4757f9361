// The kernels for AVX2 with FMA, built with -mavx2 -mfma.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "isa.h"

#define AOE_CPU_LANES 8
namespace aoe::cpu::avx2 {
#include "isa/all.inl"
}  // namespace aoe::cpu::avx2
