// The part of the CUDA driver API, NVRTC and NVML this device calls,
// declared here so the plugin builds without a CUDA toolkit: the types, the
// enum values it passes, and one line per entry point, resolved from
// libcuda.so.1, libnvrtc.so.* and (optionally) libnvidia-ml.so.1 at run
// time. Values and signatures follow cuda.h, nvrtc.h and nvml.h; the
// versioned names (_v2) are the ones those headers map the plain names to.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st* CUcontext;
typedef struct CUmod_st* CUmodule;
typedef struct CUfunc_st* CUfunction;
typedef struct CUstream_st* CUstream;
typedef struct CUevent_st* CUevent;
typedef struct CUgraph_st* CUgraph;
typedef struct CUgraphExec_st* CUgraphExec;
typedef unsigned long long CUdeviceptr;

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_NOT_READY = 600,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
  CUDA_ERROR_LAUNCH_TIMEOUT = 702,
  CUDA_ERROR_LAUNCH_FAILED = 719,
};

typedef enum {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY = 9,
  CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
  CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK = 12,
  CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36,
  CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37,
  CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
} CUdevice_attribute;

typedef enum {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2,
  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
} CUfunction_attribute;

enum { CU_EVENT_DEFAULT = 0 };
enum { CU_STREAM_NON_BLOCKING = 1 };
// cuStreamBeginCapture's modes: THREAD_LOCAL refuses unsafe calls from this thread only.
typedef enum { CU_STREAM_CAPTURE_MODE_GLOBAL = 0, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1 } CUstreamCaptureMode;

typedef int nvrtcResult;
typedef struct _nvrtcProgram* nvrtcProgram;
enum { NVRTC_SUCCESS = 0, NVRTC_ERROR_INVALID_OPTION = 5, NVRTC_ERROR_COMPILATION = 6 };

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st* nvmlDevice_t;
enum { NVML_SUCCESS = 0 };
typedef enum { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 } nvmlClockType_t;
typedef enum { NVML_TEMPERATURE_GPU = 0 } nvmlTemperatureSensors_t;

}  // extern "C"

// X(name, return type, parameter list): the driver entry points the device resolves.
#define AOE_CUDA_DRIVER_ENTRY_POINTS(X)                                                                        \
  X(cuInit, CUresult, (unsigned int flags))                                                                    \
  X(cuDriverGetVersion, CUresult, (int* version))                                                              \
  X(cuGetErrorName, CUresult, (CUresult error, const char** name))                                             \
  X(cuGetErrorString, CUresult, (CUresult error, const char** text))                                           \
  X(cuDeviceGetCount, CUresult, (int* count))                                                                  \
  X(cuDeviceGet, CUresult, (CUdevice * device, int ordinal))                                                   \
  X(cuDeviceGetName, CUresult, (char* name, int length, CUdevice device))                                      \
  X(cuDeviceGetAttribute, CUresult, (int* value, CUdevice_attribute attribute, CUdevice device))               \
  X(cuDeviceGetPCIBusId, CUresult, (char* bus_id, int length, CUdevice device))                                \
  X(cuDeviceTotalMem_v2, CUresult, (size_t * bytes, CUdevice device))                                          \
  X(cuDevicePrimaryCtxRetain, CUresult, (CUcontext * context, CUdevice device))                                \
  X(cuDevicePrimaryCtxRelease_v2, CUresult, (CUdevice device))                                                 \
  X(cuCtxSetCurrent, CUresult, (CUcontext context))                                                            \
  X(cuCtxSynchronize, CUresult, ())                                                                            \
  X(cuModuleLoadData, CUresult, (CUmodule * module, const void* image))                                        \
  X(cuModuleUnload, CUresult, (CUmodule module))                                                               \
  X(cuModuleGetFunction, CUresult, (CUfunction * function, CUmodule module, const char* name))                 \
  X(cuModuleGetGlobal_v2, CUresult, (CUdeviceptr * pointer, size_t * bytes, CUmodule module, const char* name)) \
  X(cuFuncGetAttribute, CUresult, (int* value, CUfunction_attribute attribute, CUfunction function))           \
  X(cuFuncSetAttribute, CUresult, (CUfunction function, CUfunction_attribute attribute, int value))            \
  X(cuLaunchKernel, CUresult,                                                                                  \
    (CUfunction function, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z, unsigned int block_x, \
     unsigned int block_y, unsigned int block_z, unsigned int shared_bytes, CUstream stream, void** params,     \
     void** extra))                                                                                            \
  X(cuMemAlloc_v2, CUresult, (CUdeviceptr * pointer, size_t bytes))                                            \
  X(cuMemFree_v2, CUresult, (CUdeviceptr pointer))                                                             \
  X(cuMemcpyHtoD_v2, CUresult, (CUdeviceptr destination, const void* source, size_t bytes))                    \
  X(cuMemcpyDtoH_v2, CUresult, (void* destination, CUdeviceptr source, size_t bytes))                          \
  X(cuMemsetD8_v2, CUresult, (CUdeviceptr destination, unsigned char value, size_t bytes))                     \
  X(cuEventCreate, CUresult, (CUevent * event, unsigned int flags))                                            \
  X(cuEventRecord, CUresult, (CUevent event, CUstream stream))                                                 \
  X(cuEventSynchronize, CUresult, (CUevent event))                                                             \
  X(cuEventElapsedTime, CUresult, (float* ms, CUevent start, CUevent end))                                     \
  X(cuEventDestroy_v2, CUresult, (CUevent event))                                                              \
  X(cuMemsetD8Async, CUresult, (CUdeviceptr destination, unsigned char value, size_t bytes, CUstream stream))  \
  X(cuStreamCreate, CUresult, (CUstream * stream, unsigned int flags))                                         \
  X(cuStreamDestroy_v2, CUresult, (CUstream stream))                                                           \
  X(cuStreamSynchronize, CUresult, (CUstream stream))                                                          \
  X(cuStreamBeginCapture_v2, CUresult, (CUstream stream, CUstreamCaptureMode mode))                            \
  X(cuStreamEndCapture, CUresult, (CUstream stream, CUgraph * graph))                                          \
  X(cuGraphInstantiateWithFlags, CUresult, (CUgraphExec * exec, CUgraph graph, unsigned long long flags))      \
  X(cuGraphLaunch, CUresult, (CUgraphExec exec, CUstream stream))                                              \
  X(cuGraphExecDestroy, CUresult, (CUgraphExec exec))                                                          \
  X(cuGraphDestroy, CUresult, (CUgraph graph))

