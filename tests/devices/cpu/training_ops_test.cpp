// The kernels of a training step (docs/training.md) against their
// double-precision references on odd shapes, over their tuning spaces;
// hostile tasks refused naming the op and the tensor; the optimizers
// against their formulas over a few steps; and the tuned ones (the
// filter gradient's GEMM, BatchMatMul) through the device.
#include <gtest/gtest.h>

#include <cmath>

#include "aoe/sdk/error.h"
#include "catalog.h"
#include "cpu_device.h"
#include "device_runs.h"
#include "tasks.h"

namespace aoe::cpu {
namespace {

using nlohmann::json;
using test::f32;
using test::host;
using test::op;
using test::pool;
using test::with;

// The default, a few sampled configs, and one thread and all of them.
void expect_matches(const sdk::OpTask& task, size_t samples = 4) {
  const auto o = make_op(task, host());
  auto configs = test::sample_configs(*o, samples);
  for (int threads : {1, host().threads}) {
    auto c = with(o->space(), o->space().default_config, "threads", threads);
    if (o->check(c).empty()) configs.push_back(c);
  }
  test::expect_matches_reference(*o, configs, pool());
}

TEST(TrainingOps, BatchNormTrainingForward) {
  expect_matches(op("BNTrainingReduce", {f32({3, 5, 7, 9})}));
  expect_matches(op("BNTrainingUpdate", {f32({2, 5, 7, 9}), f32({5}), f32({5}), f32({5}), f32({5})}, {{"epsilon", 1e-3}}));
  expect_matches(op("BNTrainingReduce", {f32({4, 3})}));  // N x C: one value per plane
}

// The chains a step fuses after the update: the ReLU, or the shortcut's Add
// and then the ReLU; the fused output is relu(update + shortcut).
TEST(TrainingOps, BatchNormUpdateFusesTheShortcutAndTheRelu) {
  const std::vector<int64_t> x = {2, 3, 4, 5};
  auto fused = [&](std::vector<std::string> chain) {
    auto t = op("BNTrainingUpdate", {f32(x), f32({3}), f32({3}), f32({3}), f32({3})}, {{"epsilon", 1e-3}});
    if (chain.size() == 2) t.inputs.push_back(f32(x));
    t.fused_ops = std::move(chain);
    return t;
  };
  expect_matches(fused({"Relu"}));
  expect_matches(fused({"Add", "Relu"}));

  const size_t n = 2 * 3 * 4 * 5;
  std::vector<float> xs(n), shortcut(n), sum = {1, -2, 0.5f}, square_sum = {60, 45, 50}, scale = {1, 2, 0.5f},
                                         offset = {0.1f, -0.3f, 0};
  for (size_t i = 0; i < n; ++i) xs[i] = std::sin(0.37f * static_cast<float>(i)), shortcut[i] = std::cos(0.21f * static_cast<float>(i));
  std::vector<float> plain(n), with_chain(n), mean(3), invstd(3);
  make_op(fused({}), host())->reference({xs.data(), sum.data(), square_sum.data(), scale.data(), offset.data()},
                                        {plain.data(), mean.data(), invstd.data()});
  make_op(fused({"Add", "Relu"}), host())
      ->reference({xs.data(), sum.data(), square_sum.data(), scale.data(), offset.data(), shortcut.data()},
                  {with_chain.data(), mean.data(), invstd.data()});
  for (size_t i = 0; i < n; ++i) EXPECT_NEAR(with_chain[i], std::max(0.0f, plain[i] + shortcut[i]), 1e-5f) << i;
  EXPECT_THROW(make_op(fused({"Sigmoid"}), host()), sdk::Error);
}

TEST(TrainingOps, BatchNormTrainingGradients) {
  expect_matches(op("BNTrainingUpdateGrad", {f32({3, 5, 7, 9}), f32({3, 5, 7, 9}), f32({5}), f32({5})}));
  expect_matches(op("BNTrainingReduceGrad", {f32({3, 5, 7, 9}), f32({3, 5, 7, 9}), f32({5}), f32({5}), f32({5}), f32({5}),
                                             f32({5})}));
}

TEST(TrainingOps, SoftmaxCrossEntropyWithLogits) {
  expect_matches(op("SoftmaxCrossEntropyWithLogits", {f32({7, 13}), f32({7, 13})}));
  expect_matches(op("SoftmaxCrossEntropyWithLogits", {f32({3, 1001}), f32({3, 1001})}));
}

// Strided, padded, grouped, dilated; the strides leave a row and a column over.
TEST(TrainingOps, ConvBackpropInput) {
  expect_matches(op("Conv2DBackpropInput", {f32({2, 6, 5, 5}), f32({6, 3, 3, 3})},
                    {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}, {"group", 2},
                     {"input_size", {10, 9}}}),
                 6);
  expect_matches(op("Conv2DBackpropInput", {f32({1, 8, 7, 6}), f32({8, 5, 3, 2})},
                    {{"kernel_shape", {3, 2}}, {"dilations", {2, 1}}, {"pads", {1, 0, 2, 1}}, {"input_size", {8, 6}}}));
  expect_matches(op("Conv2DBackpropInput", {f32({1, 16, 12, 12}), f32({16, 16, 1, 1})},
                    {{"kernel_shape", {1, 1}}, {"input_size", {12, 12}}}));
}

TEST(TrainingOps, ConvBackpropFilter) {
  expect_matches(op("Conv2DBackpropFilter", {f32({2, 6, 10, 9}), f32({2, 6, 5, 5})},
                    {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}, {"group", 2}}),
                 8);
  expect_matches(op("Conv2DBackpropFilter", {f32({3, 5, 8, 6}), f32({3, 7, 7, 6})},
                    {{"kernel_shape", {3, 2}}, {"dilations", {2, 1}}, {"pads", {1, 0, 2, 1}}}),
                 8);
  expect_matches(op("Conv2DBackpropFilter", {f32({1, 19, 13, 13}), f32({1, 21, 13, 13})}, {{"kernel_shape", {1, 1}}}));
}

