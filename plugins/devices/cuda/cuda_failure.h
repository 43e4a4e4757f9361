// A CUDA call that failed, and whether the context still serves after it.
#pragma once

#include <stdexcept>
#include <string>

#include "cuda_api.h"
#include "cuda_library.h"

namespace aoe::cuda {

// The call, and the error as the driver names it.
struct CudaFailure : std::runtime_error {
  CudaFailure(CUresult code, const std::string& what) : std::runtime_error(what), code(code) {}
  CUresult code;
};

// Errors after which the context still serves: the driver refused one
// request. Any other (an illegal address, a failed launch, a lost device)
// leaves the context unusable, so the worker ends and a fresh one follows.
inline bool context_survives(CUresult code) {
  switch (code) {
    case CUDA_ERROR_INVALID_VALUE:
    case CUDA_ERROR_OUT_OF_MEMORY:
    case CUDA_ERROR_INVALID_IMAGE:
    case 209:  // CUDA_ERROR_NO_BINARY_FOR_GPU
    case CUDA_ERROR_INVALID_PTX:
    case 222:  // CUDA_ERROR_UNSUPPORTED_PTX_VERSION
    case CUDA_ERROR_NOT_FOUND:
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
      return true;
    default:
      return false;
  }
}

// Throws CudaFailure naming `call` and the driver's error unless `r` is success.
inline void check_cuda(const DriverApi& cu, CUresult r, const std::string& call) {
  if (r != CUDA_SUCCESS) throw CudaFailure(r, call + ": " + cuda_error(cu, r));
}

}  // namespace aoe::cuda
