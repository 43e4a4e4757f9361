#include "vector_model.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "aoe/sdk/error.h"
#include "epilogue.h"

namespace aoe::sim {

using sdk::Error;
using sdk::StatusCode;

// A cross-lane reduce (vcadd/vcmax) waits ~20-23 cycles on its tree [M].
constexpr double kRowReduceLatency = 22;

int64_t ceil_div64(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t align_up64(int64_t a, int64_t b) { return ceil_div64(a, b) * b; }
int64_t block_elements(int bytes) { return std::max<int64_t>(1, kUbAlignBytes / bytes); }

int64_t ub_capacity(const Soc& soc, bool db) { return soc.ub_bytes / (db ? 2 : 1); }

double vector_cycles(const Soc& soc, VecClass op, int64_t elements, int bytes) {
  if (elements <= 0) return 0;
  const double repeats = std::ceil(static_cast<double>(elements) * bytes / soc.vector_bytes_per_cycle);
  const double instructions = std::ceil(repeats / 255.0);  // a repeat count is 8 bits
  switch (op) {
    case VecClass::simple: return vector_pass_cycles(soc, elements, bytes);
    case VecClass::transcendental:
      return static_cast<double>(elements) / soc.transcendental_elems_per_cycle +
             instructions * soc.transcendental_latency_cycles;
    case VecClass::row_reduce: return repeats + instructions * kRowReduceLatency;
  }
  return 0;
}

// Each row first folds to one repeat of lanes with vadd/vmax, then one
// cross-lane instruction finishes it.
double row_reduce_cycles(const Soc& soc, int64_t rows, int64_t row_elements, int bytes) {
  if (rows <= 0 || row_elements <= 0) return 0;
  const int64_t lanes = static_cast<int64_t>(soc.vector_bytes_per_cycle) / bytes;
  const double fold = row_elements > lanes ? vector_cycles(soc, VecClass::simple, row_elements - lanes, bytes) : 0;
  return static_cast<double>(rows) * (fold + kRowReduceLatency);
}

// The port reads L2 hits and HBM data alike; only the HBM part waits for its share.
double gm_to_ub_cycles(const Soc& soc, double bytes, int64_t active, double on_chip) {
  const double share = soc.hbm_bytes_per_cycle() / static_cast<double>(std::max<int64_t>(1, active));
  if (on_chip <= 0) return bytes / std::min(soc.gm_to_l1_rate, share) + soc.dma_cycles;
  return std::max(bytes / soc.gm_to_l1_rate, (bytes - on_chip) / share) + soc.dma_cycles;
}

double ub_to_gm_cycles(const Soc& soc, double bytes, int64_t active, double on_chip) {
  const double share = soc.hbm_bytes_per_cycle() / static_cast<double>(std::max<int64_t>(1, active));
  const double to_hbm = (bytes - on_chip) / std::min(soc.ub_to_gm_rate, share);
  return to_hbm + (on_chip > 0 ? on_chip / soc.ub_to_l2_rate : 0) + soc.dma_cycles;
}

double hbm_share_cycles(const Soc& soc, double bytes, int64_t active) {
  return bytes * static_cast<double>(std::max<int64_t>(1, active)) / soc.hbm_bytes_per_cycle();
}

double pipeline_cycles(const Soc& soc, const TileStages& t, int64_t tiles, bool db) {
  if (tiles <= 0) return 0;
  const double sum = t.in + t.vec + t.out;
  if (!db) return static_cast<double>(tiles) * sum;
  const double copies = std::max({t.in, t.out, t.hbm});
  const double steady = std::max(copies, t.vec) + soc.ub_contention * std::min(copies, t.vec);
  return static_cast<double>(tiles - 1) * steady + sum;
}

double kernel_us(const Soc& soc, double core_cycles, double roofline_us, int64_t blocks) {
  return soc.launch_us_for(blocks) + std::max(core_cycles / soc.cycles_per_us(), roofline_us);
}

double vector_roofline_us(const Soc& soc, double gm_bytes, double vector_cycles_total, double on_chip) {
  return std::max(memory_roofline_us(soc, gm_bytes, on_chip), vector_cycles_total / soc.ai_cores / soc.cycles_per_us());
}

double memory_roofline_us(const Soc& soc, double gm_bytes, double on_chip) {
  return std::max((gm_bytes - on_chip) / soc.hbm_bytes_per_us(), on_chip / soc.l2_bytes_per_us());
}

sdk::Measurement refuse(const std::string& why) { return sdk::Measurement::failed(sdk::ResultStatus::invalid, why); }

void require_default_fits(const Soc& soc, const std::string& op_type, const sdk::Measurement& verdict) {
  if (!verdict.ok())
    throw Error(StatusCode::unsupported, soc.target + " simulator has no tiling of " + op_type + " that fits: " + verdict.message);
}

sdk::Measurement ub_overflow(const std::string& what, int64_t need, int64_t have) {
  return refuse("UB: " + what + " needs " + std::to_string(need) + " B, has " + std::to_string(have) + " B");
}

sdk::Measurement too_many_cores(int64_t block_dim, int64_t blocks, const std::string& of_what) {
  return refuse("block_dim " + std::to_string(block_dim) + " exceeds the " + std::to_string(blocks) + " " + of_what);
}

sdk::Knob block_dim_knob(const Soc& soc) {
  return sdk::Knob::integer("block_dim", sdk::KnobTag::schedule, 1, soc.ai_cores);
}

sdk::Knob ub_factor_knob(const Soc& soc, const std::string& name, int64_t top, int bytes) {
  const int64_t lo = block_elements(bytes);
  const int64_t cap = std::bit_floor(static_cast<uint64_t>(soc.ub_bytes / bytes));
  const int64_t hi = std::clamp<int64_t>(static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(std::max<int64_t>(top, 1)))), lo, cap);
  return sdk::Knob::power_of_two(name, sdk::KnobTag::schedule, lo, hi);
}

