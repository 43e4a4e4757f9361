// The pieces every op kernel's source is made of: its config and shapes as
// #define lines, the signature all op kernels share, the block reductions,
// and the walk from a linear index to the offsets each operand is read or
// written at. Plain text: nothing here needs CUDA.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpu_limits.h"
#include "launch_geometry.h"
#include "op_kernel.h"
#include "op_node.h"

namespace aoe::cuda {

// "#define NAME value\n".
std::string define(const std::string& name, int64_t value);
std::string define(const std::string& name, const std::string& value);
// A float as CUDA C++ reads it: "0.5f", or the infinity NVRTC has without <math.h>.
std::string float_literal(double value);

// The line every op kernel opens with: `aoe_op` with x0..x7 and y, bounded by THREADS.
std::string op_signature();
// Device functions sum/max/min of one float over a block of THREADS (a
// power of two) threads, through a __shared__ array of THREADS floats the
// kernel declares: aoe_block_sum(v, red) and so on. Every thread gets the result.
std::string block_reductions();

// An iteration space and, for each operand, the stride it steps per dim
// (0 where it broadcasts) and the offset it starts at.
struct IndexWalk {
  Dims dims;
  std::vector<Dims> strides;
  std::vector<int64_t> bases;
};

// Drops dims of extent 1 and merges neighbours every operand steps across as one.
IndexWalk simplified(IndexWalk walk);
// #define lines `<prefix>_DIM_d` and `<prefix>_S<k>_d` (non-zero strides), and
// statements that set `INDEX o<k>` (k = operand) from the `INDEX` named `index`.
std::string walk_defines(const IndexWalk& walk, const std::string& prefix);
std::string walk_code(const IndexWalk& walk, const std::string& prefix, const std::string& index);
// "int" where every offset fits 31 bits, else "long long": the INDEX type.
std::string index_type(int64_t largest);

// The stride of an input of `in` broadcast to `out` along each of out's dims (numpy's rule).
// Empty where `in` does not broadcast to `out`.
std::vector<int64_t> broadcast_strides(const Dims& in, const Dims& out, bool& ok);

// THREADS and ITEMS of a kernel where each thread computes ITEMS of `total`
// elements, THREADS apart: 256 threads (fewer, a whole number of warps, for
// a smaller total), 4 items where that still leaves two blocks for each
// multiprocessor, else 1.
struct LinearKnobs {
  int threads = 256;
  int items = 1;
};
LinearKnobs linear_knobs(int64_t total, const GpuLimits& limits);
LaunchGeometry linear_launch(int64_t total, const LinearKnobs& knobs);
// The #define lines THREADS, ITEMS, TOTAL and INDEX (wide enough for
// `largest_offset`), then, after the kernel's own lines, its opening: the
// signature and a loop giving each item's `const INDEX e` (below TOTAL),
// and its close.
std::string linear_defines(int64_t total, const LinearKnobs& knobs, int64_t largest_offset);
std::string linear_open();
std::string linear_close();

// Threads of a kernel whose block shares one reduction of `count`
// elements: a power of two, at least a warp, at most 256.
int reduction_threads(int64_t count, const GpuLimits& limits);

// The x<k> the kernel reads node input `node_input` as, adding it to `kernel.inputs`.
std::string operand(OpKernel& kernel, int node_input);

// A kernel of one thread item per element of `walk`'s space, in row-major
// order: `defines` ahead of the signature, then for each element e the
// operands' offsets o0, o1... and `body` (which stores y).
// `knobs`: THREADS and ITEMS where a caller tunes them; none: linear_knobs'.
OpKernel walk_kernel(const IndexWalk& walk, const std::string& defines, const std::string& body, const GpuLimits& limits,
                     const std::optional<LinearKnobs>& knobs = std::nullopt);

}  // namespace aoe::cuda
