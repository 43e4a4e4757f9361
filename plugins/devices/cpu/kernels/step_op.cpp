#include "step_op.h"

#include <algorithm>

#include "op_util.h"

namespace aoe::cpu {

StepTask::StepTask(const sdk::OpTask& task, std::vector<std::string> roles, bool fused_checked)
    : task_(task), roles_(std::move(roles)), who_(task.op_type + " '" + task.name + "'") {
  if (!fused_checked && !task.fused_ops.empty()) unsupported("the cpu device fuses no ops after " + task.op_type);
  if (task.inputs.size() != roles_.size()) {
    std::string list;
    for (const auto& r : roles_) list += (list.empty() ? "" : ", ") + r;
    fail("takes " + std::to_string(roles_.size()) + " inputs (" + list + "), got " + std::to_string(task.inputs.size()));
  }
  for (size_t i = 0; i < task.inputs.size(); ++i)
    if (!task.inputs[i].fully_known()) fail(tensor(i) + " has unknown dims");
  require_f32(task);
}

StepTask::StepTask(const sdk::OpTask& task, const std::string& role, size_t at_least)
    : task_(task), who_(task.op_type + " '" + task.name + "'") {
  if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after " + task.op_type);
  if (task.inputs.size() < at_least)
    fail("takes at least " + std::to_string(at_least) + " inputs, got " + std::to_string(task.inputs.size()));
  for (size_t i = 0; i < task.inputs.size(); ++i) {
    roles_.push_back(role + " " + std::to_string(i));
    if (!task.inputs[i].fully_known()) fail(tensor(i) + " has unknown dims");
  }
  require_f32(task);
}

std::string StepTask::tensor(size_t i) const {
  std::string out = "input '" + roles_[i] + "'";
  if (i < task_.inputs.size() && !task_.inputs[i].name.empty() && task_.inputs[i].name != roles_[i])
    out += " ('" + task_.inputs[i].name + "')";
  return out;
}

void StepTask::fail(const std::string& what) const { invalid(who_ + ": " + what); }

void StepTask::rank(size_t i, size_t r, bool at_least) const {
  const size_t got = shape(i).size();
  if (got == r || (at_least && got > r)) return;
  fail(tensor(i) + " is " + to_string(shape(i)) + ", of rank " + std::to_string(got) + "; expected rank " +
       (at_least ? "at least " : "") + std::to_string(r));
}

void StepTask::expect(size_t i, const Shape& s, const std::string& what) const {
  if (shape(i) != s) fail(tensor(i) + " is " + to_string(shape(i)) + ", expected " + to_string(s) + " (" + what + ")");
}

double StepTask::number(const char* key) const {
  if (!task_.attrs.is_object() || !task_.attrs.contains(key)) fail("attribute '" + std::string(key) + "' is missing");
  if (!task_.attrs.at(key).is_number()) fail("attribute '" + std::string(key) + "' must be a number");
  return task_.attrs.at(key).get<double>();
}

std::vector<int64_t> StepTask::ints(const char* key) const {
  if (!task_.attrs.is_object() || !task_.attrs.contains(key)) fail("attribute '" + std::string(key) + "' is missing");
  return ints_attr(task_.attrs, key, {});
}

void StepTask::outputs(const std::vector<std::string>& roles, const std::vector<Shape>& shapes) const {
  const auto& outs = task_.outputs;
  if (outs.empty()) return;
  if (outs.size() != roles.size())
    fail("gives " + std::to_string(roles.size()) + " outputs, the task lists " + std::to_string(outs.size()));
  for (size_t i = 0; i < outs.size(); ++i)
    if (outs[i].fully_known() && outs[i].shape != shapes[i])
      fail("output '" + roles[i] + "' is " + to_string(outs[i].shape) + ", its inputs give " + to_string(shapes[i]));
}

}  // namespace aoe::cpu
