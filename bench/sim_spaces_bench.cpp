// Walks the simulator's tuning spaces for ops of real networks (ResNet-50,
// MobileNetV2, BERT-base) and prints, per op, how far the best config lies
// from the default and from a typical one, and how fast configs evaluate.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <random>
#include <string>
#include <vector>

#include "aoe/sdk/op_task.h"
#include "op_model.h"
#include "sim_device.h"
#include "soc_files.h"
#include "soc_search_path.h"

namespace {

using aoe::sdk::DType;
using aoe::sdk::OpTask;
using aoe::sdk::TensorDesc;

// Spaces above this are sampled by default: an exhaustive walk would take minutes.
constexpr double kExhaustiveLimit = 2e6;
constexpr size_t kDefaultSamples = 200000;

TensorDesc tensor(std::vector<int64_t> shape, bool constant = false) {
  TensorDesc t;
  t.shape = std::move(shape);
  t.dtype = DType::f16;
  t.constant = constant;
  return t;
}

OpTask op(std::string name, std::string type, std::vector<TensorDesc> inputs,
          nlohmann::json attrs = nlohmann::json::object(), std::vector<std::string> fused = {}) {
  OpTask t;
  t.name = std::move(name);
  t.op_type = std::move(type);
  t.inputs = std::move(inputs);
  t.attrs = std::move(attrs);
  t.fused_ops = std::move(fused);
  return t;
}

// An ONNX Conv with its folded BatchNormalization as bias; `residual` adds
// an operand of the output's shape for a fused Add.
OpTask conv(std::string name, int64_t n, int64_t c, int64_t h, int64_t w, int64_t cout, int64_t k, int64_t stride,
            int64_t pad, int64_t group, std::vector<std::string> fused, bool residual = false) {
  auto t = op(std::move(name), "Conv",
              {tensor({n, c, h, w}), tensor({cout, c / group, k, k}, true), tensor({cout}, true)},
              {{"kernel_shape", {k, k}}, {"strides", {stride, stride}}, {"pads", {pad, pad, pad, pad}},
               {"dilations", {1, 1}}, {"group", group}},
              std::move(fused));
  if (residual) {
    const int64_t ho = (h + 2 * pad - k) / stride + 1, wo = (w + 2 * pad - k) / stride + 1;
    t.inputs.push_back(tensor({n, cout, ho, wo}));
  }
  return t;
}

OpTask matmul(std::string name, std::vector<int64_t> a, std::vector<int64_t> b, bool b_constant,
              std::vector<std::string> fused = {}, std::vector<TensorDesc> operands = {}) {
  auto t = op(std::move(name), "MatMul", {tensor(std::move(a)), tensor(std::move(b), b_constant)},
              nlohmann::json::object(), std::move(fused));
  for (auto& o : operands) t.inputs.push_back(std::move(o));
  return t;
}

std::vector<OpTask> tasks() {
  const std::vector<std::string> relu{"Relu"}, relu6{"Clip"}, none{};
  return {
      // ResNet-50 v1.5, batch 1 (one batch-8 conv for the batch split).
      conv("resnet50 conv1 7x7/2 +relu", 1, 3, 224, 224, 64, 7, 2, 3, 1, relu),
      conv("resnet50 res2 1x1 64>64 +relu", 1, 64, 56, 56, 64, 1, 1, 0, 1, relu),
      conv("resnet50 res2 3x3 64 +relu", 1, 64, 56, 56, 64, 3, 1, 1, 1, relu),
      conv("resnet50 res2 1x1 64>256 +add+relu", 1, 64, 56, 56, 256, 1, 1, 0, 1, {"Add", "Relu"}, true),
      conv("resnet50 res3 3x3/2 128 +relu", 1, 128, 56, 56, 128, 3, 2, 1, 1, relu),
      conv("resnet50 res3 1x1/2 256>512 down", 1, 256, 56, 56, 512, 1, 2, 0, 1, none),
      conv("resnet50 res4 3x3 256 +relu", 1, 256, 14, 14, 256, 3, 1, 1, 1, relu),
      conv("resnet50 res5 3x3 512 +relu", 1, 512, 7, 7, 512, 3, 1, 1, 1, relu),
      conv("resnet50 res5 1x1 512>2048 +add+relu", 1, 512, 7, 7, 2048, 1, 1, 0, 1, {"Add", "Relu"}, true),
      conv("resnet50 res2 3x3 64 +relu (batch 8)", 8, 64, 56, 56, 64, 3, 1, 1, 1, relu),
      // MobileNetV2, batch 1.
      conv("mobilenetv2 stem 3x3/2 +relu6", 1, 3, 224, 224, 32, 3, 2, 1, 1, relu6),
      conv("mobilenetv2 dw 3x3 32@112 +relu6", 1, 32, 112, 112, 32, 3, 1, 1, 32, relu6),
      conv("mobilenetv2 dw 3x3/2 144@56 +relu6", 1, 144, 56, 56, 144, 3, 2, 1, 144, relu6),
      conv("mobilenetv2 dw 3x3 960@7 +relu6", 1, 960, 7, 7, 960, 3, 1, 1, 960, relu6),
      conv("mobilenetv2 1x1 24>144 +relu6", 1, 24, 56, 56, 144, 1, 1, 0, 1, relu6),
      conv("mobilenetv2 1x1 144>24 +add", 1, 144, 56, 56, 24, 1, 1, 0, 1, {"Add"}, true),
      conv("mobilenetv2 1x1 320>1280 +relu6", 1, 320, 7, 7, 1280, 1, 1, 0, 1, relu6),
      // BERT-base, sequence 128, batch 1, fp16.
      matmul("bert qkv 128x768x2304 +bias", {1, 128, 768}, {768, 2304}, true, {"Add"}, {tensor({2304}, true)}),
      matmul("bert scores 12x128x64x128 *scale", {1, 12, 128, 64}, {1, 12, 64, 128}, false, {"Mul"},
             {tensor({1}, true)}),
      matmul("bert context 12x128x128x64", {1, 12, 128, 128}, {1, 12, 128, 64}, false),
      matmul("bert attn out 128x768x768 +bias+res", {1, 128, 768}, {768, 768}, true, {"Add", "Add"},
             {tensor({768}, true), tensor({1, 128, 768})}),
      matmul("bert ffn in 128x768x3072 +bias+gelu", {1, 128, 768}, {768, 3072}, true, {"Add", "Gelu"},
             {tensor({3072}, true)}),
      matmul("bert ffn out 128x3072x768 +bias+res", {1, 128, 3072}, {3072, 768}, true, {"Add", "Add"},
             {tensor({768}, true), tensor({1, 128, 768})}),
      op("bert softmax 12x128x128", "Softmax", {tensor({1, 12, 128, 128})}, {{"axis", -1}}),
      op("bert layernorm 128x768", "LayerNormalization", {tensor({1, 128, 768}), tensor({768}, true), tensor({768}, true)},
         {{"axis", -1}}),
      op("bert reducemean 128x768", "ReduceMean", {tensor({1, 128, 768})}, {{"axes", {-1}}}),
      // GELU as x * sigmoid(1.702 x).
      op("bert gelu mul-sigmoid-mul 128x3072", "Mul", {tensor({1, 128, 3072}), tensor({1}, true), tensor({1, 128, 3072})},
         nlohmann::json::object(), {"Sigmoid", "Mul"}),
      // Bias, then GELU's tanh form without its cubic term: 0.5 h (1 + tanh(0.79788 h)).
      op("bert bias+tanh-gelu chain 128x3072", "Add",
         {tensor({1, 128, 3072}), tensor({3072}, true), tensor({1}, true), tensor({1}, true), tensor({1, 128, 3072}),
          tensor({1}, true)},
         nlohmann::json::object(), {"Mul", "Tanh", "Add", "Mul", "Mul"}),
      op("bert transpose heads 128x12x64", "Transpose", {tensor({1, 128, 12, 64})}, {{"perm", {0, 2, 1, 3}}}),
      op("bert transpose key^T 12x128x64", "Transpose", {tensor({1, 12, 128, 64})}, {{"perm", {0, 1, 3, 2}}}),
      op("resnet50 maxpool 3x3/2 64@112", "MaxPool", {tensor({1, 64, 112, 112})},
         {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}),
      op("resnet50 global avgpool 2048@7", "GlobalAveragePool", {tensor({1, 2048, 7, 7})}),
      op("resnet50 residual add+relu 256@56", "Add", {tensor({1, 256, 56, 56}), tensor({1, 256, 56, 56})},
         nlohmann::json::object(), {"Relu"}),
      op("mobilenetv2 avgpool 1280@7", "GlobalAveragePool", {tensor({1, 1280, 7, 7})}),
  };
}

struct Row {
  std::string task;
  double space_size = 0;
  size_t evaluated = 0, valid = 0;
  bool sampled = false;
  double default_us = 0, optimum_us = 0, median_us = 0, evals_per_s = 0;
};

// Calls visit(config) for every config (an odometer over knob values), or
// for `samples` uniform draws when the space is too large.
template <typename Visit>
void walk(const aoe::sdk::TuningSpace& space, bool sampled, size_t samples, uint64_t seed, Visit visit) {
  const auto& knobs = space.knobs;
  aoe::sdk::Config c(knobs.size());
  if (sampled) {
    std::mt19937_64 rng(seed);
    for (size_t i = 0; i < samples; ++i) {
      for (size_t k = 0; k < knobs.size(); ++k) c[k] = knobs[k].values[rng() % knobs[k].values.size()];
      visit(c);
    }
    return;
  }
  aoe::sdk::for_each_config(space, visit);
}

Row measure(const std::string& name, const aoe::sim::OpModel& model, double exhaustive_limit, size_t samples,
            uint64_t seed) {
  Row row;
  row.task = name;
  const auto& space = model.space();
  row.space_size = space.size();
  row.sampled = row.space_size > exhaustive_limit;
  row.default_us = model.time_us(space.default_config);
  std::vector<double> times;
  const auto start = std::chrono::steady_clock::now();
  walk(space, row.sampled, samples, seed, [&](const aoe::sdk::Config& c) {
    ++row.evaluated;
    if (model.check(c).ok()) times.push_back(model.time_us(c));
  });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  row.valid = times.size();
  row.evals_per_s = static_cast<double>(row.evaluated) / std::max(seconds, 1e-9);
  if (times.empty()) return row;
  row.optimum_us = *std::min_element(times.begin(), times.end());
  auto mid = times.begin() + static_cast<std::ptrdiff_t>(times.size() / 2);
  std::nth_element(times.begin(), mid, times.end());
  row.median_us = *mid;
  // A sample may miss the default's neighbourhood; the default is a valid config too.
  row.optimum_us = std::min(row.optimum_us, row.default_us);
  return row;
}

int usage(const char* argv0, int code) {
  std::fprintf(code ? stderr : stdout,
               "usage: %s [--soc <target or file.yaml>] [--exhaustive-limit <configs>] [--samples <n>] [--seed <n>]\n"
               "Walks the simulator's tuning space of each op of ResNet-50, MobileNetV2 and BERT-base\n"
               "(default SoC ascend910): exhaustively up to the limit (default %.0e configs), beyond it\n"
               "<n> uniform samples (default %zu).\n",
               argv0, kExhaustiveLimit, kDefaultSamples);
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  std::string soc = "ascend910";
  size_t samples = kDefaultSamples;
  double exhaustive_limit = kExhaustiveLimit;
  uint64_t seed = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") return usage(argv[0], 0);
    if (i + 1 >= argc) return usage(argv[0], 2);
    if (arg == "--soc") soc = argv[++i];
    else if (arg == "--exhaustive-limit") exhaustive_limit = std::strtod(argv[++i], nullptr);
    else if (arg == "--samples") samples = std::strtoull(argv[++i], nullptr, 10);
    else if (arg == "--seed") seed = std::strtoull(argv[++i], nullptr, 10);
    else return usage(argv[0], 2);
  }
  if (samples == 0 || !(exhaustive_limit >= 0)) return usage(argv[0], 2);

