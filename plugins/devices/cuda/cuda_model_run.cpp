#include "cuda_model_run.h"

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <future>
#include <map>
#include <set>

#include "aoe/sdk/error.h"
#include "gemm_plan.h"
#include "host_cpu.h"
#include "kernel_cache.h"
#include "model_program.h"
#include "model_run_parts.h"
#include "subgraph_op.h"

namespace aoe::cuda {
namespace {

using nlohmann::json;

[[noreturn]] void fail(sdk::StatusCode code, const std::string& why) { throw sdk::Error(code, why); }

struct Compiles {
  std::vector<std::string> cubins;  // per distinct source
  std::vector<size_t> of_kernel;    // kernel -> its cubin
  size_t from_cache = 0;
  std::filesystem::path cache;      // where those came from
  double compile_ms = 0;            // summed over the compiles that ran
};

// Each distinct source compiled once: from the cache, else by the pool, all at once.
Compiles compile_all(CudaContext& context, const ModelProgram& program) {
  const std::vector<std::string> options = {"--std=c++14", "--gpu-architecture=" + context.architecture};
  std::string how = context.nvrtc_library;
  for (const auto& o : options) how += ' ' + o;
  const KernelCache cache(context.options.kernel_cache.empty() ? KernelCache::default_folder()
                                                               : std::filesystem::path(context.options.kernel_cache));
  Compiles out;
  out.cache = cache.folder();
  std::map<std::string, size_t> index;  // source -> cubin
  std::vector<std::pair<size_t, std::shared_future<Compiled>>> pending;
  std::vector<std::string> keys;
  for (const auto& k : program.kernels) {
    const auto [it, added] = index.emplace(k.source, out.cubins.size());
    out.of_kernel.push_back(it->second);
    if (!added) continue;
    keys.push_back(KernelCache::key(k.source, how + " " + k.function));
    out.cubins.emplace_back();
    if (auto cached = cache.load(keys.back())) {
      out.cubins.back() = std::move(*cached);
      ++out.from_cache;
      continue;
    }
    CompileJob job;
    job.source = k.source;
    job.program_name = k.function + ".cu";
    job.options = options;
    job.kernel_name = k.function;
    pending.emplace_back(it->second, context.compiler->submit(std::move(job)));
  }
  for (auto& [i, future] : pending) {
    const Compiled& c = future.get();
    if (!c.ok) {
      size_t kernel = 0;
      while (out.of_kernel[kernel] != i) ++kernel;
      fail(sdk::StatusCode::internal, "the kernel of " + program.kernels[kernel].name + " (" +
                                          program.kernels[kernel].op_type + ") does not compile: " + log_tail(c.log, 600));
    }
    out.cubins[i] = c.cubin;
    out.compile_ms += c.compile_ms;
    cache.store(keys[i], c.cubin);
  }
  return out;
}

json region(int64_t offset, int64_t bytes) { return json::array({offset, bytes}); }

// The worker's "model" request (gpu_model_run.h).
Frame model_request(const sdk::GraphRun& run, const ModelProgram& program, const Compiles& compiles,
                    const cpu::GivenViews& given) {
  Frame f{"model", json::object(), {}};
  json& h = f.header;
  h["arena_bytes"] = program.arena_bytes;
  h["weights_bytes"] = program.weights_bytes;
  h["cubin_bytes"] = json::array();
  for (const auto& c : compiles.cubins) {
    h["cubin_bytes"].push_back(c.size());
    f.blob += c;
  }
  std::string weights(static_cast<size_t>(program.weights_bytes), '\0');
  for (const auto& [name, offset] : program.weights) {
    const auto& values = given.at(name);
    std::memcpy(weights.data() + offset, values.data(), values.size() * sizeof(float));
  }
  f.blob += weights;
  h["inputs"] = json::array();
  for (const auto& [name, offset] : program.inputs) {
    const auto& values = given.at(name);
    const auto bytes = static_cast<int64_t>(values.size() * sizeof(float));
    h["inputs"].push_back(region(offset, bytes));
    f.blob.append(reinterpret_cast<const char*>(values.data()), static_cast<size_t>(bytes));
  }
  h["outputs"] = json::array();
  for (const auto& [name, offset] : program.outputs)
    h["outputs"].push_back(region(offset, run.graph.tensor(name).elements() * static_cast<int64_t>(sizeof(float))));
  h["kernels"] = json::array();
  for (size_t i = 0; i < program.kernels.size(); ++i) {
    const auto& k = program.kernels[i];
    json args = json::array();
    for (const auto& a : k.args) args.push_back({static_cast<int>(a.space), a.offset});
    json kernel = {{"cubin", compiles.of_kernel[i]},
                   {"name", k.function},
                   {"grid", k.launch.grid},
                   {"block", k.launch.block},
                   {"shared_bytes", k.launch.shared_bytes},
                   {"args", args},
                   {"zero", k.zero ? region(k.zero->first, k.zero->second) : json(nullptr)}};
    h["kernels"].push_back(std::move(kernel));
  }
  h["warmup"] = run.warmup;
  h["iterations"] = run.iterations;
  return f;
}

// What a run planned before it starts cannot hold: control flow (which
// branch, how many iterations, is known only as it runs) and outputs whose
// size is. Refused first, before the cpu device's reference is built.
void require_static(const sdk::Graph& graph) {
  for (const auto& n : graph.nodes)
    if (n.op_type == "If" || n.op_type == "Loop" || n.op_type == "Scan")
      fail(sdk::StatusCode::unsupported, "cuda device: " + n.op_type + " '" + n.name +
                                             "': the cuda device plans every kernel before the run and runs no control flow; run this model with --device cpu");
  for (const auto& name : graph.outputs)
    if (!graph.tensor(name).fully_known())
      fail(sdk::StatusCode::unsupported, "cuda device: output '" + name + "' has dims " + json(graph.tensor(name).shape).dump() +
                                             ", known only as the model runs; the cuda device runs known shapes (set them with --input_shape)");
}

uint64_t next_run_id() {
  static std::atomic<uint64_t> id{uint64_t{1} << 62};  // apart from the tasks' ids
  return ++id;
}

}  // namespace

json run_model_on_gpu(CudaContext& context, const sdk::GraphRun& run, const std::vector<sdk::TensorView>& inputs,
                      const std::vector<sdk::TensorView>& outputs) {
  if (run.iterations < 1 || run.iterations > 1000000) fail(sdk::StatusCode::invalid_argument, "iterations must lie in [1, 1000000]");
  if (run.warmup < 0 || run.warmup > 1000000) fail(sdk::StatusCode::invalid_argument, "warmup must lie in [0, 1000000]");
  require_static(run.graph);
  cpu::require_outputs(run.graph, outputs);
  // The cpu device's view of the same graph: the weights not lent are drawn
  // as it draws them, and its nodes' references check the outputs.
  static const auto host = std::make_shared<const cpu::HostCpu>(cpu::detect_host_cpu());
  sdk::SubgraphTask task;
  task.name = run.graph.name.empty() ? "model" : run.graph.name;
  task.graph = run.graph;
  const cpu::SubgraphOp reference(task, host);
  std::map<std::string, std::vector<float>> drawn;
  const cpu::GivenViews given = cpu::given_tensors(reference, run, inputs, drawn);
  // A one-element weight as the model holds it (lent, or drawn from the seed).
  const auto scalar = [&](const std::string& tensor) -> std::optional<double> {
    if (!run.graph.tensor(tensor).constant || run.graph.tensor(tensor).elements() != 1) return std::nullopt;
    if (const auto it = given.find(tensor); it != given.end() && it->second.size() == 1) return it->second[0];
    for (const auto& view : inputs)
      if (view.name == tensor && view.count == 1 && view.data) return view.data[0];
    return std::nullopt;
  };
  const ModelProgram program =
      plan_model(run.graph, run.op_configs, gpu_limits_of(context.worker->properties()), scalar,
                 {context.options.allow_tf32, context.options.allow_fp16});
  for (const auto& [name, offset] : program.weights)
    if (!given.count(name)) fail(sdk::StatusCode::invalid_argument, "no values for the weight '" + name + "'");

  const auto started = std::chrono::steady_clock::now();
  const Compiles compiles = compile_all(context, program);
  const double compile_wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  const double timeout_s = context.options.timeout_s * static_cast<double>(2 + program.kernels.size());
  const Frame reply = context.worker->call(next_run_id(), {}, model_request(run, program, compiles, given), timeout_s);
  if (reply.kind != "model_result") {
    // A cached kernel the driver cannot load fails every run after: say where the cache is.
    const std::string cached = compiles.from_cache == 0 ? "" : "; " + std::to_string(compiles.from_cache) +
        " kernels came from the cache " + compiles.cache.string() + ", which can be deleted to compile them again";
    fail(sdk::StatusCode::internal, "the GPU worker did not run the model (" + reply.kind +
                                        "): " + reply.header.value("message", std::string("no message")) + cached);
  }
  size_t at = 0;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const size_t bytes = outputs[i].count * sizeof(float);
    if (bytes > reply.blob.size() - at) fail(sdk::StatusCode::internal, "the GPU worker sent fewer outputs than the model has");
    std::memcpy(outputs[i].data, reply.blob.data() + at, bytes);
    at += bytes;
  }