TEST(TrainingOps, ConvBackpropFilterOverEveryMicroKernelAndSplit) {
  const auto o = make_op(op("Conv2DBackpropFilter", {f32({2, 9, 11, 10}), f32({2, 13, 11, 10})},
                            {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}}),
                         host());
  const auto& space = o->space();
  std::vector<sdk::Config> configs;
  for (const auto& u : ukernel_catalog())
    for (const char* split : {"m", "n", "m_shared"}) {
      auto c = with(space, space.default_config, "ukernel", u.label());
      c = with(space, c, "split", split);
      c = with(space, c, "threads", host().threads);
      c = with(space, c, "kc", 32);
      if (o->check(c).empty()) configs.push_back(c);
    }
  EXPECT_GE(configs.size(), 3u);
  test::expect_matches_reference(*o, configs, pool());
}

TEST(TrainingOps, BatchMatMulTransposes) {
  for (int adj_a : {0, 1})
    for (int adj_b : {0, 1}) {
      const Shape a = adj_a ? Shape{2, 3, 11, 13} : Shape{2, 3, 13, 11};
      const Shape b = adj_b ? Shape{3, 17, 11} : Shape{3, 11, 17};
      expect_matches(op("BatchMatMul", {f32(a), f32(b)}, {{"adj_x1", adj_a}, {"adj_x2", adj_b}}), 6);
    }
}

TEST(TrainingOps, ActivationGradients) {
  expect_matches(op("ReluGradV2", {f32({3, 1001}), f32({3, 1001})}));
  expect_matches(op("GeLUGrad", {f32({3, 1001}), f32({3, 1001})}));
  for (const char* t : {"Relu6Grad", "SigmoidGrad", "HardSwishGrad"}) expect_matches(op(t, {f32({3, 1001}), f32({3, 1001})}));
  expect_matches(op("HardSigmoidGrad", {f32({3, 1001}), f32({3, 1001})}, {{"alpha", 0.2}, {"beta", 0.5}}));
  expect_matches(op("HardSigmoidGrad", {f32({3, 1001}), f32({3, 1001})}, {{"alpha", -0.5}, {"beta", 0.25}}));
  expect_matches(op("SoftmaxGradExt", {f32({5, 17}), f32({5, 17})}, {{"axis", -1}}));
  expect_matches(op("ResizeNearestNeighborV2Grad", {f32({2, 3, 20, 36})}, {{"input_size", {5, 9}}}));
  expect_matches(op("ResizeBilinearV2Grad", {f32({2, 3, 14, 22})}, {{"input_size", {7, 11}}}));
  expect_matches(op("SoftmaxGradExt", {f32({3, 7, 5}), f32({3, 7, 5})}, {{"axis", 1}}));
}

