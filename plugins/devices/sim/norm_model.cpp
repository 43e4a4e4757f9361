#include "norm_model.h"

#include <algorithm>
#include <bit>

#include "aoe/sdk/error.h"
#include "cube_fractal.h"
#include "vector_model.h"

namespace aoe::sim {
namespace {

// Live row buffers in UB: input, output and the fp32 work row.
constexpr int64_t kRowBuffers = 3;

}  // namespace

double NormProblem::on_chip_bytes() const {
  const double e = static_cast<double>(rows) * static_cast<double>(row);
  return e * ((in_on_chip ? in_bytes * in_streams : 0) + (out_on_chip ? written_bytes() : 0));
}

void NormProblem::rows_along(const std::vector<int64_t>& shape, int64_t axis) {
  int64_t inner = 1;
  for (int64_t i = 0; i < static_cast<int64_t>(shape.size()); ++i) {
    if (i < axis) rows *= shape[static_cast<size_t>(i)];
    else if (i == axis) row = shape[static_cast<size_t>(i)];
    else inner *= shape[static_cast<size_t>(i)];
  }
  rows *= inner;
  strided = inner > 1;
}

double NormProblem::gm_bytes() const {
  const double e = static_cast<double>(rows) * static_cast<double>(row);
  return e * (in_bytes * in_streams + written_bytes()) + static_cast<double>(resident_elements) * in_bytes +
         static_cast<double>(rows) * row_values * 4;
}

NormModel::NormModel(const Soc& soc, NormProblem problem) : ProblemModel(soc, std::move(problem)) {
  start_space(kKnobCount, kBlockDim);
  const auto top = static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(p_.rows)));
  space_.knobs[kRowsPerTile] = sdk::Knob::power_of_two("rows_per_tile", sdk::KnobTag::schedule, 1, std::min<int64_t>(top, 4096));
  space_.knobs[kDb] = db_knob();
  space_.knobs[kImpl] = sdk::Knob::categorical("impl", sdk::KnobTag::impl, {"one_pass", "split_row"});
  space_.default_config = default_config();
  require_default_fits(soc_, p_.op_type, check(space_.default_config));
}

int64_t NormModel::row_buffers() const { return kRowBuffers + p_.in_streams - 1 + (p_.second_out_bytes > 0 ? 1 : 0); }

int64_t NormModel::ub_bytes(int64_t rows_per_tile, bool db) const {
  const int64_t row = align_up64(p_.row * p_.compute_bytes, kUbAlignBytes);
  return rows_per_tile * row * row_buffers() * (db ? 2 : 1) +
         align_up64(p_.resident_elements * p_.compute_bytes, kUbAlignBytes);
}

int64_t NormModel::split_chunk() const {
  // Chunks of gamma and beta ride along with each row chunk.
  const int64_t buffers = row_buffers() + (p_.resident_elements + p_.row - 1) / p_.row;
  const int64_t budget = soc_.ub_bytes / (buffers * 2 * p_.compute_bytes);
  return std::max<int64_t>(block_elements(p_.compute_bytes), static_cast<int64_t>(std::bit_floor(static_cast<uint64_t>(std::max<int64_t>(budget, 1)))));
}

// After the norm tiling: rows over every core, db on, as many rows per tile
// as fit; the workspace (split) schedule only when one row does not fit.
sdk::Config NormModel::default_config() const {
  const int64_t cores = std::min<int64_t>(soc_.ai_cores, p_.rows);
  const int64_t per_core = ceil_div64(p_.rows, cores);
  const auto& knob = space_.knobs[kRowsPerTile];
  if (ub_bytes(1, true) > soc_.ub_bytes) return {cores, 1, 1, kSplitRow};
  int64_t rows = largest_fitting(knob, [&](int64_t r) { return ub_bytes(r, true) <= soc_.ub_bytes; });
  while (rows > 1 && rows / 2 >= per_core) rows /= 2;
  return {cores, rows, 1, kOnePass};
}

sdk::Measurement NormModel::check(const sdk::Config& c) const {
  if (!space_.in_domain(c)) return refuse("a value lies outside its knob's domain");
  const bool db = c[kDb] != 0;
  if (c[kImpl] == kSplitRow) {
    if (c[kRowsPerTile] != 1) return refuse("split_row streams one row at a time: rows_per_tile must be 1");
    if (split_chunk() >= p_.row) return refuse("split_row needs a row longer than its chunk of " + std::to_string(split_chunk()));
  } else {
    const int64_t need = ub_bytes(c[kRowsPerTile], db);
    if (need > soc_.ub_bytes)
      return ub_overflow(std::to_string(c[kRowsPerTile]) + " row(s) of input, output and fp32 work" +
                             (db ? ", double-buffered," : ""),
                         need, soc_.ub_bytes);
  }
  if (c[kBlockDim] > p_.rows) return too_many_cores(c[kBlockDim], p_.rows, "rows");
  return {};
}

