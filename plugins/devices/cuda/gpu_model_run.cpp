#include "gpu_model_run.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_failure.h"
#include "cuda_library.h"

namespace aoe::cuda {
namespace {

using nlohmann::json;

struct Launch {
  CUfunction function = nullptr;
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1}, shared = 0;
  std::vector<CUdeviceptr> pointers;  // one per argument; cuLaunchKernel takes their addresses
  std::vector<void*> params;
  int64_t zero_offset = -1, zero_bytes = 0;
};

// What the request asks for, each part checked against what it holds, and
// the device memory and modules it needs; released whatever happens.
class ModelRun {
 public:
  ModelRun(const DriverApi& cu, const Frame& request) : cu_(cu), request_(request) {}
  ~ModelRun() {
    if (exec_) cu_.cuGraphExecDestroy(exec_);
    if (graph_) cu_.cuGraphDestroy(graph_);
    if (stream_) cu_.cuStreamDestroy_v2(stream_);
    for (CUmodule m : modules_) cu_.cuModuleUnload(m);
    for (CUdeviceptr p : {arena_, weights_})
      if (p) cu_.cuMemFree_v2(p);
  }
  ModelRun(const ModelRun&) = delete;
  ModelRun& operator=(const ModelRun&) = delete;

  void check(CUresult r, const std::string& call) const { check_cuda(cu_, r, call); }

  // Loads the cubins, copies the weights and inputs, and binds every kernel's arguments.
  void prepare() {
    const json& h = request_.header;
    arena_bytes_ = h.at("arena_bytes").get<uint64_t>();
    const auto weights_bytes = h.at("weights_bytes").get<uint64_t>();
    size_t at = 0;
    const auto take = [&](uint64_t bytes, const char* what) {
      if (bytes > request_.blob.size() - at) throw std::runtime_error(std::string("model: the blob is shorter than its ") + what);
      const char* p = request_.blob.data() + at;
      at += bytes;
      return p;
    };
    for (const auto& bytes : h.at("cubin_bytes")) {
      const char* image = take(bytes.get<uint64_t>(), "cubins");
      std::string copy(image, bytes.get<uint64_t>());  // cuModuleLoadData reads up to the image's own end
      CUmodule module = nullptr;
      check(cu_.cuModuleLoadData(&module, copy.data()), "cuModuleLoadData");
      modules_.push_back(module);
    }
    check(cu_.cuMemAlloc_v2(&arena_, std::max<uint64_t>(arena_bytes_, 4)), "cuMemAlloc (arena)");
    check(cu_.cuMemAlloc_v2(&weights_, std::max<uint64_t>(weights_bytes, 4)), "cuMemAlloc (weights)");
    check(cu_.cuMemcpyHtoD_v2(weights_, take(weights_bytes, "weights"), weights_bytes), "cuMemcpyHtoD (weights)");
    for (const auto& in : h.at("inputs")) {
      const auto [offset, bytes] = region(in, "input");
      check(cu_.cuMemcpyHtoD_v2(arena_ + offset, take(bytes, "inputs"), bytes), "cuMemcpyHtoD (input)");
    }
    for (const auto& out : h.at("outputs")) outputs_.push_back(region(out, "output"));
    for (const auto& k : h.at("kernels")) launches_.push_back(bind(k, weights_bytes));
    check(cu_.cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    for (auto& l : launches_) {
      l.params.clear();
      for (auto& p : l.pointers) l.params.push_back(&p);
    }
  }

  void launch(const Launch& l) const {
    if (l.zero_offset >= 0) check(cu_.cuMemsetD8Async(arena_ + l.zero_offset, 0, l.zero_bytes, stream_), "cuMemsetD8Async");
    check(cu_.cuLaunchKernel(l.function, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2], l.shared,
                             stream_, const_cast<void**>(l.params.data()), nullptr),
          "cuLaunchKernel");
  }
  void run_all() const {
    for (const auto& l : launches_) launch(l);
  }
  CUstream stream() const { return stream_; }

  // The launches captured once into a CUDA graph, so that a run is one
  // launch of it rather than one per kernel. Empty where the driver
  // refuses: the reason, and the runs launch each kernel.
  std::string capture() {
    const auto refused = [&](CUresult r, const char* call) { return std::string(call) + ": " + cuda_error(cu_, r); };
    if (CUresult r = cu_.cuStreamBeginCapture_v2(stream_, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL); r != CUDA_SUCCESS)
      return refused(r, "cuStreamBeginCapture");
    run_all();
    if (CUresult r = cu_.cuStreamEndCapture(stream_, &graph_); r != CUDA_SUCCESS) return refused(r, "cuStreamEndCapture");
    if (CUresult r = cu_.cuGraphInstantiateWithFlags(&exec_, graph_, 0); r != CUDA_SUCCESS)
      return refused(r, "cuGraphInstantiateWithFlags");
    return {};
  }
  // One whole run: the graph where there is one, else each kernel.
  void run_once() const {
    if (exec_)
      check(cu_.cuGraphLaunch(exec_, stream_), "cuGraphLaunch");
    else
      run_all();
  }
  const std::vector<Launch>& launches() const { return launches_; }

  std::string outputs() const {
    std::string out;
    for (const auto& [offset, bytes] : outputs_) {
      std::string part(bytes, '\0');
      check(cu_.cuMemcpyDtoH_v2(part.data(), arena_ + offset, bytes), "cuMemcpyDtoH (output)");
      out += part;
    }
    return out;
  }

