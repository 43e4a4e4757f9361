// What the kernels of a training step share: their tasks read at the edge,
// every complaint naming the op and the tensor at fault. Their loops run on
// ThreadedOp (threaded_op.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"
#include "threaded_op.h"

namespace aoe::cpu {

// A task whose inputs are docs/training.md's `roles`, in order: float32, no
// fused ops (unless the op has checked its chain: `fused_checked`), every dim known.
class StepTask {
 public:
  StepTask(const sdk::OpTask& task, std::vector<std::string> roles, bool fused_checked = false);
  // For ops taking a variable count (AddN): at least `at_least` inputs, each named `role`.
  StepTask(const sdk::OpTask& task, const std::string& role, size_t at_least);

  const std::string& who() const { return who_; }
  const Shape& shape(size_t i) const { return task_.inputs[i].shape; }
  const sdk::OpTask& task() const { return task_; }
  // "input 'dy'", with the model's name of the tensor where it has one.
  std::string tensor(size_t i) const;
  [[noreturn]] void fail(const std::string& what) const;
  // Input i has rank `rank` (at least `rank` with at_least).
  void rank(size_t i, size_t rank, bool at_least = false) const;
  // Input i is `s`; `what` says what it should be ("one value per channel").
  void expect(size_t i, const Shape& s, const std::string& what) const;
  // A required attribute: fails naming it when absent.
  double number(const char* key) const;
  std::vector<int64_t> ints(const char* key) const;
  // Where the task lists outputs, they are `shapes`, named `roles`.
  void outputs(const std::vector<std::string>& roles, const std::vector<Shape>& shapes) const;

 private:
  const sdk::OpTask& task_;
  std::vector<std::string> roles_;
  std::string who_;
};

}  // namespace aoe::cpu
