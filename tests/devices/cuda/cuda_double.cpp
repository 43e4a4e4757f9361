// A stand-in for libcuda.so.1, libnvrtc.so and libnvidia-ml.so.1 in one
// library, so the cuda device is built and tested where there is no GPU.
// "Device" memory is host memory (a CUdeviceptr is the host address);
// NVRTC "compiles" a source into a record of its kernels, `#define NAME
// VALUE` lines and __constant__ symbols; a launch runs the host kernel
// registered under the kernel's name (host_kernel.h) and advances the
// context's virtual clock by that kernel's time, which events read. This
// file is the driver and NVML; nvrtc_double.cpp the NVRTC, double_image.h
// what a "cubin" holds, double_config.h the settings and fault rules.
//
// Environment (the driver reads it at cuInit, NVRTC at each compile):
//   AOE_CUDA_DOUBLE_DEVICES     devices there are (default 1; 0: cuInit gives CUDA_ERROR_NO_DEVICE)
//   AOE_CUDA_DOUBLE_NAME        the devices' name (default "AOE Double GPU")
//   AOE_CUDA_DOUBLE_MEMORY_MB   allocations past this total are CUDA_ERROR_OUT_OF_MEMORY (default 4096)
//   AOE_CUDA_DOUBLE_COMPILE_MS  each compile sleeps about this long, between 0.25x and 1.75x by a
//                               hash of the source, so parallel compiles finish out of order
//   AOE_CUDA_DOUBLE_FAULTS      `;`-separated rules FAULT or FAULT@NAME=VALUE,NAME=VALUE: a rule
//                               applies to a source whose defines hold every pair given
// Faults, at compile:
//   compile_error       nvrtcCompileProgram gives NVRTC_ERROR_COMPILATION, the log naming the rule
//   compile_crash       nvrtcCompileProgram aborts the process
//   compile_hang        nvrtcCompileProgram never returns
// at launch:
//   too_many_resources  cuLaunchKernel gives CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES
//   launch_failure      cuLaunchKernel gives CUDA_ERROR_LAUNCH_FAILED
//   illegal_address     the launch succeeds; the next synchronising call and every call after it
//                       give CUDA_ERROR_ILLEGAL_ADDRESS: the context is lost, as on a GPU
//   hang                the launch succeeds; the next synchronising call never returns
//   wrong_result        the kernel runs, then the first float of each buffer it changed is perturbed
//   crash               the launch aborts the process, as a driver bug would
//   lost_device         the launch and every driver call after it give CUDA_ERROR_UNKNOWN (999);
//                       a later process finds the device again
// A compiled "cubin" is a text record of the kernels' name expressions, the
// defines, the __constant__ names (64 KiB of storage each per loaded module)
// and the options. nvrtcGetLoweredName gives the name expression itself; the
// host kernel is the one registered under it, or under its name before any
// template arguments. A name with no host kernel is a compile error.
// Synchronising calls: cuCtxSynchronize, cuEventSynchronize, cuMemcpy*, cuMemFree.
// The device: compute capability 9.0, 132 SMs, 1024 threads and 48 KiB
// shared memory per block (227 KiB opted in), warp 32, 50 MiB L2, 80 GiB;
// NVML reports an SM clock of 1980 MHz and 40 C. As the driver does, a block
// of over 1024 threads, or more dynamic shared memory than the function
// allows, is CUDA_ERROR_INVALID_VALUE.
#include <strings.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "cuda_api.h"
#include "double_config.h"
#include "double_image.h"
#include "host_kernel_registry.h"

#define CUDA_DOUBLE_EXPORT __attribute__((visibility("default")))
extern "C" {
#define CUDA_DOUBLE_DECLARE(name, ret, params) CUDA_DOUBLE_EXPORT ret name params;
AOE_CUDA_DRIVER_ENTRY_POINTS(CUDA_DOUBLE_DECLARE)
AOE_NVML_ENTRY_POINTS(CUDA_DOUBLE_DECLARE)
#undef CUDA_DOUBLE_DECLARE
}

using namespace aoe::cuda_double;