TEST(TrainingOps, LayerNormGradients) {
  expect_matches(op("LayerNormXBackpropV2", {f32({3, 5, 33}), f32({3, 5, 33}), f32({3, 5, 1}), f32({3, 5, 1}), f32({33})}));
  expect_matches(op("LayerNormBetaGammaBackpropV2", {f32({3, 5, 33}), f32({3, 5, 33}), f32({15, 1}), f32({15, 1})}));
  expect_matches(op("LayerNormBetaGammaBackpropV2", {f32({130, 77}), f32({130, 77}), f32({130}), f32({130})}));
}

TEST(TrainingOps, PoolGradients) {
  expect_matches(op("MaxPoolGradWithArgmax", {f32({2, 3, 9, 11}), f32({2, 3, 5, 6})},
                    {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}));
  expect_matches(op("MaxPoolGradWithArgmax", {f32({1, 4, 8, 8}), f32({1, 4, 4, 4})}, {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}}));
  expect_matches(op("GlobalAveragePoolGrad", {f32({2, 3, 1, 1})}, {{"input_size", {7, 9}}}));
}

TEST(TrainingOps, GradientSums) {
  expect_matches(op("AddN", {f32({1001}), f32({1001}), f32({1001})}));
  expect_matches(op("BiasAddGrad", {f32({3, 5, 7, 9})}, {{"axis", 1}}));
  expect_matches(op("BiasAddGrad", {f32({37, 21})}, {{"axis", -1}}));
  expect_matches(op("BiasAddGrad", {f32({300, 77})}, {{"axis", -1}}));
}

TEST(TrainingOps, OptimizersAgainstTheirReferences) {
  const json adam = {{"lr", 0.01}, {"beta1", 0.9}, {"beta2", 0.999}, {"epsilon", 1e-8}, {"step", 3}};
  const json lamb = {{"beta1", 0.9}, {"beta2", 0.999}, {"epsilon", 1e-6}, {"weight_decay", 0.01}, {"step", 2}};
  const Shape s = {17, 9};
  expect_matches(op("FusedMulAddN", {f32(s), f32(s)}, {{"weight_decay", 1e-4}}));
  expect_matches(op("ApplyMomentum", {f32(s), f32(s), f32(s)}, {{"lr", 0.1}, {"momentum", 0.9}}));
  expect_matches(op("ApplyAdam", {f32(s), f32(s), f32(s), f32(s)}, adam));
  expect_matches(op("LambApplyOptimizerAssign", {f32(s), f32(s), f32(s), f32(s)}, lamb));
  expect_matches(op("SquareSumV1", {f32({40001})}));
  expect_matches(op("LambApplyWeightAssign", {f32({1}), f32({1}), f32(s), f32(s)}, {{"lr", 0.01}}));
}

// Runs `task` on `inputs` with its default config.
std::vector<std::vector<float>> run(const sdk::OpTask& task, const std::vector<std::vector<float>>& inputs) {
  const auto o = make_op(task, host());
  std::vector<const float*> in;
  for (const auto& v : inputs) in.push_back(v.data());
  return run_once(*o, o->space().default_config, in, pool());
}

std::vector<float> ramp(size_t n, float from, float step) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = from + step * static_cast<float>(i);
  return v;
}

