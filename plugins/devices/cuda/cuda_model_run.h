// A whole model run on the GPU (`aoe-host run --device cuda`): the model
// planned (model_program.h), every kernel compiled once (from the disk
// cache where it was before), the weights and inputs uploaded, the kernels
// run in order by the GPU worker, untimed then timed, the outputs read
// back and, with check, compared with the cpu device's double-precision
// references of the same nodes on the same inputs and weights.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "aoe/sdk/graph_run.h"
#include "cuda_task.h"

namespace aoe::cuda {

// The run report, as the cpu device's (latency_ms, kernels, memory,
// weights, check) with the compiles. Throws sdk::Error: unsupported naming
// the node for an op no kernel computes; invalid_argument for a missing or
// mis-sized tensor; internal for a kernel that does not compile or a GPU
// worker that fails, with what it said.
nlohmann::json run_model_on_gpu(CudaContext& context, const sdk::GraphRun& run, const std::vector<sdk::TensorView>& inputs,
                                const std::vector<sdk::TensorView>& outputs);

}  // namespace aoe::cuda
