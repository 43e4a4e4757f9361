// The SoC the driver names, as the simulator names it: one soc_version per
// chip, so banks tuned on the simulator and on hardware share their keys.
#pragma once

#include <string>

namespace aoe::ascend {

struct SocIdentity {
  std::string soc_version;  // the bank's key: the simulator's soc_version where it models the chip
  std::string target;       // the simulator component of that chip; empty when it has none
};

// aclrtGetSocName's answer -> its identity. The 910 family's SKUs
// (Ascend910A, 910B, 910ProA, 910ProB, 910PremiumA) share CANN's short
// version Ascend910; a chip the simulator does not model keeps the driver's name.
SocIdentity map_soc_name(const std::string& driver_name);

}  // namespace aoe::ascend