// Momentum's and Adam's updates, three steps each, against the formulas
// written out here, each step's outputs fed to the next.
TEST(TrainingOps, MomentumAndAdamFollowTheirFormulasOverSteps) {
  const size_t n = 5;
  std::vector<float> w = ramp(n, -1, 0.5f), accum(n, 0), m(n, 0), v(n, 0), wa = w;
  std::vector<double> ew(w.begin(), w.end()), ea(n, 0), ewa(w.begin(), w.end()), em(n, 0), ev(n, 0);
  for (int step = 1; step <= 3; ++step) {
    const auto g = ramp(n, 0.3f * static_cast<float>(step), -0.2f);
    auto out = run(op("ApplyMomentum", {f32({5}), f32({5}), f32({5})}, {{"lr", 0.1}, {"momentum", 0.9}}), {w, accum, g});
    w = out[0];
    accum = out[1];
    out = run(op("ApplyAdam", {f32({5}), f32({5}), f32({5}), f32({5})},
                 {{"lr", 0.01}, {"beta1", 0.9}, {"beta2", 0.999}, {"epsilon", 1e-8}, {"step", step}}),
              {wa, m, v, g});
    wa = out[0];
    m = out[1];
    v = out[2];
    for (size_t i = 0; i < n; ++i) {
      ea[i] = 0.9 * ea[i] + g[i];
      ew[i] -= 0.1 * ea[i];
      em[i] = 0.9 * em[i] + 0.1 * g[i];
      ev[i] = 0.999 * ev[i] + 0.001 * g[i] * g[i];
      const double mhat = em[i] / (1 - std::pow(0.9, step)), vhat = ev[i] / (1 - std::pow(0.999, step));
      ewa[i] -= 0.01 * mhat / (std::sqrt(vhat) + 1e-8);
      EXPECT_NEAR(w[i], ew[i], 1e-5) << "momentum step " << step;
      EXPECT_NEAR(accum[i], ea[i], 1e-5) << "momentum step " << step;
      EXPECT_NEAR(wa[i], ewa[i], 1e-5) << "adam step " << step;
      EXPECT_NEAR(m[i], em[i], 1e-6) << "adam step " << step;
      EXPECT_NEAR(v[i], ev[i], 1e-7) << "adam step " << step;
    }
  }
}

sdk::TensorDesc count() {
  auto t = f32({});
  t.dtype = sdk::DType::i64;
  return t;
}

// ONNX's training-domain optimizers: R, T, then X, G and the state of each
// optimized tensor, two of them here, of sizes no vector divides.
sdk::OpTask onnx_optimizer(const std::string& type, size_t state, json attrs) {
  std::vector<sdk::TensorDesc> in = {f32({}), count()};
  for (size_t group = 0; group < 2 + state; ++group)
    for (const Shape& s : {Shape{17, 9}, Shape{10001}}) in.push_back(f32(s));
  return op(type, in, std::move(attrs));
}

TEST(TrainingOps, OnnxOptimizersMatchTheirReferences) {
  expect_matches(onnx_optimizer("Adagrad", 1, {{"decay_factor", 0.1}, {"epsilon", 1e-5}, {"norm_coefficient", 1e-3}}));
  for (const char* mode : {"standard", "nesterov"})
    expect_matches(onnx_optimizer("Momentum", 1, {{"alpha", 0.9}, {"beta", 0.5}, {"norm_coefficient", 0.01}, {"mode", mode}}));
  expect_matches(onnx_optimizer("Adam", 2, {{"alpha", 0.9}, {"beta", 0.99}, {"norm_coefficient_post", 0.01}}));
}

// One Adam step at T = 2 against the spec's pseudo code: the bias-corrected
// rate, the decoupled post-update decay.
TEST(TrainingOps, OnnxAdamFollowsItsPseudoCode) {
  const double r = 0.1, t = 2, alpha = 0.9, beta = 0.99, eps = 1e-3, norm = 0.01, post = 0.02;
  const std::vector<float> x = {1, -2, 0.5f}, g = {0.3f, -0.1f, 2}, v = {0.1f, 0, -0.2f}, h = {0.5f, 0.01f, 1};
  const auto out = run(op("Adam", {f32({}), count(), f32({3}), f32({3}), f32({3}), f32({3})},
                          {{"alpha", alpha}, {"beta", beta}, {"epsilon", eps}, {"norm_coefficient", norm},
                           {"norm_coefficient_post", post}}),
                       {{static_cast<float>(r)}, {static_cast<float>(t)}, x, g, v, h});
  const double rate = r * std::sqrt(1 - std::pow(beta, t)) / (1 - std::pow(alpha, t));
  for (size_t i = 0; i < 3; ++i) {
    const double gr = norm * x[i] + g[i], vn = alpha * v[i] + (1 - alpha) * gr, hn = beta * h[i] + (1 - beta) * gr * gr;
    EXPECT_NEAR(out[0][i], (1 - post) * (x[i] - rate * vn / (std::sqrt(hn) + eps)), 1e-5) << i;
    EXPECT_NEAR(out[1][i], vn, 1e-6) << i;
    EXPECT_NEAR(out[2][i], hn, 1e-6) << i;
  }
}

