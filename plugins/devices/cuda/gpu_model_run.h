// The worker's side of a whole model run: the model's weights and one arena
// for its activations in device memory, its kernels loaded once and run in
// order on a stream; the launches then captured into a CUDA graph,
// launched once per untimed and timed run; the outputs read back after the
// last; each kernel timed between events over one more pass per run.
//   model {arena_bytes, weights_bytes, cubin_bytes: [...], inputs, outputs,
//          kernels: [{cubin, name, grid, block, shared_bytes, args, zero}],
//          warmup, iterations},
//         blob: the cubins, the weights, then the inputs, one after another
//     -> model_result {times_ms: per run, kernel_ms: per kernel, cuda_graph,
//        cuda_graph_refused: why not, where the driver refused}, blob: the outputs
// An input or output is [arena offset, bytes]; a kernel's argument is
// [space, offset]: space 0 passes a null pointer, 1 the arena, 2 the
// weights, offsets in bytes; `zero` is [offset, bytes] of the arena cleared
// before the kernel (a GEMM whose splits add into its output), or null.
#pragma once

#include <functional>

#include "cuda_api.h"
#include "worker_protocol.h"

namespace aoe::cuda {

// Throws CudaFailure (cuda_failure.h) where a call fails, std::runtime_error
// for a request that does not add up. `events` are two the session made.
Frame run_model_kernels(const DriverApi& cu, CUevent start, CUevent end, const Frame& request);

}  // namespace aoe::cuda