double NormModel::row_vector_cycles(int64_t rows, int64_t row, int simple, int transcendental, int reduces) const {
  const int b = p_.compute_bytes;
  const int64_t n = rows * align_up64(row, block_elements(b));
  double v = simple * vector_cycles(soc_, VecClass::simple, n, b) +
             transcendental * vector_cycles(soc_, VecClass::transcendental, n, b);
  // fp16 rows are cast to fp32 and back.
  if (p_.in_bytes != b) v += vector_cycles(soc_, VecClass::simple, n, b);
  if (p_.out_bytes != 0 && p_.out_bytes != b) v += vector_cycles(soc_, VecClass::simple, n, b);
  v += reduces * (p_.strided ? vector_cycles(soc_, VecClass::simple, n, b) : row_reduce_cycles(soc_, rows, row, b));
  const double lane_groups = static_cast<double>(rows * fractals(row));  // FRACTAL_NZ column blocks per row
  v += p_.lane_broadcasts * lane_groups * (1 + soc_.vector_latency_cycles);
  return v;
}

double NormModel::in_cycles(double elements, int64_t active) const {
  const double b = elements * p_.in_bytes * p_.in_streams;
  return gm_to_ub_cycles(soc_, b, active, p_.in_on_chip ? b : 0) + (p_.in_streams - 1) * soc_.dma_cycles;
}

double NormModel::out_cycles(double elements, int64_t active) const {
  const double b = elements * p_.written_bytes();
  return ub_to_gm_cycles(soc_, b, active, p_.out_on_chip ? b : 0);
}

double NormModel::row_value_cycles(int64_t rows, int64_t active) const {
  double cycles = 0;
  for (int i = 0; i < p_.row_values; ++i) cycles += gm_to_ub_cycles(soc_, static_cast<double>(rows) * 4, active);
  return cycles;
}

double NormModel::hbm_cycles(double elements, int64_t active) const {
  return hbm_share_cycles(soc_, elements * ((p_.in_on_chip ? 0 : p_.in_bytes * p_.in_streams) +
                                            (p_.out_on_chip ? 0 : p_.written_bytes())),
                          active);
}

double NormModel::time_us(const sdk::Config& c) const {
  const int64_t active = c[kBlockDim];
  const int64_t rows = ceil_div64(p_.rows, active);
  const bool db = c[kDb] != 0;
  const double resident = p_.resident_elements > 0 && c[kImpl] == kOnePass
                              ? gm_to_ub_cycles(soc_, static_cast<double>(p_.resident_elements) * p_.in_bytes, active)
                              : 0;
  double cycles = resident;
  if (c[kImpl] == kOnePass) {
    const int64_t per_tile = std::min(rows, c[kRowsPerTile]);
    const double e = static_cast<double>(per_tile * p_.row);
    TileStages s;
    s.in = in_cycles(e, active) + row_value_cycles(per_tile, active);
    s.vec = row_vector_cycles(per_tile, p_.row, p_.simple_passes, p_.transcendental_passes, p_.row_reduces);
    s.out = out_cycles(e, active);
    s.hbm = hbm_cycles(e, active);
    cycles += pipeline_cycles(soc_, s, ceil_div64(rows, per_tile), db);
  } else {
    // Pass one folds statistics chunk by chunk; pass two re-reads and writes.
    const int64_t chunk = split_chunk(), chunks = ceil_div64(p_.row, chunk);
    const double e = static_cast<double>(ceil_div64(p_.row, chunks));
    TileStages stats, result;
    stats.in = result.in = in_cycles(e, active);
    stats.in += row_value_cycles(1, active);
    stats.vec = row_vector_cycles(1, static_cast<int64_t>(e), p_.split_simple_passes, p_.split_transcendental_passes,
                                  p_.row_reduces) +
                row_reduce_cycles(soc_, 1, 1, p_.compute_bytes);
    result.vec = row_vector_cycles(1, static_cast<int64_t>(e), p_.simple_passes, p_.transcendental_passes, 0);
    result.out = out_cycles(e, active);
    if (p_.resident_elements > 0)
      result.in += gm_to_ub_cycles(soc_, e * static_cast<double>(p_.resident_elements / p_.row) * p_.in_bytes, active);
    result.hbm = hbm_cycles(e, active);
    cycles += pipeline_cycles(soc_, stats, rows * chunks, db) + pipeline_cycles(soc_, result, rows * chunks, db);
  }
  return kernel_us(soc_, cycles, roofline_us(), c[kBlockDim]);
}

double NormModel::roofline_us() const {
  const int64_t n = p_.rows * p_.row;
  const double v = (p_.simple_passes + p_.row_reduces) * vector_cycles(soc_, VecClass::simple, n, p_.compute_bytes) +
                   p_.transcendental_passes * vector_cycles(soc_, VecClass::transcendental, n, p_.compute_bytes);
  return vector_roofline_us(soc_, p_.gm_bytes(), v, p_.on_chip_bytes());
}

}  // namespace aoe::sim
