// The test double through the entry points the device resolves: the GPU it
// describes, launches of host kernels on the virtual clock, and each fault;
// those that end the process or its context run in a forked child.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "cuda_library.h"
#include "cuda_test_support.h"

namespace aoe::cuda {
namespace {

using test::ChildEnd;
using test::run_in_child;
using test::ScopedEnv;

std::string scale_source(int block) {
  return "#define BLOCK " + std::to_string(block) +
         "\n__constant__ float coefficients[16];\n"
         "extern \"C\" __global__ void aoe_test_scale(float* y, const float* x, float a, int n) {}\n";
}

// The double opened as the device opens it, a context current, and a scale kernel's y = a * x ready to launch.
class CudaDoubleTest : public ::testing::Test {
 protected:
  void open() {
    libs_ = std::make_unique<CudaLibraries>(find_cuda_libraries("", ""));
    ASSERT_EQ(api().cuInit(0), CUDA_SUCCESS);
    CUdevice device = -1;
    ASSERT_EQ(api().cuDeviceGet(&device, 0), CUDA_SUCCESS);
    ASSERT_EQ(api().cuDevicePrimaryCtxRetain(&context_, device), CUDA_SUCCESS);
    ASSERT_EQ(api().cuCtxSetCurrent(context_), CUDA_SUCCESS);
  }
  void TearDown() override {
    for (CUmodule m : modules_) api().cuModuleUnload(m);
    for (CUdeviceptr p : buffers_) api().cuMemFree_v2(p);
  }
  const DriverApi& api() const { return libs_->driver(); }

  // The cubin of `source`, compiled in this process.
  std::string compile(const std::string& source, const std::string& kernel, nvrtcResult* result = nullptr,
                      std::string* log = nullptr) {
    const NvrtcApi& n = libs_->nvrtc();
    nvrtcProgram p = nullptr;
    EXPECT_EQ(n.nvrtcCreateProgram(&p, source.c_str(), "k.cu", 0, nullptr, nullptr), NVRTC_SUCCESS);
    EXPECT_EQ(n.nvrtcAddNameExpression(p, kernel.c_str()), NVRTC_SUCCESS);
    const char* options[] = {"--gpu-architecture=sm_90"};
    const nvrtcResult r = n.nvrtcCompileProgram(p, 1, options);
    if (result) *result = r;
    size_t bytes = 0;
    n.nvrtcGetProgramLogSize(p, &bytes);
    std::string text(bytes, '\0');
    n.nvrtcGetProgramLog(p, text.data());
    if (log) *log = text;
    std::string cubin;
    if (r == NVRTC_SUCCESS && n.nvrtcGetCUBINSize(p, &bytes) == NVRTC_SUCCESS) {
      cubin.resize(bytes);
      n.nvrtcGetCUBIN(p, cubin.data());
    }
    n.nvrtcDestroyProgram(&p);
    return cubin;
  }

  CUfunction load(int block) {
    const std::string cubin = compile(scale_source(block), "aoe_test_scale");
    CUmodule m = nullptr;
    EXPECT_EQ(api().cuModuleLoadData(&m, cubin.c_str()), CUDA_SUCCESS);
    modules_.push_back(m);
    CUfunction f = nullptr;
    EXPECT_EQ(api().cuModuleGetFunction(&f, m, "aoe_test_scale"), CUDA_SUCCESS);
    return f;
  }

  CUdeviceptr upload(const std::vector<float>& v) {
    CUdeviceptr p = 0;
    EXPECT_EQ(api().cuMemAlloc_v2(&p, v.size() * sizeof(float)), CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemcpyHtoD_v2(p, v.data(), v.size() * sizeof(float)), CUDA_SUCCESS);
    buffers_.push_back(p);
    return p;
  }

  // y = 2 * x over n = 8 elements with a block of `threads`.
  CUresult launch(CUfunction f, unsigned threads = 128, unsigned shared = 0) {
    x_ = upload({1, 2, 3, 4, 5, 6, 7, 8});
    y_ = upload(std::vector<float>(8, 0));
    float a = 2;
    int n = 8;
    void* params[] = {&y_, &x_, &a, &n};
    return api().cuLaunchKernel(f, 1, 1, 1, threads, 1, 1, shared, nullptr, params, nullptr);
  }

  std::vector<float> y() {
    std::vector<float> out(8);
    EXPECT_EQ(api().cuMemcpyDtoH_v2(out.data(), y_, sizeof(float) * 8), CUDA_SUCCESS);
    return out;
  }

