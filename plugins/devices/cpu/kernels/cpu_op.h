// An op the cpu device can run: its tuning space, what each config needs,
// the kernel a config builds, and the plain reference it is checked against.
// Kernels take buffers, so the device, the tests and the ONNX conformance
// test all run them on whatever data they have.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "aoe/sdk/op_task.h"
#include "aoe/sdk/tuning_space.h"
#include "host_cpu.h"
#include "shape.h"
#include "thread_pool.h"

namespace aoe::cpu {

// Memory a kernel touches: what a cold-cache run flushes first.
using Footprint = std::vector<std::pair<const void*, size_t>>;
// The bytes a footprint covers, each once: kernels share their inputs, and
// an arena's buffers overlap.
int64_t footprint_bytes(Footprint f);

// One config of an op, ready to run.
class Kernel {
 public:
  virtual ~Kernel() = default;
  // Takes the op's inputs as the task lists them: in the model's layout
  // (row-major), or blocked where CpuOp::input_blocking() says so. Reorders
  // or packs what the config keeps in its own layout; not timed: it stands
  // for what a runtime does once per model. Blocked inputs, and all inputs
  // of kernels without a layout choice, are read where they lie at run().
  virtual void bind(const std::vector<const float*>& inputs) = 0;
  // The timed part.
  virtual void run(ThreadPool& pool) = 0;
  // Output `index` in the model's layout.
  virtual void read_output(size_t index, float* out) const = 0;
  // For the fault option that perturbs a result: the first output as the kernel keeps it.
  virtual float* output_data() = 0;
  // Output `index` where the kernel leaves it after run(): blocked where
  // CpuOp::output_blocking() says so, else in the model's layout (a
  // blocked config's own output when the task does not say). The next
  // kernel of a subgraph reads it there.
  virtual const float* kept_output(size_t index) const = 0;
  virtual Footprint footprint() const = 0;
  // Floats of output `index` as kept when the kernel may write it into
  // memory its caller places (place_output), else 0: a kernel that relies
  // on what it left in its own buffer keeps it. A model run shares one
  // arena among the placed outputs whose lifetimes do not meet.
  virtual int64_t placeable_elements(size_t) const { return 0; }
  // Before bind(): output `index` is written at `at` (placeable_elements of
  // it, 64-byte aligned), its own buffer freed; nullptr frees it until placed.
  virtual void place_output(size_t, float*) {}
  // Whether run() reads input `index` where bind() found it; false when
  // bind() took its own copy (packed, reordered), so a lender may free it.
  virtual bool reads_at_run(size_t) const { return true; }
};

// The values random test inputs are drawn from: whole numbers only where
// the input is an integer tensor; exactly `values`, where given, for an
// input whose values the task's shapes fix (Resize's scales, TopK's K).
struct ValueRange {
  float lo = -1, hi = 1;
  bool whole = false;
  std::vector<float> values;
};

// `count` values of `range`: drawn from `rng`, or its fixed values.
std::vector<float> draw_values(const ValueRange& range, size_t count, std::mt19937_64& rng);

class CpuOp {
 public:
  virtual ~CpuOp() = default;

  const sdk::TuningSpace& space() const { return space_; }
  const std::vector<Shape>& input_shapes() const { return inputs_; }
  const std::vector<Shape>& output_shapes() const { return outputs_; }
  virtual ValueRange input_range(size_t) const { return {}; }
  // Lanes of the blocked layout input `i` arrives in (the task marks it
  // "NCHWc"), 0 for the model's layout; likewise the outputs it leaves in
  // (one layout for all: a Split's parts).
  int input_blocking(size_t i) const { return i < input_blocking_.size() ? input_blocking_[i] : 0; }
  int output_blocking() const { return output_blocking_; }
  // Whether `config`, a blocked one, reads its first input in the model's
  // layout as it is, when it arrives so: the planner then leaves it unconverted.
  virtual bool reads_nchw_input(const sdk::Config&) const { return false; }

  // Empty when `config` can run, else why not. Assumes the config is in the space's domain.
  virtual std::string check(const sdk::Config& config) const = 0;
  // For a config check() accepts.
  virtual std::unique_ptr<Kernel> build(const sdk::Config& config) const = 0;
  // Straightforward loops in double precision, written from the ONNX
  // definitions and sharing no code with the kernels.
  virtual void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const = 0;

 protected:
  sdk::TuningSpace space_;
  std::vector<Shape> inputs_, outputs_;
  std::vector<int> input_blocking_;  // ops with a layout choice only
  int output_blocking_ = 0;
};

// The input buffers a kernel of `op` reads, each as large as its shape; a
// constant the op took as values (Slice's bounds) has none (null).
void add_input_buffers(Footprint& f, const std::vector<const float*>& inputs, const CpuOp& op);

// The op of a task. Throws sdk::Error(unsupported) for what the kernels
// cannot run, sdk::Error(invalid_argument) for a malformed task.
std::unique_ptr<CpuOp> make_op(const sdk::OpTask& task, const HostCpu& host);
// Op types make_op() takes as anchors, and those it fuses after them.
std::vector<std::string> supported_op_types();
std::vector<std::string> fusable_op_types();

}  // namespace aoe::cpu
