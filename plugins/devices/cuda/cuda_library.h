// Finding libcuda.so.1, libnvrtc.so.* and libnvidia-ml.so.1 and opening them:
// the device's only link to the CUDA driver, NVRTC and NVML.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "cuda_api.h"

namespace aoe::cuda {

// What a user reads in the plugin listing when there is no driver to load.
inline constexpr const char* kCudaMissing =
    "unavailable: libcuda.so.1 or libnvrtc.so not found (install the NVIDIA driver and "
    "`pip install nvidia-cuda-nvrtc-cu12`, or set CUDA_HOME)";

struct CudaLibraryPaths {
  std::filesystem::path driver, nvrtc, nvml;  // empty: not found (nvml is optional)
  // Every folder searched, in order, for the error message; empty when both options were given.
  std::vector<std::filesystem::path> searched;
};

// The libraries to load. The options (the device's `cuda_library` and
// `nvrtc_library`) win when given; otherwise each is the first found in
// $CUDA_HOME, $CUDA_PATH, LD_LIBRARY_PATH, the loader's cache, the usual
// install folders and the nvidia/*/lib folders pip puts in a Python
// environment. NVRTC is the highest libnvrtc.so.<major> of the first folder
// holding one. The driver is the first libcuda.so.1, else the first
// libcuda.so. NVML is searched as the driver is, beside the driver first.
CudaLibraryPaths find_cuda_libraries(const std::string& cuda_library_option, const std::string& nvrtc_library_option);

// The folders find_cuda_libraries searches, in order, with the environment as it is now.
std::vector<std::filesystem::path> cuda_search_dirs();

// The folders of the CUDA libraries the loader's cache lists.
std::vector<std::filesystem::path> loader_cache_dirs(const std::filesystem::path& cache = "/etc/ld.so.cache");

// find_cuda_libraries over the folders given rather than cuda_search_dirs().
CudaLibraryPaths find_cuda_libraries_in(const std::vector<std::filesystem::path>& dirs,
                                        const std::string& cuda_library_option,
                                        const std::string& nvrtc_library_option);

// The libnvrtc.so in `dir` to prefer: the highest major version, else the
// unversioned name. Empty when there is none.
std::filesystem::path nvrtc_in(const std::filesystem::path& dir);

// The three libraries opened with every entry point of their lists resolved;
// closed when destroyed.
class CudaLibraries {
 public:
  // Throws sdk::Error(not_found) naming the file or the folders searched,
  // the missing entry points, and what to do about it.
  explicit CudaLibraries(const CudaLibraryPaths& paths);
  ~CudaLibraries();
  CudaLibraries(const CudaLibraries&) = delete;
  CudaLibraries& operator=(const CudaLibraries&) = delete;

  const DriverApi& driver() const { return driver_; }
  const NvrtcApi& nvrtc() const { return nvrtc_; }
  const NvmlApi* nvml() const { return nvml_handle_ ? &nvml_ : nullptr; }  // nullptr: NVML absent
  const CudaLibraryPaths& paths() const { return paths_; }

 private:
  CudaLibraryPaths paths_;
  void* driver_handle_ = nullptr;
  void* nvrtc_handle_ = nullptr;
  void* nvml_handle_ = nullptr;
  DriverApi driver_;
  NvrtcApi nvrtc_;
  NvmlApi nvml_;
};

// "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered".
std::string cuda_error(const DriverApi& api, CUresult result);
// "NVRTC_ERROR_COMPILATION".
std::string nvrtc_error(const NvrtcApi& api, nvrtcResult result);

}  // namespace aoe::cuda
