// A chip's kernel profile on any bytes, as sim_fidelity_bench reads one: the
// rows read or refused with sdk::Error, each read row mapped to the
// simulator's models (modelled_kernel never throws) and its tasks timed at
// their default config on the profiled chip, or refused with sdk::Error.
#include "aoe/sdk/error.h"
#include "cann_kernels.h"
#include "fuzz_file.h"
#include "kernel_profile.h"
#include "op_model.h"
#include "soc_files.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const aoe::sim::Soc soc = aoe::sim::load_soc_file(AOE_FUZZ_SOC_FILE);
  const auto file = aoe::fuzz::write_file("step.csv", data, size);
  aoe::sim::KernelProfile profile;
  try {
    profile = aoe::sim::read_kernel_profile(file);
  } catch (const aoe::sdk::Error&) {
    return 0;
  }
  for (const auto& kernel : profile.kernels) {
    for (const auto& task : aoe::sim::modelled_kernel(kernel).tasks) {
      try {
        const auto model = aoe::sim::op_model(soc, task);
        model->time_us(model->space().default_config);
      } catch (const aoe::sdk::Error&) {
      }
    }
  }
  return 0;
}
