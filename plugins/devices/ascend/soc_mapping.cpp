#include "soc_mapping.h"

#include <map>

namespace aoe::ascend {

SocIdentity map_soc_name(const std::string& driver_name) {
  // The simulator's soc_version of each file in plugins/devices/sim/socs.
  static const std::map<std::string, SocIdentity> known = {
      {"Ascend910A", {"Ascend910", "ascend910"}},        {"Ascend910B", {"Ascend910", "ascend910"}},
      {"Ascend910ProA", {"Ascend910", "ascend910"}},     {"Ascend910ProB", {"Ascend910", "ascend910"}},
      {"Ascend910PremiumA", {"Ascend910", "ascend910"}}, {"Ascend910", {"Ascend910", "ascend910"}},
      {"Ascend910B2", {"Ascend910B2", "ascend910b"}},    {"Ascend310", {"Ascend310", "ascend310"}},
      {"Ascend310P3", {"Ascend310P3", "ascend310p"}},
  };
  const auto it = known.find(driver_name);
  return it != known.end() ? it->second : SocIdentity{driver_name, ""};
}

}  // namespace aoe::ascend
