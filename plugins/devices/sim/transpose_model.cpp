#include "transpose_model.h"

#include <algorithm>

#include "aoe/sdk/error.h"
#include "on_chip.h"
#include "vector_model.h"

namespace aoe::sim {
namespace {

using sdk::Error;
using sdk::StatusCode;

// vnchwconv transposes 16 x 16 blocks of 16-bit values.
constexpr int64_t kConvSide = 16;

}  // namespace

TransposeProblem transpose_problem(const sdk::OpTask& task, const Soc& soc) {
  if (task.op_type != "Transpose")
    not_modelled(soc, task.op_type);
  require_unfused(task, soc);
  require_known_inputs(task.inputs, 1, "Transpose");
  const auto& shape = task.inputs[0].shape;
  const auto rank = static_cast<int64_t>(shape.size());
  std::vector<int64_t> reversed;
  for (int64_t i = rank - 1; i >= 0; --i) reversed.push_back(i);
  const auto perm = attr_ints(task.attrs, "perm", reversed);
  std::vector<bool> seen(shape.size(), false);
  if (static_cast<int64_t>(perm.size()) != rank)
    throw Error(StatusCode::invalid_argument, "Transpose perm must list every axis once");
  for (auto a : perm) {
    if (a < 0 || a >= rank || seen[a]) throw Error(StatusCode::invalid_argument, "Transpose perm must list every axis once");
    seen[a] = true;
  }
  TransposeProblem p;
  for (auto d : shape) p.elements *= d;
  const auto on_chip = OnChip::of(task);
  p.in_on_chip = on_chip.input(0);
  p.out_on_chip = on_chip.output(0);
  p.bytes = sdk::dtype_bytes(task.inputs[0].dtype);
  if (p.bytes == 0) throw Error(StatusCode::invalid_argument, "Transpose has an input of undefined dtype");
  // Fuse trailing axes that stay in order at the end: they form the run.
  int64_t kept = 0;
  while (kept < rank && perm[rank - 1 - kept] == rank - 1 - kept) ++kept;
  p.last_axis_moves = kept == 0;
  if (!p.last_axis_moves) {
    int64_t run = 1;
    for (int64_t i = rank - kept; i < rank; ++i) run *= shape[i];
    p.in_last = p.out_last = run;
  } else {
    p.in_last = shape[rank - 1];
    p.out_last = shape[perm[rank - 1]];
  }
  return p;
}

TransposeModel::TransposeModel(const Soc& soc, TransposeProblem problem) : ProblemModel(soc, std::move(problem)) {
  start_space(kKnobCount, kBlockDim);
  space_.knobs[kUbFactor] = ub_factor_knob(soc_, "ub_factor", p_.elements, p_.bytes);
  space_.knobs[kDb] = db_knob();
  space_.knobs[kImpl] = sdk::Knob::categorical("impl", sdk::KnobTag::impl, {"dma", "vnchwconv"});
  space_.default_config = default_config();
  require_default_fits(soc_, "Transpose", check(space_.default_config));
}

// vnchwconv needs the staged tile and its transposed copy.
int64_t TransposeModel::ub_bytes(int64_t ub_factor, bool vnchwconv, bool db) const {
  return align_up64(ub_factor * p_.bytes, kUbAlignBytes) * (vnchwconv ? 2 : 1) * (db ? 2 : 1);
}

// CANN moves kept-last-axis transposes by DMA and others with vnchwconv;
// every core with a 32 KiB share, db on, the biggest tile that fits.
sdk::Config TransposeModel::default_config() const {
  const int64_t blocks = ceil_div64(p_.elements, block_elements(p_.bytes));
  const int64_t cores = std::clamp<int64_t>(p_.elements * p_.bytes / (32 << 10), 1, std::min<int64_t>(soc_.ai_cores, blocks));
  const bool conv = p_.last_axis_moves && p_.bytes <= 2;
  const int64_t slice = ceil_div64(p_.elements, cores);
  const auto& ub = space_.knobs[kUbFactor];
  int64_t factor = largest_fitting(ub, [&](int64_t f) { return ub_bytes(f, conv, true) <= soc_.ub_bytes; });
  while (factor > ub.values.front() && factor / 2 >= slice) factor /= 2;
  return {cores, factor, 1, conv ? kVnchwconv : kDma};
}

sdk::Measurement TransposeModel::check(const sdk::Config& c) const {
  if (!space_.in_domain(c)) return refuse("a value lies outside its knob's domain");
  const bool conv = c[kImpl] == kVnchwconv, db = c[kDb] != 0;
  if (conv && !p_.last_axis_moves) return refuse("vnchwconv is for a transpose that moves the last axis");
  if (conv && p_.bytes > 2) return refuse("vnchwconv transposes 8- and 16-bit values only");
  if (conv && c[kUbFactor] < kConvSide * kConvSide)
    return refuse("vnchwconv needs a ub_factor of at least one 16 x 16 block");
  if (c[kUbFactor] * p_.bytes % kUbAlignBytes != 0)
    return refuse("ub_factor " + std::to_string(c[kUbFactor]) + " breaks UB's 32 B alignment");
  const int64_t need = ub_bytes(c[kUbFactor], conv, db);
  if (need > soc_.ub_bytes)
    return ub_overflow(std::string(conv ? "staged and transposed tiles" : "staged tile") + (db ? ", double-buffered," : ""),
                       need, soc_.ub_bytes);
  const int64_t blocks = ceil_div64(p_.elements, block_elements(p_.bytes));
  if (c[kBlockDim] > blocks) return too_many_cores(c[kBlockDim], blocks, "32 B blocks of output");
  return {};
}

// Reads leave GM in runs of in_last, writes in runs of out_last (or of one
// element when DMA scatters a moved last axis); each run pays whole blocks.
double TransposeModel::time_us(const sdk::Config& c) const {
  const bool conv = c[kImpl] == kVnchwconv;
  const int64_t active = c[kBlockDim];
  const int64_t slice = align_up64(ceil_div64(p_.elements, active), block_elements(p_.bytes));
  const int64_t tiles = ceil_div64(slice, c[kUbFactor]);
  const int64_t tile = ceil_div64(slice, tiles);
  auto moved = [&](int64_t run) {
    const int64_t r = std::max<int64_t>(1, std::min(run, tile));
    const double bursts = static_cast<double>(ceil_div64(tile, r));
    return std::pair{bursts * static_cast<double>(align_up64(r * p_.bytes, kUbAlignBytes)), bursts * kBurstCycles};
  };
  const auto [in_bytes, in_issue] = moved(p_.in_last);
  const auto [out_bytes, out_issue] = moved(p_.last_axis_moves && !conv ? 1 : p_.out_last);
  TileStages s;
  s.in = gm_to_ub_cycles(soc_, in_bytes, active, p_.in_on_chip ? in_bytes : 0) + in_issue;
  s.out = ub_to_gm_cycles(soc_, out_bytes, active, p_.out_on_chip ? out_bytes : 0) + out_issue;
  s.hbm = hbm_share_cycles(soc_, (p_.in_on_chip ? 0 : in_bytes) + (p_.out_on_chip ? 0 : out_bytes), active);
  if (conv) {
    // Both sides pad to 16; the transposed copy is one pass over the padded tile.
    const double pad = static_cast<double>(align_up64(p_.in_last, kConvSide) * align_up64(p_.out_last, kConvSide)) /
                       static_cast<double>(p_.in_last * p_.out_last);
    s.vec = pad * vector_cycles(soc_, VecClass::simple, tile, p_.bytes);
  }
  return kernel_us(soc_, pipeline_cycles(soc_, s, tiles, c[kDb] != 0), roofline_us(), c[kBlockDim]);
}

double TransposeModel::roofline_us() const { return memory_roofline_us(soc_, p_.gm_bytes(), p_.on_chip_bytes()); }

}  // namespace aoe::sim
