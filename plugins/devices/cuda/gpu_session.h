// The GPU worker's side: one CUDA context on one GPU, the current task's
// arguments in device memory, and each candidate loaded, checked and timed
// there. Every request and reply is a Frame (worker_protocol.h):
//   open       {driver, nvrtc, nvml, device_id}         -> opened {the GPU's properties} | error
//   arguments  {arguments: [{name, kind, bytes, output, dtype}]}, blob: their
//              initial bytes one after another       -> ok | error
//   reference  {}, blob: the outputs' expected bytes -> ok
//   run        {kernel, grid, block, shared_bytes, timing..., check,
//               keep_as_reference, zero_outputs, flush_l2, rtol, atol}, blob: the cubin
//                                                    -> result {status, message, times_ms, ...},
//              blob: the outputs when keep_as_reference
//   model      a whole model's kernels (gpu_model_run.h) -> model_result | error
// A CUDA error that loses the context ends the worker after its reply: the
// device starts a fresh one.
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

#include "worker_protocol.h"

namespace aoe::cuda {

class GpuSession {
 public:
  GpuSession();
  ~GpuSession();
  // The reply to `request`; sets `lost` when the context cannot serve another.
  Frame serve(const Frame& request, bool& lost);

  struct State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace aoe::cuda
