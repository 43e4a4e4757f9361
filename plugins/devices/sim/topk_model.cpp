#include "topk_model.h"

#include <algorithm>

#include "vector_model.h"

namespace aoe::sim {
namespace {

// A proposal: the value and its index in the 8 fp16 slots the sort
// instructions read [H: DaVinci's region proposal layout].
constexpr int kProposalBytes = 16;
constexpr int64_t kSortGroup = 16;  // vrpsort16 orders 16 proposals
constexpr int64_t kMergeWays = 4;   // vmrgsort4 merges 4 lists
// The default gives a core at least this many values of a row that is cut
// into segments [L]: below it the merge on one core costs more than it saves.
constexpr int64_t kMinSegment = 1024;

}  // namespace

TopKProblem topk_problem(const sdk::OpTask& task, const Soc& soc) {
  if (task.op_type != "TopK")
    not_modelled(soc, task.op_type);
  require_unfused(task, soc);
  const auto& in = known_data_input(task).shape;  // K's value is the output's extent
  if (in.empty()) malformed(task, "input is a scalar: it has no axis to search");
  if (task.outputs.empty() || !task.outputs[0].fully_known() || task.outputs[0].shape.size() != in.size())
    malformed(task, "needs its values output's shape, of the input's rank (k is its extent along the axis)");
  const size_t axis = axis_of(task, attr_int(task.attrs, "axis", -1), in.size());
  TopKProblem p;
  p.n = in[axis];
  p.k = task.outputs[0].shape[axis];
  if (p.k < 1 || p.k > p.n)
    malformed(task, "keeps " + std::to_string(p.k) + " of the " + std::to_string(p.n) + " values along axis " +
                        std::to_string(axis));
  p.rows = task.inputs[0].elements() / p.n;
  p.in_bytes = sdk::dtype_bytes(task.inputs[0].dtype);
  p.out_bytes = 0;
  for (const auto& out : task.outputs) p.out_bytes += sdk::dtype_bytes(out.dtype);
  if (p.in_bytes == 0 || p.out_bytes == 0) malformed(task, "has a tensor of undefined dtype");
  for (size_t d = axis + 1; d < in.size(); ++d) p.moved = p.moved || in[d] > 1;
  return p;
}

TopKModel::TopKModel(const Soc& soc, TopKProblem problem) : ProblemModel(soc, std::move(problem)) {
  start_space(kKnobCount, kBlockDim);
  const int64_t cores = soc_.ai_cores;
  space_.default_config = {p_.rows >= cores ? cores : std::min(cores, p_.rows * std::max<int64_t>(1, p_.n / kMinSegment))};
}

sdk::Measurement TopKModel::check(const sdk::Config& c) const {
  if (!space_.in_domain(c)) return refuse("a value lies outside its knob's domain");
  const int64_t most = p_.rows * ceil_div64(p_.n, kSortGroup);
  if (c[kBlockDim] > most) return too_many_cores(c[kBlockDim], most, "segments of 16 values");
  return {};
}

double TopKModel::pass_cycles(int64_t proposals) const {
  return vector_cycles(soc_, VecClass::simple, proposals, kProposalBytes);
}

double TopKModel::merge_cycles(int64_t lists, int64_t length) const {
  double cycles = 0;
  while (lists > 1) {
    const int64_t volume = lists * std::min(length, p_.k);
    cycles += pass_cycles(volume);
    // Lists too long for UB's halves go out to GM and back between merges.
    if (2 * volume * kProposalBytes > soc_.ub_bytes)
      cycles += 2 * static_cast<double>(volume * kProposalBytes) / soc_.ub_to_gm_rate;
    lists = ceil_div64(lists, kMergeWays);
    length *= kMergeWays;
  }
  return cycles;
}

double TopKModel::sort_cycles(int64_t n) const {
  // Values and indices into proposals, then sorted in groups of 16 and merged.
  return 3 * pass_cycles(n) + merge_cycles(ceil_div64(n, kSortGroup), std::min(kSortGroup, n)) +
         2 * pass_cycles(p_.k);  // the kept values and indices out of their proposals
}

double TopKModel::time_us(const sdk::Config& c) const {
  const int64_t active = c[kBlockDim];
  const double in_row = static_cast<double>(p_.n * p_.in_bytes), out_row = static_cast<double>(p_.k * p_.out_bytes);
  double cycles = 0;
  if (p_.rows >= active) {
    const int64_t rows = ceil_div64(p_.rows, active);
    cycles = gm_to_ub_cycles(soc_, static_cast<double>(rows) * in_row, active) +
             static_cast<double>(rows) * sort_cycles(p_.n) +
             ub_to_gm_cycles(soc_, static_cast<double>(rows) * out_row, active);
  } else {
    // Each row cut into segments, each segment's top k written as proposals;
    // then a core per row merges its segments' lists.
    const int64_t segments = active / p_.rows, segment = ceil_div64(p_.n, segments);
    const double list = static_cast<double>(std::min(segment, p_.k) * kProposalBytes);
    cycles = gm_to_ub_cycles(soc_, static_cast<double>(segment * p_.in_bytes), active) + sort_cycles(segment) +
             ub_to_gm_cycles(soc_, list, active);
    if (segments > 1)
      cycles += gm_to_ub_cycles(soc_, static_cast<double>(segments) * list, p_.rows) + merge_cycles(segments, segment) +
                ub_to_gm_cycles(soc_, out_row, p_.rows);
  }
  double us = kernel_us(soc_, cycles, roofline_us(), active);
  // TopKV2 searches the last axis: a transpose kernel before it and one after.
  if (p_.moved)
    us += 2 * soc_.launch_us_for(soc_.ai_cores) +
          memory_roofline_us(soc_, 2 * static_cast<double>(p_.rows) * (in_row + out_row));
  return us;
}

double TopKModel::gm_bytes() const {
  return static_cast<double>(p_.rows) * static_cast<double>(p_.n * p_.in_bytes + p_.k * p_.out_bytes);
}

// Every value read and its top k written; every core building and
// sorting its share in groups of 16, merges aside.
double TopKModel::roofline_us() const {
  return vector_roofline_us(soc_, gm_bytes(),
                            3 * static_cast<double>(p_.rows) * pass_cycles(p_.n));
}

}  // namespace aoe::sim
