// The training step of a bundled model, and ways to look into it.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "frontend/onnx_frontend.h"
#include "step_kernels.h"
#include "training_step.h"

namespace aoe::training::test {

inline aoe::sdk::Graph model(const std::string& name, const aoe::host::InputShapes& shapes = {}) {
  return aoe::host::load_onnx(std::string(AOE_MODELS_DIR) + "/" + name, shapes);
}

// A step kept in float32, as on the cpu device.
inline StepOptions fp32() {
  StepOptions o;
  o.mixed = false;
  return o;
}

inline TrainingStep step_of(const std::string& name, StepOptions options = {}, const aoe::host::InputShapes& shapes = {}) {
  return derive_training_step(model(name, shapes), options);
}

inline std::vector<const aoe::sdk::Node*> kernels_of(const TrainingStep& step, const std::string& op_type) {
  std::vector<const aoe::sdk::Node*> out;
  for (const auto& n : step.graph.nodes)
    if (n.op_type == op_type) out.push_back(&n);
  return out;
}

inline const aoe::sdk::Node& kernel(const TrainingStep& step, const std::string& name) {
  for (const auto& n : step.graph.nodes)
    if (n.name == name) return n;
  ADD_FAILURE() << "no kernel " << name;
  static const aoe::sdk::Node none;
  return none;
}

inline std::vector<int64_t> shape(const TrainingStep& step, const std::string& tensor) {
  return step.graph.tensor(tensor).shape;
}

// Kernels by op type, views (Reshape) left out: no kernel runs for them.
inline std::map<std::string, size_t> op_counts(const TrainingStep& step) {
  std::map<std::string, size_t> out;
  for (const auto& n : step.graph.nodes)
    if (n.op_type != "Reshape") ++out[n.op_type];
  return out;
}

}  // namespace aoe::training::test