namespace {

constexpr CUresult kInvalidContext = 201;
constexpr CUresult kInvalidHandle = 400;
constexpr CUresult kUnknown = 999;
constexpr nvmlReturn_t kNvmlUninitialized = 1, kNvmlInvalidArgument = 2, kNvmlNotFound = 6;

constexpr size_t kConstantBytes = 64 * 1024;
constexpr int kMaxThreads = 1024;
constexpr int kSharedPerBlock = 48 * 1024;
constexpr int kSharedOptIn = 227 * 1024;

}  // namespace

struct CUfunc_st {
  CUmod_st* module = nullptr;
  std::string name;
  const HostKernel* kernel = nullptr;
  int max_dynamic_shared = kSharedPerBlock;
};

struct CUmod_st {
  CUctx_st* context = nullptr;
  Image image;
  std::map<std::string, std::vector<char>> constants;
  std::map<std::string, std::unique_ptr<CUfunc_st>> functions;
};

struct CUctx_st {
  CUdevice device = 0;
  int references = 0;
  double clock_ms = 0;  // virtual: advanced by each launch
};

struct CUevent_st {
  CUctx_st* context = nullptr;
  bool recorded = false;
  double stamp_ms = 0;
};

// A stream: launches run as they are made, or, between cuStreamBeginCapture
// and cuStreamEndCapture, are kept as operations of the graph it ends with.
using Operation = std::function<CUresult()>;
struct CUstream_st {
  CUctx_st* context = nullptr;
  bool capturing = false;
  std::vector<Operation> captured;
};
struct CUgraph_st {
  std::vector<Operation> operations;
};
struct CUgraphExec_st {
  std::vector<Operation> operations;
};

struct nvmlDevice_st {
  int ordinal = 0;
};

namespace {

struct Driver {
  std::recursive_mutex mutex;
  bool initialised = false;
  int devices = 1;
  std::string name = "AOE Double GPU";
  size_t memory_cap = 4096ull << 20;
  std::vector<Fault> faults;
  // What a fault left behind, for the rest of the process.
  CUresult sticky = CUDA_SUCCESS;
  bool illegal_pending = false;
  bool hang_pending = false;
  std::map<CUdevice, std::unique_ptr<CUctx_st>> contexts;
  std::map<uintptr_t, size_t> allocations;  // host address -> bytes
  size_t allocated = 0;
  std::set<std::unique_ptr<CUmod_st>> modules;
  bool nvml_initialised = false;
  std::vector<nvmlDevice_st> nvml_devices;

