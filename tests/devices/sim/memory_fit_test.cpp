// An op whose tensors do not fit the SoC's memory is refused, naming the op
// and both sizes, instead of being timed as if it ran.
#include <gtest/gtest.h>

#include <string>

#include "aoe/sdk/error.h"
#include "memory_fit.h"
#include "op_tasks.h"
#include "sim_device.h"
#include "soc_files.h"

namespace aoe::sim {
namespace {

sdk::OpTask relu(std::vector<int64_t> shape, sdk::DType dtype = sdk::DType::f32) {
  sdk::OpTask task;
  task.name = "act";
  task.op_type = "Relu";
  task.inputs = {test::tensor(shape, dtype)};
  task.outputs = {test::tensor(shape, dtype)};
  return task;
}

TEST(SimMemoryFit, TheShippedSocsSayTheirMemory) {
  EXPECT_EQ(ascend910().hbm_bytes, int64_t{32} << 30);
  for (const std::string target : {"ascend910b", "ascend310", "ascend310p"}) EXPECT_GT(load_soc(target).hbm_bytes, 0);
}

TEST(SimMemoryFit, AnOpAtTheSocsMemoryFitsAndOneByteMoreDoesNot) {
  Soc soc = ascend910();
  soc.hbm_bytes = 2 * 1024 * 4;  // in and out of 1024 fp32
  EXPECT_NO_THROW(require_fits_memory(soc, relu({1024})));
  soc.hbm_bytes -= 1;
  EXPECT_THROW(require_fits_memory(soc, relu({1024})), sdk::Error);
}

TEST(SimMemoryFit, TheDeviceRefusesATwoToTheFortyElementReluNamingOpAndSizes) {
  SimDevice device(sdk::CreateArgs{"ascend910", nlohmann::json::object()});
  try {
    device.prepare(relu({int64_t{1} << 40}));
    ADD_FAILURE() << "the op was prepared";
  } catch (const sdk::Error& e) {
    const std::string why = e.what();
    EXPECT_EQ(e.code(), sdk::StatusCode::invalid_argument);
    EXPECT_NE(why.find("ascend910 cannot hold op 'act' (Relu)"), std::string::npos) << why;
    EXPECT_NE(why.find("8.0 TiB (8796093022208 bytes)"), std::string::npos) << why;
    EXPECT_NE(why.find("32.0 GiB (34359738368 bytes)"), std::string::npos) << why;
  }
}

TEST(SimMemoryFit, ASizeThatOverflowsIsRefused) {
  EXPECT_THROW(require_fits_memory(ascend910(), relu({int64_t{1} << 40, int64_t{1} << 40})), sdk::Error);
}

}  // namespace
}  // namespace aoe::sim