// LAMB as the step runs it: moments and update, the two square sums, the
// trust-ratio-scaled weight update; three steps against the formulas.
TEST(TrainingOps, LambFollowsItsFormulasOverSteps) {
  const size_t n = 6;
  std::vector<float> w = ramp(n, 0.5f, -0.25f), m(n, 0), v(n, 0);
  std::vector<double> ew(w.begin(), w.end()), em(n, 0), ev(n, 0);
  const Shape s = {6};
  for (int step = 1; step <= 3; ++step) {
    const auto g = ramp(n, -0.4f, 0.1f * static_cast<float>(step));
    auto out = run(op("LambApplyOptimizerAssign", {f32(s), f32(s), f32(s), f32(s)},
                      {{"beta1", 0.9}, {"beta2", 0.999}, {"epsilon", 1e-6}, {"weight_decay", 0.01}, {"step", step}}),
                   {g, m, v, w});
    const auto update = out[0];
    m = out[1];
    v = out[2];
    const float ws = run(op("SquareSumV1", {f32(s)}), {w})[0][0];
    const float us = run(op("SquareSumV1", {f32(s)}), {update})[0][0];
    w = run(op("LambApplyWeightAssign", {f32({1}), f32({1}), f32(s), f32(s)}, {{"lr", 0.05}}), {{ws}, {us}, update, w})[0];
    std::vector<double> eu(n);
    double ews = 0, eus = 0;
    for (size_t i = 0; i < n; ++i) {
      em[i] = 0.9 * em[i] + 0.1 * g[i];
      ev[i] = 0.999 * ev[i] + 0.001 * g[i] * g[i];
      eu[i] = em[i] / (1 - std::pow(0.9, step)) / (std::sqrt(ev[i] / (1 - std::pow(0.999, step))) + 1e-6) + 0.01 * ew[i];
      ews += ew[i] * ew[i];
      eus += eu[i] * eu[i];
      EXPECT_NEAR(update[i], eu[i], 1e-4) << "step " << step;
    }
    const double r = std::sqrt(ews) / std::sqrt(eus);
    for (size_t i = 0; i < n; ++i) {
      ew[i] -= 0.05 * r * eu[i];
      EXPECT_NEAR(w[i], ew[i], 1e-5) << "step " << step;
    }
  }
  // A zero weight norm leaves the ratio at 1.
  const auto z = run(op("LambApplyWeightAssign", {f32({1}), f32({1}), f32({2}), f32({2})}, {{"lr", 0.5}}),
                     {{0.0f}, {4.0f}, {1.0f, -2.0f}, {0.0f, 0.0f}})[0];
  EXPECT_FLOAT_EQ(z[0], -0.5f);
  EXPECT_FLOAT_EQ(z[1], 1.0f);
}

std::string refusal(const sdk::OpTask& task) {
  try {
    make_op(task, host());
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), sdk::StatusCode::invalid_argument) << e.what();
    return e.what();
  }
  ADD_FAILURE() << task.op_type << " was accepted";
  return {};
}

void expect_names(const sdk::OpTask& task, std::initializer_list<const char*> words) {
  const std::string why = refusal(task);
  EXPECT_NE(why.find(task.op_type), std::string::npos) << why;
  for (const char* w : words) EXPECT_NE(why.find(w), std::string::npos) << "'" << w << "' not in: " << why;
}

