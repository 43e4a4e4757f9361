// The plugin's one registration: everything else lives in aoe_ascend_device.
#include "aoe/sdk/plugin.h"
#include "ascend_device.h"

namespace aoe::ascend {
// The summary says whether libascendcl.so is there, so a listing shows why a run could not use it.
AOE_REGISTER_DEVICE(AscendDevice, "ascend", listing_summary().c_str());
}  // namespace aoe::ascend