  ~Driver() {
    for (const auto& a : allocations) std::free(reinterpret_cast<void*>(a.first));
  }
};

Driver& driver() {
  static Driver d;
  return d;
}

thread_local CUctx_st* current_context = nullptr;

// The state every driver call checks first.
CUresult gate(const Driver& d) {
  if (d.sticky != CUDA_SUCCESS) return d.sticky;
  if (!d.initialised) return CUDA_ERROR_NOT_INITIALIZED;
  return CUDA_SUCCESS;
}

// What a synchronising call finds: an earlier launch's fault, now due.
CUresult synchronise(Driver& d) {
  if (const CUresult g = gate(d); g != CUDA_SUCCESS) return g;
  if (d.hang_pending) hang_forever();
  if (d.illegal_pending) return d.sticky = CUDA_ERROR_ILLEGAL_ADDRESS;
  return CUDA_SUCCESS;
}

bool valid_device(const Driver& d, CUdevice device) { return device >= 0 && device < d.devices; }

// True when [p, p + bytes) lies inside an allocation or a module's __constant__ storage.
bool device_range(const Driver& d, CUdeviceptr pointer, size_t bytes) {
  const uintptr_t p = static_cast<uintptr_t>(pointer);
  auto it = d.allocations.upper_bound(p);
  if (it != d.allocations.begin() && p + bytes <= std::prev(it)->first + std::prev(it)->second) return true;
  for (const auto& m : d.modules)
    for (const auto& [n, storage] : m->constants) {
      const auto base = reinterpret_cast<uintptr_t>(storage.data());
      if (p >= base && p + bytes <= base + storage.size()) return true;
    }
  return false;
}

struct ErrorText {
  CUresult code;
  const char* name;
  const char* text;
};
const ErrorText kErrors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {kInvalidContext, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {kInvalidHandle, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT", "the launch timed out and was terminated"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {kUnknown, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

const ErrorText* error_text(CUresult code) {
  for (const auto& e : kErrors)
    if (e.code == code) return &e;
  return nullptr;
}

// The launch's time when its host kernel gives none: a function of the config alone.
double default_time_ms(const Defines& defines) {
  std::string key;
  for (const auto& [n, v] : defines) key += n + "=" + v + ";";
  return 0.1 + static_cast<double>(fnv1a(key) % 10000) / 1000.0;
}

// wrong_result: the first float the kernel changed in each buffer, made
// wrong (in a model's arena, the first of the kernel's own output).
void perturb_changed(const std::map<uintptr_t, std::vector<char>>& before) {
  for (const auto& [address, bytes] : before) {
    const char* now = reinterpret_cast<const char*>(address);
    for (size_t at = 0; at + sizeof(float) <= bytes.size(); at += sizeof(float)) {
      if (std::memcmp(bytes.data() + at, now + at, sizeof(float)) == 0) continue;
      float* first = reinterpret_cast<float*>(address + at);
      *first = *first == 0 ? 1.0f : -3.0f * *first;
      break;
    }
  }
}

}  // namespace

extern "C" {

// ---- driver: errors, devices, contexts ----

CUresult cuInit(unsigned int flags) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (d.sticky != CUDA_SUCCESS) return d.sticky;
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  d.devices = std::atoi(env("AOE_CUDA_DOUBLE_DEVICES", "1").c_str());
  d.name = env("AOE_CUDA_DOUBLE_NAME", "AOE Double GPU");
  d.memory_cap = std::strtoull(env("AOE_CUDA_DOUBLE_MEMORY_MB", "4096").c_str(), nullptr, 10) << 20;
  d.faults = parse_faults(env("AOE_CUDA_DOUBLE_FAULTS", ""));
  if (d.devices <= 0) {
    d.devices = 0;
    return CUDA_ERROR_NO_DEVICE;
  }
  d.initialised = true;
  return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int* version) {
  if (!version) return CUDA_ERROR_INVALID_VALUE;
  *version = 13000;
  return CUDA_SUCCESS;
}

CUresult cuGetErrorName(CUresult error, const char** name) {
  const ErrorText* e = error_text(error);
  if (!name || !e) return CUDA_ERROR_INVALID_VALUE;
  *name = e->name;
  return CUDA_SUCCESS;
}

CUresult cuGetErrorString(CUresult error, const char** text) {
  const ErrorText* e = error_text(error);
  if (!text || !e) return CUDA_ERROR_INVALID_VALUE;
  *text = e->text;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int* count) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (d.sticky != CUDA_SUCCESS) return d.sticky;
  if (!count) return CUDA_ERROR_INVALID_VALUE;
  // As the driver does with no GPU: a count of 0 even though cuInit failed.
  if (!d.initialised && d.devices != 0) return CUDA_ERROR_NOT_INITIALIZED;
  *count = d.initialised ? d.devices : 0;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (d.sticky != CUDA_SUCCESS) return d.sticky;
  if (!d.initialised) return d.devices == 0 ? CUDA_ERROR_NO_DEVICE : CUDA_ERROR_NOT_INITIALIZED;
  if (!device) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(d, ordinal)) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char* name, int length, CUdevice device) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (const CUresult g = gate(d); g != CUDA_SUCCESS) return g;
  if (!name || length <= 0) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(d, device)) return CUDA_ERROR_INVALID_DEVICE;
  std::snprintf(name, static_cast<size_t>(length), "%s", d.name.c_str());
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attribute, CUdevice device) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (const CUresult g = gate(d); g != CUDA_SUCCESS) return g;
  if (!value) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(d, device)) return CUDA_ERROR_INVALID_DEVICE;
  switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = kMaxThreads; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *value = kSharedPerBlock; break;
    case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: *value = static_cast<int>(kConstantBytes); break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *value = 32; break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: *value = 65536; break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: *value = 1980000; break;  // kHz
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = 132; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: *value = 2619000; break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: *value = 5120; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *value = 50 << 20; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *value = 2048; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = 0; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *value = kSharedOptIn; break;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetPCIBusId(char* bus_id, int length, CUdevice device) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (const CUresult g = gate(d); g != CUDA_SUCCESS) return g;
  if (!bus_id || length <= 0) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(d, device)) return CUDA_ERROR_INVALID_DEVICE;
  std::snprintf(bus_id, static_cast<size_t>(length), "0000:%02X:00.0", 0x19 + device);
  return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice device) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (const CUresult g = gate(d); g != CUDA_SUCCESS) return g;
  if (!bytes) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(d, device)) return CUDA_ERROR_INVALID_DEVICE;
  *bytes = 80ull << 30;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice device) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (const CUresult g = gate(d); g != CUDA_SUCCESS) return g;
  if (!context) return CUDA_ERROR_INVALID_VALUE;
  if (!valid_device(d, device)) return CUDA_ERROR_INVALID_DEVICE;
  auto& c = d.contexts[device];
  if (!c) {
    c = std::make_unique<CUctx_st>();
    c->device = device;
  }
  ++c->references;
  *context = c.get();
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (const CUresult g = gate(d); g != CUDA_SUCCESS) return g;
  const auto it = d.contexts.find(device);
  if (it == d.contexts.end() || it->second->references == 0) return kInvalidContext;
  // The primary context lives on, as the driver's does, so handles stay valid.
  --it->second->references;
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext context) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (const CUresult g = gate(d); g != CUDA_SUCCESS) return g;
  current_context = context;
  return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize() {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (const CUresult s = synchronise(d); s != CUDA_SUCCESS) return s;
  return current_context ? CUDA_SUCCESS : kInvalidContext;
}

