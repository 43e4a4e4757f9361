#include "gpu_session.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "cuda_failure.h"
#include "cuda_library.h"
#include "gpu_model_run.h"
#include "timing.h"

namespace aoe::cuda {
namespace {

struct Argument {
  std::string name;
  std::string kind;   // buffer, scalar
  bool constant = false;  // also copied to the module's __constant__ symbol of its name
  bool output = false;
  std::string dtype;  // float32, float64, or other (compared exactly)
  std::string initial;
  CUdeviceptr pointer = 0;
};

Frame error_frame(const std::string& message) { return {"error", {{"message", message}}, {}}; }

// |got - want| <= atol + rtol * |want| everywhere; the first element that breaks it, else empty.
template <typename T>
std::string allclose(const T* got, const T* want, size_t n, double rtol, double atol, const std::string& name) {
  for (size_t i = 0; i < n; ++i) {
    const double g = static_cast<double>(got[i]), w = static_cast<double>(want[i]);
    if (std::isnan(g) != std::isnan(w) || std::abs(g - w) > atol + rtol * std::abs(w))
      return "output " + name + "[" + std::to_string(i) + "] is " + std::to_string(g) + ", the reference " +
             std::to_string(w);
  }
  return {};
}

}  // namespace

struct GpuSession::State {
  std::unique_ptr<CudaLibraries> libraries;
  const DriverApi* cu = nullptr;
  const NvmlApi* nvml = nullptr;
  nvmlDevice_t nvml_device = nullptr;
  CUdevice device = 0;
  CUcontext context = nullptr;
  bool opened = false;
  size_t l2_bytes = 0;
  std::vector<Argument> arguments;
  std::vector<std::string> reference;  // per output, in argument order
  CUdeviceptr flush = 0;
  CUevent start = nullptr, end = nullptr;

  void check(CUresult r, const char* call) { check_cuda(*cu, r, call); }

  int attribute(CUdevice_attribute a) {
    int v = 0;
    return cu->cuDeviceGetAttribute(&v, a, device) == CUDA_SUCCESS ? v : -1;
  }

