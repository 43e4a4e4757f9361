// Driver SoC names to the simulator's soc_version.
#include <gtest/gtest.h>

#include "soc_mapping.h"

namespace aoe::ascend {
namespace {

TEST(SocMapping, The910FamilySharesCannsShortVersion) {
  for (const char* sku : {"Ascend910A", "Ascend910B", "Ascend910ProA", "Ascend910ProB", "Ascend910PremiumA"}) {
    EXPECT_EQ(map_soc_name(sku).soc_version, "Ascend910") << sku;
    EXPECT_EQ(map_soc_name(sku).target, "ascend910") << sku;
  }
}

TEST(SocMapping, ModelledChipsKeepTheSimulatorsVersion) {
  EXPECT_EQ(map_soc_name("Ascend910B2").soc_version, "Ascend910B2");
  EXPECT_EQ(map_soc_name("Ascend910B2").target, "ascend910b");
  EXPECT_EQ(map_soc_name("Ascend310P3").target, "ascend310p");
  EXPECT_EQ(map_soc_name("Ascend310").target, "ascend310");
}

// Another SKU of the A2 has other cores: its tunings are its own.
TEST(SocMapping, AnUnmodelledChipKeepsTheDriversName) {
  EXPECT_EQ(map_soc_name("Ascend910B4").soc_version, "Ascend910B4");
  EXPECT_EQ(map_soc_name("Ascend910B4").target, "");
}

}  // namespace
}  // namespace aoe::ascend
