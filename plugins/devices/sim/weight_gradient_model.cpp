#include "weight_gradient_model.h"

#include <algorithm>
#include <string>

#include "conv_gradients.h"
#include "vector_model.h"

namespace aoe::sim {
namespace {

int64_t images_of(const sdk::OpTask& task) {
  require_known_inputs(task.inputs, 2, task.op_type);
  return task.inputs[1].shape.empty() ? 1 : task.inputs[1].shape[0];
}

bool strided(const sdk::OpTask& task) {
  for (auto s : attr_ints(task.attrs, "strides", {1, 1}))
    if (s > 1) return true;
  return false;
}

// Elements of x's im2col over those of x: the taps over the strides, at least 1.
double im2col_expansion(const sdk::OpTask& task) {
  const auto kernel = attr_ints(task.attrs, "kernel_shape", {1, 1});
  const auto strides = attr_ints(task.attrs, "strides", {1, 1});
  double taps = 1, stride = 1;
  for (auto k : kernel) taps *= static_cast<double>(k);
  for (auto s : strides) stride *= static_cast<double>(s);
  return std::max(1.0, taps / stride);
}

// The product over `images` of the batch (all where 0); x reaches L1 as a
// map, which load3d expands to the im2col the cube reads.
MatMulProblem product(const sdk::OpTask& task, const Soc& soc, double b_expansion, int64_t images = 0) {
  auto p = matmul_problem(conv_backprop_filter_as_matmul(task, soc, images), soc);
  p.b_expansion = b_expansion;
  return p;
}

}  // namespace

WeightGradientModel::WeightGradientModel(const Soc& soc, const sdk::OpTask& task, bool fused)
    : soc_(soc),
      task_(task),
      images_(images_of(task)),
      b_expansion_(im2col_expansion(task)),
      whole_(soc, product(task, soc, b_expansion_)) {
  using sdk::Knob;
  using sdk::KnobTag;
  const auto& mm = whole_.space();
  space_.version = "1";
  space_.knobs.resize(kKnobCount);
  space_.knobs[kBlockDim] = Knob::integer("block_dim", KnobTag::schedule, 1, std::max<int64_t>(soc_.ai_cores, images_));
  space_.knobs[kBatchDim] = Knob::integer("batch_dim", KnobTag::schedule, 1, images_);
  for (size_t i = kML0; i < kKnobCount; ++i) space_.knobs[i] = mm.knobs[i - kML0 + 1];
  // How many blocks CANN's dw tiling launches [M: the weight gradients of
  // ResNet-50's profile on 30 cores, batch 32: 32 for a strided conv and for
  // FusedDbnDw (whose blocks each take their images' data gradient too), 16
  // for 19 of the 29 others (the rest 26 or 28)]: as many as images there, or
  // the most that split the batch evenly and fit the cores at once.
  // A batch smaller than the cores leaves the rest to the output tiles.
  int64_t blocks = std::max<int64_t>(images_, 1);
  if (images_ < soc_.ai_cores)
    blocks = images_ * (soc_.ai_cores / images_);
  else if (!fused && !strided(task) && images_ > soc_.ai_cores)
    for (blocks = soc_.ai_cores; images_ % blocks != 0;) --blocks;
  // Those blocks split the batch, each adding its partial dw, or a share's
  // output tiles, each writing its part of dw: the split its cost estimate
  // finds fastest (a dw bigger than the batch's maps takes tiles rather than
  // partials of all of it).
  space_.default_config.clear();
  double best = 0;
  for (int64_t batch_dim = 1; batch_dim <= std::min(blocks, images_); ++batch_dim) {
    if (blocks % batch_dim != 0) continue;
    // A share's tiles fill its own cores, not the chip's: its tiling is
    // the one CANN's heuristic picks for that many cores.
    Soc cores = soc_;
    cores.ai_cores = static_cast<int>(blocks / batch_dim);
    const auto t = MatMulTiling::from(MatMulModel(cores, product(task_, soc_, b_expansion_, ceil_div64(images_, batch_dim))).space().default_config);
    const sdk::Config c{blocks, batch_dim, t.m_l0, t.n_l0, t.k_l0, t.k_l1, t.db_l0 ? 1 : 0, t.db_l1 ? 1 : 0};
    if (!check(c).ok()) continue;
    const double us = time_us(c);
    if (space_.default_config.empty() || us < best) {
      space_.default_config = c;
      best = us;
    }
  }
  if (space_.default_config.empty()) {
    const auto t = MatMulTiling::from(whole_.space().default_config);
    space_.default_config = {t.block_dim, 1, t.m_l0, t.n_l0, t.k_l0, t.k_l1, t.db_l0 ? 1 : 0, t.db_l1 ? 1 : 0};
  }
  require_default_fits(soc_, "this weight gradient", check(space_.default_config));
}

MatMulModel WeightGradientModel::share_model(int64_t batch_dim) const {
  return MatMulModel(soc_, product(task_, soc_, b_expansion_, ceil_div64(images_, batch_dim)));
}

MatMulTiling WeightGradientModel::share_tiling(const sdk::Config& c) const {
  return {c[kBlockDim] / c[kBatchDim], c[kML0], c[kNL0], c[kKL0], c[kKL1], c[kDbL0] != 0, c[kDbL1] != 0};
}

sdk::Measurement WeightGradientModel::check(const sdk::Config& c) const {
  if (!space_.in_domain(c)) return refuse("a value lies outside its knob's domain");
  if (c[kBlockDim] % c[kBatchDim] != 0)
    return refuse("block_dim " + std::to_string(c[kBlockDim]) + " is not a multiple of batch_dim " + std::to_string(c[kBatchDim]));
  return share_model(c[kBatchDim]).check(share_tiling(c));
}

// Each block's share of the batch as the product its cores run; blocks
// beyond the cores wait for a free one, so a core runs ceil(blocks / cores)
// of them in turn. A share's reads are bounded by HBM as the product's
// concurrent tiles are: each share's x is its own images', a fraction of
// what its cube work takes.
double WeightGradientModel::time_us(const sdk::Config& c) const {
  const auto share = share_model(c[kBatchDim]);
  const auto cost = share.cost(share_tiling(c));
  const int64_t waves = ceil_div64(c[kBlockDim], soc_.ai_cores);
  const double us = cost.cast_us + static_cast<double>(waves) * cost.core_cycles / soc_.cycles_per_us();
  return std::max(us, roofline_us()) + soc_.launch_us_for(c[kBlockDim]);
}

double WeightGradientModel::roofline_us() const { return whole_.roofline_us(); }

}  // namespace aoe::sim