  try {
    aoe::bench::find_source_tree_socs();
    aoe::sim::SimDevice device(aoe::sim::load_soc(soc), aoe::sim::SimOptions{});
    const auto described = device.describe();
    std::printf("sim_spaces_bench on %s (%s); spaces above %.3g configs are sampled %zu times (seed %llu)\n\n",
                soc.c_str(), described.value("soc_version", std::string("?")).c_str(), exhaustive_limit, samples,
                static_cast<unsigned long long>(seed));
    std::printf("%-40s %9s %8s %10s %10s %8s %8s %10s  %s\n", "task", "space", "valid", "default_us", "optimum_us",
                "def/opt", "med/opt", "evals/s", "search");
    std::vector<double> ratios;
    size_t improved = 0, rows = 0;
    for (const auto& task : tasks()) {
      std::unique_ptr<aoe::sim::OpModel> model;
      try {
        model = device.model(task);
      } catch (const std::exception& e) {
        std::printf("%-40s not modelled: %s\n", task.name.c_str(), e.what());
        continue;
      }
      const auto row = measure(task.name, *model, exhaustive_limit, samples, seed);
      ++rows;
      const double ratio = row.default_us / row.optimum_us;
      ratios.push_back(ratio);
      if (row.optimum_us < row.default_us * (1 - 1e-9)) ++improved;
      const std::string search =
          row.sampled ? "sampled " + std::to_string(row.evaluated) : std::string("exhaustive");
      std::printf("%-40s %9.3g %8zu %10.3f %10.3f %8.3f %8.3f %10.3g  %s\n", row.task.c_str(), row.space_size, row.valid,
                  row.default_us, row.optimum_us, ratio, row.median_us / row.optimum_us, row.evals_per_s,
                  search.c_str());
    }
    if (ratios.empty()) return 1;
    std::sort(ratios.begin(), ratios.end());
    const size_t n = ratios.size();
    const double median = n % 2 ? ratios[n / 2] : (ratios[n / 2 - 1] + ratios[n / 2]) / 2;
    std::printf("\nsummary: %zu of %zu tasks have an optimum strictly better than the default; "
                "median default/optimum %.3f\n",
                improved, rows, median);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sim_spaces_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