// The NVRTC entry points: the program is compiled to a cubin for the GPU's
// compute capability; kernels are found by name expression, so extern "C"
// and C++ (templated) kernels are found alike.
#define AOE_NVRTC_ENTRY_POINTS(X)                                                                           \
  X(nvrtcVersion, nvrtcResult, (int* major, int* minor))                                                    \
  X(nvrtcGetErrorString, const char*, (nvrtcResult result))                                                 \
  X(nvrtcCreateProgram, nvrtcResult,                                                                        \
    (nvrtcProgram * program, const char* source, const char* name, int header_count, const char* const* headers, \
     const char* const* include_names))                                                                     \
  X(nvrtcDestroyProgram, nvrtcResult, (nvrtcProgram * program))                                             \
  X(nvrtcAddNameExpression, nvrtcResult, (nvrtcProgram program, const char* name_expression))               \
  X(nvrtcCompileProgram, nvrtcResult, (nvrtcProgram program, int option_count, const char* const* options)) \
  X(nvrtcGetLoweredName, nvrtcResult, (nvrtcProgram program, const char* name_expression, const char** lowered)) \
  X(nvrtcGetProgramLogSize, nvrtcResult, (nvrtcProgram program, size_t * bytes))                            \
  X(nvrtcGetProgramLog, nvrtcResult, (nvrtcProgram program, char* log))                                     \
  X(nvrtcGetCUBINSize, nvrtcResult, (nvrtcProgram program, size_t * bytes))                                 \
  X(nvrtcGetCUBIN, nvrtcResult, (nvrtcProgram program, char* cubin))

// NVML, optional: where libnvidia-ml.so.1 loads, each measurement records
// the SM clock and temperature it ran at.
#define AOE_NVML_ENTRY_POINTS(X)                                                                         \
  X(nvmlInit_v2, nvmlReturn_t, ())                                                                       \
  X(nvmlShutdown, nvmlReturn_t, ())                                                                      \
  X(nvmlDeviceGetHandleByPciBusId_v2, nvmlReturn_t, (const char* bus_id, nvmlDevice_t* device))          \
  X(nvmlDeviceGetClockInfo, nvmlReturn_t, (nvmlDevice_t device, nvmlClockType_t type, unsigned int* mhz)) \
  X(nvmlDeviceGetTemperature, nvmlReturn_t, (nvmlDevice_t device, nvmlTemperatureSensors_t sensor, unsigned int* celsius))

namespace aoe::cuda {

// The resolved entry points, one member per line of each list.
#define AOE_CUDA_MEMBER(name, ret, params) ret(*name) params = nullptr;
struct DriverApi {
  AOE_CUDA_DRIVER_ENTRY_POINTS(AOE_CUDA_MEMBER)
};
struct NvrtcApi {
  AOE_NVRTC_ENTRY_POINTS(AOE_CUDA_MEMBER)
};
struct NvmlApi {
  AOE_NVML_ENTRY_POINTS(AOE_CUDA_MEMBER)
};
#undef AOE_CUDA_MEMBER

}  // namespace aoe::cuda
