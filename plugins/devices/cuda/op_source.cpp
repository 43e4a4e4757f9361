#include "op_source.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace aoe::cuda {

std::string define(const std::string& name, int64_t value) { return "#define " + name + " " + std::to_string(value) + "\n"; }

std::string define(const std::string& name, const std::string& value) { return "#define " + name + " " + value + "\n"; }

std::string float_literal(double value) {
  if (std::isinf(value)) return value > 0 ? "(__int_as_float(0x7f800000))" : "(-__int_as_float(0x7f800000))";
  if (std::isnan(value)) return "(__int_as_float(0x7fc00000))";
  char text[40];
  std::snprintf(text, sizeof text, "%.9g", value);
  std::string s = text;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return "(" + s + "f)";
}

std::string op_signature() {
  std::string s = "extern \"C\" __global__ void __launch_bounds__(THREADS) aoe_op(";
  for (int i = 0; i < kOpKernelInputs; ++i) s += "const float* __restrict__ x" + std::to_string(i) + ", ";
  return s + "float* __restrict__ y) {\n";
}

std::string block_reductions() {
  std::string out;
  for (const auto& [name, combine] : {std::pair{"sum", "a + b"}, std::pair{"max", "fmaxf(a, b)"}, std::pair{"min", "fminf(a, b)"}}) {
    out += std::string("__device__ __forceinline__ float aoe_combine_") + name + "(float a, float b) { return " + combine + "; }\n";
    out += std::string("__device__ __forceinline__ float aoe_block_") + name + "(float v, float* red) {\n" +
           "  red[threadIdx.x] = v;\n"
           "  __syncthreads();\n"
           "  for (int s = THREADS / 2; s > 0; s >>= 1) {\n"
           "    if ((int)threadIdx.x < s) red[threadIdx.x] = aoe_combine_" + name + "(red[threadIdx.x], red[threadIdx.x + s]);\n"
           "    __syncthreads();\n"
           "  }\n"
           "  const float r = red[0];\n"
           "  __syncthreads();  // red is reused by the next reduction\n"
           "  return r;\n"
           "}\n";
  }
  return out;
}

IndexWalk simplified(IndexWalk walk) {
  IndexWalk out;
  out.bases = walk.bases;
  out.strides.resize(walk.strides.size());
  for (size_t d = 0; d < walk.dims.size(); ++d) {
    if (walk.dims[d] == 1) continue;
    bool merge = !out.dims.empty();
    for (size_t k = 0; merge && k < walk.strides.size(); ++k) merge = out.strides[k].back() == walk.strides[k][d] * walk.dims[d];
    if (merge) {
      out.dims.back() *= walk.dims[d];
      for (size_t k = 0; k < walk.strides.size(); ++k) out.strides[k].back() = walk.strides[k][d];
      continue;
    }
    out.dims.push_back(walk.dims[d]);
    for (size_t k = 0; k < walk.strides.size(); ++k) out.strides[k].push_back(walk.strides[k][d]);
  }
  return out;
}

std::string walk_defines(const IndexWalk& walk, const std::string& prefix) {
  std::string out;
  for (size_t d = 0; d < walk.dims.size(); ++d) {
    out += define(prefix + "_DIM_" + std::to_string(d), walk.dims[d]);
    for (size_t k = 0; k < walk.strides.size(); ++k)
      if (walk.strides[k][d] != 0) out += define(prefix + "_S" + std::to_string(k) + "_" + std::to_string(d), walk.strides[k][d]);
  }
  return out;
}

std::string walk_code(const IndexWalk& walk, const std::string& prefix, const std::string& index) {
  std::string out;
  for (size_t k = 0; k < walk.strides.size(); ++k)
    out += "INDEX o" + std::to_string(k) + " = " + std::to_string(k < walk.bases.size() ? walk.bases[k] : 0) + ";\n";
  if (walk.dims.empty() || walk.strides.empty()) return out;
  out += "{\nINDEX rest = " + index + ";\n";
  // Innermost first; the outermost dim takes what is left, undivided.
  for (size_t d = walk.dims.size(); d-- > 0;) {
    const std::string n = std::to_string(d);
    bool read = false;
    for (const auto& s : walk.strides) read = read || s[d] != 0;
    if (!read) {
      // A dim every operand broadcasts along: only skipped over.
      if (d > 0) out += "rest /= " + prefix + "_DIM_" + n + ";\n";
      continue;
    }
    out += d > 0 ? "{ const INDEX c = rest % " + prefix + "_DIM_" + n + "; rest /= " + prefix + "_DIM_" + n + ";"
                 : "{ const INDEX c = rest;";
    for (size_t k = 0; k < walk.strides.size(); ++k)
      if (walk.strides[k][d] != 0) out += " o" + std::to_string(k) + " += c * " + prefix + "_S" + std::to_string(k) + "_" + n + ";";
    out += " }\n";
  }
  return out + "}\n";
}

