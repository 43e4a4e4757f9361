#include "reduce_model.h"

#include <algorithm>
#include <set>

#include "aoe/sdk/error.h"
#include "on_chip.h"
#include "vector_model.h"

namespace aoe::sim {
namespace {

using sdk::Error;
using sdk::StatusCode;

}  // namespace

bool is_reduce_op(const std::string& t) {
  return t == "ReduceSum" || t == "ReduceMean" || t == "ReduceMax" || t == "ReduceMin" || t == "ReduceProd" ||
         t == "ReduceSumSquare" || t == "ReduceL1" || t == "ReduceL2" || t == "ReduceLogSum" || t == "ReduceLogSumExp" ||
         t == "GlobalAveragePool" || t == "GlobalMaxPool" || t == "ArgMax" || t == "ArgMin";
}

double ReduceProblem::gm_bytes() const {
  return static_cast<double>(kept()) * static_cast<double>(reduced + 1) * bytes;
}

double ReduceProblem::on_chip_bytes() const {
  const double k = static_cast<double>(kept()) * bytes;
  return (in_on_chip ? k * static_cast<double>(reduced) : 0) + (out_on_chip ? k : 0);
}

// Axes come from the attribute (an axes input's values are made one: it is
// never read, and may be empty); no axes reduces everything,
// GlobalAveragePool every spatial dim. keepdims only renames the output.
ReduceProblem reduce_problem(const sdk::OpTask& task, const Soc& soc) {
  if (!is_reduce_op(task.op_type))
    not_modelled(soc, task.op_type);
  require_unfused(task, soc);
  const auto& shape = known_data_input(task).shape;
  const auto rank = static_cast<int64_t>(shape.size());
  std::vector<int64_t> all(shape.size());
  for (int64_t i = 0; i < rank; ++i) all[i] = i;
  std::vector<int64_t> axes;
  const bool arg = task.op_type == "ArgMax" || task.op_type == "ArgMin";
  const bool global_pool = task.op_type == "GlobalAveragePool" || task.op_type == "GlobalMaxPool";
  if (global_pool) {
    if (rank < 3) throw Error(StatusCode::invalid_argument, task.op_type + " takes N x C x spatial input");
    axes.assign(all.begin() + 2, all.end());
  } else if (arg) {
    axes = {attr_int(task.attrs, "axis", 0)};
  } else {
    axes = attr_ints(task.attrs, "axes", all);
    if (axes.empty() && attr_int(task.attrs, "noop_with_empty_axes", 0) != 0)
      throw Error(StatusCode::unsupported, task.op_type + " of no axes with noop_with_empty_axes passes its input "
                                           "through: no kernel to time");
    if (axes.empty()) axes = all;
  }
  std::set<int64_t> reduced;
  for (auto a : axes) {
    if (a < -rank || a >= rank)
      throw Error(StatusCode::invalid_argument, task.op_type + " axis " + std::to_string(a) + " is out of range");
    reduced.insert(a < 0 ? a + rank : a);
  }
  ReduceProblem p;
  const int64_t last = *reduced.rbegin();
  for (int64_t i = 0; i < rank; ++i) {
    if (reduced.count(i)) p.reduced *= shape[i];
    else if (i < last) p.outer *= shape[i];
    else p.inner *= shape[i];
  }
  p.bytes = sdk::dtype_bytes(task.inputs[0].dtype);
  if (p.bytes == 0) throw Error(StatusCode::invalid_argument, task.op_type + " has an input of undefined dtype");
  // ArgMax and ArgMin keep the index beside the extreme: a compare and a
  // select over each element as well (CANN's ArgMaxV2 on the vector unit).
  p.max = task.op_type == "ReduceMax" || task.op_type == "ReduceMin" || task.op_type == "ReduceProd" ||
          task.op_type == "GlobalMaxPool" || arg;
  const bool map_in = task.op_type == "ReduceSumSquare" || task.op_type == "ReduceL1" || task.op_type == "ReduceL2" ||
                      task.op_type == "ReduceLogSumExp" || arg;
  p.map_passes = map_in ? 1 : 0;
  p.map_out = task.op_type == "ReduceL2" || task.op_type == "ReduceLogSum" || task.op_type == "ReduceLogSumExp";
  p.mean = task.op_type == "ReduceMean" || task.op_type == "GlobalAveragePool";
  // In NC1HWC0 the C0 channels of a position are adjacent: they reduce lane-parallel.
  if (global_pool && !task.outputs.empty() && is_fractal(task.outputs[0]) && rank == 4) {
    p.outer = shape[0] * ((shape[1] + kLayoutC0 - 1) / kLayoutC0);
    p.reduced = shape[2] * shape[3];
    p.inner = kLayoutC0;
  }
  return with_stream_on_chip(task, p);
}

ReduceModel::ReduceModel(const Soc& soc, ReduceProblem problem) : ProblemModel(soc, std::move(problem)) {
  start_space(kKnobCount, kBlockDim);
  // One block more than the cores: a floor split's remainder (floor_share).
  space_.knobs[kBlockDim] = sdk::Knob::integer("block_dim", sdk::KnobTag::schedule, 1, soc_.ai_cores + 1);
  space_.knobs[kSplitAxis] = sdk::Knob::categorical("split_axis", sdk::KnobTag::schedule, {"non_reduce", "reduce"});
  space_.knobs[kUbFactor] = ub_factor_knob(soc_, "ub_factor", p_.kept() * p_.reduced, p_.bytes);
  space_.knobs[kAtomic] = sdk::Knob::categorical("atomic", sdk::KnobTag::impl, {"off", "on"});
  space_.knobs[kDb] = db_knob();
  space_.default_config = default_config();
  require_default_fits(soc_, "this reduce", check(space_.default_config));
}

// A core owns whole 32 B blocks: of output when the kept axes split (so
// no two cores write one block), of each row when the reduced axis does.
int64_t ReduceModel::blocks(bool split_reduced) const {
  const int64_t b = block_elements(p_.bytes);
  if (!split_reduced) return ceil_div64(p_.kept(), b);
  return p_.inner == 1 ? ceil_div64(p_.reduced, b) : p_.reduced;
}

// The 32 B blocks each of the cores takes when a sum of a whole tensor is
// split as CANN's reduce schedule splits it: the floor of an even share, so
// a remainder is left to one block more. 0 when that would not leave
// exactly one such block, or the sum keeps an axis (per-channel sums split
// evenly: BNTrainingUpdateGrad runs 30 blocks on 30 cores).
int64_t ReduceModel::floor_share() const {
  if (p_.kept() != 1) return 0;
  const int64_t units = blocks(true);
  const int64_t share = units / soc_.ai_cores;
  if (share == 0 || units % soc_.ai_cores == 0 || units - share * soc_.ai_cores > share) return 0;
  return share;
}

// After reduce_tiling_v3: atomic mode when the output is small and the
// reduced axis long, else cores split the kept axes; db on; the biggest
// UB tile that fits.
sdk::Config ReduceModel::default_config() const {
  const int64_t b = block_elements(p_.bytes);
  const bool atomic = !p_.max && p_.kept() <= soc_.ub_bytes / p_.bytes && p_.kept() * p_.reduced > kMinVectorElementsPerCore &&
                      (p_.split_reduced || (p_.kept() < soc_.ai_cores * b / 2 && p_.reduced > soc_.ai_cores / 2));
  // Cores that share the reduced axis each take at least a minimum of it;
  // cores that split the kept axes take whole outer rows where there are
  // several, else whole blocks of the inner axis: a core's share rounded up,
  // then as many cores as those shares need (48 rows on 30 cores: 24 of 2).
  int64_t cores = 0;
  if (atomic) {
    cores = std::min<int64_t>({soc_.ai_cores, blocks(true), ceil_div64(p_.kept() * p_.reduced, kMinVectorElementsPerCore)});
    // Every core busy: each takes the floor of an even share and one block
    // more takes what is left [M: every SquareSumV1/V2 of BERT's profile on
    // more than 30 x 256 elements runs 31 blocks on 30 cores; 21128 on 31].
    if (cores == soc_.ai_cores && floor_share() > 0) cores = soc_.ai_cores + 1;
  } else {
    const int64_t units = p_.outer > 1 ? p_.outer : ceil_div64(p_.inner, b);
    cores = std::min(ceil_div64(units, ceil_div64(units, soc_.ai_cores)), blocks(false));
  }
  const auto& ub = space_.knobs[kUbFactor];
  sdk::Config c{atomic ? kSplitReduced : kSplitKept, cores, ub.values.front(), atomic ? 1 : 0, 1};
  c[kUbFactor] = largest_fitting(ub, [&](int64_t f) {
    auto t = c;
    t[kUbFactor] = f;
    return check(t).ok();
  });
  return c;
}

sdk::Measurement ReduceModel::check(const sdk::Config& c) const {
  if (!space_.in_domain(c)) return refuse("a value lies outside its knob's domain");
  const bool split_reduced = c[kSplitAxis] == kSplitReduced, atomic = c[kAtomic] != 0, db = c[kDb] != 0;
  if (atomic && !split_reduced) return refuse("atomic needs split_axis=reduce: only then do cores share outputs");
  if (atomic && p_.max) return refuse("atomic add cannot combine max, min or product partials");
  if (c[kUbFactor] * p_.bytes % kUbAlignBytes != 0)
    return refuse("ub_factor " + std::to_string(c[kUbFactor]) + " breaks UB's 32 B alignment");
  // An input tile and the partial results it folds into, each twice with db.
  const int64_t copies = db ? 2 : 1;
  const int64_t out_elems = p_.inner == 1 ? std::max<int64_t>(1, c[kUbFactor] / align_up64(p_.reduced, block_elements(p_.bytes)))
                                          : std::min(c[kUbFactor], align_up64(p_.inner, block_elements(p_.bytes)));
  const int64_t need = copies * (align_up64(c[kUbFactor] * p_.bytes, kUbAlignBytes) +
                                 align_up64(out_elems * p_.bytes, kUbAlignBytes));
  if (need > soc_.ub_bytes) return ub_overflow(std::string(db ? "double-buffered " : "") + "input tile and partials", need, soc_.ub_bytes);
  const int64_t n = blocks(split_reduced);
  if (c[kBlockDim] > soc_.ai_cores && (!split_reduced || floor_share() == 0))
    return refuse("block_dim " + std::to_string(c[kBlockDim]) + " exceeds the " + std::to_string(soc_.ai_cores) +
                  " cores; only a split of the reduced axis that leaves a remainder launches one block more");
  if (c[kBlockDim] > n)
    return too_many_cores(c[kBlockDim], n, split_reduced ? "slices of the reduced axis" : "32 B blocks of output");
  return {};
}

double ReduceModel::read_cycles(double bytes, int64_t active) const {
  return gm_to_ub_cycles(soc_, bytes, active, p_.in_on_chip ? bytes : 0);
}

double ReduceModel::write_cycles(double bytes, int64_t active) const {
  return ub_to_gm_cycles(soc_, bytes, active, p_.out_on_chip ? bytes : 0);
}

double ReduceModel::map_cycles(int64_t elements) const {
  return p_.map_passes * vector_cycles(soc_, VecClass::simple, elements, p_.vector_bytes());
}

double ReduceModel::core_cycles(int64_t kept, int64_t reduced, int64_t ub_factor, bool db, int64_t active) const {
  const int b = p_.bytes, vb = p_.vector_bytes();
  const int64_t blk = block_elements(b);
  TileStages s;
  int64_t tiles = 0;
  if (p_.inner == 1) {
    // Rows are contiguous: whole rows per tile when they fit, else a row in chunks.
    const int64_t row = align_up64(reduced, blk);
    if (row <= ub_factor) {
      const int64_t rows = std::min(kept, ub_factor / row);
      tiles = ceil_div64(kept, rows);
      s.in = read_cycles(static_cast<double>(rows * reduced * b), active);
      s.vec = row_reduce_cycles(soc_, rows, row, vb) + map_cycles(rows * row);
      s.out = write_cycles(static_cast<double>(rows * b), active);
    } else {
      const int64_t chunks = ceil_div64(row, ub_factor);
      tiles = kept * chunks;
      s.in = read_cycles(static_cast<double>(ceil_div64(reduced, chunks) * b), active);
      s.vec = vector_cycles(soc_, VecClass::simple, ub_factor, vb) + row_reduce_cycles(soc_, 1, 1, vb) / chunks +
              map_cycles(ub_factor);
      s.out = write_cycles(static_cast<double>(b), active) / chunks;
    }
  } else {
    // Kept inner columns stay in lanes: rows of the reduced axis add up lane-parallel.
    const int64_t cols = std::min(align_up64(p_.inner, blk), ub_factor);
    const int64_t col_tiles = ceil_div64(kept, std::min(kept, cols));
    const int64_t rows = std::min(reduced, std::max<int64_t>(1, ub_factor / cols));
    const int64_t row_tiles = ceil_div64(reduced, rows);
    tiles = col_tiles * row_tiles;
    const int64_t used = std::min(kept, cols);
    s.in = read_cycles(static_cast<double>(rows * used * b), active);
    s.vec = vector_cycles(soc_, VecClass::simple, rows * cols, vb) + map_cycles(rows * cols);
    s.out = write_cycles(static_cast<double>(used * b), active) / row_tiles;
  }
  if (p_.mean) s.vec += vector_cycles(soc_, VecClass::simple, blk, b) / 4;
  if (p_.map_out) s.vec += vector_cycles(soc_, VecClass::simple, blk, b) / 4;
  return pipeline_cycles(soc_, s, tiles, db);
}

double ReduceModel::time_us(const sdk::Config& c) const {
  const bool split_reduced = c[kSplitAxis] == kSplitReduced, db = c[kDb] != 0;
  const int64_t bd = c[kBlockDim];
  if (!split_reduced) {
    const int64_t blk = block_elements(p_.bytes);
    const int64_t kept = std::min(p_.kept(), align_up64(ceil_div64(p_.kept(), bd), blk));
    return kernel_us(soc_, core_cycles(kept, p_.reduced, c[kUbFactor], db, bd), roofline_us(), bd);
  }
  const int64_t step = p_.inner == 1 ? block_elements(p_.bytes) : 1;
  double cycles = 0;
  if (bd > soc_.ai_cores) {
    // A floor split: a core runs its share, and one core the remainder after it.
    const int64_t share = floor_share() * block_elements(p_.bytes);
    cycles = core_cycles(p_.kept(), share, c[kUbFactor], db, soc_.ai_cores) +
             core_cycles(p_.kept(), p_.reduced - share * soc_.ai_cores, c[kUbFactor], db, soc_.ai_cores);
  } else {
    const int64_t reduced = std::min(p_.reduced, align_up64(ceil_div64(p_.reduced, bd), step));
    cycles = core_cycles(p_.kept(), reduced, c[kUbFactor], db, bd);
  }
  const double partials = static_cast<double>(p_.kept() * p_.bytes);
  double us_after = 0;
  if (c[kAtomic] != 0) {
    // Zero the output first; atomic adds to the same lines serialise in L2.
    cycles += write_cycles(partials, 1) +
              static_cast<double>(bd) * partials / (p_.out_on_chip ? soc_.ub_to_l2_rate : soc_.ub_to_gm_rate);
  } else {
    // Partials go to a workspace; a second kernel folds them.
    cycles += ub_to_gm_cycles(soc_, partials, bd);
    const double folded = partials * static_cast<double>(bd);
    us_after = soc_.launch_us_for(1) + (gm_to_ub_cycles(soc_, folded, 1) +
                                 vector_cycles(soc_, VecClass::simple, p_.kept() * bd, p_.bytes)) /
                                    soc_.cycles_per_us();
  }
  return kernel_us(soc_, cycles, roofline_us(), bd) + us_after;
}

double ReduceModel::roofline_us() const {
  return vector_roofline_us(soc_, p_.gm_bytes(),
                            vector_cycles(soc_, VecClass::simple, p_.kept() * p_.reduced, p_.vector_bytes()) +
                                map_cycles(p_.kept() * p_.reduced),
                            p_.on_chip_bytes());
}

}  // namespace aoe::sim
