// The plugin's one registration: everything else lives in aoe_cuda_device.
#include "aoe/sdk/plugin.h"
#include "cuda_device.h"

namespace aoe::cuda {
// The summary says whether the driver and NVRTC are there, so a listing shows why a run could not use them.
AOE_REGISTER_DEVICE(CudaDevice, "cuda", listing_summary().c_str());
}  // namespace aoe::cuda