TEST(TrainingOps, HostileTasksNameTheOpAndTheTensor) {
  const Shape x = {2, 4, 6, 6};
  expect_names(op("BNTrainingUpdate", {f32(x), f32({4}), f32({4}), f32({5}), f32({4})}), {"'scale'", "[5]", "per channel"});
  expect_names(op("BNTrainingUpdate", {f32(x), f32({4}), f32({4}), f32({4})}), {"offset", "got 4"});
  expect_names(op("BNTrainingReduceGrad", {f32(x), f32({2, 4, 6, 5}), f32({4}), f32({4}), f32({4}), f32({4}), f32({4})}),
               {"'x'", "[2,4,6,5]"});
  expect_names(op("BNTrainingReduce", {f32({7})}), {"'x'", "rank"});
  expect_names(op("Conv2DBackpropFilter", {f32({2, 4, 6}), f32({2, 8, 6, 6})}, {{"kernel_shape", {3, 3}}}), {"'x'", "rank"});
  expect_names(op("Conv2DBackpropFilter", {f32(x), f32({2, 8, 5, 5})}, {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}}),
               {"'dy'", "[2,8,6,6]"});
  expect_names(op("Conv2DBackpropFilter", {f32(x), f32({2, 8, 4, 4})}), {"'kernel_shape'", "missing"});
  expect_names(op("Conv2DBackpropFilter", {f32(x), f32({2, 6, 4, 4})}, {{"kernel_shape", {3, 3}}, {"group", 4}}),
               {"group 4"});
  expect_names(op("Conv2DBackpropInput", {f32({2, 8, 4, 4}), f32({8, 4, 3, 3})}, {{"kernel_shape", {3, 3}}}),
               {"'input_size'", "missing"});
  expect_names(op("Conv2DBackpropInput", {f32({2, 8, 4, 4}), f32({7, 4, 3, 3})}, {{"kernel_shape", {3, 3}}, {"input_size", {6, 6}}}),
               {"'w'", "[7,4,3,3]"});
  expect_names(op("ApplyMomentum", {f32({3}), f32({3}), f32({3})}, {{"momentum", 0.9}}), {"'lr'", "missing"});
  expect_names(op("ApplyMomentum", {f32({3}), f32({3}), f32({4})}, {{"lr", 0.1}, {"momentum", 0.9}}), {"'grad'", "[4]"});
  expect_names(op("ApplyAdam", {f32({3}), f32({3}), f32({3}), f32({3})},
                  {{"lr", 0.1}, {"beta1", 0.9}, {"beta2", 0.99}, {"epsilon", 1e-8}}),
               {"'step'"});
  expect_names(op("LambApplyWeightAssign", {f32({2}), f32({1}), f32({3}), f32({3})}, {{"lr", 0.1}}), {"'w_square_sum'"});
  expect_names(op("Adam", {f32({}), count(), f32({3}), f32({3}), f32({3})}), {"4 tensors per optimized one", "got 3"});
  expect_names(op("Adagrad", {f32({}), count(), f32({3}), f32({4}), f32({3})}), {"[4]", "[3]"});
  expect_names(op("Momentum", {f32({}), count(), f32({3}), f32({3}), f32({3})}, {{"mode", "standard"}}), {"'alpha'", "missing"});
  expect_names(op("BatchMatMul", {f32({2, 3, 4}), f32({2, 5, 6})}), {"inner dims", "[2,3,4]"});
  expect_names(op("BatchMatMul", {f32({4}), f32({4, 6})}), {"'a'", "rank"});
  expect_names(op("SoftmaxCrossEntropyWithLogits", {f32({4, 10}), f32({4, 9})}), {"'labels'", "[4,9]"});
  expect_names(op("SoftmaxCrossEntropyWithLogits", {f32({4, 10, 2}), f32({4, 10, 2})}), {"'logits'", "rank"});
  expect_names(op("LayerNormXBackpropV2", {f32({3, 8}), f32({3, 8}), f32({4, 1}), f32({3, 1}), f32({8})}), {"'mean'", "[4,1]"});
  expect_names(op("LayerNormXBackpropV2", {f32({3, 8}), f32({3, 8}), f32({3, 1}), f32({3, 1}), f32({7})}), {"'gamma'"});
  expect_names(op("ReluGradV2", {f32({3, 8}), f32({3, 9})}), {"'y'", "[3,9]"});
  expect_names(op("GeLUGrad", {f32({3, 8})}), {"takes 2 inputs", "dy, x"});
  expect_names(op("SoftmaxGradExt", {f32({3, 8}), f32({3, 8})}, {{"axis", 2}}), {"axis 2"});
  expect_names(op("MaxPoolGradWithArgmax", {f32(x), f32({2, 4, 4, 4})}, {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}}),
               {"'dy'", "[2,4,3,3]"});
  expect_names(op("MaxPoolGradWithArgmax", {f32(x), f32({2, 4, 3, 3})}), {"'kernel_shape'", "missing"});
  expect_names(op("GlobalAveragePoolGrad", {f32({2, 4, 1, 1})}), {"'input_size'", "missing"});
  expect_names(op("GlobalAveragePoolGrad", {f32({2, 4, 3, 1})}, {{"input_size", {5, 5}}}), {"'dy'", "[2,4,3,1]"});
  expect_names(op("AddN", {f32({4})}), {"at least 2"});
  expect_names(op("AddN", {f32({4}), f32({4}), f32({5})}), {"'gradient 2'", "[5]"});
  expect_names(op("BiasAddGrad", {f32({3, 4})}, {{"axis", 3}}), {"axis 3"});
  expect_names(op("FusedMulAddN", {f32({3}), f32({3})}), {"'weight_decay'"});
}

