// A Kernel Tuner T1 problem on any bytes: read or refused with sdk::Error,
// and a problem that reads gives its first config's launch, source and data.
#include <string>

#include "aoe/sdk/error.h"
#include "argument_data.h"
#include "fuzz_file.h"
#include "kernel_source.h"
#include "t1_launch.h"
#include "parameter_space.h"
#include "t1_problem.h"

namespace {

// The kernel files the seeds name, beside the problem.
void write_kernel_files() {
  static const bool written = [] {
    const std::string kernel = "extern \"C\" __global__ void k(float *a) {}\n";
    for (const char* name : {"problem/vector_add.cu", "problem/convolution_small.cu"})
      aoe::fuzz::write_file(name, reinterpret_cast<const uint8_t*>(kernel.data()), kernel.size());
    return true;
  }();
  (void)written;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  write_kernel_files();
  const auto file = aoe::fuzz::write_file("problem/problem.json", data, size);
  try {
    // A limit the fuzzer's memory holds: sizes past it are refused before allocating.
    const auto problem = aoe::cuda::read_t1_problem(file, uint64_t{16} << 20);
    const aoe::replay::ParameterSpace space(problem.parameters);
    aoe::sdk::Config first;
    for (const auto& knob : space.space().knobs) first.push_back(knob.values.front());
    if (!space.check(first).ok()) return 0;
    const auto values = space.values(first);
    const auto launch = aoe::cuda::t1_launch(problem, values);
    aoe::cuda::t1_kernel_source(problem, values, launch);
    for (const auto& argument : problem.arguments) aoe::cuda::t1_initial_data(argument, 0);
  } catch (const aoe::sdk::Error&) {
  }
  return 0;
}
