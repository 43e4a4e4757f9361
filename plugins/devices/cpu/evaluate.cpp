#include "evaluate.h"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "blocked.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace aoe::cpu {
namespace {

// Evicts [p, p + bytes) from every cache level.
void flush_range(const void* p, size_t bytes) {
#if defined(__x86_64__)
  const auto* c = static_cast<const char*>(p);
  for (size_t i = 0; i < bytes; i += 64) _mm_clflush(c + i);
  _mm_mfence();
#else
  (void)p;
  (void)bytes;
#endif
}

std::string fmt(double v) {
  char s[32];
  std::snprintf(s, sizeof s, "%.6g", v);
  return s;
}

}  // namespace

void inject(Fault fault) {
  switch (fault) {
    case Fault::crash: {
      // Dies of the signal itself, as a faulty kernel would, even where a
      // sanitizer's handler would turn it into an exit code.
      std::signal(SIGSEGV, SIG_DFL);
      volatile int* nowhere = nullptr;
      *nowhere = 1;
      break;
    }
    case Fault::abort: std::abort();
    case Fault::hang: {
      volatile unsigned long spin = 0;
      for (;;) spin = spin + 1;
    }
    default: break;
  }
}

std::vector<const float*> arrange_inputs(const CpuOp& op, const std::vector<const float*>& inputs,
                                         std::vector<Buffer>& owned) {
  std::vector<const float*> out = inputs;
  owned.clear();
  owned.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const int lanes = op.input_blocking(i);
    if (!lanes) continue;
    const Shape& s = op.input_shapes()[i];
    const int64_t spatial = elements(Shape(s.begin() + 2, s.end()));
    owned.emplace_back(layout_elements(s[0], s[1], spatial, lanes));
    to_blocked(inputs[i], owned.back().data(), s[0], s[1], spatial, lanes);
    out[i] = owned.back().data();
  }
  return out;
}

std::vector<std::vector<float>> make_task_inputs(const CpuOp& op, uint64_t seed) {
  std::vector<std::vector<float>> inputs;
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < op.input_shapes().size(); ++i) {
    inputs.push_back(draw_values(op.input_range(i), static_cast<size_t>(elements(op.input_shapes()[i])), rng));
  }
  return inputs;
}

TaskData make_task_data(const CpuOp& op, uint64_t seed) {
  TaskData d;
  d.inputs = make_task_inputs(op, seed);
  std::vector<const float*> in;
  for (const auto& v : d.inputs) in.push_back(v.data());
  std::vector<float*> out;
  for (const auto& s : op.output_shapes()) d.expected.emplace_back(static_cast<size_t>(elements(s)));
  for (auto& v : d.expected) out.push_back(v.data());
  op.reference(in, out);
  return d;
}

std::string compare(const float* got, const float* want, int64_t n, const Tolerance& tolerance) {
  int64_t worst = -1;
  double worst_excess = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double g = got[i], w = want[i];
    if (std::isnan(w) && std::isnan(g)) continue;
    if (std::isinf(w) && g == w) continue;
    const double err = std::abs(g - w);
    const double allowed = tolerance.atol + tolerance.rtol * std::abs(w);
    if (!(err <= allowed)) {
      const double excess = std::isfinite(err) ? err / std::max(allowed, 1e-30) : INFINITY;
      if (worst < 0 || excess > worst_excess) worst = i, worst_excess = excess;
    }
  }
  if (worst < 0) return {};
  return "element " + std::to_string(worst) + " is " + fmt(got[worst]) + ", the reference " + fmt(want[worst]) +
         " (allowed " + fmt(tolerance.atol) + " + " + fmt(tolerance.rtol) + " of its size)";
}

std::vector<std::vector<float>> run_once(const CpuOp& op, const sdk::Config& config,
                                         const std::vector<const float*>& inputs, ThreadPool& pool) {
  auto kernel = op.build(config);
  std::vector<Buffer> arranged;
  kernel->bind(arrange_inputs(op, inputs, arranged));
  kernel->run(pool);
  std::vector<std::vector<float>> out;
  for (size_t i = 0; i < op.output_shapes().size(); ++i) {
    out.emplace_back(static_cast<size_t>(elements(op.output_shapes()[i])));
    kernel->read_output(i, out.back().data());
  }
  return out;
}

BoundKernel bind_kernel(const CpuOp& op, const sdk::Config& config, const TaskData& data) {
  BoundKernel b{op.build(config), {}};
  std::vector<const float*> in;
  for (const auto& v : data.inputs) in.push_back(v.data());
  b.kernel->bind(arrange_inputs(op, in, b.arranged));
  return b;
}

namespace {

std::string mismatch(const Kernel& kernel, const std::vector<std::vector<float>>& expected,
                     const Tolerance& tolerance) {
  for (size_t i = 0; i < expected.size(); ++i) {
    std::vector<float> got(expected[i].size());
    kernel.read_output(i, got.data());
    auto why = compare(got.data(), expected[i].data(), static_cast<int64_t>(got.size()), tolerance);
    if (!why.empty()) return (expected.size() > 1 ? "output " + std::to_string(i) + ": " : "") + why;
  }
  return {};
}

}  // namespace

std::optional<sdk::Measurement> first_run(Kernel& kernel, const std::vector<std::vector<float>>& expected,
                                          const EvaluateOptions& options, ThreadPool& pool, Fault fault) {
  inject(fault);
  kernel.run(pool);
  if (fault == Fault::wrong) kernel.output_data()[0] += 1.0f + std::abs(kernel.output_data()[0]);
  if (auto why = mismatch(kernel, expected, options.tolerance); !why.empty())
    return sdk::Measurement::failed(sdk::ResultStatus::wrong_result, why);
  return std::nullopt;
}

std::vector<sdk::Measurement> time_checked(const std::vector<Kernel*>& kernels,
                                           const std::vector<std::vector<float>>& expected,
                                           const EvaluateOptions& options, ThreadPool& pool,
                                           const std::function<void()>& ran) {
  std::vector<std::function<void()>> runs;
  std::vector<Footprint> footprints;
  for (Kernel* k : kernels) {
    runs.push_back([k, &pool] { k->run(pool); });
    footprints.push_back(k->footprint());
  }
  const auto timings = time_in_turns(runs,
                                     [&](size_t k) {
                                       for (const auto& [p, bytes] : footprints[k]) flush_range(p, bytes);
                                     },
                                     options.timing, ran);
  std::vector<sdk::Measurement> out;
  for (size_t k = 0; k < kernels.size(); ++k) {
    if (auto why = mismatch(*kernels[k], expected, options.tolerance); !why.empty()) {
      out.push_back(sdk::Measurement::failed(sdk::ResultStatus::wrong_result, "after timing: " + why));
      continue;
    }
    const Timing& t = timings[k];
    sdk::Measurement m = sdk::Measurement::timed(t.median_us, t.noise, t.samples);
    if (!t.stable)
      m.message = "median not within +-" + fmt(options.timing.stable_within * 100) + "% after " +
                  std::to_string(t.samples) + " samples (+-" + fmt(t.interval * 100) + "%)";
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace aoe::cpu
