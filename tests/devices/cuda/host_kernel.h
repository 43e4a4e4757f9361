// What the CUDA test double runs in place of a GPU kernel: a plain C++
// function registered under the kernel's name, given the launch as
// cuLaunchKernel received it and the `#define NAME VALUE` lines of the
// source NVRTC was given (every source the cuda device compiles states its
// config that way).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

namespace aoe::cuda_double {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

struct HostLaunch {
  std::map<std::string, std::string> defines;  // NAME -> VALUE as written
  Dim3 grid, block;
  unsigned shared_bytes = 0;
  // As cuLaunchKernel got them: params[i] points at the i-th argument's
  // value; a buffer's value is a CUdeviceptr, which here is a host address.
  void** params = nullptr;
  const std::string* source = nullptr;  // the source NVRTC was given
  // A __constant__ symbol's storage, by name; nullptr when the source has none of that name.
  std::function<void*(const std::string&)> symbol;

  // The define's value as an integer; throws std::runtime_error naming it when absent or not one.
  int64_t define_int(const std::string& name) const;
  // The i-th buffer argument as a typed host pointer.
  template <typename T>
  T* buffer(int i) const {
    return reinterpret_cast<T*>(static_cast<uintptr_t>(*static_cast<unsigned long long*>(params[i])));
  }
  template <typename T>
  T scalar(int i) const {
    return *static_cast<T*>(params[i]);
  }
};

struct HostKernel {
  std::function<void(const HostLaunch&)> run;
  // The kernel's time in ms for this launch, deterministic per config; empty:
  // the double derives one from the defines.
  std::function<double(const HostLaunch&)> time_ms;
  // Its arguments, each 8 bytes (pointers): a launch into a stream capture
  // keeps copies of their values. 0: unknown, and such a kernel is not captured.
  int pointer_params = 0;
};

void register_host_kernel(const std::string& name, HostKernel kernel);

// Registers at load time: `static HostKernelRegistrar r("name", {...});`
struct HostKernelRegistrar {
  HostKernelRegistrar(const std::string& name, HostKernel kernel) { register_host_kernel(name, std::move(kernel)); }
};

}  // namespace aoe::cuda_double
