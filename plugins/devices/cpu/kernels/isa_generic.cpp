// The kernels for the baseline target: portable vectors, no ISA extension.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "isa.h"

#define AOE_CPU_LANES 4
namespace aoe::cpu::generic {
#include "isa/all.inl"
}  // namespace aoe::cpu::generic
