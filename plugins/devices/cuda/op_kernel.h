// One kernel of a model run on the cuda device: a node of the graph as CUDA
// C++ that NVRTC compiles, with its config as #define lines, and its launch.
//
// Every op kernel has one signature, so a run binds any of them the same way:
//   extern "C" __global__ void aoe_op(const float* __restrict__ x0, ..., const float* __restrict__ x7,
//                                     float* __restrict__ y)
// x0..x7 are the node's inputs the kernel reads (OpKernel::inputs says
// which), in float32; y is its one output. An input the kernel does not
// read is passed as 0. Integers and bools are held as the whole numbers
// they are, as every buffer of a run is float32.
#pragma once

#include <string>
#include <vector>

#include "aoe/sdk/graph.h"
#include "gpu_limits.h"
#include "launch_geometry.h"

namespace aoe::cuda {

inline constexpr int kOpKernelInputs = 8;
inline constexpr const char* kOpKernelName = "aoe_op";

struct OpKernel {
  std::string source;  // the whole source NVRTC compiles; it includes nothing
  LaunchGeometry launch;
  // x0, x1, ... in order: the index into node.inputs of each (at most
  // kOpKernelInputs); a chain's kernel counts its further operands on past
  // them (elementwise_chain_kernel).
  std::vector<int> inputs;
  int output = 0;  // the index into node.outputs of y
};

// The nodes whose output is their first input's bytes under another shape:
// a run gives them no kernel and no buffer of their own. A Dropout that
// gives its mask or may drop in training is none (sdk/dropout_view.h).
bool is_view(const sdk::Node& node);

// The kernels that compute `node` (shapes and attributes from `graph`), in
// launch order: one for most ops, one per output for ops with several,
// none where every output is empty.
// Throws sdk::Error(unsupported) naming the node and the op for what no
// kernel computes.
std::vector<OpKernel> op_kernels(const sdk::Graph& graph, const sdk::Node& node, const GpuLimits& limits);

}  // namespace aoe::cuda
