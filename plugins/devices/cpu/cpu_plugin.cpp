// The plugin's one registration: everything else lives in aoe_cpu_kernels.
#include "aoe/sdk/plugin.h"
#include "cpu_device.h"

namespace aoe::cpu {
AOE_REGISTER_DEVICE(CpuDevice, "cpu", "the host CPU: real fp32 kernels (GEMM, conv, elementwise, reductions), timed in worker processes");
}  // namespace aoe::cpu
