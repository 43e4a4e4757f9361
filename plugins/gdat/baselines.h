// What frameworks do without tuning, as splits of the same gradients, so the
// answer is compared with each under the same timeline and cost.
#pragma once

#include <string>
#include <vector>

#include "allreduce_cost.h"
#include "gradient_profile.h"
#include "split.h"

namespace aoe::gdat {

struct Baseline {
  std::string name;
  std::string description;
  Split split;
  std::vector<double> release;  // per segment, for schemes that launch on a clock
};

Baseline no_fusion(size_t count);
Baseline single_bucket(size_t count);
// DDP after its first-iteration rebuild: caps [1 MiB, 25 MiB, 25 MiB...].
Baseline ddp_default(const std::vector<uint64_t>& bytes);
// Horovod: every cycle, the gradients ready by then, packed in order into
// buffers of at most threshold bytes; the background loop waits for its
// allreduces before the next cycle.
Baseline horovod(const GradientProfile& profile, const AllreduceCost& cost, double threshold_bytes, double cycle_us,
                 const std::string& name);
// HCCL's default split: 96.54% / 3.46% of the bytes.
Baseline hccl_default(const std::vector<uint64_t>& bytes);
// MindSpore's comm_fusion "auto": fuse up to 64 MB.
Baseline mindspore_auto(const std::vector<uint64_t>& bytes);
// MindSpore's model-zoo ResNet-50 split [85, 160].
Baseline mindspore_resnet50(size_t count);

// Every baseline that applies: MindSpore's [85, 160] only to a list of 161
// gradients, ResNet-50's.
std::vector<Baseline> all_baselines(const GradientProfile& profile, const AllreduceCost& cost);

}  // namespace aoe::gdat
