#include "matmul_model.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "aoe/sdk/error.h"
#include "aoe/sdk/tensor_size.h"
#include "cube_fractal.h"
#include "on_chip.h"
#include "op_model.h"
#include "vector_model.h"

namespace aoe::sim {
namespace {

using sdk::DType;
using sdk::Error;
using sdk::StatusCode;

enum KnobIndex : size_t { kBlockDim, kML0, kNL0, kKL0, kKL1, kDbL0, kDbL1, kKnobCount };

// The cube reads fp16 operands.
constexpr int64_t kCubeBytes = 2;

// Upper end of the k_l1 knob, in fractals: 64 keeps 1024 of K in L1.
constexpr int64_t kMaxKL1 = 64;

int64_t domain_top(int64_t fractal_count, int64_t most) {
  return std::min(most, static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(fractal_count))));
}

// Each operand is below kMaxTensorElements (op_model), but their broadcast
// batch and the output it gives may not be.
int64_t product(const std::vector<int64_t>& dims) {
  const auto n = sdk::checked_elements(dims);
  if (!n || *n > kMaxTensorElements)
    throw Error(StatusCode::invalid_argument, "MatMul's batch dims broadcast to an output of more than 2^40 elements");
  return *n;
}

void require_known(const sdk::TensorDesc& t, const std::string& op_type) {
  if (!t.fully_known() || t.shape.empty())
    throw Error(StatusCode::invalid_argument, op_type + " needs inputs of known shape and rank >= 1");
  for (auto d : t.shape)
    if (d == 0) throw Error(StatusCode::invalid_argument, op_type + " has an empty input");
}

// Right-aligned broadcast of the batch dims (all but the last two).
std::vector<int64_t> broadcast_batch(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      throw Error(StatusCode::invalid_argument, "MatMul batch dims " + std::to_string(da) + " and " +
                                                    std::to_string(db) + " do not broadcast");
    out[i] = std::max(da, db);
  }
  return out;
}

// Fills shapes for ONNX MatMul, numpy semantics: rank-1 operands promoted.
void shape_matmul(MatMulProblem& p, const sdk::OpTask& task) {
  auto a = task.inputs[0].shape;
  auto b = task.inputs[1].shape;
  if (a.size() == 1) a.insert(a.begin(), 1);
  if (b.size() == 1) b.push_back(1);
  const int64_t m = a[a.size() - 2], k = a.back(), kb = b[b.size() - 2], n = b.back();
  if (k != kb)
    throw Error(StatusCode::invalid_argument,
                "MatMul inner dims differ: " + std::to_string(k) + " and " + std::to_string(kb));
  const std::vector<int64_t> a_batch(a.begin(), a.end() - 2), b_batch(b.begin(), b.end() - 2);
  const int64_t batch = product(broadcast_batch(a_batch, b_batch));
  product({batch, m, n});  // the output's elements
  const bool b_shared = product(b_batch) == 1;
  p.batch = b_shared ? 1 : batch;
  p.m = b_shared ? batch * m : m;
  p.k = k;
  p.n = n;
  p.matrix_elements = m * n;
  p.a_elements = product(a_batch) * m * k;
  p.b_elements = product(b_batch) * k * n;
}

// Fills shapes for ONNX Gemm.
void shape_gemm(MatMulProblem& p, const sdk::OpTask& task) {
  const auto& a = task.inputs[0].shape;
  const auto& b = task.inputs[1].shape;
  if (a.size() != 2 || b.size() != 2) throw Error(StatusCode::invalid_argument, "Gemm takes 2-D A and B");
  const bool trans_a = attr_int(task.attrs, "transA", 0) != 0;
  const bool trans_b = attr_int(task.attrs, "transB", 0) != 0;
  const int64_t m = trans_a ? a[1] : a[0], k = trans_a ? a[0] : a[1];
  const int64_t kb = trans_b ? b[1] : b[0], n = trans_b ? b[0] : b[1];
  if (k != kb)
    throw Error(StatusCode::invalid_argument,
                "Gemm inner dims differ: " + std::to_string(k) + " and " + std::to_string(kb));
  p.m = m;
  p.k = k;
  p.n = n;
  p.matrix_elements = m * n;
  p.a_elements = m * k;
  p.b_elements = k * n;
}