// ---- driver: modules and launches ----

CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (const CUresult g = gate(d); g != CUDA_SUCCESS) return g;
  if (!module || !image) return CUDA_ERROR_INVALID_VALUE;
  if (!current_context) return kInvalidContext;
  auto m = std::make_unique<CUmod_st>();
  if (!read_image(static_cast<const char*>(image), m->image)) return CUDA_ERROR_INVALID_IMAGE;
  m->context = current_context;
  for (const auto& c : m->image.constants) m->constants[c].assign(kConstantBytes, 0);
  *module = m.get();
  d.modules.insert(std::move(m));
  return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule module) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (const CUresult g = gate(d); g != CUDA_SUCCESS) return g;
  for (auto it = d.modules.begin(); it != d.modules.end(); ++it)
    if (it->get() == module) {
      d.modules.erase(it);
      return CUDA_SUCCESS;
    }
  return kInvalidHandle;
}

CUresult cuModuleGetFunction(CUfunction* function, CUmodule module, const char* name) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (const CUresult g = gate(d); g != CUDA_SUCCESS) return g;
  if (!function || !module || !name) return CUDA_ERROR_INVALID_VALUE;
  const auto& kernels = module->image.kernels;
  if (std::find(kernels.begin(), kernels.end(), name) == kernels.end()) return CUDA_ERROR_NOT_FOUND;
  const HostKernel* kernel = aoe::cuda_double::find_host_kernel(name);
  if (!kernel) return CUDA_ERROR_NOT_FOUND;
  auto& f = module->functions[name];
  if (!f) f = std::make_unique<CUfunc_st>(CUfunc_st{module, name, kernel, kSharedPerBlock});
  *function = f.get();
  return CUDA_SUCCESS;
}

CUresult cuModuleGetGlobal_v2(CUdeviceptr* pointer, size_t* bytes, CUmodule module, const char* name) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (const CUresult g = gate(d); g != CUDA_SUCCESS) return g;
  if (!module || !name) return CUDA_ERROR_INVALID_VALUE;
  const auto it = module->constants.find(name);
  if (it == module->constants.end()) return CUDA_ERROR_NOT_FOUND;
  if (pointer) *pointer = reinterpret_cast<uintptr_t>(it->second.data());
  if (bytes) *bytes = it->second.size();
  return CUDA_SUCCESS;
}

CUresult cuFuncGetAttribute(int* value, CUfunction_attribute attribute, CUfunction function) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (const CUresult g = gate(d); g != CUDA_SUCCESS) return g;
  if (!value || !function) return CUDA_ERROR_INVALID_VALUE;
  switch (attribute) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = kMaxThreads; break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *value = 0; break;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
      *value = static_cast<int>(kConstantBytes * function->module->constants.size());
      break;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *value = 0; break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *value = 32; break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *value = function->max_dynamic_shared; break;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction function, CUfunction_attribute attribute, int value) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (const CUresult g = gate(d); g != CUDA_SUCCESS) return g;
  if (!function) return CUDA_ERROR_INVALID_VALUE;
  if (attribute != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES || value < 0 || value > kSharedOptIn)
    return CUDA_ERROR_INVALID_VALUE;
  function->max_dynamic_shared = value;
  return CUDA_SUCCESS;
}

