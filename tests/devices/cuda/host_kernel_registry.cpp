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

int64_t HostLaunch::define_int(const std::string& name) const {
  const auto it = defines.find(name);
  if (it == defines.end()) throw std::runtime_error("the source defines no " + name);
  const char* text = it->second.c_str();
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text, &end, 0);
  if (end == text || *end != '\0' || errno != 0)
    throw std::runtime_error(name + " is defined as \"" + it->second + "\", not an integer");
  return value;
}

}  // namespace aoe::cuda_double
