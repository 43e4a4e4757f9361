#include "layout_following.h"

#include <algorithm>
#include <set>
#include <vector>

#include "chain.h"
#include "op_util.h"
#include "reduce_op.h"
#include "shape.h"

namespace aoe::cpu {
namespace {

// N x C x a map of more than one pixel, whole channel blocks: what the
// blocked layout holds without padding lanes.
bool blockable(const Shape& s, int lanes) {
  return s.size() >= 3 && s[1] > 0 && s[1] % lanes == 0 && dims_product(s, 2, s.size()) > 1;
}

bool mark(std::vector<sdk::TensorDesc*> tensors, const std::function<bool(const std::string&)>& stored_blocked) {
  if (tensors.empty() || std::none_of(tensors.begin(), tensors.end(), [&](const sdk::TensorDesc* t) {
        return stored_blocked(t->name);
      }))
    return false;
  for (auto* t : tensors) t->format = "NCHWc";
  return true;
}

// The activations of the op's full shape go blocked; every other operand is
// one the blocked kernel reads as NCHW: constant over the channels (C = 1),
// over the map (one value per channel), or a scalar.
bool follow_elementwise(sdk::OpTask& task, int lanes, const std::function<bool(const std::string&)>& stored_blocked) {
  if (task.outputs.size() != 1 || !blockable(task.outputs[0].shape, lanes)) return false;
  const Shape& out = task.outputs[0].shape;
  std::vector<sdk::TensorDesc*> full;
  for (auto& in : task.inputs) {
    if (in.name.empty()) continue;
    if (in.shape.size() > out.size()) return false;
    const Shape s = align_rank(in.shape, out.size());
    if (s == out && !in.constant) {
      full.push_back(&in);
      continue;
    }
    if (s[1] != 1 && dims_product(s, 2, s.size()) != 1) return false;
  }
  full.push_back(&task.outputs[0]);
  return mark(full, stored_blocked);
}

bool follow_join(sdk::OpTask& task, int lanes, const std::function<bool(const std::string&)>& stored_blocked) {
  const bool concat = task.op_type == "Concat";
  std::vector<sdk::TensorDesc*> parts;
  for (auto& t : concat ? task.inputs : task.outputs) parts.push_back(&t);
  if (parts.empty()) return false;
  sdk::TensorDesc& whole = concat ? task.outputs.at(0) : task.inputs.at(0);
  const auto rank = static_cast<int64_t>(whole.shape.size());
  if (rank < 3 || normalize_axis(int_attr(task.attrs, "axis", 0), rank, task.op_type + " axis") != 1) return false;
  for (const auto* p : parts)
    if (p->constant || !blockable(p->shape, lanes)) return false;
  if (whole.constant) return false;
  parts.push_back(&whole);
  return mark(parts, stored_blocked);
}

bool follow_reduction(sdk::OpTask& task, int lanes, const std::function<bool(const std::string&)>& stored_blocked) {
  sdk::TensorDesc& in = task.inputs.at(0);
  if (in.constant || !blockable(in.shape, lanes)) return false;
  const auto rank = static_cast<int64_t>(in.shape.size());
  if (task.op_type.rfind("Reduce", 0) == 0) {
    // Over the whole map and nothing else, as GlobalAveragePool does.
    if (task.inputs.size() > 1 || !task.attrs.contains("axes")) return false;
    std::set<int64_t> axes;
    for (int64_t a : ints_attr(task.attrs, "axes", {})) axes.insert(normalize_axis(a, rank, task.op_type + " axes"));
    std::set<int64_t> map;
    for (int64_t a = 2; a < rank; ++a) map.insert(a);
    if (axes != map) return false;
  }
  return mark({&in}, stored_blocked);
}

}  // namespace

bool follow_blocked_layout(sdk::OpTask& task, int lanes,
                           const std::function<bool(const std::string& tensor)>& stored_blocked) {
  if (lanes <= 0 || task.inputs.empty()) return false;
  if (is_elementwise_op(task.op_type)) return follow_elementwise(task, lanes, stored_blocked);
  if (task.op_type == "Concat" || task.op_type == "Split") return follow_join(task, lanes, stored_blocked);
  if (is_reduce_op(task.op_type)) return follow_reduction(task, lanes, stored_blocked);
  return false;
}

}  // namespace aoe::cpu
