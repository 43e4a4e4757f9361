// An op whose buffers do not fit this machine is refused before anything is
// allocated, naming it and both sizes.
#include <gtest/gtest.h>

#include <string>

#include "aoe/sdk/error.h"
#include "cpu_device.h"
#include "memory_fit.h"
#include "tasks.h"

namespace aoe::cpu {
namespace {

using test::f32;
using test::op;

sdk::OpTask relu(std::vector<int64_t> shape) {
  auto task = op("Relu", {f32(shape)});
  task.name = "act";
  task.outputs = {f32(shape)};
  return task;
}

std::string refusal(const sdk::OpTask& task, int64_t memory) {
  try {
    require_fits_memory(task, memory);
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), sdk::StatusCode::invalid_argument);
    return e.what();
  }
  return {};
}

TEST(CpuMemoryFit, CountsInputsOutputsAndTheReferenceAsFp32) {
  // 1 MiB in, 1 MiB out, 1 MiB reference.
  EXPECT_EQ(refusal(relu({256, 1024}), 3 << 20), "");
  const std::string why = refusal(relu({256, 1024}), (3 << 20) - 1);
  EXPECT_NE(why.find("cpu cannot run op 'act' (Relu)"), std::string::npos) << why;
  EXPECT_NE(why.find("3.0 MiB (3145728 bytes)"), std::string::npos) << why;
  EXPECT_NE(why.find("(3145727 bytes) of memory"), std::string::npos) << why;
}

TEST(CpuMemoryFit, ASizeThatOverflowsIsRefused) {
  const std::string why = refusal(relu({int64_t{1} << 40, int64_t{1} << 30}), int64_t{1} << 40);
  EXPECT_NE(why.find("more bytes than a 64-bit count holds"), std::string::npos) << why;
}

TEST(CpuMemoryFit, TheDeviceRefusesATwoToTheFortyElementOpInsteadOfAllocating) {
  CpuDevice device(CpuOptions::parse(nlohmann::json::object()));
  try {
    device.prepare(relu({int64_t{1} << 40}));
    ADD_FAILURE() << "prepared";
  } catch (const sdk::Error& e) {
    EXPECT_NE(std::string(e.what()).find("of memory"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace aoe::cpu