 private:
  std::pair<uint64_t, uint64_t> region(const json& r, const char* what) const {
    const auto offset = r.at(0).get<uint64_t>(), bytes = r.at(1).get<uint64_t>();
    if (offset > arena_bytes_ || bytes > arena_bytes_ - offset)
      throw std::runtime_error(std::string("model: an ") + what + " reaches past the arena");
    return {offset, bytes};
  }

  Launch bind(const json& k, uint64_t weights_bytes) {
    Launch l;
    const auto cubin = k.at("cubin").get<size_t>();
    if (cubin >= modules_.size()) throw std::runtime_error("model: a kernel names a cubin the request does not hold");
    const std::string name = k.at("name").get<std::string>();
    check(cu_.cuModuleGetFunction(&l.function, modules_[cubin], name.c_str()), "cuModuleGetFunction(" + name + ")");
    for (int d = 0; d < 3; ++d) {
      l.grid[d] = k.at("grid").at(d).get<unsigned>();
      l.block[d] = k.at("block").at(d).get<unsigned>();
    }
    l.shared = k.value("shared_bytes", 0u);
    if (l.shared > 48 * 1024)
      check(cu_.cuFuncSetAttribute(l.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(l.shared)),
            "cuFuncSetAttribute(max dynamic shared memory)");
    for (const auto& a : k.at("args")) {
      const int space = a.at(0).get<int>();
      const auto offset = a.at(1).get<uint64_t>();
      if (space == 0) {
        l.pointers.push_back(0);
        continue;
      }
      const uint64_t size = space == 1 ? arena_bytes_ : weights_bytes;
      if (offset > size) throw std::runtime_error("model: an argument of " + name + " lies past its buffer");
      l.pointers.push_back((space == 1 ? arena_ : weights_) + offset);
    }
    if (k.contains("zero") && k["zero"].is_array()) {
      const auto [offset, bytes] = region(k["zero"], "output to clear");
      l.zero_offset = static_cast<int64_t>(offset);
      l.zero_bytes = static_cast<int64_t>(bytes);
    }
    return l;
  }

  const DriverApi& cu_;
  const Frame& request_;
  uint64_t arena_bytes_ = 0;
  CUdeviceptr arena_ = 0, weights_ = 0;
  CUstream stream_ = nullptr;
  CUgraph graph_ = nullptr;
  CUgraphExec exec_ = nullptr;
  std::vector<CUmodule> modules_;
  std::vector<Launch> launches_;
  std::vector<std::pair<uint64_t, uint64_t>> outputs_;
};

}  // namespace

Frame run_model_kernels(const DriverApi& cu, CUevent start, CUevent end, const Frame& request) {
  ModelRun model(cu, request);
  model.prepare();
  const auto elapsed = [&] {
    model.check(cu.cuEventSynchronize(end), "cuEventSynchronize");
    float ms = 0;
    model.check(cu.cuEventElapsedTime(&ms, start, end), "cuEventElapsedTime");
    return static_cast<double>(ms);
  };
  // A first run kernel by kernel, so that a fault names its launch rather than the graph's.
  model.run_all();
  model.check(cu.cuStreamSynchronize(model.stream()), "cuStreamSynchronize (after the first run)");
  const std::string graph_refused = model.capture();
  const auto warmup = request.header.value("warmup", 1), iterations = std::max(1, request.header.value("iterations", 10));
  for (int i = 0; i < warmup; ++i) model.run_once();
  json times = json::array();
  for (int i = 0; i < iterations; ++i) {
    model.check(cu.cuEventRecord(start, model.stream()), "cuEventRecord");
    model.run_once();
    model.check(cu.cuEventRecord(end, model.stream()), "cuEventRecord");
    times.push_back(elapsed());
  }
  // The outputs as the last timed run (the graph, where there is one) left them.
  std::string outputs = model.outputs();
  // Each kernel's time, from events between the kernels of one more pass
  // per run: in order, so each reads the values it reads in the run.
  std::vector<CUevent> marks(model.launches().size() + 1, nullptr);
  struct Marks {
    const DriverApi& cu;
    std::vector<CUevent>& events;
    ~Marks() {
      for (CUevent e : events)
        if (e) cu.cuEventDestroy_v2(e);
    }
  } release{cu, marks};
  for (auto& e : marks) model.check(cu.cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate");
  std::vector<double> sums(model.launches().size(), 0.0);
  for (int i = 0; i < iterations; ++i) {
    model.check(cu.cuEventRecord(marks[0], model.stream()), "cuEventRecord");
    for (size_t k = 0; k < model.launches().size(); ++k) {
      model.launch(model.launches()[k]);
      model.check(cu.cuEventRecord(marks[k + 1], model.stream()), "cuEventRecord");
    }
    model.check(cu.cuEventSynchronize(marks.back()), "cuEventSynchronize");
    for (size_t k = 0; k < sums.size(); ++k) {
      float ms = 0;
      model.check(cu.cuEventElapsedTime(&ms, marks[k], marks[k + 1]), "cuEventElapsedTime");
      sums[k] += ms;
    }
  }
  json kernel_ms = json::array();
  for (double s : sums) kernel_ms.push_back(s / iterations);
  json result = {{"times_ms", times}, {"kernel_ms", kernel_ms}, {"cuda_graph", graph_refused.empty()}};
  if (!graph_refused.empty()) result["cuda_graph_refused"] = graph_refused;
  return {"model_result", std::move(result), std::move(outputs)};
}

}  // namespace aoe::cuda
