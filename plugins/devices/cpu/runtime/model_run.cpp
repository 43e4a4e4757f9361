#include "model_run.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <string>

#include "aoe/sdk/error.h"
#include "dynamic_run.h"
#include "memory_fit.h"
#include "model_run_parts.h"
#include "op_util.h"
#include "quantizer_anchors.h"
#include "step_flops.h"
#include "subgraph_op.h"
#include "subgraph_run.h"
#include "thread_pool.h"

namespace aoe::cpu {
namespace {

using nlohmann::json;

json knob_names(const sdk::TuningSpace& space) {
  json names = json::array();
  for (const auto& k : space.knobs) names.push_back(k.name);
  return names;
}

// Which kernels run the bank's tiling: those whose anchor the default
// strategy marks tuned (the bank has a config this machine runs); and each
// one's mean time per run, `step_ms` by plan step.
json kernels_report(const Plan& plan, const sdk::SubgraphDecisions& decisions, const json& op_configs,
                    const std::vector<double>& step_ms) {
  json out = json::array();
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const auto& s = plan.steps[i];
    if (s.kind != PlanStep::Kind::kernel) continue;
    const std::string& anchor = s.nodes.front();
    const bool tuned = decisions.tuned.count(anchor) > 0;
    json k = {{"name", s.name},
              {"op_type", s.task.op_type.empty() ? "Attention" : s.task.op_type},
              {"anchor", anchor},
              {"config_source", tuned ? "bank" : "default"},
              {"config", s.op->space().describe(s.config)},
              {"config_values", s.config},
              {"knobs", knob_names(s.op->space())},
              {"ms", step_ms[i]}};
    if (const double flops = step_flops(s); flops > 0) k["gflop"] = flops / 1e9;
    if (!tuned && op_configs.contains(anchor)) k["bank_config_refused"] = op_configs[anchor];
    out.push_back(std::move(k));
  }
  return out;
}

// The kernels' FMA work (step_flops.h), GFLOP per run.
double total_gflop(const json& kernels) {
  double sum = 0;
  for (const auto& k : kernels) sum += k.value("gflop", 0.0);
  return sum;
}

int64_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

// Each kernel on at most the run's threads, whatever its bank config was
// measured with: the device's own kernels are held to the pool, but
// OpenBLAS and oneDNN start the threads a config names.
json capped_threads(json configs, int threads) {
  for (auto& [anchor, config] : configs.items())
    if (config.is_object() && config.contains("threads") && config["threads"].is_number_integer() &&
        config["threads"].get<int64_t>() > threads)
      config["threads"] = threads;
  return configs;
}

// The CPU as the run has it: kernels at their defaults are made for the
// run's threads, as banked configs are capped to them; a default made for
// more would split its work for threads the run lacks (oneDNN's
// convolution into parts, then run one after another on one thread).
std::shared_ptr<const HostCpu> on_threads(std::shared_ptr<const HostCpu> host, int threads) {
  if (threads >= host->threads) return host;
  auto capped = std::make_shared<HostCpu>(*host);
  capped->threads = threads;
  capped->physical_cores = std::min(capped->physical_cores, threads);
  return capped;
}

// A model with ops sized by values: its inputs and every weight lent, by
// name, used in place (those not lent are drawn per segment from the seed).
GivenViews lent_tensors(const sdk::GraphRun& run, const std::vector<sdk::TensorView>& views) {
  GivenViews given;
  for (const auto& name : run.graph.inputs) {
    const auto view = std::find_if(views.begin(), views.end(), [&](const sdk::TensorView& v) { return v.name == name; });
    if (view == views.end()) invalid("no data for the model's input '" + name + "'");
  }
  for (const auto& view : views) {
    const bool input = std::find(run.graph.inputs.begin(), run.graph.inputs.end(), view.name) != run.graph.inputs.end();
    if (!input && (!run.graph.tensors.count(view.name) || !run.graph.tensor(view.name).constant))
      invalid("'" + view.name + "' is neither an input nor a weight of the model");
    const auto want = static_cast<size_t>(run.graph.tensor(view.name).elements());
    if (view.count != want || (!view.data && want > 0))
      invalid(std::string(input ? "input" : "weight") + " '" + view.name + "' has " + std::to_string(view.count) +
              " values, the model takes " + std::to_string(want));
    given[view.name] = std::span<const float>(view.data, want);
  }
  return given;
}

// The graph's outputs as the run made them, each into its buffer, or into
// one `output_buffer` lends where the graph leaves its shape open or the
// lent buffer does not hold its run-time count.
void write_outputs(const sdk::Graph& graph, const std::vector<HeldTensor>& got, const std::vector<sdk::TensorView>& outputs,
                   const OutputBuffer& output_buffer) {
  if (outputs.size() != graph.outputs.size())
    invalid(std::to_string(outputs.size()) + " output buffers for a model of " + std::to_string(graph.outputs.size()) +
            " outputs");
  for (size_t i = 0; i < outputs.size(); ++i) {
    float* to = outputs[i].data;
    const bool lent_fits = outputs[i].count == got[i].values.size() && (outputs[i].data || got[i].values.empty());
    // Lent no buffer for a shape the graph leaves open: its lender waits to hear the shape, even of no values.
    const bool unsized = !graph.tensor(graph.outputs[i]).fully_known() && !outputs[i].data;
    if ((!lent_fits || unsized) && output_buffer) {
      to = output_buffer(graph.outputs[i], got[i].shape);
      if (!to && !got[i].values.empty())
        invalid("output '" + graph.outputs[i] + "': no buffer lent for its " + std::to_string(got[i].values.size()) +
                " values");
    } else if (!lent_fits) {
      invalid("output '" + graph.outputs[i] + "' has shape " + to_string(got[i].shape) + " as the model runs (" +
              std::to_string(got[i].values.size()) + " values); its buffer holds " + std::to_string(outputs[i].count));
    }
    std::copy(got[i].values.begin(), got[i].values.end(), to);
  }
}

json dynamic_check_report(const sdk::Graph& graph, const std::vector<HeldTensor>& got, const std::vector<HeldTensor>& want,
                          const Tolerance& tolerance) {
  json per_output = json::array();
  bool all = true;
  for (size_t i = 0; i < got.size(); ++i) {
    std::string why = got[i].shape != want[i].shape
                          ? "shape " + to_string(got[i].shape) + ", the reference's " + to_string(want[i].shape)
                          : compare(got[i].values.data(), want[i].values.data(),
                                    static_cast<int64_t>(got[i].values.size()), tolerance);
    all = all && why.empty();
    json o = {{"name", graph.outputs[i]}, {"match", why.empty()}, {"shape", got[i].shape}};
    if (!why.empty()) o["mismatch"] = why;
    per_output.push_back(std::move(o));
  }
  return {{"match", all}, {"atol", tolerance.atol}, {"rtol", tolerance.rtol}, {"outputs", per_output}};
}

// Planned in segments as it runs (dynamic_run.h); the report as the static
// run's, with the plans made and each output's shape.
json run_dynamic_model(const sdk::GraphRun& run, const std::vector<sdk::TensorView>& inputs,
                       const std::vector<sdk::TensorView>& outputs, std::shared_ptr<const HostCpu> host,
                       const Tolerance& tolerance, int threads, const OutputBuffer& output_buffer) {
  const GivenViews given = lent_tensors(run, inputs);
  const json configs = capped_threads(run.op_configs.is_object() ? run.op_configs : json::object(), threads);
  // The plans' kernels and input copies kept between runs take at most half
  // the machine's memory (Mask R-CNN's take 5 GB: it plans its mask-pasting
  // Loop's body once per iteration, for a tensor one mask bigger each time).
  // Past it a segment remakes its kernels each run: slower, but in memory.
  const int64_t memory = physical_memory_bytes();
  DynamicModel model(run.graph, host, configs, run.seed, memory > 0 ? memory / 2 : std::numeric_limits<int64_t>::max());
  ThreadPool pool(threads);
  // The untimed runs plan every segment, on this thread alone: the workers sleep through them.
  for (int64_t i = 0; i < run.warmup; ++i) (void)model.run(given, pool);
  pool.keep_awake(true);
  model.clear_times();
  std::vector<double> ms;
  std::vector<HeldTensor> got;
  for (int64_t i = 0; i < run.iterations; ++i) {
    const auto start = std::chrono::steady_clock::now();
    got = model.run(given, pool);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  pool.keep_awake(false);
  write_outputs(run.graph, got, outputs, output_buffer);
  const json kernels = model.kernels_report(static_cast<size_t>(run.iterations));
  size_t tuned = 0;
  for (const auto& k : kernels) tuned += k["config_source"] == "bank" ? 1 : 0;
  json shapes = json::array();
  for (size_t i = 0; i < got.size(); ++i) shapes.push_back({{"name", run.graph.outputs[i]}, {"shape", got[i].shape}});
  json report = {{"device", "cpu"},
                 {"threads", threads},
                 {"iterations", run.iterations},
                 {"latency_ms", latency_report(ms)},
                 {"memory", {{"peak_rss_bytes", peak_rss_bytes()},
                             {"tensor_bytes", footprint_bytes(model.footprint())},
                             {"arena_bytes", model.arena_bytes()}}},
                 {"weights", {{"from_model", given.size() - run.graph.inputs.size()}, {"seed", run.seed}}},
                 {"kernel_count", kernels.size()},
                 {"tuned_kernel_count", tuned},
                 {"gflop", total_gflop(kernels)},
                 {"kernels", kernels},
                 {"shapes_known_at_run",
                  {{"segment_plans", model.segment_plans()},
                   {"segments_released", model.segments_released()},
                   {"outputs", shapes}}}};
  if (run.check) report["check"] = dynamic_check_report(run.graph, got, model.reference(given), tolerance);
  return report;
}

}  // namespace

json run_model(const sdk::GraphRun& run, const std::vector<sdk::TensorView>& inputs,
               const std::vector<sdk::TensorView>& outputs, std::shared_ptr<const HostCpu> host,
               const Tolerance& tolerance, const ReleaseWeight& release, const OutputBuffer& output_buffer) {
  if (run.iterations < 1 || run.iterations > 1000000) invalid("iterations must lie in [1, 1000000]");
  if (run.warmup < 0 || run.warmup > 1000000) invalid("warmup must lie in [0, 1000000]");
  if (run.threads < 0 || run.threads > host->threads)
    invalid("threads is " + std::to_string(run.threads) + " but this process may use " + std::to_string(host->threads) +
            " CPUs");
  const int threads = run.threads > 0 ? static_cast<int>(run.threads) : host->physical_cores;
  host = on_threads(std::move(host), threads);
  // Shapes that depend on values: planned as they become known, not once here.
  if (has_value_shaped_ops(run.graph)) return run_dynamic_model(run, inputs, outputs, host, tolerance, threads, output_buffer);
  require_outputs(run.graph, outputs);
  sdk::SubgraphTask task;
  task.name = run.graph.name.empty() ? "model" : run.graph.name;
  task.graph = run.graph;
  // A checked run keeps what its quantizers write, as outputs after the
  // model's, for the reference to start from (quantizer_anchors.h).
  std::vector<std::string> kept;
  if (run.check)
    for (const auto& name : quantizer_outputs(run.graph))
      if (std::find(run.graph.outputs.begin(), run.graph.outputs.end(), name) == run.graph.outputs.end())
        kept.push_back(name), task.graph.outputs.push_back(name);
  task.op_configs = capped_threads(run.op_configs.is_object() ? run.op_configs : json::object(), threads);
  const SubgraphOp op(task, host);
  // Every fusion the device makes, each tensor kept as its kernel writes it.
  const sdk::Config strategy = op.stored_as_written(op.space().default_config);
  const Plan plan = op.lower(strategy);
  std::map<std::string, std::vector<float>> drawn;
  const GivenViews given = given_tensors(op, run, inputs, drawn);
  const size_t model_weights = given.size() - run.graph.inputs.size() - drawn.size();
  // Every tensor is allocated here, once: the iterations below allocate nothing.
  size_t released = 0;
  SubgraphKernel kernel(op, plan, given, [&](const std::string& name) {
    if (!run.check && release && !drawn.count(name) && run.graph.tensor(name).constant) release(name), ++released;
  });
  ThreadPool pool(threads);
  pool.keep_awake(true);
  for (int64_t i = 0; i < run.warmup; ++i) kernel.run(pool);
  std::vector<double> ms;
  ms.reserve(static_cast<size_t>(run.iterations));
  std::vector<double> step_ms(plan.steps.size(), 0.0);  // summed over the runs, then their mean
  for (int64_t i = 0; i < run.iterations; ++i) {
    const auto start = std::chrono::steady_clock::now();
    kernel.run_profiled(pool, step_ms);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  pool.keep_awake(false);
  for (auto& t : step_ms) t /= static_cast<double>(run.iterations);
  double conversion_ms = 0;
  json conversion_steps = json::array();  // each: the tensor and its copy, and its mean time
  for (size_t i = 0; i < plan.steps.size(); ++i)
    if (plan.steps[i].kind == PlanStep::Kind::convert) {
      conversion_ms += step_ms[i];
      conversion_steps.push_back({{"name", plan.steps[i].name}, {"ms", step_ms[i]}});
    }
  for (size_t i = 0; i < outputs.size(); ++i) kernel.read_output(i, outputs[i].data);

  const int64_t tensor_bytes = footprint_bytes(kernel.footprint());
  const json kernels =
      kernels_report(plan, sdk::SubgraphDecisions::of(op.space(), strategy), task.op_configs, step_ms);
  size_t tuned = 0;
  for (const auto& k : kernels) tuned += k["config_source"] == "bank" ? 1 : 0;
  json report = {{"device", "cpu"},
                 {"threads", threads},
                 {"iterations", run.iterations},
                 {"latency_ms", latency_report(ms)},
                 {"memory", {{"peak_rss_bytes", peak_rss_bytes()},
                             {"tensor_bytes", tensor_bytes},
                             {"arena_bytes", kernel.arena_bytes()}}},
                 {"weights", {{"from_model", model_weights},
                              {"released_after_binding", released},
                              {"drawn_from_seed", drawn.size()},
                              {"seed", run.seed}}},
                 {"kernel_count", kernels.size()},
                 {"conversions", {{"count", plan.conversions()}, {"ms", conversion_ms}, {"steps", conversion_steps}}},
                 {"tuned_kernel_count", tuned},
                 {"gflop", total_gflop(kernels)},
                 {"kernels", kernels}};
  if (run.check) {
    std::map<std::string, std::vector<float>> quantized;
    for (size_t i = 0; i < kept.size(); ++i) {
      auto& values = quantized[kept[i]];
      values.resize(static_cast<size_t>(run.graph.tensor(kept[i]).elements()));
      kernel.read_output(outputs.size() + i, values.data());
    }
    report["check"] = check_report(op, given, outputs, tolerance, std::move(quantized));
  }
  return report;
}

}  // namespace aoe::cpu
