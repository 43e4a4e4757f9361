// A float as the tensor cores take it, for the tests' references and the
// test double's GEMM: rounded to TF32 as cvt.rna.tf32.f32 does (10
// mantissa bits, to nearest, ties away from zero), or to fp16 (to nearest
// even). Header-only: the CPU prelude, which kernels are compiled with,
// includes it too.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

inline float tf32_rounded(float v) {
  if (!std::isfinite(v)) return v;
  return std::bit_cast<float>((std::bit_cast<uint32_t>(v) + 0x1000u) & 0xFFFFE000u);
}

inline float fp16_rounded(float v) { return static_cast<float>(static_cast<_Float16>(v)); }