// A fused group lists the anchor's inputs first (Gemm's C among them), then
// each binary fused op's other operand in order; a binary op the task gives
// no operand for adds a bias row.
Epilogue epilogue_of(const sdk::OpTask& task, const MatMulProblem& p, const Soc& soc) {
  const auto on_chip = OnChip::of(task);
  Epilogue e;
  size_t next_input = 2;
  if (task.op_type == "Gemm") {
    const double alpha = attr_float(task.attrs, "alpha", 1.0), beta = attr_float(task.attrs, "beta", 1.0);
    if (alpha != 1.0) e.simple_passes += 1;
    if (task.inputs.size() > 2) {
      next_input = 3;
      if (beta != 0.0) {
        add_fused_op(e, "Add", &task.inputs[2], soc.target);
        e.addends.back().on_chip = on_chip.input(2);
      }
      if (beta != 0.0 && beta != 1.0) e.simple_passes += 1;
    }
  }
  const sdk::TensorDesc bias_row{"", {p.n}, p.out_dtype, "ND", false};
  add_fused_chain(e, task, next_input, bias_row, on_chip, soc.target);
  return e;
}

}  // namespace

double MatMulProblem::flops() const {
  return 2.0 * static_cast<double>(batch) * static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(n);
}

double MatMulProblem::gm_bytes() const {
  const double out = static_cast<double>(batch) * static_cast<double>(m) * static_cast<double>(n);
  return static_cast<double>(a_elements) * sdk::dtype_bytes(a_dtype) +
         static_cast<double>(b_elements) * sdk::dtype_bytes(b_dtype) / b_expansion + out * sdk::dtype_bytes(out_dtype) +
         epilogue.addend_bytes_total();
}

double MatMulProblem::on_chip_bytes() const {
  const double out = static_cast<double>(batch) * static_cast<double>(m) * static_cast<double>(n);
  return (a_on_chip ? static_cast<double>(a_elements) * sdk::dtype_bytes(a_dtype) : 0) +
         (b_on_chip ? static_cast<double>(b_elements) * sdk::dtype_bytes(b_dtype) / b_expansion : 0) +
         (out_on_chip ? out * sdk::dtype_bytes(out_dtype) : 0) + epilogue.addend_bytes_total(true);
}

MatMulProblem matmul_problem(const sdk::OpTask& task, const Soc& soc) {
  const bool gemm = task.op_type == "Gemm";
  if (task.op_type != "MatMul" && !gemm)
    not_modelled(soc, task.op_type);
  if (task.inputs.size() < 2)
    throw Error(StatusCode::invalid_argument, task.op_type + " takes two inputs, got " +
                                                  std::to_string(task.inputs.size()));
  // The operands need a rank; a fused addend may be a scalar (x / sqrt(d)).
  for (size_t i = 0; i < task.inputs.size(); ++i) {
    const auto& t = task.inputs[i];
    if (i < 2 || !t.fully_known()) require_known(t, task.op_type);
  }

  MatMulProblem p;
  p.a_dtype = task.inputs[0].dtype;
  p.b_dtype = task.inputs[1].dtype;
  require_cube_dtype(p.a_dtype, task.op_type, soc);
  require_cube_dtype(p.b_dtype, task.op_type, soc);
  const bool any_f32 = p.a_dtype == DType::f32 || p.b_dtype == DType::f32;
  p.out_dtype = task.outputs.empty() ? (any_f32 ? DType::f32 : DType::f16) : task.outputs[0].dtype;
  require_cube_dtype(p.out_dtype, task.op_type, soc, true);
  p.a_constant = task.inputs[0].constant;
  p.a_k_outer = task.inputs[0].format == "FRACTAL_NZ";
  p.b_constant = task.inputs[1].constant;
  if (gemm)
    shape_gemm(p, task);
  else
    shape_matmul(p, task);

  p.epilogue = epilogue_of(task, p, soc);
  const auto on_chip = OnChip::of(task);
  p.a_on_chip = on_chip.input(0);
  p.b_on_chip = on_chip.input(1);
  p.out_on_chip = on_chip.output(0);
  return p;
}

MatMulTiling MatMulTiling::from(const sdk::Config& c) {
  return {c[kBlockDim], c[kML0], c[kNL0], c[kKL0], c[kKL1], c[kDbL0] != 0, c[kDbL1] != 0};
}

sdk::Config MatMulTiling::config() const {
  return {block_dim, m_l0, n_l0, k_l0, k_l1, db_l0 ? 1 : 0, db_l1 ? 1 : 0};
}

