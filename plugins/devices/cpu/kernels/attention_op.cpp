#include "attention_op.h"

#include <algorithm>
#include <cmath>

#include "buffer.h"
#include "catalog.h"
#include "op_util.h"
#include "reference.h"

namespace aoe::cpu {
namespace {

const std::vector<int64_t> kRowValues = {8, 16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 1024, 2048, 4096};

// Start of each batch index in a view: its batch dims' strides.
std::vector<int64_t> batch_starts(const StridedView& view, size_t batch_dims) {
  const Shape batch(view.shape.begin(), view.shape.begin() + static_cast<std::ptrdiff_t>(batch_dims));
  std::vector<int64_t> out;
  std::vector<int64_t> index(batch_dims, 0);
  do {
    int64_t at = 0;
    for (size_t d = 0; d < batch_dims; ++d) at += index[d] * view.strides[d];
    out.push_back(at);
  } while (next_index(index, batch));
  return out;
}

StridedMatrix inner(const StridedView& view) {
  const size_t r = view.shape.size();
  return {nullptr, view.strides[r - 2], view.strides[r - 1]};
}

}  // namespace

class AttentionKernel final : public Kernel {
 public:
  AttentionKernel(const AttentionOp& op, const sdk::Config& c)
      : op_(op),
        rows_(std::min(c[AttentionOp::kRows], op.sq_)),
        threads_(static_cast<int>(c[AttentionOp::kThreads])),
        out_(elements(op.output_shapes()[0])) {
    const auto& shape = ukernel_catalog()[static_cast<size_t>(c[AttentionOp::kUKernel])];
    isa_ = &kernels_for(static_cast<int64_t>(shape.isa));
    for (auto* cfg : {&scores_cfg_, &context_cfg_}) {
      cfg->isa = isa_;
      cfg->ukernel = *find_ukernel(*isa_, shape.mr, shape.nr);
      cfg->mc = round_up(rows_, shape.mr);
    }
    scores_cfg_.kc = std::min<int64_t>(op.d_, 512);
    scores_cfg_.nc = round_up(op.sk_, shape.nr);
    context_cfg_.kc = std::min<int64_t>(op.sk_, 512);
    context_cfg_.nc = round_up(op.dv_, shape.nr);
    context_cfg_.b_in_place = c[AttentionOp::kPackV] == 1;
    scores_ws_ = std::make_unique<GemmWorkspace>(scores_cfg_, threads_);
    context_ws_ = std::make_unique<GemmWorkspace>(context_cfg_, threads_);
    for (int t = 0; t < threads_; ++t) probs_.emplace_back(rows_ * op.sk_);
  }

  void bind(const std::vector<const float*>& inputs) override {
    inputs_ = inputs;
    chain_.steps = op_.chain_;
    chain_.operands.clear();
    for (size_t i = 0; i < op_.operand_layouts_.size(); ++i) chain_.operands.push_back({inputs[3 + i], &op_.operand_layouts_[i]});
  }

  void run(ThreadPool& pool) override {
    const int64_t blocks = (op_.sq_ + rows_ - 1) / rows_;
    pool.run(op_.batches_ * blocks, threads_, [&](int64_t task, int thread) {
      const auto b = static_cast<size_t>(task / blocks);
      const int64_t r0 = task % blocks * rows_, rows = std::min(rows_, op_.sq_ - r0);
      float* probs = probs_[static_cast<size_t>(thread)].data();
      GemmCall scores;
      scores.m = rows;
      scores.n = op_.sk_;
      scores.k = op_.d_;
      scores.a = op_.q_;
      scores.a.data = inputs_[0] + op_.q_at_[b] + r0 * op_.q_.row_step;
      StridedMatrix k = op_.k_;
      k.data = inputs_[1] + op_.k_at_[b];
      const DenseSource k_source(k);
      scores.b = &k_source;
      scores.c = probs;
      scores.ldc = op_.sk_;
      scores.epilogue = chain_.empty() ? nullptr : &chain_;
      scores.epilogue_row = static_cast<int64_t>(b) * op_.sq_ + r0;
      gemm(scores_cfg_, scores, *scores_ws_, nullptr, thread);
      for (int64_t i = 0; i < rows; ++i) isa_->softmax_row(probs + i * op_.sk_, probs + i * op_.sk_, op_.sk_, 3);
      GemmCall context;
      context.m = rows;
      context.n = op_.dv_;
      context.k = op_.sk_;
      context.a = {probs, op_.sk_, 1};
      StridedMatrix v = op_.v_;
      v.data = inputs_[2] + op_.v_at_[b];
      const DenseSource v_source(v);
      context.b = &v_source;
      context.c = out_.data() + op_.out_at_[b] + r0 * op_.out_row_;
      context.ldc = op_.out_row_;
      gemm(context_cfg_, context, *context_ws_, nullptr, thread);
    });
  }

