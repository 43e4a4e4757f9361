#include "cuda_device.h"

#include <dlfcn.h>

#include <cctype>
#include <chrono>

#include "cachefile_writer.h"
#include "conv_plan.h"
#include "cuda_library.h"
#include "cuda_model_run.h"
#include "gemm_plan.h"
#include "t1_plan.h"

namespace aoe::cuda {
namespace {

// aoe-cuda-worker lies beside the plugin, in the build tree and once installed.
std::filesystem::path worker_beside_plugin() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&worker_beside_plugin), &info) == 0 || !info.dli_fname) return {};
  return std::filesystem::path(info.dli_fname).parent_path() / "aoe-cuda-worker";
}

WorkerSetup worker_setup(const CudaOptions& options, const CudaLibraryPaths& paths) {
  WorkerSetup setup;
  setup.executable = options.worker.empty() ? worker_beside_plugin() : std::filesystem::path(options.worker);
  setup.driver = paths.driver.string();
  setup.nvrtc = paths.nvrtc.string();
  setup.nvml = paths.nvml.string();
  setup.device_id = options.device_id;
  return setup;
}

// The libraries, or an error naming what is missing, where it looked and what to do.
CudaLibraryPaths require_libraries(const CudaOptions& options) {
  CudaLibraryPaths paths = find_cuda_libraries(options.cuda_library, options.nvrtc_library);
  if (!paths.driver.empty() && !paths.nvrtc.empty()) return paths;
  std::string searched;
  for (const auto& dir : paths.searched) searched += (searched.empty() ? "" : ", ") + dir.string();
  throw sdk::Error(sdk::StatusCode::not_found,
                   std::string(kCudaMissing) + (searched.empty() ? "" : "; searched " + searched));
}

std::string architecture_of(const nlohmann::json& properties) {
  const auto cc = properties.at("compute_capability");
  return "sm_" + std::to_string(cc.at(0).get<int>()) + std::to_string(cc.at(1).get<int>());
}

replay::Outcome outcome_of(sdk::ResultStatus status) {
  switch (status) {
    case sdk::ResultStatus::ok: return replay::Outcome::timed;
    case sdk::ResultStatus::build_failed: return replay::Outcome::compile_failed;
    case sdk::ResultStatus::invalid: return replay::Outcome::invalid;
    default: return replay::Outcome::runtime_failed;
  }
}

}  // namespace

// Every config of the problem measured, written as Kernel Tuner's cachefile
// (at most every two seconds while tuning, and when the device closes).
struct CudaDevice::Recording {
  explicit Recording(std::filesystem::path file, replay::Cachefile header) : writer(std::move(file), std::move(header)) {}
  ~Recording() {
    try {
      writer.save();
    } catch (const std::exception&) {  // a destructor reports nothing; the last periodic save stands
    }
  }
  void add(const std::vector<nlohmann::json>& values, const sdk::Measurement& m, const std::vector<double>& times_ms,
           double compile_ms) {
    replay::Record r;
    r.values = values;
    r.outcome = outcome_of(m.status);
    r.times_ms = times_ms;
    r.time_ms = m.time_us / 1000;
    r.compile_ms = compile_ms;
    for (double t : times_ms) r.benchmark_ms += t;
    writer.add(r);
    const auto now = std::chrono::steady_clock::now();
    if (now - saved < std::chrono::seconds(2)) return;
    writer.save();
    saved = now;
  }
  replay::CachefileWriter writer;
  std::chrono::steady_clock::time_point saved{};
};

std::string soc_folder_name(const std::string& gpu_name) {
  std::string out;
  for (char c : gpu_name) out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ? c : '_';
  return out.empty() ? "unknown_gpu" : out;
}

std::string listing_summary() {
  const CudaLibraryPaths paths = find_cuda_libraries("", "");
  if (paths.driver.empty() || paths.nvrtc.empty()) return kCudaMissing;
  // The worker is a process of its own, so asking it for the GPU here
  // initialises no CUDA in aoe-host.
  try {
    WorkerSetup setup = worker_setup(CudaOptions{}, paths);
    setup.open_timeout_s = 20;  // every aoe-host start lists the plugins: a wedged GPU must not hold it long
    GpuWorker probe(setup);
    const auto& p = probe.properties();
    return p.value("name", std::string("a GPU")) + " (" + architecture_of(p) + ") through " + paths.driver.string() +
           " and " + paths.nvrtc.string() + ": Kernel Tuner problems and MatMul/Gemm tuned live";
  } catch (const std::exception& e) {
    return std::string("unavailable: ") + e.what();
  }
}

