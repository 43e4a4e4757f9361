#include "row_kernels.h"

#include "op_source.h"

namespace aoe::cuda {
namespace {

// Rows of LEN elements INNER apart: row r starts at (r / INNER) * LEN * INNER + r % INNER.
std::string row_defines(int64_t rows, int64_t len, int64_t inner, int threads) {
  return define("THREADS", threads) + define("ROWS", rows) + define("LEN", len) + define("INNER", inner) +
         define("INDEX", index_type(rows * len));
}

const char* const kRowStart =
    "  __shared__ float red[THREADS];\n"
    "  const INDEX row = blockIdx.x;\n"
    "  const INDEX base = (row / INNER) * LEN * INNER + row % INNER;\n";

OpKernel softmax(const OpNode& n, const GpuLimits& limits) {
  const Dims x = n.in_shape(0);
  const auto rank = static_cast<int64_t>(x.size());
  if (rank == 0) n.invalid("takes an input of rank >= 1");
  const int64_t axis = n.axis_attr("axis", -1, rank);
  const int64_t len = x[static_cast<size_t>(axis)];
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis) (d < axis ? outer : inner) *= x[static_cast<size_t>(d)];
  const int threads = reduction_threads(len, limits);
  OpKernel k;
  k.source = row_defines(outer * inner, len, inner, threads) + define("LOG", n.op() == "LogSoftmax" ? 1 : 0) +
             block_reductions() + op_signature() + kRowStart +
             "  float m = -__int_as_float(0x7f800000);\n"
             "  for (INDEX i = threadIdx.x; i < LEN; i += THREADS) m = fmaxf(m, x0[base + i * INNER]);\n"
             "  m = aoe_block_max(m, red);\n"
             "  float s = 0.0f;\n"
             "  for (INDEX i = threadIdx.x; i < LEN; i += THREADS) s += expf(x0[base + i * INNER] - m);\n"
             "  s = aoe_block_sum(s, red);\n"
             "#if LOG\n"
             "  const float shift = m + logf(s);\n"
             "  for (INDEX i = threadIdx.x; i < LEN; i += THREADS) y[base + i * INNER] = x0[base + i * INNER] - shift;\n"
             "#else\n"
             "  const float scale = 1.0f / s;\n"
             "  for (INDEX i = threadIdx.x; i < LEN; i += THREADS) y[base + i * INNER] = expf(x0[base + i * INNER] - m) * scale;\n"
             "#endif\n"
             "}\n";
  k.launch.grid[0] = static_cast<unsigned>(outer * inner);
  k.launch.block[0] = static_cast<unsigned>(threads);
  k.inputs = {0};
  return k;
}

std::vector<OpKernel> layer_norm(const OpNode& n, const GpuLimits& limits) {
  const Dims x = n.in_shape(0);
  const auto rank = static_cast<int64_t>(x.size());
  if (rank == 0) n.invalid("takes an input of rank >= 1");
  const int64_t axis = n.axis_attr("axis", -1, rank);
  if (n.int_attr("stash_type", 1) != 1) n.unsupported("stash_type other than 1 (float32)");
  int64_t rows = 1, len = 1;
  for (int64_t d = 0; d < rank; ++d) (d < axis ? rows : len) *= x[static_cast<size_t>(d)];
  const int threads = reduction_threads(len, limits);
  std::vector<OpKernel> out;
  for (int output = 0; output < static_cast<int>(std::min<size_t>(n.output_count(), 3)); ++output) {
    if (n.node().outputs[static_cast<size_t>(output)].empty()) continue;
    OpKernel k;
    k.inputs = {0};
    k.output = output;
    std::string affine = define("OUTPUT", output);
    // Scale and B: one per row element, or one for all.
    for (const auto& [input, name] : {std::pair{1, "SCALE"}, std::pair{2, "BIAS"}}) {
      if (!n.has_input(static_cast<size_t>(input)) || output != 0) continue;
      const int64_t count = element_count(n.in_shape(static_cast<size_t>(input)));
      if (count != len && count != 1) n.unsupported(std::string(name) + " of " + to_string(n.in_shape(static_cast<size_t>(input))) + " for rows of " + std::to_string(len));
      affine += define(std::string("HAS_") + name, 1) + define(std::string(name) + "_STEP", count == len ? 1 : 0) +
                define(std::string(name) + "_IN", operand(k, input));
    }
    k.source = row_defines(rows, len, 1, threads) + define("EPSILON", float_literal(n.float_attr("epsilon", 1e-5))) + affine +
               block_reductions() + op_signature() + kRowStart +
               "  float s = 0.0f;\n"
               "  for (INDEX i = threadIdx.x; i < LEN; i += THREADS) s += x0[base + i];\n"
               "  const float mean = aoe_block_sum(s, red) / LEN;\n"
               "  float q = 0.0f;\n"
               "  for (INDEX i = threadIdx.x; i < LEN; i += THREADS) { const float d = x0[base + i] - mean; q += d * d; }\n"
               "  const float rstd = 1.0f / sqrtf(aoe_block_sum(q, red) / LEN + EPSILON);\n"
               "#if OUTPUT == 0\n"
               "  for (INDEX i = threadIdx.x; i < LEN; i += THREADS) {\n"
               "    float v = (x0[base + i] - mean) * rstd;\n"
               "#ifdef HAS_SCALE\n"
               "    v *= SCALE_IN[i * SCALE_STEP];\n"
               "#endif\n"
               "#ifdef HAS_BIAS\n"
               "    v += BIAS_IN[i * BIAS_STEP];\n"
               "#endif\n"
               "    y[base + i] = v;\n"
               "  }\n"
               "#else\n"
               "  if (threadIdx.x == 0) y[row] = OUTPUT == 1 ? mean : rstd;\n"
               "#endif\n"
               "}\n";
    k.launch.grid[0] = static_cast<unsigned>(rows);
    k.launch.block[0] = static_cast<unsigned>(threads);
    out.push_back(k);
  }
  return out;
}

}  // namespace

bool is_row_op(const std::string& op) { return op == "Softmax" || op == "LogSoftmax" || op == "LayerNormalization"; }

std::vector<OpKernel> row_kernels(const OpNode& n, const GpuLimits& limits) {
  if (n.op() == "LayerNormalization") return layer_norm(n, limits);
  return {softmax(n, limits)};
}

}  // namespace aoe::cuda
