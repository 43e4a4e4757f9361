#include "reduce_kernel.h"

#include <map>

#include "op_source.h"

namespace aoe::cuda {
namespace {

struct Reduction {
  const char* combine;  // sum, max or min
  const char* element;  // of v, the value read
  const char* result;   // of r, the combined value, and COUNT
};

const std::map<std::string, Reduction>& reductions() {
  static const std::map<std::string, Reduction> ops = {
      {"ReduceSum", {"sum", "v", "r"}},
      {"ReduceMean", {"sum", "v", "r / COUNT"}},
      {"ReduceMax", {"max", "v", "r"}},
      {"ReduceMin", {"min", "v", "r"}},
      {"ReduceSumSquare", {"sum", "v * v", "r"}},
      {"ReduceL1", {"sum", "fabsf(v)", "r"}},
      {"ReduceL2", {"sum", "v * v", "sqrtf(r)"}},
      {"GlobalAveragePool", {"sum", "v", "r / COUNT"}},
      {"GlobalMaxPool", {"max", "v", "r"}},
  };
  return ops;
}

std::vector<bool> reduced_axes(const OpNode& n, size_t rank) {
  std::vector<bool> reduced(rank, false);
  if (n.op().rfind("Global", 0) == 0) {
    if (rank < 2) n.invalid("takes an input of rank >= 2");
    for (size_t d = 2; d < rank; ++d) reduced[d] = true;
    return reduced;
  }
  if (n.has_input(1) && !n.has_attr("axes")) n.unsupported("axes must be a constant (they are computed at run time here)");
  const auto axes = n.ints_attr("axes");
  if (axes.empty()) {
    // No axes: all of them, or none with noop_with_empty_axes.
    if (n.int_attr("noop_with_empty_axes", 0) == 0) reduced.assign(rank, true);
    return reduced;
  }
  for (auto a : axes) {
    if (a < -static_cast<int64_t>(rank) || a >= static_cast<int64_t>(rank)) n.invalid("axis " + std::to_string(a) + " is out of range for rank " + std::to_string(rank));
    reduced[static_cast<size_t>(a < 0 ? a + static_cast<int64_t>(rank) : a)] = true;
  }
  return reduced;
}

}  // namespace

bool is_reduce_op(const std::string& op) { return reductions().count(op) > 0; }

std::vector<OpKernel> reduce_kernels(const OpNode& n, const GpuLimits& limits) {
  const Reduction& r = reductions().at(n.op());
  const Dims x = n.in_shape(0);
  const std::vector<bool> reduced = reduced_axes(n, x.size());
  const Dims strides = strides_of(x);
  // Kept dims walk to the output element's first input; reduced dims walk within it.
  IndexWalk kept{{}, {{}}, {0}}, within{{}, {{}}, {0}};
  for (size_t d = 0; d < x.size(); ++d) {
    IndexWalk& w = reduced[d] ? within : kept;
    w.dims.push_back(x[d]);
    w.strides[0].push_back(strides[d]);
  }
  const int64_t outputs = element_count(kept.dims), count = element_count(within.dims);
  if (outputs != element_count(n.out_shape(0))) n.invalid("output of " + to_string(n.out_shape(0)) + " for " + std::to_string(outputs) + " reductions");
  const int threads = reduction_threads(count, limits);
  const IndexWalk kept1 = simplified(kept), within1 = simplified(within);
  const char* init = std::string(r.combine) == "sum" ? "0.0f" : std::string(r.combine) == "max" ? "-__int_as_float(0x7f800000)" : "__int_as_float(0x7f800000)";
  OpKernel k;
  k.inputs = {0};
  k.source = define("THREADS", threads) + define("COUNT", std::to_string(count) + ".0f") + define("INDEX", index_type(element_count(x))) +
             walk_defines(kept1, "K") + walk_defines(within1, "R") + block_reductions() + op_signature() +
             "  __shared__ float red[THREADS];\n"
             "  const INDEX out = blockIdx.x;\n" +
             walk_code(kept1, "K", "out") + "  const INDEX base = o0;\n  float r = " + init + ";\n" +
             "  for (INDEX i = threadIdx.x; i < " + std::to_string(count) + "; i += THREADS) {\n" + walk_code(within1, "R", "i") +
             "    const float v = x0[base + o0];\n"
             "    r = aoe_combine_" + r.combine + "(r, " + r.element + ");\n"
             "  }\n"
             "  r = aoe_block_" + r.combine + "(r, red);\n"
             "  if (threadIdx.x == 0) y[out] = " + r.result + ";\n"
             "}\n";
  k.launch.grid[0] = static_cast<unsigned>(outputs);
  k.launch.block[0] = static_cast<unsigned>(threads);
  return {k};
}

}  // namespace aoe::cuda
