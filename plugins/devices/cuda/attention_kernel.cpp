#include "attention_kernel.h"

#include <algorithm>
#include <map>

#include "aoe/sdk/error.h"
#include "op_source.h"

namespace aoe::cuda {
namespace {

// Query rows a block takes: as many as share the keys and values it reads,
// while the blocks still fill the GPU twice over and the rows' scores fit.
int64_t rows_per_block(int64_t batch, int64_t sq, int64_t sk, int64_t d, int threads, const GpuLimits& limits) {
  const auto fits = [&](int64_t rows) { return (rows * (sk + d + 1) + threads) * 4 <= limits.max_shared_bytes_per_block; };
  for (int64_t rows : {16, 8, 4, 2})
    if (fits(rows) && batch * ((sq + rows - 1) / rows) >= 2 * int64_t{limits.multiprocessors}) return rows;
  return fits(1) ? 1 : 0;
}

// Statements adding to each `offsets[k]` the batch index `b`'s place, its
// dims split off the last first and stepped by `strides[k]`.
std::string batch_offsets(const Dims& batch, const std::vector<std::string>& offsets, const std::vector<Dims>& strides) {
  std::string code = "  INDEX rest = b;\n";
  for (size_t d = batch.size(); d-- > 0;) {
    code += "  { const INDEX at = rest % " + std::to_string(batch[d]) + "; rest /= " + std::to_string(batch[d]) + ";";
    for (size_t k = 0; k < offsets.size(); ++k)
      if (strides[k][d] != 0) code += " " + offsets[k] + " += at * " + std::to_string(strides[k][d]) + ";";
    code += " }\n";
  }
  return code;
}

}  // namespace

std::optional<AttentionKernel> attention_kernel(const sdk::Graph& graph, const cpu::AttentionPattern& p, const GpuLimits& limits,
                                                const ScalarOf& scalar) {
  const Dims& scores = p.scores;
  const size_t rank = scores.size(), nb = rank - 2;
  const Dims batch(scores.begin(), scores.begin() + static_cast<std::ptrdiff_t>(nb));
  const int64_t sq = scores[nb], sk = scores[nb + 1], d = p.q.shape[nb + 1], dv = p.v.shape[nb + 1];
  int64_t batches = 1;
  for (int64_t b : batch) batches *= b;

  AttentionKernel a;
  a.nodes = p.nodes;
  a.context = p.nodes.at(p.chain.size() + 2);  // scores, chain, Softmax, context, then the Transposes
  a.reads = {p.q.tensor, p.k.tensor, p.v.tensor};
  a.writes = p.out.tensor;

  // The ops on the scores as one expression; each operand no literal
  // gives is read at the scores' place, broadcast as the op reads it.
  const std::string scores_tensor = [&] {
    for (const auto& n : graph.nodes)
      if (n.name == p.nodes.front()) return n.outputs.at(0);
    throw sdk::Error(sdk::StatusCode::internal, "attention: no node " + p.nodes.front());
  }();
  // Each tensor read or written: its offset's name in the source, and its strides per logical dim.
  std::vector<std::string> offsets = {"qb", "kb", "vb", "ob"};
  std::vector<Dims> strides = {p.q.strides, p.k.strides, p.v.strides, p.out.strides};
  std::map<std::string, std::string> loaded;
  std::string loads;
  for (const auto& t : p.operands) {
    if (t.empty() || loaded.count(t)) continue;
    if (is_scalar(graph, t, scalar)) continue;
    bool ok = false;
    strides.push_back(broadcast_strides(graph.tensor(t).shape, scores, ok));
    if (!ok || a.reads.size() == static_cast<size_t>(kOpKernelInputs)) return std::nullopt;
    const std::string name = "v" + std::to_string(loaded.size());
    offsets.push_back("m" + std::to_string(loaded.size()));
    loads += "    const float " + name + " = x" + std::to_string(a.reads.size()) + "[" + offsets.back() + " + (i0 + r) * " +
             std::to_string(strides.back()[nb]) + " + j * " + std::to_string(strides.back()[nb + 1]) + "];\n";
    loaded[t] = name;
    a.reads.push_back(t);
  }
  std::vector<const sdk::Node*> chain;
  for (const auto& n : p.chain) chain.push_back(&n);
  ChainExpression ex;
  try {
    ex = follow_on_expression(graph, scores_tensor, chain, 1, scalar, loaded);
  } catch (const sdk::Error&) {
    return std::nullopt;  // an op on the scores no chain takes: they run one by one
  }

  const int threads = reduction_threads(std::max(sk, dv), limits);
  const int64_t rows = rows_per_block(batches, sq, sk, d, threads, limits);
  if (rows == 0) return std::nullopt;

  // The largest offset any of them reaches, for the INDEX type.
  int64_t largest = batches * sq;
  const std::vector<const Dims*> shapes = {&p.q.shape, &p.k.shape, &p.v.shape, &p.out.shape};
  for (size_t k = 0; k < strides.size(); ++k) {
    const Dims& shape = k < shapes.size() ? *shapes[k] : scores;
    int64_t reach = 1;
    for (size_t i = 0; i < shape.size(); ++i) reach += strides[k][i] * (shape[i] - 1);
    largest = std::max(largest, reach);
  }
  std::string declare = "  INDEX";
  for (size_t k = 0; k < offsets.size(); ++k) declare += std::string(k ? "," : "") + " " + offsets[k] + " = 0";

  OpKernel& k = a.kernel;
  k.source = define("THREADS", threads) + define("ROWS", rows) + define("SQ", sq) + define("SK", sk) + define("D", d) +
             define("DV", dv) + define("INDEX", index_type(largest)) + ex.defines +
             define("Q_I", p.q.strides[nb]) + define("Q_D", p.q.strides[nb + 1]) + define("K_D", p.k.strides[nb]) +
             define("K_J", p.k.strides[nb + 1]) + define("V_J", p.v.strides[nb]) + define("V_C", p.v.strides[nb + 1]) +
             define("O_I", p.out.strides[nb]) + define("O_C", p.out.strides[nb + 1]) + block_reductions() + op_signature() +
             "  __shared__ float red[THREADS];\n"
             "  __shared__ float qs[ROWS * D];\n"
             "  __shared__ float ps[ROWS * SK];\n"
             "  __shared__ float inv[ROWS];\n"
             "  const INDEX blocks = (SQ + ROWS - 1) / ROWS;\n"
             "  const INDEX b = blockIdx.x / blocks, i0 = (blockIdx.x % blocks) * ROWS;\n"
             "  const INDEX rows = SQ - i0 < ROWS ? SQ - i0 : ROWS;\n" +
             declare + ";\n" + batch_offsets(batch, offsets, strides) +
             "  for (INDEX e = threadIdx.x; e < rows * D; e += THREADS) qs[e] = x0[qb + (i0 + e / D) * Q_I + (e % D) * Q_D];\n"
             "  __syncthreads();\n"
             "  for (INDEX e = threadIdx.x; e < rows * SK; e += THREADS) {\n"
             "    const INDEX r = e / SK, j = e % SK;\n"
             "    float s = 0.0f;\n"
             "    for (INDEX c = 0; c < D; ++c) s += qs[r * D + c] * x1[kb + c * K_D + j * K_J];\n" +
             loads + "    ps[e] = " + ex.of("s") + ";\n" +
             "  }\n"
             "  __syncthreads();\n"
             "  for (INDEX r = 0; r < rows; ++r) {\n"
             "    float m = -__int_as_float(0x7f800000);\n"
             "    for (INDEX j = threadIdx.x; j < SK; j += THREADS) m = fmaxf(m, ps[r * SK + j]);\n"
             "    m = aoe_block_max(m, red);\n"
             "    float s = 0.0f;\n"
             "    for (INDEX j = threadIdx.x; j < SK; j += THREADS) { const float e = expf(ps[r * SK + j] - m); ps[r * SK + j] = e; s += e; }\n"
             "    s = aoe_block_sum(s, red);\n"
             "    if (threadIdx.x == 0) inv[r] = 1.0f / s;\n"
             "  }\n"
             "  __syncthreads();\n"
             "  for (INDEX e = threadIdx.x; e < rows * DV; e += THREADS) {\n"
             "    const INDEX r = e / DV, c = e % DV;\n"
             "    float acc = 0.0f;\n"
             "    for (INDEX j = 0; j < SK; ++j) acc += ps[r * SK + j] * x2[vb + j * V_J + c * V_C];\n"
             "    y[ob + (i0 + r) * O_I + c * O_C] = acc * inv[r];\n"
             "  }\n"
             "}\n";
  k.launch.grid[0] = static_cast<unsigned>(batches * ((sq + rows - 1) / rows));
  k.launch.block[0] = static_cast<unsigned>(threads);
  return a;
}

}  // namespace aoe::cuda