namespace {

// A launch made now: its faults, the host kernel, its time on the virtual clock.
CUresult launch_now(Driver& d, CUfunction function, unsigned grid_x, unsigned grid_y, unsigned grid_z, unsigned block_x,
                    unsigned block_y, unsigned block_z, unsigned shared_bytes, void** params) {
  const Defines& defines = function->module->image.defines;
  auto fault = [&](const char* kind) { return fault_for(d.faults, kind, defines) != nullptr; };
  if (fault("crash")) std::abort();
  if (fault("lost_device")) return d.sticky = kUnknown;
  if (fault("too_many_resources")) return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
  if (fault("launch_failure")) return CUDA_ERROR_LAUNCH_FAILED;
  if (fault("illegal_address")) {
    d.illegal_pending = true;
    return CUDA_SUCCESS;
  }
  if (fault("hang")) {
    d.hang_pending = true;
    return CUDA_SUCCESS;
  }

  HostLaunch launch;
  launch.defines = defines;
  launch.grid = {grid_x, grid_y, grid_z};
  launch.block = {block_x, block_y, block_z};
  launch.shared_bytes = shared_bytes;
  launch.params = params;
  launch.source = &function->module->image.source;
  CUmod_st* module = function->module;
  launch.symbol = [module](const std::string& name) -> void* {
    const auto it = module->constants.find(name);
    return it == module->constants.end() ? nullptr : it->second.data();
  };
  const bool wrong = fault("wrong_result");
  std::map<uintptr_t, std::vector<char>> before;
  if (wrong)
    for (const auto& [address, bytes] : d.allocations)
      before[address].assign(reinterpret_cast<const char*>(address), reinterpret_cast<const char*>(address) + bytes);
  try {
    function->kernel->run(launch);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuda double: host kernel %s threw: %s\n", function->name.c_str(), e.what());
    return CUDA_ERROR_LAUNCH_FAILED;
  }
  if (wrong) perturb_changed(before);
  const double ms = function->kernel->time_ms ? function->kernel->time_ms(launch) : default_time_ms(defines);
  current_context->clock_ms += ms;
  return CUDA_SUCCESS;
}

}  // namespace

CUresult cuLaunchKernel(CUfunction function, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z,
                        unsigned int block_x, unsigned int block_y, unsigned int block_z, unsigned int shared_bytes,
                        CUstream stream, void** params, void** extra) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (const CUresult g = gate(d); g != CUDA_SUCCESS) return g;
  if (!current_context) return kInvalidContext;
  if (!function || extra || (stream && stream->context != current_context)) return CUDA_ERROR_INVALID_VALUE;
  if (!grid_x || !grid_y || !grid_z || !block_x || !block_y || !block_z || block_z > 64)
    return CUDA_ERROR_INVALID_VALUE;
  if (uint64_t{block_x} * block_y * block_z > kMaxThreads) return CUDA_ERROR_INVALID_VALUE;
  if (shared_bytes > static_cast<unsigned>(function->max_dynamic_shared)) return CUDA_ERROR_INVALID_VALUE;
  if (stream && stream->capturing) {
    // Kept with copies of the arguments' values, as a graph node keeps them.
    const int count = function->kernel->pointer_params;
    if (count <= 0) return 900;  // CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
    auto values = std::make_shared<std::vector<unsigned long long>>();
    for (int i = 0; i < count; ++i) values->push_back(*static_cast<unsigned long long*>(params[i]));
    stream->captured.push_back([=, &d] {
      std::vector<void*> pointers;
      for (auto& v : *values) pointers.push_back(&v);
      return launch_now(d, function, grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_bytes, pointers.data());
    });
    return CUDA_SUCCESS;
  }
  return launch_now(d, function, grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_bytes, params);
}

// ---- driver: memory ----

CUresult cuMemAlloc_v2(CUdeviceptr* pointer, size_t bytes) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (const CUresult g = gate(d); g != CUDA_SUCCESS) return g;
  if (!current_context) return kInvalidContext;
  if (!pointer || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  if (bytes > d.memory_cap || d.allocated + bytes > d.memory_cap) return CUDA_ERROR_OUT_OF_MEMORY;
  void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!p) return CUDA_ERROR_OUT_OF_MEMORY;
  d.allocations[reinterpret_cast<uintptr_t>(p)] = bytes;
  d.allocated += bytes;
  *pointer = reinterpret_cast<uintptr_t>(p);
  return CUDA_SUCCESS;
}

