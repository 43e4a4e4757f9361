#include "optimizer_kernels.h"

#include "aoe/sdk/error.h"

namespace aoe::training {
namespace {

// The hyperparameters are attributes, so a kernel's bank key holds them; these
// are the usual defaults of each optimizer.
constexpr double kWeightDecay = 1e-4;
constexpr double kLambWeightDecay = 0.01;

std::string state(StepBuilder& step, const WeightUpdate& u, const std::string& what) {
  return step.add_tensor(u.weight + "/" + what, step.tensor(u.weight).shape, DType::f32, true);
}

}  // namespace

Optimizer optimizer_from_string(const std::string& name) {
  if (name == "momentum" || name.empty()) return Optimizer::momentum;
  if (name == "adam") return Optimizer::adam;
  if (name == "lamb") return Optimizer::lamb;
  throw aoe::sdk::Error(aoe::sdk::StatusCode::invalid_argument,
                        "optimizer: '" + name + "' is not one of momentum, adam, lamb");
}

const char* to_string(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::momentum: return "momentum";
    case Optimizer::adam: return "adam";
    case Optimizer::lamb: return "lamb";
  }
  return "momentum";
}

void add_optimizer_kernels(StepBuilder& step, const WeightUpdate& u, Optimizer optimizer, const std::string& loss_scale) {
  const auto shape = step.tensor(u.weight).shape;
  const std::string& at = u.forward_node;
  std::string grad = u.grad;
  // LAMB decays the weight inside its own update.
  if (u.decays && optimizer != Optimizer::lamb)
    grad = step.add_unary(at, "FusedMulAddN", {grad, u.weight}, shape, DType::f32, {{"weight_decay", kWeightDecay}});
  if (!loss_scale.empty()) grad = step.add_unary(at, "Mul", {grad, loss_scale}, shape, DType::f32);
  const std::string updated = step.add_tensor(u.weight + "/updated", shape, DType::f32);
  switch (optimizer) {
    case Optimizer::momentum: {
      const std::string accum = state(step, u, "accum");
      step.add_kernel(at, "ApplyMomentum", {u.weight, accum, grad}, {updated, step.add_tensor(accum + "/updated", shape, DType::f32)},
                      {{"lr", 0.1}, {"momentum", 0.9}});
      break;
    }
    case Optimizer::adam: {
      const std::string m = state(step, u, "m"), v = state(step, u, "v");
      step.add_kernel(at, "ApplyAdam", {u.weight, m, v, grad},
                      {updated, step.add_tensor(m + "/updated", shape, DType::f32), step.add_tensor(v + "/updated", shape, DType::f32)},
                      {{"lr", 0.001}, {"beta1", 0.9}, {"beta2", 0.999}, {"epsilon", 1e-8}, {"step", 1}});
      break;
    }
    case Optimizer::lamb: {
      const std::string m = state(step, u, "m"), v = state(step, u, "v");
      const std::string direction = step.add_tensor(u.weight + "/lamb_update", shape, DType::f32);
      step.add_kernel(at, "LambApplyOptimizerAssign", {grad, m, v, u.weight},
                      {direction, step.add_tensor(m + "/updated", shape, DType::f32), step.add_tensor(v + "/updated", shape, DType::f32)},
                      {{"beta1", 0.9}, {"beta2", 0.999}, {"epsilon", 1e-6}, {"weight_decay", kLambWeightDecay}, {"step", 1}});
      const std::string w_norm = step.add_unary(at, "SquareSumV1", {u.weight}, {1}, DType::f32);
      const std::string u_norm = step.add_unary(at, "SquareSumV1", {direction}, {1}, DType::f32);
      step.add_kernel(at, "LambApplyWeightAssign", {w_norm, u_norm, direction, u.weight}, {updated}, {{"lr", 0.001}});
      break;
    }
  }
  step.graph().outputs.push_back(updated);
}

}  // namespace aoe::training