  ScopedEnv home_{"CUDA_HOME", AOE_CUDA_DOUBLE_HOME};
  ScopedEnv faults_{"AOE_CUDA_DOUBLE_FAULTS", nullptr};
  ScopedEnv devices_{"AOE_CUDA_DOUBLE_DEVICES", nullptr};
  ScopedEnv memory_{"AOE_CUDA_DOUBLE_MEMORY_MB", nullptr};
  std::unique_ptr<CudaLibraries> libs_;
  CUcontext context_ = nullptr;
  std::vector<CUmodule> modules_;
  std::vector<CUdeviceptr> buffers_;
  CUdeviceptr x_ = 0, y_ = 0;
};

TEST_F(CudaDoubleTest, DescribesAHopperClassGpu) {
  ScopedEnv name("AOE_CUDA_DOUBLE_NAME", "Test GPU");
  open();
  int v = 0;
  auto attribute = [&](CUdevice_attribute a) {
    EXPECT_EQ(api().cuDeviceGetAttribute(&v, a, 0), CUDA_SUCCESS);
    return v;
  };
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR), 9);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR), 0);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT), 132);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK), 48 * 1024);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN), 227 * 1024);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK), 1024);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE), 50 << 20);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE), 32);
  char text[64];
  ASSERT_EQ(api().cuDeviceGetName(text, sizeof text, 0), CUDA_SUCCESS);
  EXPECT_STREQ(text, "Test GPU");
  size_t bytes = 0;
  ASSERT_EQ(api().cuDeviceTotalMem_v2(&bytes, 0), CUDA_SUCCESS);
  EXPECT_EQ(bytes, 80ull << 30);
  ASSERT_EQ(api().cuDeviceGetPCIBusId(text, sizeof text, 0), CUDA_SUCCESS);
  const NvmlApi& nvml = *libs_->nvml();
  ASSERT_EQ(nvml.nvmlInit_v2(), NVML_SUCCESS);
  nvmlDevice_t handle = nullptr;
  ASSERT_EQ(nvml.nvmlDeviceGetHandleByPciBusId_v2(text, &handle), NVML_SUCCESS) << text;
  unsigned mhz = 0, celsius = 0;
  EXPECT_EQ(nvml.nvmlDeviceGetClockInfo(handle, NVML_CLOCK_SM, &mhz), NVML_SUCCESS);
  EXPECT_EQ(mhz, 1980u);
  EXPECT_EQ(nvml.nvmlDeviceGetTemperature(handle, NVML_TEMPERATURE_GPU, &celsius), NVML_SUCCESS);
  EXPECT_EQ(celsius, 40u);
  EXPECT_EQ(nvml.nvmlShutdown(), NVML_SUCCESS);
}

TEST_F(CudaDoubleTest, WithNoDevicesInitFailsAsTheDriverDoes) {
  ScopedEnv none("AOE_CUDA_DOUBLE_DEVICES", "0");
  CudaLibraries libs(find_cuda_libraries("", ""));
  EXPECT_EQ(libs.driver().cuInit(0), CUDA_ERROR_NO_DEVICE);
  int count = -1;
  EXPECT_EQ(libs.driver().cuDeviceGetCount(&count), CUDA_SUCCESS);
  EXPECT_EQ(count, 0);
  CUdevice device;
  EXPECT_EQ(libs.driver().cuDeviceGet(&device, 0), CUDA_ERROR_NO_DEVICE);
}

