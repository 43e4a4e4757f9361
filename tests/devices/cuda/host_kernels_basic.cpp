// Two small kernels for the plumbing's own tests.
// aoe_test_scale(float* y, const float* x, float a, int n): y[i] = a * x[i].
// Its time falls as BLOCK nears 128, so a tuner over BLOCK has one optimum.
// aoe_test_fill(float* y, int n): y[i] = VALUE + offset[0], offset the
// source's __constant__ float offset[] when it has one; its time is the
// double's default.
#include <cstdlib>

#include "host_kernel.h"

namespace aoe::cuda_double {
namespace {

void scale(const HostLaunch& launch) {
  float* y = launch.buffer<float>(0);
  const float* x = launch.buffer<float>(1);
  const float a = launch.scalar<float>(2);
  const int n = launch.scalar<int>(3);
  for (int i = 0; i < n; ++i) y[i] = a * x[i];
}

double scale_time_ms(const HostLaunch& launch) {
  if (!launch.defines.count("BLOCK")) return 1.0;
  return 1.0 + std::abs(launch.define_int("BLOCK") - 128) / 128.0;
}

void fill(const HostLaunch& launch) {
  float* y = launch.buffer<float>(0);
  const int n = launch.scalar<int>(1);
  const auto* offset = static_cast<const float*>(launch.symbol("offset"));
  const float value = static_cast<float>(launch.define_int("VALUE"));
  for (int i = 0; i < n; ++i) y[i] = value + (offset ? offset[0] : 0);
}

const HostKernelRegistrar scale_kernel("aoe_test_scale", {scale, scale_time_ms});
const HostKernelRegistrar fill_kernel("aoe_test_fill", {fill, {}});

}  // namespace
}  // namespace aoe::cuda_double
