#include "cuda_library.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <set>
#include <sstream>
#include <utility>

#include "aoe/sdk/error.h"

namespace aoe::cuda {
namespace fs = std::filesystem;
namespace {

const char* const kDriverNames[] = {"libcuda.so.1", "libcuda.so"};
constexpr const char* kNvmlName = "libnvidia-ml.so.1";

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec) && !fs::is_directory(p, ec);
}

// Sorted, so the search order does not depend on the file system's.
std::vector<fs::path> subdirs(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec)) out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

// pip's nvidia-* wheels put their libraries in site-packages/nvidia/<part>/lib.
std::vector<fs::path> python_dirs() {
  std::vector<fs::path> site_packages;
  auto add_pythons = [&](const fs::path& lib, std::initializer_list<const char*> leaves) {
    for (const auto& d : subdirs(lib))
      if (d.filename().string().rfind("python3", 0) == 0)
        for (const char* leaf : leaves) site_packages.push_back(d / leaf);
  };
  if (const auto v = env("VIRTUAL_ENV"); !v.empty()) add_pythons(fs::path(v) / "lib", {"site-packages"});
  if (const auto c = env("CONDA_PREFIX"); !c.empty()) add_pythons(fs::path(c) / "lib", {"site-packages"});
  if (const auto h = env("HOME"); !h.empty()) add_pythons(fs::path(h) / ".local/lib", {"site-packages"});
  // Debian's pythons use dist-packages; a python built from source (the python images) site-packages.
  add_pythons("/usr/lib", {"dist-packages", "site-packages"});
  add_pythons("/usr/local/lib", {"dist-packages", "site-packages"});
  std::vector<fs::path> dirs;
  for (const auto& sp : site_packages)
    for (const auto& part : subdirs(sp / "nvidia")) dirs.push_back(part / "lib");
  return dirs;
}

// libcuda.so.1 anywhere before libcuda.so: a toolkit's stubs folder holds a
// libcuda.so that links but has no GPU behind it.
fs::path first_driver_in(const std::vector<fs::path>& dirs) {
  for (const char* name : kDriverNames)
    for (const auto& dir : dirs)
      if (is_file(dir / name)) return dir / name;
  return {};
}

fs::path first_nvml(const fs::path& driver, const std::vector<fs::path>& dirs) {
  if (!driver.empty() && is_file(driver.parent_path() / kNvmlName)) return driver.parent_path() / kNvmlName;
  for (const auto& dir : dirs)
    if (is_file(dir / kNvmlName)) return dir / kNvmlName;
  return {};
}

std::string joined(const std::vector<fs::path>& dirs) {
  std::string out;
  for (const auto& d : dirs) out += (out.empty() ? "" : ", ") + d.string();
  return out.empty() ? "(nowhere)" : out;
}

// dlopen, or throw naming the file and why.
void* open(const fs::path& file, const char* option) {
  if (!is_file(file))
    throw sdk::Error(sdk::StatusCode::not_found, std::string(option) + " " + file.string() + " does not exist");
  void* handle = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = ::dlerror();
    throw sdk::Error(sdk::StatusCode::not_found, "cannot load " + file.string() + ": " + (why ? why : "dlopen failed"));
  }
  return handle;
}

// Where `missing` names entry points, closes the library (handle becomes null)
// and throws not_found naming the file, what it lacks and the remedy.
void refuse_if_lacking(void*& handle, const fs::path& file, const std::vector<std::string>& missing, const char* what,
                       const char* remedy) {
  if (missing.empty()) return;
  std::string names;
  for (const auto& m : missing) names += (names.empty() ? "" : ", ") + m;
  ::dlclose(std::exchange(handle, nullptr));
  throw sdk::Error(sdk::StatusCode::not_found,
                   file.string() + " lacks " + what + " entry points the device calls: " + names + " (" + remedy + ")");
}

}  // namespace

// The cache file is read rather than `ldconfig -p` run: reading needs no
// root and no subprocess (ldconfig lives in /sbin, often off PATH), and every
// full path the cache holds lies in its string table, whatever its format version.
std::vector<fs::path> loader_cache_dirs(const fs::path& cache) {
  std::ifstream in(cache, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<fs::path> dirs;
  std::stringstream strings(bytes);
  for (std::string s; std::getline(strings, s, '\0');) {
    if (s.empty() || s[0] != '/') continue;
    const std::string name = fs::path(s).filename().string();
    if (name.rfind("libcuda.so", 0) == 0 || name.rfind("libnvrtc.so", 0) == 0 || name.rfind("libnvidia-ml.so", 0) == 0)
      dirs.push_back(fs::path(s).parent_path());
  }
  return dirs;
}

std::vector<fs::path> cuda_search_dirs() {
  std::vector<fs::path> dirs;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const auto home = env(var); !home.empty()) {
      dirs.push_back(fs::path(home) / "lib64");
      dirs.push_back(fs::path(home) / "targets/x86_64-linux/lib");
    }
  std::stringstream list(env("LD_LIBRARY_PATH"));
  for (std::string dir; std::getline(list, dir, ':');)
    if (!dir.empty()) dirs.emplace_back(dir);
  for (auto& d : loader_cache_dirs()) dirs.push_back(std::move(d));
  for (const char* d : {"/usr/local/nvidia/lib64", "/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib",
                        "/usr/lib/x86_64-linux-gnu", "/lib"})
    dirs.emplace_back(d);
  for (auto& d : python_dirs()) dirs.push_back(std::move(d));
  // Each folder once, where it first comes.
  std::set<fs::path> seen;
  std::vector<fs::path> unique;
  for (auto& d : dirs)
    if (seen.insert(d.lexically_normal()).second) unique.push_back(std::move(d));
  return unique;
}