MatMulModel::MatMulModel(const Soc& soc, MatMulProblem problem) : ProblemModel(soc, std::move(problem)) {
  // Panels read again by later tiles come from L2 when all operands fit there.
  const double cube_operands = (static_cast<double>(p_.a_elements) + static_cast<double>(p_.b_elements) / p_.b_expansion) * kCubeBytes;
  const double out = static_cast<double>(p_.batch * p_.m * p_.n) * sdk::dtype_bytes(p_.out_dtype);
  operands_fit_l2_ = cube_operands + out <= static_cast<double>(soc_.l2_bytes);
  space_ = make_space();
  space_.default_config = default_tiling().config();
}

sdk::TuningSpace MatMulModel::make_space() const {
  using sdk::Knob;
  using sdk::KnobTag;
  sdk::TuningSpace s;
  s.version = "1";
  s.knobs.resize(kKnobCount);
  s.knobs[kBlockDim] = Knob::integer("block_dim", KnobTag::schedule, 1, soc_.ai_cores);
  s.knobs[kML0] = Knob::power_of_two("m_l0", KnobTag::schedule, 1, domain_top(fractals(p_.m), kMaxL0));
  s.knobs[kNL0] = Knob::power_of_two("n_l0", KnobTag::schedule, 1, domain_top(fractals(p_.n), kMaxL0));
  s.knobs[kKL0] = Knob::power_of_two("k_l0", KnobTag::schedule, 1, domain_top(fractals(p_.k), kMaxL0));
  s.knobs[kKL1] = Knob::power_of_two("k_l1", KnobTag::schedule, 1, domain_top(fractals(p_.k), kMaxKL1));
  s.knobs[kDbL0] = Knob::categorical("db_l0", KnobTag::schedule, {"off", "on"});
  s.knobs[kDbL1] = Knob::categorical("db_l1", KnobTag::schedule, {"off", "on"});
  return s;
}

int64_t MatMulModel::tiles(int64_t m_l0, int64_t n_l0) const {
  return p_.batch * ceil_div64(p_.m, m_l0 * kC0) * ceil_div64(p_.n, n_l0 * kC0);
}

// After CANN's cache tiling (GetL0Factors, GetL1Factors): double buffering
// on, the L0 tile that keeps every core busy with the least GM traffic, the
// deepest k_l0 beside it, and k_l1 as deep as L1 holds.
MatMulTiling MatMulModel::default_tiling() const {
  const auto& m_values = space_.knobs[kML0].values;
  const auto& n_values = space_.knobs[kNL0].values;
  const int64_t l0a_slots = soc_.l0a_bytes / 2 / kFractalBytes;
  const int64_t l0b_slots = soc_.l0b_bytes / 2 / kFractalBytes;
  const int64_t l0c_slots = soc_.l0c_bytes / 2 / kAccFractalBytes;
  const int64_t busy = std::min<int64_t>(soc_.ai_cores, tiles(1, 1));

  MatMulTiling best{1, 1, 1, 1, 1, true, true};
  std::tuple<bool, double, int64_t, int64_t> best_key{false, 0, 0, 0};
  bool found = false;
  for (int64_t m : m_values) {
    for (int64_t n : n_values) {
      if (m * n > l0c_slots || m > l0a_slots || n > l0b_slots) continue;
      const int64_t t = tiles(m, n);
      const double tm = static_cast<double>(ceil_div64(p_.m, m * kC0));
      const double tn = static_cast<double>(ceil_div64(p_.n, n * kC0));
      const double load = static_cast<double>(p_.a_elements) * tn + static_cast<double>(p_.b_elements) * tm;
      // Occupancy first, then least load, then the bigger tile, then wider N.
      const std::tuple<bool, double, int64_t, int64_t> key{t >= busy, -load, m * n, n};
      if (!found || key > best_key) {
        best_key = key;
        best.m_l0 = m;
        best.n_l0 = n;
        found = true;
      }
    }
  }
  for (int64_t k : space_.knobs[kKL0].values)
    if (best.m_l0 * k <= l0a_slots && best.n_l0 * k <= l0b_slots) best.k_l0 = k;
  best.k_l1 = best.k_l0;
  const int64_t l1_slots = soc_.l1_bytes / 2 / kFractalBytes;
  for (int64_t k : space_.knobs[kKL1].values)
    if (k % best.k_l0 == 0 && (best.m_l0 + best.n_l0) * k <= l1_slots) best.k_l1 = std::max(best.k_l1, k);
  best.block_dim = std::min<int64_t>(soc_.ai_cores, tiles(best.m_l0, best.n_l0));

  const auto verdict = check(best);
  if (!verdict.ok()) throw Error(StatusCode::internal, "the default MatMul tiling is invalid: " + verdict.message);
  return best;
}

