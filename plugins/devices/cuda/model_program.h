// A model as the cuda device runs it: its nodes lowered to kernels in order
// (MatMul and Gemm with the epilogue OPAT fuses after them through the GEMM
// template, every other node through its op kernel, views as no kernel at
// all), its weights in one buffer and its activations in one arena, placed
// by lifetime so that tensors not live at once share memory.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "aoe/sdk/graph.h"
#include "elementwise_kernel.h"
#include "gemm_problem.h"
#include "gpu_limits.h"
#include "launch_geometry.h"

namespace aoe::cuda {

// Where a kernel argument points: nowhere, into the arena or into the weights, at a byte offset.
struct BufferRef {
  enum class Space { none = 0, arena = 1, weights = 2 };
  Space space = Space::none;
  int64_t offset = 0;
};

struct ProgramKernel {
  std::string name;      // the nodes it runs, joined by '+'
  std::string op_type;   // the anchor's, then the fused ops', joined by '+'
  std::string anchor;    // the first node: the operator bank's key for its config
  std::string source;    // what NVRTC compiles
  std::string function;  // the __global__ function to launch
  LaunchGeometry launch;
  std::vector<BufferRef> args;
  std::optional<std::pair<int64_t, int64_t>> zero;  // arena bytes cleared before it: [offset, bytes]
  nlohmann::json config;                            // knob -> value, for kernels with knobs
  std::string config_source;                        // "bank", "default", or "" without knobs
};

struct ModelProgram {
  std::vector<ProgramKernel> kernels;
  int64_t arena_bytes = 0, weights_bytes = 0;
  // name -> byte offset: each weight a kernel reads, in the weights buffer;
  // each graph input and output, in the arena.
  std::vector<std::pair<std::string, int64_t>> weights, inputs, outputs;
};

// `op_configs`: anchor -> {knob: value}, the bank's tilings (GraphRun::op_configs);
// `scalar`: the values of the model's one-element constants, which the
// kernels of elementwise chains write into their source (joins_chain).
// Throws sdk::Error(unsupported) naming the node for an op no kernel
// computes, or a dim unknown; a bank config the GEMM does not take on this
// GPU is passed over for the default, as config_source says (one banked
// before a knob the space has one value of takes that value).
// `allowed`: the tensor-core products the GEMMs may take (the device options allow_tf32, allow_fp16).
ModelProgram plan_model(const sdk::Graph& graph, const nlohmann::json& op_configs, const GpuLimits& limits, const ScalarOf& scalar = {},
                        const ReducedPrecision& allowed = {});

}  // namespace aoe::cuda