  void read_output(size_t, float* out) const override { std::copy(out_.data(), out_.data() + out_.size(), out); }
  float* output_data() override { return out_.data(); }
  const float* kept_output(size_t) const override { return out_.data(); }

  Footprint footprint() const override {
    Footprint f = scores_ws_->footprint();
    const auto more = context_ws_->footprint();
    f.insert(f.end(), more.begin(), more.end());
    for (const auto& p : probs_) f.emplace_back(p.data(), p.bytes());
    f.emplace_back(out_.data(), out_.bytes());
    add_input_buffers(f, inputs_, op_);
    return f;
  }
  int64_t placeable_elements(size_t) const override { return out_.size(); }
  void place_output(size_t, float* at) override { out_.place(at); }

 private:
  const AttentionOp& op_;
  int64_t rows_;
  int threads_;
  const IsaKernels* isa_ = nullptr;
  GemmConfig scores_cfg_, context_cfg_;
  std::unique_ptr<GemmWorkspace> scores_ws_, context_ws_;
  std::vector<Buffer> probs_;  // per thread: a block of scores, then of probabilities
  Buffer out_;
  std::vector<const float*> inputs_;
  Chain chain_;
};

AttentionOp::AttentionOp(const AttentionPattern& pattern, const sdk::Graph& graph, const HostCpu& host)
    : host_(host), pattern_(pattern) {
  const auto& p = pattern_;
  const size_t rank = p.scores.size(), batch_dims = rank - 2;
  sq_ = p.scores[rank - 2];
  sk_ = p.scores[rank - 1];
  d_ = p.q.shape[rank - 1];
  dv_ = p.v.shape[rank - 1];
  if (elements(p.scores) == 0 || d_ == 0 || dv_ == 0) unsupported("an attention core over empty tensors");
  q_at_ = batch_starts(p.q, batch_dims);
  k_at_ = batch_starts(p.k, batch_dims);
  v_at_ = batch_starts(p.v, batch_dims);
  out_at_ = batch_starts(p.out, batch_dims);
  batches_ = static_cast<int64_t>(q_at_.size());
  q_ = inner(p.q);
  k_ = inner(p.k);
  v_ = inner(p.v);
  out_row_ = p.out.strides[rank - 2];

  reads_ = {p.q.tensor, p.k.tensor, p.v.tensor};
  for (size_t i = 0; i < p.chain.size(); ++i) {
    ChainStep step = chain_step(p.chain[i].op_type, p.chain[i].attrs);
    if (!p.operands[i].empty()) {
      const Shape& shape = graph.tensor(p.operands[i]).shape;
      step.operand = static_cast<int>(operand_layouts_.size());
      operand_layouts_.push_back(*operand_layout(shape, p.scores, rank - 1));
      reads_.push_back(p.operands[i]);
    }
    chain_.push_back(step);
  }
  for (const auto& name : reads_) inputs_.push_back(graph.tensor(name).shape);
  outputs_ = {graph.tensor(p.out.tensor).shape};

  space_.version = "1";
  std::vector<std::string> ukernels;
  for (const auto& u : ukernel_catalog()) ukernels.push_back(u.label());
  space_.knobs = {choice_knob("ukernel", sdk::KnobTag::impl, ukernels), sized_knob("rows", kRowValues, sq_),
                  choice_knob("pack_v", sdk::KnobTag::format, {"per_call", "none"}), threads_knob(host)};
  space_.default_config = default_config();
  if (const auto why = check(space_.default_config); !why.empty())
    throw sdk::Error(sdk::StatusCode::internal, "the default attention config is refused: " + why);
}

// Threads for the work; query rows in blocks small enough that every
// thread gets two and a block of scores fits in half of L2; the widest
// ISA's micro-kernel that pads the two small GEMMs least (the first, the
// largest, on a tie): a 14-row tile over 128 rows computes 12 padding rows,
// an 8-row one none.
sdk::Config AttentionOp::default_config() const {
  sdk::Config c(kKnobCount, 0);
  const double flops = 2.0 * static_cast<double>(batches_ * sq_ * sk_ * (d_ + dv_));
  c[kThreads] = default_threads(host_, flops / 20.0);
  const int64_t blocks = std::max<int64_t>(1, (2 * c[kThreads] + batches_ - 1) / batches_);
  const int64_t want = std::min((sq_ + blocks - 1) / blocks, host_.l2_bytes() / 2 / (sk_ * 4));
  const auto& row_values = space_.knobs[kRows].values;
  c[kRows] = want >= sq_ ? row_values.back() : at_most(space_.knobs[kRows], want);
  const int64_t rows = std::min(c[kRows], sq_);
  const auto& catalog = ukernel_catalog();
  int64_t least = 0;
  for (size_t i = 0; i < catalog.size(); ++i) {
    if (catalog[i].isa != host_.best_isa()) continue;
    const int64_t mr = catalog[i].mr, nr = catalog[i].nr;
    const int64_t work = round_up(rows, mr) * (round_up(sk_, nr) * d_ + round_up(dv_, nr) * sk_);
    if (least == 0 || work < least) least = work, c[kUKernel] = static_cast<int64_t>(i);
  }
  c[kPackV] = 0;
  return c;
}

std::string AttentionOp::check(const sdk::Config& c) const {
  const auto& shape = ukernel_catalog()[static_cast<size_t>(c[kUKernel])];
  if (auto why = isa_refusal(host_, static_cast<int64_t>(shape.isa)); !why.empty()) return why;
  if (c[kPackV] == 1 && v_.col_step != 1) return "pack_v=none reads V's rows in place; this V's rows are strided";
  return {};
}

std::unique_ptr<Kernel> AttentionOp::build(const sdk::Config& c) const { return std::make_unique<AttentionKernel>(*this, c); }

// Scores, chain and softmax per row in double precision, from the views.
void AttentionOp::reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const {
  std::vector<double> scores(static_cast<size_t>(batches_ * sq_ * sk_), 0.0);
  for (int64_t b = 0; b < batches_; ++b)
    for (int64_t i = 0; i < sq_; ++i)
      for (int64_t j = 0; j < sk_; ++j) {
        double s = 0;
        for (int64_t d = 0; d < d_; ++d)
          s += static_cast<double>(inputs[0][q_at_[b] + i * q_.row_step + d * q_.col_step]) *
               inputs[1][k_at_[b] + d * k_.row_step + j * k_.col_step];
        scores[static_cast<size_t>((b * sq_ + i) * sk_ + j)] = s;
      }
  std::vector<RefOperand> operands;
  for (size_t i = 0, next = 3; i < pattern_.operands.size(); ++i)
    if (!pattern_.operands[i].empty()) operands.push_back({inputs[next], inputs_[next]}), ++next;
  reference_chain(chain_, operands, pattern_.scores, scores);
  std::vector<double> out(static_cast<size_t>(elements(outputs_[0])), 0.0);
  for (int64_t b = 0; b < batches_; ++b)
    for (int64_t i = 0; i < sq_; ++i) {
      double* row = scores.data() + (b * sq_ + i) * sk_;
      const double top = *std::max_element(row, row + sk_);
      double sum = 0;
      for (int64_t j = 0; j < sk_; ++j) sum += row[j] = std::exp(row[j] - top);
      for (int64_t e = 0; e < dv_; ++e) {
        double acc = 0;
        for (int64_t j = 0; j < sk_; ++j) acc += row[j] / sum * inputs[2][v_at_[b] + j * v_.row_step + e * v_.col_step];
        out[static_cast<size_t>(out_at_[b] + i * out_row_ + e)] = acc;
      }
    }
  store(out, outputs[0]);
}

}  // namespace aoe::cpu