sdk::Measurement MatMulModel::check(const sdk::Config& config) const {
  if (!space_.in_domain(config))
    return sdk::Measurement::failed(sdk::ResultStatus::invalid, "a value lies outside its knob's domain");
  return check(MatMulTiling::from(config));
}

sdk::Measurement MatMulModel::check(const MatMulTiling& t) const {
  auto overflow = [](const char* buffer, int64_t need, int64_t have) {
    return sdk::Measurement::failed(sdk::ResultStatus::invalid, std::string(buffer) + ", needs " +
                                                                    std::to_string(need) + " B, has " +
                                                                    std::to_string(have) + " B");
  };
  if (t.k_l1 % t.k_l0 != 0)
    return sdk::Measurement::failed(sdk::ResultStatus::invalid, "k_l1 (" + std::to_string(t.k_l1) +
                                                                    ") must be a multiple of k_l0 (" +
                                                                    std::to_string(t.k_l0) + ")");
  const int64_t l0_copies = t.db_l0 ? 2 : 1;
  const int64_t l0a = align_up64(t.m_l0 * t.k_l0 * kFractalBytes, soc_.l0_align_bytes) * l0_copies;
  if (l0a > soc_.l0a_bytes) return overflow("L0A", l0a, soc_.l0a_bytes);
  const int64_t l0b = align_up64(t.k_l0 * t.n_l0 * kFractalBytes, soc_.l0_align_bytes) * l0_copies;
  if (l0b > soc_.l0b_bytes) return overflow("L0B", l0b, soc_.l0b_bytes);
  // db_l0 ping-pongs L0C too (CANN's full-db L0 combination), so a tile's
  // write-back overlaps the next tile's mmads.
  const int64_t l0c = t.m_l0 * t.n_l0 * kAccFractalBytes * l0_copies;
  if (l0c > soc_.l0c_bytes) return overflow("L0C", l0c, soc_.l0c_bytes);
  const int64_t l1 = (t.m_l0 + t.n_l0) * t.k_l1 * kFractalBytes * (t.db_l1 ? 2 : 1);
  if (l1 > soc_.l1_bytes) return overflow("L1", l1, soc_.l1_bytes);
  const int64_t tile_count = tiles(t.m_l0, t.n_l0);
  if (t.block_dim > tile_count)
    return sdk::Measurement::failed(sdk::ResultStatus::invalid, "block_dim " + std::to_string(t.block_dim) +
                                                                    " exceeds the " + std::to_string(tile_count) +
                                                                    " output tiles");
  return {};
}

double MatMulModel::time_us(const sdk::Config& config) const { return cost(MatMulTiling::from(config)).total_us; }

double MatMulModel::roofline_us() const {
  return std::max(p_.flops() / soc_.peak_flops_per_us(), memory_roofline_us(soc_, p_.gm_bytes(), p_.on_chip_bytes()));
}

// The A and B panels a round of `active` concurrent tiles needs from HBM.
// CANN gives each core a block of the output, so concurrent tiles form a
// compact patch of the tile grid and fetch each row and column panel once;
// a round's working set (a few k_l1 slices) is far below L2.
double MatMulModel::hbm_bytes_per_round(const MatMulTiling& t, int64_t active, int64_t rounds) const {
  const int64_t mt = t.m_l0 * kC0, nt = t.n_l0 * kC0, kp = fractals(p_.k) * kC0;
  const int64_t tm = ceil_div64(p_.m, mt), tn = ceil_div64(p_.n, nt);
  // A panels (rows) and B panels (cols); an operand kept in L2 costs no HBM.
  double rows_cols = 0;
  const int64_t a_weight = p_.a_on_chip ? 0 : 1, b_weight = p_.b_on_chip ? 0 : 1;
  if (active <= tm * tn) {
    int64_t best = std::numeric_limits<int64_t>::max();
    for (int64_t rows = 1; rows <= std::min(active, tm); ++rows) {
      const int64_t cols = ceil_div64(active, rows);
      if (cols <= tn && rows * mt + cols * nt < best) {
        best = rows * mt + cols * nt;
        rows_cols = static_cast<double>(rows * mt * a_weight) + static_cast<double>(cols * nt * b_weight) / p_.b_expansion;
      }
    }
  } else {
    rows_cols = static_cast<double>(ceil_div64(active, tm * tn)) *
                (static_cast<double>(tm * mt * a_weight) + static_cast<double>(tn * nt * b_weight) / p_.b_expansion);
  }
  const double round_bytes = rows_cols * static_cast<double>(kp * kCubeBytes);
  if (!operands_fit_l2_) return round_bytes;
  // Everything stays in L2 after its first fetch.
  const double all_operands =
      (static_cast<double>(p_.a_elements * a_weight) + static_cast<double>(p_.b_elements * b_weight) / p_.b_expansion) * kCubeBytes;
  return std::min(round_bytes, all_operands / static_cast<double>(rounds));
}

