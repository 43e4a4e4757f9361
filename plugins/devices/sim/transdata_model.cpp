#include "transdata_model.h"

#include <algorithm>

#include "aoe/sdk/error.h"
#include "on_chip.h"
#include "vector_model.h"

namespace aoe::sim {
namespace {

// Below this much work per core, a vector kernel uses fewer cores (as elewise).
constexpr int64_t kMinBytesPerCore = 32 << 10;
// Re-packing C0 channels is two vnchwconv passes over the tile (in and out
// of the 16 x 16 block transpose) [L].
constexpr int kRepackPasses = 2;

}  // namespace

double TransDataProblem::gm_bytes() const { return static_cast<double>(in_elements + out_elements) * bytes; }

double TransDataProblem::on_chip_bytes() const {
  return static_cast<double>((in_on_chip ? in_elements : 0) + (out_on_chip ? out_elements : 0)) * bytes;
}

TransDataProblem transdata_problem(const sdk::OpTask& task, const Soc& soc) {
  if (task.op_type != "TransData")
    not_modelled(soc, task.op_type);
  require_known_inputs(task.inputs, 1, "TransData");
  if (task.outputs.size() != 1 || task.outputs[0].shape != task.inputs[0].shape)
    throw sdk::Error(sdk::StatusCode::invalid_argument, "TransData takes one output of its input's shape");
  TransDataProblem p;
  p.in_elements = stored_elements(task.inputs[0]);
  p.out_elements = stored_elements(task.outputs[0]);
  p.bytes = sdk::dtype_bytes(task.inputs[0].dtype);
  if (p.bytes == 0) throw sdk::Error(sdk::StatusCode::invalid_argument, "TransData has an input of undefined dtype");
  return with_stream_on_chip(task, p);
}

TransDataModel::TransDataModel(const Soc& soc, TransDataProblem problem) : ProblemModel(soc, std::move(problem)) {
  start_space(kKnobCount, kBlockDim);
  const int64_t total = std::max(p_.in_elements, p_.out_elements) * p_.bytes;
  space_.default_config = {std::clamp<int64_t>(total / kMinBytesPerCore, 1, soc_.ai_cores)};
}

sdk::Measurement TransDataModel::check(const sdk::Config& c) const {
  if (!space_.in_domain(c)) return refuse("a value lies outside its knob's domain");
  const int64_t blocks = ceil_div64(std::max(p_.in_elements, p_.out_elements), block_elements(p_.bytes));
  if (c[kBlockDim] > blocks) return too_many_cores(c[kBlockDim], blocks, "32 B blocks of output");
  return {};
}

// Double-buffered tiles of a quarter of UB each side.
double TransDataModel::time_us(const sdk::Config& c) const {
  const int64_t active = c[kBlockDim];
  const int64_t elements = std::max(p_.in_elements, p_.out_elements);
  const int64_t slice = align_up64(ceil_div64(elements, active), block_elements(p_.bytes));
  const int64_t tile_cap = std::max<int64_t>(block_elements(p_.bytes), soc_.ub_bytes / 4 / p_.bytes);
  const int64_t tiles = ceil_div64(slice, tile_cap);
  const int64_t tile = ceil_div64(slice, tiles);
  const double in = static_cast<double>(tile) * p_.bytes * static_cast<double>(p_.in_elements) / static_cast<double>(elements);
  const double out = static_cast<double>(tile) * p_.bytes * static_cast<double>(p_.out_elements) / static_cast<double>(elements);
  TileStages s;
  s.in = gm_to_ub_cycles(soc_, in, active, p_.in_on_chip ? in : 0);
  s.vec = kRepackPasses * vector_cycles(soc_, VecClass::simple, tile, p_.bytes);
  s.out = ub_to_gm_cycles(soc_, out, active, p_.out_on_chip ? out : 0);
  s.hbm = hbm_share_cycles(soc_, (p_.in_on_chip ? 0 : in) + (p_.out_on_chip ? 0 : out), active);
  return kernel_us(soc_, pipeline_cycles(soc_, s, tiles, true), roofline_us(), c[kBlockDim]);
}

double TransDataModel::roofline_us() const {
  return vector_roofline_us(soc_, p_.gm_bytes(),
                            kRepackPasses * vector_cycles(soc_, VecClass::simple, std::max(p_.in_elements, p_.out_elements), p_.bytes),
                            p_.on_chip_bytes());
}

}  // namespace aoe::sim
