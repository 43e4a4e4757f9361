// Running candidates for real: build each kernel, run it on the task's
// inputs, check every output against the reference, then time them in turns.
#pragma once

#include <cstdint>
#include <memory>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "aoe/sdk/measurement.h"
#include "aoe/sdk/tuning_space.h"
#include "buffer.h"
#include "cpu_op.h"
#include "thread_pool.h"
#include "timing.h"

namespace aoe::cpu {

// The inputs a task's candidates run on and the outputs they must give.
struct TaskData {
  std::vector<std::vector<float>> inputs;
  std::vector<std::vector<float>> expected;
};

// Random inputs in each input's range, from a fixed seed; then the reference outputs.
TaskData make_task_data(const CpuOp& op, uint64_t seed);
// The inputs alone, the same as make_task_data's.
std::vector<std::vector<float>> make_task_inputs(const CpuOp& op, uint64_t seed);

// Test aid: a fault a candidate is made to show (see the device option `fault`).
enum class Fault { none, crash, abort, hang, wrong };
// Crashes, aborts or hangs as `fault` says; returns for none and wrong.
void inject(Fault fault);

// Inputs in the model's layout as the op takes them: those it takes
// blocked (CpuOp::input_blocking), reordered into `owned`.
std::vector<const float*> arrange_inputs(const CpuOp& op, const std::vector<const float*>& inputs,
                                         std::vector<Buffer>& owned);

// Each element is checked on its own, as numpy's allclose does:
// |got - want| <= atol + rtol * |want|.
struct Tolerance {
  double rtol = 1e-4;
  // Near zero: float32 chains (two matmuls, a softmax and a layer norm of
  // BERT's attention, sums of 768 terms) added in another order than the
  // double-precision reference differ by up to ~2e-4; 1e-3 leaves them room.
  double atol = 1e-3;
};

struct EvaluateOptions {
  TimingOptions timing;
  Tolerance tolerance;
};

// Empty when `got` matches `want` within the tolerance, else where and by how much it does not.
// NaN matches NaN and an infinity the same infinity.
std::string compare(const float* got, const float* want, int64_t n, const Tolerance& tolerance);

// A candidate's kernel bound to its inputs, with those it takes reordered.
struct BoundKernel {
  std::unique_ptr<Kernel> kernel;
  std::vector<Buffer> arranged;
};

// The op's kernel for `config`, bound to the task's inputs.
BoundKernel bind_kernel(const CpuOp& op, const sdk::Config& config, const TaskData& data);

// Shows the fault, runs once and checks every output against `expected`:
// nothing when they match, else the wrong_result to report.
std::optional<sdk::Measurement> first_run(Kernel& kernel, const std::vector<std::vector<float>>& expected,
                                          const EvaluateOptions& options, ThreadPool& pool, Fault fault);

// Kernels that passed first_run, timed in turns (time_in_turns) and checked
// again: a race shows after timing. One result each. `ran`, where given, is
// told of each run (or group of short runs) as it ends.
std::vector<sdk::Measurement> time_checked(const std::vector<Kernel*>& kernels,
                                           const std::vector<std::vector<float>>& expected,
                                           const EvaluateOptions& options, ThreadPool& pool,
                                           const std::function<void()>& ran = {});

// Builds, binds and runs once: the outputs of a config on given inputs.
std::vector<std::vector<float>> run_once(const CpuOp& op, const sdk::Config& config,
                                         const std::vector<const float*>& inputs, ThreadPool& pool);

}  // namespace aoe::cpu