fs::path nvrtc_in(const fs::path& dir) {
  const std::string prefix = "libnvrtc.so.";
  long best = -1;
  fs::path found;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string major = name.substr(prefix.size());
    if (major.empty() || major.size() > 6 || !std::all_of(major.begin(), major.end(), ::isdigit)) continue;
    if (std::stol(major) > best && is_file(it->path())) {
      best = std::stol(major);
      found = it->path();
    }
  }
  if (found.empty() && is_file(dir / "libnvrtc.so")) found = dir / "libnvrtc.so";
  return found;
}

CudaLibraryPaths find_cuda_libraries_in(const std::vector<fs::path>& dirs, const std::string& cuda_library_option,
                                        const std::string& nvrtc_library_option) {
  CudaLibraryPaths paths;
  paths.driver = cuda_library_option.empty() ? first_driver_in(dirs) : fs::path(cuda_library_option);
  if (!nvrtc_library_option.empty()) paths.nvrtc = nvrtc_library_option;
  for (size_t i = 0; paths.nvrtc.empty() && i < dirs.size(); ++i) paths.nvrtc = nvrtc_in(dirs[i]);
  paths.nvml = first_nvml(paths.driver, dirs);
  if (cuda_library_option.empty() || nvrtc_library_option.empty()) paths.searched = dirs;
  return paths;
}

CudaLibraryPaths find_cuda_libraries(const std::string& cuda_library_option, const std::string& nvrtc_library_option) {
  return find_cuda_libraries_in(cuda_search_dirs(), cuda_library_option, nvrtc_library_option);
}

CudaLibraries::CudaLibraries(const CudaLibraryPaths& paths) : paths_(paths) {
  if (paths.driver.empty())
    throw sdk::Error(sdk::StatusCode::not_found,
                     "the CUDA driver (libcuda.so.1) was not found; searched " + joined(paths.searched) +
                         ". Install the NVIDIA driver, or set the device option cuda_library=/path/to/libcuda.so.1");
  if (paths.nvrtc.empty())
    throw sdk::Error(sdk::StatusCode::not_found,
                     "NVRTC (libnvrtc.so.<major>) was not found; searched " + joined(paths.searched) +
                         ". Run `pip install nvidia-cuda-nvrtc-cu12`, set CUDA_HOME to a CUDA toolkit, or set the "
                         "device option nvrtc_library=/path/to/libnvrtc.so.12");
  try {
    std::vector<std::string> missing;
#define AOE_CUDA_RESOLVE(api, handle, name, ret, params)              \
  api.name = reinterpret_cast<ret(*) params>(::dlsym(handle, #name)); \
  if (!api.name) missing.emplace_back(#name);
#define AOE_CUDA_DRIVER(name, ret, params) AOE_CUDA_RESOLVE(driver_, driver_handle_, name, ret, params)
#define AOE_CUDA_NVRTC(name, ret, params) AOE_CUDA_RESOLVE(nvrtc_, nvrtc_handle_, name, ret, params)
#define AOE_CUDA_NVML(name, ret, params) AOE_CUDA_RESOLVE(nvml_, nvml_handle_, name, ret, params)
    driver_handle_ = open(paths.driver, "cuda_library");
    AOE_CUDA_DRIVER_ENTRY_POINTS(AOE_CUDA_DRIVER)
    refuse_if_lacking(driver_handle_, paths.driver, missing, "CUDA driver",
                      "an older driver than the device needs, or not libcuda.so: install a newer NVIDIA driver, or set "
                      "the device option cuda_library to the driver's libcuda.so.1");
    nvrtc_handle_ = open(paths.nvrtc, "nvrtc_library");
    AOE_NVRTC_ENTRY_POINTS(AOE_CUDA_NVRTC)
    refuse_if_lacking(nvrtc_handle_, paths.nvrtc, missing, "NVRTC",
                      "NVRTC older than 11.1, or not libnvrtc.so: `pip install nvidia-cuda-nvrtc-cu12`, or set the "
                      "device option nvrtc_library or CUDA_HOME to a newer one");
    // NVML only adds the clock and temperature to each measurement: without it, or with an odd one, tuning goes on.
    if (!paths.nvml.empty()) nvml_handle_ = ::dlopen(paths.nvml.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (nvml_handle_) {
      AOE_NVML_ENTRY_POINTS(AOE_CUDA_NVML)
      if (!missing.empty()) {
        ::dlclose(nvml_handle_);
        nvml_handle_ = nullptr;
        paths_.nvml.clear();
      }
    } else {
      paths_.nvml.clear();
    }
#undef AOE_CUDA_NVML
#undef AOE_CUDA_NVRTC
#undef AOE_CUDA_DRIVER
#undef AOE_CUDA_RESOLVE
  } catch (...) {
    if (nvrtc_handle_) ::dlclose(nvrtc_handle_);
    if (driver_handle_) ::dlclose(driver_handle_);
    throw;
  }
}

CudaLibraries::~CudaLibraries() {
  if (nvml_handle_) ::dlclose(nvml_handle_);
  if (nvrtc_handle_) ::dlclose(nvrtc_handle_);
  if (driver_handle_) ::dlclose(driver_handle_);
}

std::string cuda_error(const DriverApi& api, CUresult result) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (!api.cuGetErrorName || api.cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
    return "CUDA error " + std::to_string(result);
  std::string out = name;
  if (api.cuGetErrorString && api.cuGetErrorString(result, &text) == CUDA_SUCCESS && text)
    out += std::string(": ") + text;
  return out;
}

std::string nvrtc_error(const NvrtcApi& api, nvrtcResult result) {
  const char* text = api.nvrtcGetErrorString ? api.nvrtcGetErrorString(result) : nullptr;
  return text ? text : "NVRTC error " + std::to_string(result);
}

}  // namespace aoe::cuda
