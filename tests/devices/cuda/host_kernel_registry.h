// The double's side of the host-kernel registry: finding what the host
// kernels registered.
#pragma once

#include <string>

#include "host_kernel.h"

namespace aoe::cuda_double {

// The kernel registered under `name`, else under its name before any
// template arguments ("k<128>" -> "k"); nullptr when neither is.
const HostKernel* find_host_kernel(const std::string& name);

}  // namespace aoe::cuda_double