CUresult cuMemFree_v2(CUdeviceptr pointer) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (const CUresult s = synchronise(d); s != CUDA_SUCCESS) return s;
  const auto it = d.allocations.find(static_cast<uintptr_t>(pointer));
  if (it == d.allocations.end()) return CUDA_ERROR_INVALID_VALUE;
  d.allocated -= it->second;
  std::free(reinterpret_cast<void*>(it->first));
  d.allocations.erase(it);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr destination, const void* source, size_t bytes) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (const CUresult s = synchronise(d); s != CUDA_SUCCESS) return s;
  if (!source || !device_range(d, destination, bytes)) return CUDA_ERROR_INVALID_VALUE;
  std::memcpy(reinterpret_cast<void*>(static_cast<uintptr_t>(destination)), source, bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoH_v2(void* destination, CUdeviceptr source, size_t bytes) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (const CUresult s = synchronise(d); s != CUDA_SUCCESS) return s;
  if (!destination || !device_range(d, source, bytes)) return CUDA_ERROR_INVALID_VALUE;
  std::memcpy(destination, reinterpret_cast<const void*>(static_cast<uintptr_t>(source)), bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemsetD8_v2(CUdeviceptr destination, unsigned char value, size_t bytes) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (const CUresult g = gate(d); g != CUDA_SUCCESS) return g;
  if (!device_range(d, destination, bytes)) return CUDA_ERROR_INVALID_VALUE;
  std::memset(reinterpret_cast<void*>(static_cast<uintptr_t>(destination)), value, bytes);
  return CUDA_SUCCESS;
}

CUresult cuMemsetD8Async(CUdeviceptr destination, unsigned char value, size_t bytes, CUstream stream) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (const CUresult g = gate(d); g != CUDA_SUCCESS) return g;
  if (!device_range(d, destination, bytes)) return CUDA_ERROR_INVALID_VALUE;
  if (stream && stream->capturing) {
    stream->captured.push_back([=] { return cuMemsetD8_v2(destination, value, bytes); });
    return CUDA_SUCCESS;
  }
  return cuMemsetD8_v2(destination, value, bytes);
}

// ---- driver: streams and graphs ----

CUresult cuStreamCreate(CUstream* stream, unsigned int flags) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (const CUresult g = gate(d); g != CUDA_SUCCESS) return g;
  if (!current_context) return kInvalidContext;
  if (!stream || flags > CU_STREAM_NON_BLOCKING) return CUDA_ERROR_INVALID_VALUE;
  *stream = new CUstream_st{current_context, false, {}};
  return CUDA_SUCCESS;
}

CUresult cuStreamDestroy_v2(CUstream stream) {
  if (!stream) return CUDA_ERROR_INVALID_VALUE;
  delete stream;
  return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream stream) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (stream && stream->capturing) return 901;  // CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
  return synchronise(d);
}

CUresult cuStreamBeginCapture_v2(CUstream stream, CUstreamCaptureMode mode) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (const CUresult g = gate(d); g != CUDA_SUCCESS) return g;
  // The legacy default stream cannot be captured.
  if (!stream || stream->capturing || mode > CU_STREAM_CAPTURE_MODE_THREAD_LOCAL) return CUDA_ERROR_INVALID_VALUE;
  stream->capturing = true;
  stream->captured.clear();
  return CUDA_SUCCESS;
}

CUresult cuStreamEndCapture(CUstream stream, CUgraph* graph) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (const CUresult g = gate(d); g != CUDA_SUCCESS) return g;
  if (!stream || !graph || !stream->capturing) return CUDA_ERROR_INVALID_VALUE;
  stream->capturing = false;
  *graph = new CUgraph_st{std::move(stream->captured)};
  stream->captured.clear();
  return CUDA_SUCCESS;
}

CUresult cuGraphInstantiateWithFlags(CUgraphExec* exec, CUgraph graph, unsigned long long flags) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (const CUresult g = gate(d); g != CUDA_SUCCESS) return g;
  if (!exec || !graph || flags != 0) return CUDA_ERROR_INVALID_VALUE;
  *exec = new CUgraphExec_st{graph->operations};
  return CUDA_SUCCESS;
}

