#include "on_chip.h"

#include <algorithm>

#include "aoe/sdk/error.h"

namespace aoe::sim {
namespace {

std::set<size_t> positions(const sdk::OpTask& task, const char* key, size_t count) {
  std::set<size_t> out;
  if (!task.attrs.contains(key)) return out;
  const auto& v = task.attrs.at(key);
  if (!v.is_array())
    throw sdk::Error(sdk::StatusCode::invalid_argument, std::string("attribute '") + key + "' must list positions");
  for (const auto& e : v) {
    if (!e.is_number_integer() || e.get<int64_t>() < 0 || e.get<size_t>() >= count)
      throw sdk::Error(sdk::StatusCode::invalid_argument, std::string("attribute '") + key + "' of " + task.op_type +
                                                              " names a position it does not have: " + e.dump());
    out.insert(e.get<size_t>());
  }
  return out;
}

}  // namespace

OnChip OnChip::of(const sdk::OpTask& task) {
  return {positions(task, "on_chip_inputs", task.inputs.size()), positions(task, "on_chip_outputs", task.outputs.size())};
}

bool is_fractal(const sdk::TensorDesc& t) { return t.format == kNc1hwc0 && t.shape.size() == 4; }

int64_t stored_elements(const sdk::TensorDesc& t) {
  if (!is_fractal(t)) return t.elements();
  const int64_t c = t.shape[1];
  return t.elements() / std::max<int64_t>(c, 1) * ((c + kLayoutC0 - 1) / kLayoutC0 * kLayoutC0);
}

}  // namespace aoe::sim