double MatMulModel::write_back_cycles(const MatMulTiling& t, int64_t active) const {
  return p_.epilogue.write_back_cycles(soc_, t.m_l0 * kC0, t.n_l0 * kC0, p_.matrix_elements, p_.out_dtype,
                                       p_.out_on_chip, active);
}

// fp32 operands go through a Cast kernel each (read 4 B, write 2 B per
// element, 64 fp32 lanes per core); a constant operand is cast at compile time.
double MatMulModel::cast_us() const {
  const auto cast = [&](int64_t elements) { return fp16_cast_us(soc_, elements); };
  double us = 0;
  if (p_.a_dtype == DType::f32 && !p_.a_constant) us += cast(p_.a_elements);
  if (p_.b_dtype == DType::f32 && !p_.b_constant) us += cast(p_.b_elements);
  return us;
}

// Each core runs its output tiles in turn. Per tile, K is walked in k_l1
// slices (GM -> L1, MTE2) and within them in k_l0 slices (L1 -> L0, MTE1;
// then one mmad). Double buffering overlaps a stage with the next one
// (max); without it they add. Tail tiles are costed whole: the cube runs
// whole fractals and the busiest core decides.
MatMulCost MatMulModel::cost(const MatMulTiling& t) const {
  MatMulCost c;
  const int64_t mt = t.m_l0 * kC0, nt = t.n_l0 * kC0;
  const int64_t kf = fractals(p_.k), kp = kf * kC0;
  const int64_t k1_steps = ceil_div64(kf, t.k_l1), k0_steps = ceil_div64(kf, t.k_l0);
  c.tiles = tiles(t.m_l0, t.n_l0);
  const int64_t active = std::min(t.block_dim, c.tiles);
  c.rounds = ceil_div64(c.tiles, active);

  const double a_tile = static_cast<double>(mt * kp * kCubeBytes), b_tile = static_cast<double>(kp * nt * kCubeBytes);
  // A core's MTE2 port and the HBM the active cores share both bound GM reads.
  const double hbm_cycles = hbm_bytes_per_round(t, active, c.rounds) / soc_.hbm_bytes_per_cycle();
  // Where A's K runs across FRACTAL_NZ column blocks and one product outgrows
  // L2, a tile's operands come at a core's DDR share, not at L2's rate: so
  // run the profiled chip's forward and data-gradient products (K along A's
  // column blocks), where its weight gradients (K along the rows) run at L2's.
  // A batch of small products (attention's) reads each matrix whole.
  const bool ddr_bound = p_.a_k_outer && p_.batch == 1 && !operands_fit_l2_;
  const double gm_rate = ddr_bound ? soc_.ddr_rate : soc_.gm_to_l1_rate;
  c.gm_to_l1 = std::max((a_tile + b_tile / p_.b_expansion) / gm_rate, hbm_cycles) +
               static_cast<double>(2 * k1_steps) * soc_.dma_cycles;
  c.l1_to_l0 = a_tile / soc_.l1_to_l0a_rate + b_tile / soc_.l1_to_l0b_rate +
               static_cast<double>(2 * k0_steps) * soc_.mte1_cycles;
  c.cube = static_cast<double>(t.m_l0 * t.n_l0 * kf) + static_cast<double>(k0_steps) * soc_.mmad_cycles;
  c.write_back = write_back_cycles(t, active);

  const double inner = t.db_l0 ? std::max(c.l1_to_l0, c.cube) + c.l1_to_l0 / static_cast<double>(k0_steps)
                               : c.l1_to_l0 + c.cube;
  const double compute = t.db_l1 ? std::max(c.gm_to_l1, inner) : c.gm_to_l1 + inner;
  const double fill = t.db_l1 ? c.gm_to_l1 / static_cast<double>(k1_steps) : 0;
  const double r = static_cast<double>(c.rounds);
  c.core_cycles = fill + (t.db_l0 ? (r - 1) * std::max(compute, c.write_back) + compute + c.write_back
                                  : r * (compute + c.write_back));

  c.cast_us = cast_us();
  c.total_us = std::max(c.cast_us + c.core_cycles / soc_.cycles_per_us(), roofline_us()) + soc_.launch_us_for(active);
  return c;
}

}  // namespace aoe::sim