CUresult cuGraphLaunch(CUgraphExec exec, CUstream stream) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (const CUresult g = gate(d); g != CUDA_SUCCESS) return g;
  if (!exec || (stream && stream->capturing)) return CUDA_ERROR_INVALID_VALUE;
  for (const auto& op : exec->operations)
    if (const CUresult r = op(); r != CUDA_SUCCESS) return r;
  return CUDA_SUCCESS;
}

CUresult cuGraphExecDestroy(CUgraphExec exec) {
  if (!exec) return CUDA_ERROR_INVALID_VALUE;
  delete exec;
  return CUDA_SUCCESS;
}

CUresult cuGraphDestroy(CUgraph graph) {
  if (!graph) return CUDA_ERROR_INVALID_VALUE;
  delete graph;
  return CUDA_SUCCESS;
}

// ---- driver: events on the virtual clock ----

CUresult cuEventCreate(CUevent* event, unsigned int flags) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (const CUresult g = gate(d); g != CUDA_SUCCESS) return g;
  if (!current_context) return kInvalidContext;
  if (!event || flags != CU_EVENT_DEFAULT) return CUDA_ERROR_INVALID_VALUE;
  *event = new CUevent_st{current_context, false, 0};
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent event, CUstream stream) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (const CUresult g = gate(d); g != CUDA_SUCCESS) return g;
  // One virtual clock: every stream's work is in order on it.
  if (!event || (stream && stream->capturing)) return CUDA_ERROR_INVALID_VALUE;
  event->recorded = true;
  event->stamp_ms = event->context->clock_ms;
  return CUDA_SUCCESS;
}

CUresult cuEventSynchronize(CUevent event) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (const CUresult s = synchronise(d); s != CUDA_SUCCESS) return s;
  return event ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuEventElapsedTime(float* ms, CUevent start, CUevent end) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (const CUresult g = gate(d); g != CUDA_SUCCESS) return g;
  if (!ms || !start || !end) return CUDA_ERROR_INVALID_VALUE;
  if (!start->recorded || !end->recorded) return kInvalidHandle;
  *ms = static_cast<float>(end->stamp_ms - start->stamp_ms);
  return CUDA_SUCCESS;
}

CUresult cuEventDestroy_v2(CUevent event) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (!event) return CUDA_ERROR_INVALID_VALUE;
  delete event;
  return gate(d);
}

// ---- NVML ----

nvmlReturn_t nvmlInit_v2() {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  const int devices = std::max(0, std::atoi(env("AOE_CUDA_DOUBLE_DEVICES", "1").c_str()));
  d.nvml_devices.resize(static_cast<size_t>(devices));
  for (int i = 0; i < devices; ++i) d.nvml_devices[static_cast<size_t>(i)].ordinal = i;
  d.nvml_initialised = true;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown() {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (!d.nvml_initialised) return kNvmlUninitialized;
  d.nvml_initialised = false;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char* bus_id, nvmlDevice_t* device) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (!d.nvml_initialised) return kNvmlUninitialized;
  if (!bus_id || !device) return kNvmlInvalidArgument;
  // NVML writes the domain with 8 digits, the driver with 4: compare what follows it.
  const char* tail = std::strchr(bus_id, ':');
  for (auto& dev : d.nvml_devices) {
    char mine[32];
    std::snprintf(mine, sizeof mine, ":%02X:00.0", 0x19 + dev.ordinal);
    if (tail && strcasecmp(tail, mine) == 0) {
      *device = &dev;
      return NVML_SUCCESS;
    }
  }
  return kNvmlNotFound;
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int* mhz) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (!d.nvml_initialised) return kNvmlUninitialized;
  if (!device || !mhz) return kNvmlInvalidArgument;
  *mhz = type == NVML_CLOCK_MEM ? 2619 : 1980;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensor, unsigned int* celsius) {
  Driver& d = driver();
  std::lock_guard<std::recursive_mutex> lock(d.mutex);
  if (!d.nvml_initialised) return kNvmlUninitialized;
  if (!device || !celsius || sensor != NVML_TEMPERATURE_GPU) return kNvmlInvalidArgument;
  *celsius = 40;
  return NVML_SUCCESS;
}

}  // extern "C"