CudaDevice::CudaDevice(const sdk::CreateArgs& args) : context_(std::make_shared<CudaContext>()) {
  context_->options = CudaOptions::parse(args.options);
  const CudaOptions& o = context_->options;
  const CudaLibraryPaths paths = require_libraries(o);
  context_->worker = std::make_unique<GpuWorker>(worker_setup(o, paths));
  context_->architecture = architecture_of(context_->worker->properties());
  const unsigned workers = o.compile_workers ? o.compile_workers : default_compile_workers();
  context_->compiler = std::make_unique<CompilePool>(paths.nvrtc, workers, o.compile_timeout_s);
  context_->nvrtc_library = paths.nvrtc.string();
  libraries_ = {{"cuda_library", paths.driver.string()},
                {"nvrtc_library", paths.nvrtc.string()},
                {"nvml_library", paths.nvml.string()}};
  if (!o.problem.empty()) problem_ = std::make_shared<const T1Problem>(read_t1_problem(o.problem, o.max_argument_bytes));
  if (!o.cachefile.empty()) {
    if (!problem_)
      throw sdk::Error(sdk::StatusCode::invalid_argument,
                       "cuda device option 'cachefile' records a Kernel Tuner problem: give 'problem' as well");
    recording_ = std::make_shared<Recording>(o.cachefile, cachefile_header());
    // Written at once, so a path that cannot be written stops the run before anything is measured.
    recording_->writer.save();
    context_->record = [recording = recording_](const std::vector<nlohmann::json>& values, const sdk::Measurement& m,
                                                const std::vector<double>& times, double compile_ms) {
      recording->add(values, m, times, compile_ms);
    };
  }
}

// What Kernel Tuner writes at the head of a cachefile: the GPU, the kernel, the parameters and their values.
replay::Cachefile CudaDevice::cachefile_header() const {
  replay::Cachefile header;
  header.device_name = context_->worker->properties().value("name", "");
  header.kernel_name = problem_->kernel_name;
  header.problem_size = problem_->problem_size;
  header.objective = "time";
  for (const auto& p : problem_->parameters.parameters) {
    header.keys.push_back(p.name);
    header.domains.push_back(p.values);
  }
  return header;
}

CudaDevice::~CudaDevice() = default;

nlohmann::json CudaDevice::describe() const {
  const auto& p = context_->worker->properties();
  nlohmann::json out = {{"soc_version", soc_folder_name(p.value("name", ""))},
                        {"gpu", p},
                        {"architecture", context_->architecture},
                        {"device_id", context_->options.device_id},
                        {"libraries", libraries_},
                        {"compile_workers", context_->compiler->workers()},
                        {"flush_l2", context_->options.flush_l2},
                        {"worker_starts", context_->worker->starts()},
                        {"tunes", {"Schedule"}},
                        {"fused_op_types", gemm_epilogue_op_types()}};
  if (!context_->options.problem.empty()) out["problem"] = context_->options.problem;
  return out;
}

std::unique_ptr<sdk::DeviceTask> CudaDevice::prepare(const sdk::OpTask& task) {
  std::unique_ptr<KernelPlan> plan;
  if (problem_ && task.op_type == problem_->kernel_name)
    plan = std::make_unique<T1Plan>(problem_, context_->options);
  else if (task.op_type == "MatMul" || task.op_type == "Gemm")
    plan = std::make_unique<GemmPlan>(task, gpu_limits_of(context_->worker->properties()), context_->options);
  else if (task.op_type == "Conv" || task.op_type == "ConvTranspose")
    plan = std::make_unique<ConvPlan>(task, gpu_limits_of(context_->worker->properties()), context_->options);
  else
    throw sdk::Error(sdk::StatusCode::unsupported,
                     "the cuda device runs MatMul, Gemm, Conv and ConvTranspose" +
                         std::string(problem_ ? " and " + problem_->kernel_name : "") +
                         ", not " + task.op_type + " (" + task.name + ")");
  return std::make_unique<CudaTask>(context_, std::move(plan));
}

nlohmann::json CudaDevice::run_graph(const sdk::GraphRun& run, const std::vector<sdk::TensorView>& inputs,
                                     const std::vector<sdk::TensorView>& outputs) {
  return run_model_on_gpu(*context_, run, inputs, outputs);
}

}  // namespace aoe::cuda