  Frame open(const nlohmann::json& h) {
    CudaLibraryPaths paths;
    paths.driver = h.at("driver").get<std::string>();
    paths.nvrtc = h.at("nvrtc").get<std::string>();
    paths.nvml = h.value("nvml", "");
    libraries = std::make_unique<CudaLibraries>(paths);
    cu = &libraries->driver();
    nvml = libraries->nvml();
    check(cu->cuInit(0), "cuInit");
    int count = 0;
    check(cu->cuDeviceGetCount(&count), "cuDeviceGetCount");
    const int id = h.value("device_id", 0);
    if (id >= count)
      return error_frame("device_id " + std::to_string(id) + " asks for a GPU the driver does not list (it sees " +
                         std::to_string(count) + "; CUDA_VISIBLE_DEVICES decides which)");
    check(cu->cuDeviceGet(&device, id), "cuDeviceGet");
    check(cu->cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
    check(cu->cuCtxSetCurrent(context), "cuCtxSetCurrent");
    check(cu->cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate");
    check(cu->cuEventCreate(&end, CU_EVENT_DEFAULT), "cuEventCreate");
    char name[256] = {};
    check(cu->cuDeviceGetName(name, sizeof name - 1, device), "cuDeviceGetName");
    char bus[64] = {};
    cu->cuDeviceGetPCIBusId(bus, sizeof bus - 1, device);
    size_t memory = 0;
    check(cu->cuDeviceTotalMem_v2(&memory, device), "cuDeviceTotalMem");
    int driver_version = 0;
    cu->cuDriverGetVersion(&driver_version);
    l2_bytes = static_cast<size_t>(std::max(0, attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)));
    // The clocks are a bonus: without NVML, measurements do not record them.
    if (nvml && (nvml->nvmlInit_v2() != NVML_SUCCESS ||
                 nvml->nvmlDeviceGetHandleByPciBusId_v2(bus, &nvml_device) != NVML_SUCCESS))
      nvml_device = nullptr;
    opened = true;
    return {"opened",
            {{"name", name},
             {"pci_bus_id", bus},
             {"driver_version", driver_version},
             {"compute_capability", {attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                                     attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)}},
             {"multiprocessors", attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)},
             {"max_threads_per_block", attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)},
             {"max_shared_bytes_per_block", attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)},
             {"max_shared_bytes_per_block_optin", attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)},
             {"max_registers_per_block", attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK)},
             {"warp_size", attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE)},
             {"l2_bytes", l2_bytes},
             {"memory_bytes", memory},
             {"clock_mhz_max", attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000},
             {"nvml", nvml_device != nullptr}},
            {}};
  }

  void release_arguments() {
    for (auto& a : arguments)
      if (a.pointer) cu->cuMemFree_v2(a.pointer);
    arguments.clear();
    reference.clear();
  }

  Frame set_arguments(const Frame& request) {
    release_arguments();
    size_t offset = 0;
    for (const auto& a : request.header.at("arguments")) {
      Argument arg;
      arg.name = a.at("name").get<std::string>();
      arg.kind = a.at("kind").get<std::string>();
      arg.constant = a.value("constant", false);
      arg.output = a.value("output", false);
      arg.dtype = a.value("dtype", "float32");
      const auto bytes = a.at("bytes").get<uint64_t>();
      if (bytes > request.blob.size() - offset) return error_frame("argument " + arg.name + " overruns the blob");
      arg.initial = request.blob.substr(offset, bytes);
      offset += bytes;
      if (arg.kind == "buffer") {
        check(cu->cuMemAlloc_v2(&arg.pointer, std::max<size_t>(bytes, 1)), "cuMemAlloc");
        check(cu->cuMemcpyHtoD_v2(arg.pointer, arg.initial.data(), bytes), "cuMemcpyHtoD");
      }
      arguments.push_back(std::move(arg));
    }
    return {"ok", {}, {}};
  }

  Frame set_reference(const Frame& request) {
    reference.clear();
    size_t offset = 0;
    for (const auto& a : arguments) {
      if (!a.output) continue;
      if (a.initial.size() > request.blob.size() - offset) return error_frame("the reference is shorter than the outputs");
      reference.push_back(request.blob.substr(offset, a.initial.size()));
      offset += a.initial.size();
    }
    return {"ok", {}, {}};
  }

  // The outputs back from the GPU, in argument order.
  std::vector<std::string> outputs() {
    std::vector<std::string> out;
    for (const auto& a : arguments) {
      if (!a.output) continue;
      std::string bytes(a.initial.size(), '\0');
      check(cu->cuMemcpyDtoH_v2(bytes.data(), a.pointer, bytes.size()), "cuMemcpyDtoH");
      out.push_back(std::move(bytes));
    }
    return out;
  }

  std::string compare(const std::vector<std::string>& got, double rtol, double atol) {
    size_t k = 0;
    for (const auto& a : arguments) {
      if (!a.output) continue;
      const std::string& g = got[k];
      const std::string& w = reference[k++];
      std::string why;
      if (a.dtype == "float32")
        why = allclose(reinterpret_cast<const float*>(g.data()), reinterpret_cast<const float*>(w.data()),
                       g.size() / sizeof(float), rtol, atol, a.name);
      else if (a.dtype == "float64")
        why = allclose(reinterpret_cast<const double*>(g.data()), reinterpret_cast<const double*>(w.data()),
                       g.size() / sizeof(double), rtol, atol, a.name);
      else if (g != w)
        why = "output " + a.name + " differs from the reference";
      if (!why.empty()) return why;
    }
    return {};
  }

  void flush_l2() {
    const size_t bytes = std::max<size_t>(2 * l2_bytes, size_t{1} << 20);
    if (!flush) check(cu->cuMemAlloc_v2(&flush, bytes), "cuMemAlloc (L2 flush buffer)");
    check(cu->cuMemsetD8_v2(flush, 0, bytes), "cuMemsetD8 (L2 flush)");
  }

  Frame run(const Frame& request, bool& lost) {
    const auto& h = request.header;
    CUmodule module = nullptr;
    try {
      const CUresult loaded = cu->cuModuleLoadData(&module, request.blob.data());
      if (loaded != CUDA_SUCCESS) {
        Frame f{"result", {{"status", "build_failed"}, {"message", "cuModuleLoadData: " + cuda_error(*cu, loaded)}}, {}};
        lost = !context_survives(loaded);
        return f;
      }
      Frame reply = launch_and_time(module, h);
      cu->cuModuleUnload(module);
      return reply;
    } catch (const CudaFailure& e) {
      lost = !context_survives(e.code);
      if (module && !lost) cu->cuModuleUnload(module);
      const bool resources = e.code == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
      return {"result",
              {{"status", "run_failed"},
               {"message", std::string(resources ? "too many resources: " : "") + e.what() +
                               (lost ? " (the CUDA context is lost; the worker restarts)" : "")}},
              {}};
    }
  }

  Frame launch_and_time(CUmodule module, const nlohmann::json& h) {
    CUfunction function = nullptr;
    const std::string kernel = h.at("kernel").get<std::string>();
    check(cu->cuModuleGetFunction(&function, module, kernel.c_str()), ("cuModuleGetFunction(" + kernel + ")").c_str());
    const auto grid = h.at("grid").get<std::vector<unsigned>>();
    const auto block = h.at("block").get<std::vector<unsigned>>();
    const unsigned shared = h.value("shared_bytes", 0u);
    int registers = 0, max_threads = 0;
    cu->cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, function);
    cu->cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function);
    const uint64_t threads = uint64_t{block[0]} * block[1] * block[2];
    if (max_threads > 0 && threads > static_cast<uint64_t>(max_threads))
      return {"result",
              {{"status", "run_failed"},
               {"message", "too many resources: the kernel uses " + std::to_string(registers) +
                               " registers a thread, so a block holds at most " + std::to_string(max_threads) +
                               " threads, not " + std::to_string(threads)}},
              {}};
    if (shared > 48 * 1024)
      check(cu->cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(shared)),
            "cuFuncSetAttribute(max dynamic shared memory)");
    std::vector<void*> params;
    for (auto& a : arguments) {
      params.push_back(a.kind == "buffer" ? static_cast<void*>(&a.pointer) : static_cast<void*>(a.initial.data()));
      if (!a.constant) continue;
      CUdeviceptr symbol = 0;
      size_t bytes = 0;
      check(cu->cuModuleGetGlobal_v2(&symbol, &bytes, module, a.name.c_str()),
            ("cuModuleGetGlobal(" + a.name + "): the kernel has no __constant__ symbol of that name").c_str());
      if (bytes < a.initial.size())
        throw CudaFailure(CUDA_ERROR_INVALID_VALUE, "__constant__ " + a.name + " holds " + std::to_string(bytes) +
                                                        " bytes, the argument " + std::to_string(a.initial.size()));
      check(cu->cuMemcpyHtoD_v2(symbol, a.initial.data(), a.initial.size()), "cuMemcpyHtoD (constant memory)");
    }
    const bool zero_outputs = h.value("zero_outputs", false);
    const auto launch = [&] {
      if (zero_outputs)
        for (const auto& a : arguments)
          if (a.output) check(cu->cuMemsetD8_v2(a.pointer, 0, a.initial.size()), "cuMemsetD8 (outputs)");
      check(cu->cuLaunchKernel(function, grid[0], grid[1], grid[2], block[0], block[1], block[2], shared, nullptr,
                               params.data(), nullptr),
            "cuLaunchKernel");
    };
    // The checked run starts from the outputs' initial contents, as the reference did.
    for (const auto& a : arguments)
      if (a.output) check(cu->cuMemcpyHtoD_v2(a.pointer, a.initial.data(), a.initial.size()), "cuMemcpyHtoD");
    launch();
    check(cu->cuCtxSynchronize(), "cuCtxSynchronize (after the checked run)");
    nlohmann::json result = {{"status", "ok"}, {"registers", registers}};
    std::string kept;
    if (h.value("keep_as_reference", false)) {
      reference = outputs();
      for (const auto& r : reference) kept += r;  // the device keeps them for the workers after this one
    } else if (h.value("check", true) && !reference.empty()) {
      const std::string why = compare(outputs(), h.value("rtol", 1e-4), h.value("atol", 1e-4));
      if (!why.empty()) return {"result", {{"status", "wrong_result"}, {"message", why}}, {}};
    }
    cpu::TimingOptions timing;
    timing.warmup = h.value("warmup", 1u);
    timing.min_repeats = h.value("min_repeats", 5u);
    timing.max_repeats = std::max(timing.min_repeats, h.value("max_repeats", 100u));
    timing.stable_within = h.value("stable_within", 0.02);
    timing.max_seconds = h.value("max_seconds", 1.0);
    const bool flush_each = h.value("flush_l2", false);
    for (uint32_t i = 0; i < timing.warmup; ++i) launch();
    std::vector<double> samples;
    const auto started = std::chrono::steady_clock::now();
    while (samples.size() < timing.max_repeats) {
      if (flush_each) flush_l2();
      check(cu->cuEventRecord(start, nullptr), "cuEventRecord");
      launch();
      check(cu->cuEventRecord(end, nullptr), "cuEventRecord");
      check(cu->cuEventSynchronize(end), "cuEventSynchronize");
      float ms = 0;
      check(cu->cuEventElapsedTime(&ms, start, end), "cuEventElapsedTime");
      samples.push_back(static_cast<double>(ms));
      if (samples.size() < timing.min_repeats) continue;
      const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      if (cpu::median_interval(samples) <= timing.stable_within || spent >= timing.max_seconds) break;
    }
    result["times_ms"] = samples;
    result["median_ms"] = cpu::median_of(samples);
    result["noise"] = cpu::relative_iqr(samples);
    result["stable"] = cpu::median_interval(samples) <= timing.stable_within;
    if (nvml_device) {
      unsigned mhz = 0, celsius = 0;
      if (nvml->nvmlDeviceGetClockInfo(nvml_device, NVML_CLOCK_SM, &mhz) == NVML_SUCCESS) result["sm_clock_mhz"] = mhz;
      if (nvml->nvmlDeviceGetTemperature(nvml_device, NVML_TEMPERATURE_GPU, &celsius) == NVML_SUCCESS)
        result["temperature_c"] = celsius;
    }
    return {"result", std::move(result), std::move(kept)};
  }
};

GpuSession::GpuSession() : state_(std::make_unique<State>()) {}
GpuSession::~GpuSession() = default;

Frame GpuSession::serve(const Frame& request, bool& lost) {
  lost = false;
  try {
    if (request.kind == "open") return state_->open(request.header);
    if (!state_->opened) return error_frame("the worker was asked for '" + request.kind + "' before 'open'");
    if (request.kind == "arguments") return state_->set_arguments(request);
    if (request.kind == "reference") return state_->set_reference(request);
    if (request.kind == "run") return state_->run(request, lost);
    if (request.kind == "model") return run_model_kernels(*state_->cu, state_->start, state_->end, request);
    return error_frame("the worker does not know the request '" + request.kind + "'");
  } catch (const CudaFailure& e) {
    lost = !context_survives(e.code);
    return error_frame(e.what());
  } catch (const std::exception& e) {
    return error_frame(e.what());
  }
}

}  // namespace aoe::cuda
