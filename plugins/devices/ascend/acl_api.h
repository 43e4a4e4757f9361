// The part of the public AscendCL C API this device calls, declared here so
// the plugin builds without CANN: the types, the enum values it passes, and
// one line per entry point, resolved from libascendcl.so at run time.
// Values and signatures follow the AscendCL reference (acl_base.h, acl_rt.h,
// acl_op.h, acl_op_compiler.h).
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

typedef int aclError;
typedef void* aclrtStream;
typedef void* aclrtEvent;
typedef void* aclrtContext;
typedef struct aclTensorDesc aclTensorDesc;
typedef struct aclDataBuffer aclDataBuffer;
typedef struct aclopAttr aclopAttr;

enum { ACL_SUCCESS = 0, ACL_ERROR_REPEAT_INITIALIZE = 100002 };

typedef enum { ACL_DT_UNDEFINED = -1, ACL_FLOAT = 0, ACL_FLOAT16 = 1 } aclDataType;

typedef enum {
  ACL_FORMAT_UNDEFINED = -1,
  ACL_FORMAT_NCHW = 0,
  ACL_FORMAT_NHWC = 1,
  ACL_FORMAT_ND = 2,
  ACL_FORMAT_NC1HWC0 = 3,
  ACL_FORMAT_FRACTAL_Z = 4,
  ACL_FORMAT_FRACTAL_NZ = 29
} aclFormat;

typedef enum { ACL_MEM_MALLOC_HUGE_FIRST = 0, ACL_MEM_MALLOC_HUGE_ONLY = 1, ACL_MEM_MALLOC_NORMAL_ONLY = 2 } aclrtMemMallocPolicy;

typedef enum {
  ACL_MEMCPY_HOST_TO_HOST = 0,
  ACL_MEMCPY_HOST_TO_DEVICE = 1,
  ACL_MEMCPY_DEVICE_TO_HOST = 2,
  ACL_MEMCPY_DEVICE_TO_DEVICE = 3
} aclrtMemcpyKind;

typedef enum { ACL_ENGINE_SYS = 0, ACL_ENGINE_AICORE = 1, ACL_ENGINE_VECTOR = 2 } aclopEngineType;
typedef enum { ACL_COMPILE_SYS = 0, ACL_COMPILE_UNREGISTERED = 1 } aclopCompileType;

typedef enum {
  ACL_PRECISION_MODE = 0,
  ACL_AICORE_NUM = 1,
  ACL_AUTO_TUNE_MODE = 2,
  ACL_OP_SELECT_IMPL_MODE = 3,
  ACL_OPTYPELIST_FOR_IMPLMODE = 4
} aclCompileOpt;

}  // extern "C"

// X(name, return type, parameter list): every entry point the device resolves.
#define AOE_ACL_ENTRY_POINTS(X)                                                                                    \
  X(aclInit, aclError, (const char* configPath))                                                                   \
  X(aclFinalize, aclError, ())                                                                                     \
  X(aclGetRecentErrMsg, const char*, ())                                                                           \
  X(aclrtSetDevice, aclError, (int32_t deviceId))                                                                  \
  X(aclrtResetDevice, aclError, (int32_t deviceId))                                                                \
  X(aclrtGetDeviceCount, aclError, (uint32_t * count))                                                             \
  X(aclrtGetSocName, const char*, ())                                                                              \
  X(aclrtGetCurrentContext, aclError, (aclrtContext * context))                                                    \
  X(aclrtSetCurrentContext, aclError, (aclrtContext context))                                                      \
  X(aclrtCreateStream, aclError, (aclrtStream * stream))                                                           \
  X(aclrtDestroyStream, aclError, (aclrtStream stream))                                                            \
  X(aclrtSynchronizeStream, aclError, (aclrtStream stream))                                                        \
  X(aclrtMalloc, aclError, (void** devPtr, size_t size, aclrtMemMallocPolicy policy))                              \
  X(aclrtFree, aclError, (void* devPtr))                                                                           \
  X(aclrtMemcpy, aclError, (void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind))       \
  X(aclrtCreateEvent, aclError, (aclrtEvent * event))                                                              \
  X(aclrtDestroyEvent, aclError, (aclrtEvent event))                                                               \
  X(aclrtRecordEvent, aclError, (aclrtEvent event, aclrtStream stream))                                            \
  X(aclrtSynchronizeEvent, aclError, (aclrtEvent event))                                                           \
  X(aclrtEventElapsedTime, aclError, (float* ms, aclrtEvent start, aclrtEvent end))                                \
  X(aclCreateTensorDesc, aclTensorDesc*, (aclDataType dataType, int numDims, const int64_t* dims, aclFormat format)) \
  X(aclDestroyTensorDesc, void, (const aclTensorDesc* desc))                                                       \
  X(aclSetTensorStorageFormat, aclError, (aclTensorDesc * desc, aclFormat format))                                 \
  X(aclSetTensorStorageShape, aclError, (aclTensorDesc * desc, int numDims, const int64_t* dims))                  \
  X(aclCreateDataBuffer, aclDataBuffer*, (void* data, size_t size))                                                \
  X(aclDestroyDataBuffer, aclError, (const aclDataBuffer* dataBuffer))                                             \
  X(aclopCreateAttr, aclopAttr*, ())                                                                               \
  X(aclopDestroyAttr, void, (const aclopAttr* attr))                                                               \
  X(aclopSetAttrBool, aclError, (aclopAttr * attr, const char* attrName, uint8_t attrValue))                       \
  X(aclopSetAttrInt, aclError, (aclopAttr * attr, const char* attrName, int64_t attrValue))                        \
  X(aclopSetAttrString, aclError, (aclopAttr * attr, const char* attrName, const char* attrValue))                 \
  X(aclopSetAttrListInt, aclError, (aclopAttr * attr, const char* attrName, int numValues, const int64_t* values))  \
  X(aclSetCompileopt, aclError, (aclCompileOpt opt, const char* value))                                            \
  X(aclopCompile, aclError,                                                                                        \
    (const char* opType, int numInputs, const aclTensorDesc* const inputDesc[], int numOutputs,                    \
     const aclTensorDesc* const outputDesc[], const aclopAttr* attr, aclopEngineType engineType,                   \
     aclopCompileType compileFlag, const char* opPath))                                                            \
  X(aclopCompileAndExecute, aclError,                                                                              \
    (const char* opType, int numInputs, const aclTensorDesc* const inputDesc[], const aclDataBuffer* const inputs[], \
     int numOutputs, const aclTensorDesc* const outputDesc[], aclDataBuffer* const outputs[],                      \
     const aclopAttr* attr, aclopEngineType engineType, aclopCompileType compileFlag, const char* opPath,          \
     aclrtStream stream))

namespace aoe::ascend {

// The resolved entry points, one member per line of AOE_ACL_ENTRY_POINTS.
struct AclApi {
#define AOE_ACL_MEMBER(name, ret, params) ret(*name) params = nullptr;
  AOE_ACL_ENTRY_POINTS(AOE_ACL_MEMBER)
#undef AOE_ACL_MEMBER
};

}  // namespace aoe::ascend