TEST_F(CudaDoubleTest, LaunchRunsTheHostKernelAndEventsReadItsTime) {
  open();
  CUevent start = nullptr, end = nullptr;
  ASSERT_EQ(api().cuEventCreate(&start, CU_EVENT_DEFAULT), CUDA_SUCCESS);
  ASSERT_EQ(api().cuEventCreate(&end, CU_EVENT_DEFAULT), CUDA_SUCCESS);
  for (int block : {64, 128, 320}) {
    const CUfunction f = load(block);
    ASSERT_EQ(api().cuEventRecord(start, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(launch(f), CUDA_SUCCESS);
    ASSERT_EQ(api().cuEventRecord(end, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(api().cuEventSynchronize(end), CUDA_SUCCESS);
    float ms = 0;
    ASSERT_EQ(api().cuEventElapsedTime(&ms, start, end), CUDA_SUCCESS);
    EXPECT_FLOAT_EQ(ms, 1.0f + std::abs(block - 128) / 128.0f) << block;
    EXPECT_EQ(y(), (std::vector<float>{2, 4, 6, 8, 10, 12, 14, 16}));
  }
  EXPECT_EQ(api().cuEventDestroy_v2(start), CUDA_SUCCESS);
  EXPECT_EQ(api().cuEventDestroy_v2(end), CUDA_SUCCESS);
}

TEST_F(CudaDoubleTest, AKernelWithoutATimeTakesOneDerivedFromItsDefines) {
  open();
  CUevent start = nullptr, end = nullptr;
  ASSERT_EQ(api().cuEventCreate(&start, CU_EVENT_DEFAULT), CUDA_SUCCESS);
  ASSERT_EQ(api().cuEventCreate(&end, CU_EVENT_DEFAULT), CUDA_SUCCESS);
  const CUdeviceptr y = upload(std::vector<float>(4, 0));
  auto run = [&](const std::string& source, float* ms) {
    const std::string cubin = compile(source, "aoe_test_fill");
    CUmodule m = nullptr;
    EXPECT_EQ(api().cuModuleLoadData(&m, cubin.c_str()), CUDA_SUCCESS);
    modules_.push_back(m);
    CUdeviceptr offset = 0;
    if (api().cuModuleGetGlobal_v2(&offset, nullptr, m, "offset") == CUDA_SUCCESS) {
      const float half = 0.5f;
      EXPECT_EQ(api().cuMemcpyHtoD_v2(offset, &half, sizeof half), CUDA_SUCCESS);
    }
    CUfunction f = nullptr;
    EXPECT_EQ(api().cuModuleGetFunction(&f, m, "aoe_test_fill"), CUDA_SUCCESS);
    CUdeviceptr out = y;
    int n = 4;
    void* params[] = {&out, &n};
    api().cuEventRecord(start, nullptr);
    const CUresult r = api().cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr);
    api().cuEventRecord(end, nullptr);
    api().cuEventElapsedTime(ms, start, end);
    return r;
  };
  float first = 0, again = 0, other = 0;
  ASSERT_EQ(run("#define VALUE 3\n", &first), CUDA_SUCCESS);
  ASSERT_EQ(run("#define VALUE 3\n// the same config, written again\n", &again), CUDA_SUCCESS);
  ASSERT_EQ(run("#define VALUE 4\n__constant__ float offset[4];\n", &other), CUDA_SUCCESS);
  EXPECT_GT(first, 0);
  EXPECT_EQ(first, again);
  EXPECT_NE(first, other);
  std::vector<float> out(4);
  ASSERT_EQ(api().cuMemcpyDtoH_v2(out.data(), y, sizeof(float) * 4), CUDA_SUCCESS);
  EXPECT_EQ(out, std::vector<float>(4, 4.5f));
  // A host kernel that throws (here: no VALUE) is a failed launch.
  EXPECT_EQ(run("#define OTHER 1\n", &other), CUDA_ERROR_LAUNCH_FAILED);
  api().cuEventDestroy_v2(start);
  api().cuEventDestroy_v2(end);
}

TEST_F(CudaDoubleTest, ConstantSymbolsHaveStorageOfTheirOwn) {
  open();
  const std::string cubin = compile(scale_source(128), "aoe_test_scale");
  CUmodule m = nullptr;
  ASSERT_EQ(api().cuModuleLoadData(&m, cubin.c_str()), CUDA_SUCCESS);
  modules_.push_back(m);
  CUdeviceptr p = 0;
  size_t bytes = 0;
  ASSERT_EQ(api().cuModuleGetGlobal_v2(&p, &bytes, m, "coefficients"), CUDA_SUCCESS);
  EXPECT_EQ(bytes, 64u * 1024);
  const float c[16] = {1.5f};
  EXPECT_EQ(api().cuMemcpyHtoD_v2(p, c, sizeof c), CUDA_SUCCESS);
  EXPECT_EQ(api().cuModuleGetGlobal_v2(&p, &bytes, m, "other"), CUDA_ERROR_NOT_FOUND);
  CUmodule bad = nullptr;
  EXPECT_EQ(api().cuModuleLoadData(&bad, "not a cubin"), CUDA_ERROR_INVALID_IMAGE);
}

TEST_F(CudaDoubleTest, AllocationsPastTheCapAreOutOfMemory) {
  ScopedEnv cap("AOE_CUDA_DOUBLE_MEMORY_MB", "1");
  open();
  CUdeviceptr p = 0, q = 0;
  EXPECT_EQ(api().cuMemAlloc_v2(&p, 2 << 20), CUDA_ERROR_OUT_OF_MEMORY);
  ASSERT_EQ(api().cuMemAlloc_v2(&p, 768 << 10), CUDA_SUCCESS);
  EXPECT_EQ(api().cuMemAlloc_v2(&q, 512 << 10), CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(api().cuMemsetD8_v2(p, 7, 768 << 10), CUDA_SUCCESS);
  EXPECT_EQ(api().cuMemsetD8_v2(p, 7, (768 << 10) + 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api().cuMemFree_v2(p), CUDA_SUCCESS);
  EXPECT_EQ(api().cuMemAlloc_v2(&q, 512 << 10), CUDA_SUCCESS);
  EXPECT_EQ(api().cuMemFree_v2(q), CUDA_SUCCESS);
}

TEST_F(CudaDoubleTest, BlocksAndSharedMemoryPastTheLimitsAreRefused) {
  open();
  const CUfunction f = load(128);
  EXPECT_EQ(launch(f, 1025), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(launch(f, 1024), CUDA_SUCCESS);
  EXPECT_EQ(launch(f, 128, 48 * 1024 + 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(api().cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 200 * 1024), CUDA_SUCCESS);
  EXPECT_EQ(launch(f, 128, 200 * 1024), CUDA_SUCCESS);
  EXPECT_EQ(api().cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 228 * 1024),
            CUDA_ERROR_INVALID_VALUE);
}

TEST_F(CudaDoubleTest, AnUnknownKernelIsACompileErrorThatSaysWhy) {
  open();
  nvrtcResult r = NVRTC_SUCCESS;
  std::string log;
  compile(scale_source(128), "mystery_kernel", &r, &log);
  EXPECT_EQ(r, NVRTC_ERROR_COMPILATION);
  EXPECT_NE(log.find("mystery_kernel"), std::string::npos) << log;
}

TEST_F(CudaDoubleTest, LaunchFaultsMatchTheirConfigOnly) {
  ScopedEnv faults("AOE_CUDA_DOUBLE_FAULTS",
                   "too_many_resources@BLOCK=64;launch_failure@BLOCK=32;wrong_result@BLOCK=256");
  open();
  EXPECT_EQ(launch(load(64)), CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
  EXPECT_EQ(launch(load(32)), CUDA_ERROR_LAUNCH_FAILED);
  EXPECT_EQ(launch(load(128)), CUDA_SUCCESS);
  EXPECT_EQ(y()[0], 2.0f);
  EXPECT_EQ(launch(load(256)), CUDA_SUCCESS);
  const auto wrong = y();
  EXPECT_NE(wrong[0], 2.0f);
  EXPECT_EQ(wrong[1], 4.0f);
  EXPECT_EQ(api().cuCtxSynchronize(), CUDA_SUCCESS);
}

TEST_F(CudaDoubleTest, AnIllegalAddressLosesTheContextForGood) {
  ScopedEnv faults("AOE_CUDA_DOUBLE_FAULTS", "illegal_address@BLOCK=64");
  const ChildEnd end = run_in_child([&] {
    open();
    if (launch(load(128)) != CUDA_SUCCESS || launch(load(64)) != CUDA_SUCCESS) return 1;
    if (api().cuCtxSynchronize() != CUDA_ERROR_ILLEGAL_ADDRESS) return 2;
    CUdeviceptr p = 0;
    if (api().cuMemAlloc_v2(&p, 16) != CUDA_ERROR_ILLEGAL_ADDRESS) return 3;
    int count = 0;
    if (api().cuDeviceGetCount(&count) != CUDA_ERROR_ILLEGAL_ADDRESS) return 4;
    return 0;
  });
  EXPECT_TRUE(end.exited(0)) << end.status;
}

TEST_F(CudaDoubleTest, AHangNeverReturnsFromTheNextSynchronisation) {
  ScopedEnv faults("AOE_CUDA_DOUBLE_FAULTS", "hang");
  const ChildEnd end = run_in_child(
      [&] {
        open();
        if (launch(load(128)) != CUDA_SUCCESS) return 1;
        api().cuCtxSynchronize();
        return 2;
      },
      3);
  EXPECT_TRUE(end.timed_out);
}

TEST_F(CudaDoubleTest, ACrashAbortsTheProcess) {
  ScopedEnv faults("AOE_CUDA_DOUBLE_FAULTS", "crash@BLOCK=64");
  const ChildEnd end = run_in_child([&] {
    open();
    if (launch(load(128)) != CUDA_SUCCESS) return 1;
    launch(load(64));
    return 2;
  });
  EXPECT_TRUE(end.signalled(SIGABRT)) << end.status;
}

TEST_F(CudaDoubleTest, ALostDeviceFailsEveryCallUntilTheProcessEnds) {
  ScopedEnv faults("AOE_CUDA_DOUBLE_FAULTS", "lost_device@BLOCK=64");
  const ChildEnd lost = run_in_child([&] {
    open();
    if (launch(load(64)) != 999) return 1;
    int count = 0;
    if (api().cuDeviceGetCount(&count) != 999 || api().cuInit(0) != 999) return 2;
    return 0;
  });
  EXPECT_TRUE(lost.exited(0)) << lost.status;
  const ChildEnd next = run_in_child([&] {
    open();
    return launch(load(128)) == CUDA_SUCCESS ? 0 : 1;
  });
  EXPECT_TRUE(next.exited(0)) << next.status;
}

}  // namespace
}  // namespace aoe::cuda
