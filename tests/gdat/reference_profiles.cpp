#include "reference_profiles.h"

#include <map>
#include <stdexcept>

namespace aoe::gdat::test {
namespace {

constexpr double kFlopsPerUs = 100e6;  // 100 TFLOP/s
constexpr double kBytesPerUs = 0.9e6;  // 0.9 TB/s
constexpr double kActBytes = 2;        // fp16 activations

double work_us(double flops, double bytes) { return flops / kFlopsPerUs + bytes / kBytesPerUs; }

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// "layer2.0.conv1.weight" -> "layer2.0.conv1": a layer's tensors are final together.
std::string layer_of(const std::string& name) {
  for (const char* tail : {".weight", ".bias"})
    if (ends_with(name, tail)) return name.substr(0, name.size() - std::string(tail).size());
  return name;
}

// Output side of each ResNet-50 v1.5 layer: the stride sits on conv2 of a stage's first block.
double resnet_spatial(const std::string& layer) {
  if (layer == "conv1" || layer == "bn1") return 112;
  if (layer == "fc") return 1;
  const int stage = layer[5] - '0';
  const double base = 56.0 / (1 << (stage - 1));
  const bool first_block = layer.compare(6, 3, ".0.") == 0;
  const bool before_stride = ends_with(layer, "conv1") || ends_with(layer, "bn1");
  return stage > 1 && first_block && before_stride ? base * 2 : base;
}

double resnet_layer_us(const std::string& layer, const ProfileRow& weight, double batch) {
  const double hw = resnet_spatial(layer) * resnet_spatial(layer);
  const double numel = static_cast<double>(weight.bytes) / 4;
  if (layer == "fc") return work_us(2 * numel * batch, 0);
  const bool conv = layer.find("conv") != std::string::npos || ends_with(layer, "downsample.0");
  if (conv) return work_us(2 * numel * hw * batch, 0);  // the BN after it counts the activation traffic
  // BatchNormalization with its ReLU and residual add: read, write, and backward's reads.
  return work_us(0, 4 * numel * hw * batch * kActBytes);
}

double bert_layer_us(const std::string& layer, const ProfileRow& weight, double batch) {
  constexpr double seq = 128, hidden = 768, heads = 12;
  const double tokens = batch * seq;
  const double numel = static_cast<double>(weight.bytes) / 4;
  if (layer.find("embeddings.") == 0 && layer.find("LayerNorm") == std::string::npos)
    return work_us(0, numel * 4 + 2 * tokens * hidden * kActBytes);  // a dense gradient, scattered rows
  if (layer.find("LayerNorm") != std::string::npos) return work_us(0, 4 * tokens * hidden * kActBytes);
  if (layer.find("pooler") == 0) return work_us(2 * numel * batch, 0);
  double us = work_us(2 * numel * tokens, 0);
  if (ends_with(layer, "intermediate.dense")) us += work_us(0, 3 * tokens * 3072 * kActBytes);  // GELU
  if (ends_with(layer, "attention.self.value"))  // scores, softmax and context, before the projections
    us += work_us(4 * batch * seq * seq * hidden, 3 * batch * heads * seq * seq * kActBytes);
  return us;
}

}  // namespace

GradientProfile reference_profile(const std::filesystem::path& csv, const std::string& model, int batch) {
  if (model != "resnet50" && model != "bert_base") throw std::invalid_argument("no reference model " + model);
  const ProfileFile file = read_profile_csv(csv);
  std::map<std::string, double> layer_us;  // forward time of each layer, from its first tensor (the weight)
  double forward = 0;
  for (const auto& row : file.rows) {
    const auto layer = layer_of(row.name);
    if (layer_us.count(layer)) continue;
    const double us = model == "resnet50" ? resnet_layer_us(layer, row, batch) : bert_layer_us(layer, row, batch);
    layer_us[layer] = us;
    forward += us;
  }
  GradientProfile p;
  double clock = 0;
  std::map<std::string, bool> done;
  for (auto it = file.rows.rbegin(); it != file.rows.rend(); ++it) {
    const auto layer = layer_of(it->name);
    if (!done[layer]) clock += 2 * layer_us[layer], done[layer] = true;
    p.grads.push_back({it->name, it->bytes, clock});
  }
  p.backward_us = clock;
  p.forward_us = forward;
  p.source = model + " reference profile, batch " + std::to_string(batch);
  return p;
}

}  // namespace aoe::gdat::test