sdk::Knob db_knob() { return sdk::Knob::categorical("db", sdk::KnobTag::schedule, {"off", "on"}); }

int64_t largest_fitting(const sdk::Knob& knob, const std::function<bool(int64_t)>& fits) {
  int64_t best = knob.values.front();
  for (int64_t v : knob.values)
    if (fits(v)) best = v;
  return best;
}

std::vector<int64_t> broadcast_shapes(const std::vector<std::vector<int64_t>>& shapes, const std::string& op_type) {
  size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  std::vector<int64_t> out(rank, 1);
  for (const auto& s : shapes) {
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& o = out[rank - s.size() + i];
      const int64_t d = s[i];
      if (d == o || d == 1) continue;
      if (o != 1)
        throw Error(StatusCode::invalid_argument, op_type + " inputs do not broadcast: dims " + std::to_string(o) +
                                                      " and " + std::to_string(d));
      o = d;
    }
  }
  return out;
}

void require_known_inputs(const std::vector<sdk::TensorDesc>& inputs, size_t at_least, const std::string& op_type) {
  if (inputs.size() < at_least)
    throw Error(StatusCode::invalid_argument, op_type + " takes at least " + std::to_string(at_least) +
                                                  " input(s), got " + std::to_string(inputs.size()));
  for (const auto& t : inputs) {
    if (!t.fully_known()) throw Error(StatusCode::invalid_argument, op_type + " needs inputs of known shape");
    for (auto d : t.shape)
      if (d == 0) throw Error(StatusCode::invalid_argument, op_type + " has an empty input");
  }
}

const sdk::TensorDesc& known_data_input(const sdk::OpTask& task) {
  if (task.inputs.empty()) malformed(task, "has no input");
  require_known_inputs({task.inputs.front()}, 1, task.op_type);
  return task.inputs.front();
}

int64_t attr_int(const nlohmann::json& attrs, const char* key, int64_t fallback) {
  if (!attrs.contains(key)) return fallback;
  const auto& v = attrs.at(key);
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
  throw Error(StatusCode::invalid_argument, std::string("attribute '") + key + "' must be an integer");
}

const std::vector<int64_t>& output_shape(const sdk::OpTask& task) {
  if (task.outputs.empty() || !task.outputs[0].fully_known() || task.outputs[0].shape.empty())
    malformed(task, "needs its output's shape (its sizes come from input values the task does not carry)");
  return task.outputs[0].shape;
}

double attr_float(const nlohmann::json& attrs, const char* key, double fallback) {
  if (!attrs.contains(key)) return fallback;
  const auto& v = attrs.at(key);
  if (v.is_number()) return v.get<double>();
  throw Error(StatusCode::invalid_argument, std::string("attribute '") + key + "' must be a number");
}

std::vector<int64_t> attr_ints(const nlohmann::json& attrs, const char* key, std::vector<int64_t> fallback) {
  if (!attrs.contains(key)) return fallback;
  const auto& v = attrs.at(key);
  if (v.is_number_integer()) return {v.get<int64_t>()};
  if (v.is_array()) {
    std::vector<int64_t> out;
    for (const auto& e : v) {
      if (!e.is_number_integer())
        throw Error(StatusCode::invalid_argument, std::string("attribute '") + key + "' must list integers");
      out.push_back(e.get<int64_t>());
    }
    return out;
  }
  throw Error(StatusCode::invalid_argument, std::string("attribute '") + key + "' must list integers");
}

std::string shape_text(const std::vector<int64_t>& shape) {
  if (shape.empty()) return "a scalar";
  std::string out;
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? " x " : "") + std::to_string(shape[i]);
  return out;
}

size_t axis_of(const sdk::OpTask& task, int64_t axis, size_t rank) {
  const auto r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) malformed(task, "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

void malformed(const sdk::OpTask& task, const std::string& why) {
  throw sdk::Error(sdk::StatusCode::invalid_argument, task.op_type + " '" + task.name + "': " + why);
}

void not_modelled(const Soc& soc, const std::string& op_type) {
  throw Error(StatusCode::unsupported, soc.target + " simulator does not model op '" + op_type + "' yet");
}

void require_unfused(const sdk::OpTask& task, const Soc& soc) {
  if (!task.fused_ops.empty())
    throw sdk::Error(sdk::StatusCode::unsupported, soc.target + " simulator does not model ops fused after " + task.op_type);
}

void require_signature(const sdk::OpTask& task, const Soc& soc, const std::vector<const char*>& names, size_t outputs) {
  require_unfused(task, soc);
  if (task.inputs.size() != names.size()) {
    std::string list;
    for (size_t i = 0; i < names.size(); ++i) list += std::string(i ? ", " : "") + names[i];
    malformed(task, "takes " + std::to_string(names.size()) + " inputs (" + list + "), has " + std::to_string(task.inputs.size()));
  }
  if (!task.outputs.empty() && task.outputs.size() != outputs)
    malformed(task, "has " + std::to_string(task.outputs.size()) + " outputs, not " + std::to_string(outputs));
}

}  // namespace aoe::sim