std::string index_type(int64_t largest) { return largest < (int64_t{1} << 31) - 1 ? "int" : "long long"; }

std::vector<int64_t> broadcast_strides(const Dims& in, const Dims& out, bool& ok) {
  ok = in.size() <= out.size();
  std::vector<int64_t> strides(out.size(), 0);
  if (!ok) return strides;
  const size_t lead = out.size() - in.size();
  const Dims own = strides_of(in);
  for (size_t d = 0; d < in.size(); ++d) {
    if (in[d] == out[lead + d]) strides[lead + d] = in[d] == 1 ? 0 : own[d];
    else if (in[d] != 1) ok = false;
  }
  return strides;
}

LinearKnobs linear_knobs(int64_t total, const GpuLimits& limits) {
  LinearKnobs k;
  const int64_t warp = limits.warp_size;
  k.threads = static_cast<int>(std::min<int64_t>(256, std::max<int64_t>(warp, (total + warp - 1) / warp * warp)));
  k.threads = std::min(k.threads, limits.max_threads_per_block);
  k.items = total >= int64_t{k.threads} * 4 * 2 * limits.multiprocessors ? 4 : 1;
  return k;
}

LaunchGeometry linear_launch(int64_t total, const LinearKnobs& knobs) {
  LaunchGeometry g;
  const int64_t per_block = int64_t{knobs.threads} * knobs.items;
  g.grid[0] = static_cast<unsigned>(std::max<int64_t>(1, (total + per_block - 1) / per_block));
  g.block[0] = static_cast<unsigned>(knobs.threads);
  return g;
}

std::string linear_defines(int64_t total, const LinearKnobs& knobs, int64_t largest_offset) {
  return define("THREADS", knobs.threads) + define("ITEMS", knobs.items) + define("TOTAL", std::to_string(total) + "LL") +
         define("INDEX", index_type(std::max(total, largest_offset) + int64_t{knobs.threads} * knobs.items));
}

std::string linear_open() {
  return op_signature() +
         "  for (int item = 0; item < ITEMS; ++item) {\n"
         "    const INDEX e = ((INDEX)blockIdx.x * ITEMS + item) * THREADS + (INDEX)threadIdx.x;\n"
         "    if (e >= TOTAL) return;\n";
}

std::string linear_close() { return "  }\n}\n"; }

int reduction_threads(int64_t count, const GpuLimits& limits) {
  int t = limits.warp_size;
  while (t < 256 && t < count && t * 2 <= limits.max_threads_per_block) t *= 2;
  return t;
}

std::string operand(OpKernel& kernel, int node_input) {
  for (size_t k = 0; k < kernel.inputs.size(); ++k)
    if (kernel.inputs[k] == node_input) return "x" + std::to_string(k);
  kernel.inputs.push_back(node_input);
  return "x" + std::to_string(kernel.inputs.size() - 1);
}

OpKernel walk_kernel(const IndexWalk& walk, const std::string& defines, const std::string& body, const GpuLimits& limits,
                     const std::optional<LinearKnobs>& given) {
  const int64_t total = element_count(walk.dims);
  int64_t largest = total;
  for (size_t k = 0; k < walk.strides.size(); ++k) {
    int64_t reach = k < walk.bases.size() ? std::abs(walk.bases[k]) : 0;
    for (size_t d = 0; d < walk.dims.size(); ++d) reach += std::abs(walk.strides[k][d]) * walk.dims[d];
    largest = std::max(largest, reach);
  }
  const IndexWalk walk1 = simplified(walk);
  const LinearKnobs knobs = given ? *given : linear_knobs(total, limits);
  OpKernel k;
  k.source = linear_defines(total, knobs, largest) + walk_defines(walk1, "W") + defines + linear_open() +
             walk_code(walk1, "W", "e") + body + linear_close();
  k.launch = linear_launch(total, knobs);
  return k;
}

}  // namespace aoe::cuda