TEST(TrainingOps, TheDeviceListsThemUnfused) {
  const auto d = test::device().describe();
  const auto types = d.at("op_types").get<std::vector<std::string>>();
  const auto fused = d.at("fused_op_types").get<std::vector<std::string>>();
  for (const char* t : {"BNTrainingReduce", "Conv2DBackpropFilter", "BatchMatMul", "ApplyMomentum", "LambApplyWeightAssign"}) {
    EXPECT_NE(std::find(types.begin(), types.end(), t), types.end()) << t;
    EXPECT_EQ(std::find(fused.begin(), fused.end(), t), fused.end()) << t;
  }
  for (const char* t : {"ReluGradV2", "AddN", "GeLUGrad"}) EXPECT_EQ(std::find(fused.begin(), fused.end(), t), fused.end()) << t;
}

// Tuning as OPAT drives it: prepare, the space, a batch of configs built
// and measured in workers, each checked against the reference there.
void expect_tunes_on_the_device(const sdk::OpTask& task, const std::vector<std::pair<std::string, json>>& changes) {
  auto dev = test::device();
  auto prepared = dev.prepare(task);
  const auto space = prepared->space();
  std::vector<sdk::Config> configs = {space.default_config};
  for (const auto& [knob, value] : changes) {
    auto c = with(space, space.default_config, knob, value);
    if (prepared->check(c).status == sdk::ResultStatus::ok) configs.push_back(c);
  }
  ASSERT_GE(configs.size(), 4u) << task.op_type;
  const auto r = test::evaluate(*prepared, configs);
  ASSERT_EQ(r.size(), configs.size());
  for (size_t i = 0; i < r.size(); ++i) {
    EXPECT_TRUE(r[i].ok()) << task.op_type << " " << space.describe(configs[i]).dump() << ": " << r[i].message;
    EXPECT_GT(r[i].time_us, 0);
  }
}

TEST(TrainingOps, FilterGradientAndBatchMatMulTuneOnTheDevice) {
  expect_tunes_on_the_device(op("Conv2DBackpropFilter", {f32({2, 16, 14, 14}), f32({2, 16, 14, 14})},
                                {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}}),
                             {{"split", "m"}, {"split", "n"}, {"split", "m_shared"}, {"mc", 16}, {"kc", 64}, {"threads", 1}});
  expect_tunes_on_the_device(op("BatchMatMul", {f32({4, 64, 48}), f32({4, 40, 64})}, {{"adj_x1", 1}, {"adj_x2", 1}}),
                             {{"split", "batch"}, {"split", "n"}, {"mc", 16}, {"kc", 32}, {"threads", 1}, {"loop_order", "m_outer"}});
  expect_tunes_on_the_device(op("Conv2DBackpropInput", {f32({2, 16, 7, 7}), f32({16, 8, 3, 3})},
                                {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}, {"input_size", {14, 14}}}),
                             {{"method", "dilated_conv"}, {"mc", 16}, {"kc", 32}, {"threads", 1}});
}

}  // namespace
}  // namespace aoe::cpu