  const auto& kernel_ms = reply.header.at("kernel_ms");
  json kernels = json::array();
  size_t tuned = 0;
  for (size_t i = 0; i < program.kernels.size(); ++i) {
    const auto& k = program.kernels[i];
    json row = {{"name", k.name}, {"op_type", k.op_type}, {"anchor", k.anchor}, {"ms", kernel_ms.at(i)}};
    if (!k.config_source.empty()) {
      row["config_source"] = k.config_source;
      row["config"] = k.config;
      tuned += k.config_source == "bank" ? 1 : 0;
      if (k.config_source == "default" && run.op_configs.contains(k.anchor)) row["bank_config_refused"] = run.op_configs[k.anchor];
    }
    kernels.push_back(std::move(row));
  }
  json report = {{"device", "cuda"},
                 {"gpu", context.worker->properties().value("name", "")},
                 {"iterations", run.iterations},
                 {"cuda_graph", reply.header.value("cuda_graph", false)},
                 {"latency_ms", cpu::latency_report(reply.header.at("times_ms").get<std::vector<double>>())},
                 {"memory", {{"tensor_bytes", program.arena_bytes + program.weights_bytes},
                             {"arena_bytes", program.arena_bytes},
                             {"weights_bytes", program.weights_bytes}}},
                 {"weights", {{"from_model", given.size() - run.graph.inputs.size() - drawn.size()},
                              {"drawn_from_seed", drawn.size()},
                              {"seed", run.seed}}},
                 {"compiles", {{"kernels", program.kernels.size()},
                               {"sources", compiles.cubins.size()},
                               {"from_cache", compiles.from_cache},
                               {"compile_ms", compiles.compile_ms},
                               {"wall_ms", compile_wall_ms}}},
                 {"kernel_count", program.kernels.size()},
                 {"tuned_kernel_count", tuned},
                 {"kernels", kernels}};
  if (reply.header.contains("cuda_graph_refused")) report["cuda_graph_refused"] = reply.header["cuda_graph_refused"];
  if (run.check) {
    // fp32 sums in another order than the double-precision references: the
    // cpu run's tolerance; a GEMM in TF32 or fp16 rounds its inputs to 10
    // mantissa bits, and a model's outputs carry that through its layers: 1e-2.
    cpu::Tolerance tolerance{context.options.rtol, std::max(context.options.atol, cpu::Tolerance{}.atol)};
    std::set<std::string> reduced;
    for (const auto& k : program.kernels)
      if (k.config.is_object() && k.config.value("math", "fp32") != "fp32") reduced.insert(k.config["math"].get<std::string>());
    if (!reduced.empty()) tolerance = {std::max(tolerance.rtol, 1e-2), std::max(tolerance.atol, 1e-2)};
    std::string precision;
    for (const auto& m : reduced) precision += (precision.empty() ? "" : "+") + m;
    report["check"] = cpu::check_report(reference, given, outputs, tolerance);
    report["check"]["precision"] = precision.empty() ? "fp32" : precision;
  }
  return report;
}

}  // namespace aoe::cuda
