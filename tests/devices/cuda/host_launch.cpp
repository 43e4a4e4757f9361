// The one helper of host_kernel.h every host kernel calls: linked with the
// host kernels themselves, into the double and into their own tests.
#include <cerrno>
#include <cstdlib>
#include <stdexcept>

#include "host_kernel.h"

namespace aoe::cuda_double {

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
