#include "baselines.h"

#include <algorithm>
#include <cmath>

namespace aoe::gdat {
namespace {

constexpr double kMiB = 1048576.0;

std::vector<uint64_t> sizes(const GradientProfile& p) {
  std::vector<uint64_t> out;
  for (const auto& g : p.grads) out.push_back(g.bytes);
  return out;
}

}  // namespace

Baseline no_fusion(size_t count) {
  Baseline b{"no_fusion", "one allreduce per gradient (WFBP)", {}, {}};
  for (size_t i = 0; i < count; ++i) b.split.push_back(i);
  return b;
}

Baseline single_bucket(size_t count) {
  return {"single_bucket", "one allreduce after backward (MindSpore without a fusion config)", {count - 1}, {}};
}

Baseline ddp_default(const std::vector<uint64_t>& bytes) {
  return {"ddp_25mb", "PyTorch DDP buckets: 1 MiB first, then 25 MiB", split_from_ddp_caps({1.0}, bytes, 25.0), {}};
}

Baseline horovod(const GradientProfile& p, const AllreduceCost& cost, double threshold_bytes, double cycle_us,
                 const std::string& name) {
  char text[96];
  std::snprintf(text, sizeof text, "Horovod tensor fusion: %.0f MiB buffers, %.0f ms cycle", threshold_bytes / kMiB,
                cycle_us / 1000);
  Baseline b{name, text, {}, {}};
  const size_t L = p.size();
  size_t next = 0;
  double tick = cycle_us, link_free = 0;
  while (next < L) {
    if (p.grads[next].ready_us > tick) tick += std::ceil((p.grads[next].ready_us - tick) / cycle_us) * cycle_us;
    size_t j = next;
    while (j < L && p.grads[j].ready_us <= tick) ++j;
    // Pack what is ready in order; a gradient larger than the buffer goes alone.
    double size = 0;
    for (size_t i = next; i < j; ++i) {
      const double bi = static_cast<double>(p.grads[i].bytes);
      if (size > 0 && size + bi > threshold_bytes) {
        b.split.push_back(i - 1);
        b.release.push_back(tick);
        link_free = std::max(link_free, tick) + cost(size);
        size = 0;
      }
      size += bi;
    }
    b.split.push_back(j - 1);
    b.release.push_back(tick);
    link_free = std::max(link_free, tick) + cost(size);
    next = j;
    // The loop runs the cycle's allreduces before it looks again.
    tick = std::max(tick + cycle_us, link_free);
  }
  return b;
}

Baseline hccl_default(const std::vector<uint64_t>& bytes) {
  return {"hccl_default", "HCCL default: 96.54% / 3.46% of the bytes", split_from_sizes({96.54, 3.46}, bytes), {}};
}

Baseline mindspore_auto(const std::vector<uint64_t>& bytes) {
  Baseline b{"mindspore_auto_64mb", "MindSpore comm_fusion auto: fused up to 64 MB", {}, {}};
  double size = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    const double bi = static_cast<double>(bytes[i]);
    if (size > 0 && size + bi > 64 * kMiB) {
      b.split.push_back(i - 1);
      size = 0;
    }
    size += bi;
  }
  b.split.push_back(bytes.size() - 1);
  return b;
}

Baseline mindspore_resnet50(size_t count) {
  return {"mindspore_85_160", "MindSpore model-zoo ResNet-50 all_reduce_fusion_config [85, 160]",
          split_from_indices({85, 160}, count), {}};
}

std::vector<Baseline> all_baselines(const GradientProfile& profile, const AllreduceCost& cost) {
  const auto bytes = sizes(profile);
  std::vector<Baseline> out = {no_fusion(profile.size()), single_bucket(profile.size()), ddp_default(bytes),
                               horovod(profile, cost, 64 * kMiB, 5000, "horovod_64mb_5ms"),
                               horovod(profile, cost, 128 * kMiB, 1000, "horovod_128mb_1ms"),
                               hccl_default(bytes), mindspore_auto(bytes)};
  if (profile.size() == 161) out.push_back(mindspore_resnet50(profile.size()));
  return out;
}

}  // namespace aoe::gdat
