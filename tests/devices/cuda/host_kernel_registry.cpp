#include "host_kernel_registry.h"

#include <cerrno>
#include <cstdlib>
#include <map>
#include <stdexcept>

namespace aoe::cuda_double {
namespace {

// Function-local, so registrars in any translation unit find it built.
std::map<std::string, HostKernel>& registry() {
  static std::map<std::string, HostKernel> kernels;
  return kernels;
}

}  // namespace

void register_host_kernel(const std::string& name, HostKernel kernel) { registry()[name] = std::move(kernel); }

const HostKernel* find_host_kernel(const std::string& name) {
  const auto& kernels = registry();
  if (auto it = kernels.find(name); it != kernels.end()) return &it->second;
  if (auto it = kernels.find(name.substr(0, name.find('<'))); it != kernels.end()) return &it->second;
  return nullptr;
}

}  // namespace aoe::cuda_double
