#include "isa.h"

namespace aoe::cpu {

// Each ISA's table, built in its own file (isa_<name>.cpp) with that ISA's flags.
namespace generic {
const IsaKernels& table();
}
#if defined(__x86_64__)
namespace avx2 {
const IsaKernels& table();
}
namespace avx512 {
const IsaKernels& table();
}
#endif

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::generic: return "generic";
    case Isa::avx2: return "avx2";
    case Isa::avx512: return "avx512";
  }
  return "generic";
}

bool is_binary(EltOp op) { return op <= EltOp::add_scaled; }

// __builtin_cpu_supports reads cpuid and checks that the OS saves the wider
// registers (XGETBV), so a true answer means the code can run.
bool cpu_supports(Isa isa) {
#if defined(__x86_64__)
  switch (isa) {
    case Isa::generic: return true;
    case Isa::avx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case Isa::avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
             __builtin_cpu_supports("fma");
  }
  return false;
#else
  return isa == Isa::generic;
#endif
}

const IsaKernels* isa_kernels(Isa isa) {
  if (!cpu_supports(isa)) return nullptr;
  switch (isa) {
    case Isa::generic: return &generic::table();
#if defined(__x86_64__)
    case Isa::avx2: return &avx2::table();
    case Isa::avx512: return &avx512::table();
#else
    default: return nullptr;
#endif
  }
  return nullptr;
}

Isa best_isa() {
  if (cpu_supports(Isa::avx512)) return Isa::avx512;
  if (cpu_supports(Isa::avx2)) return Isa::avx2;
  return Isa::generic;
}

}  // namespace aoe::cpu
