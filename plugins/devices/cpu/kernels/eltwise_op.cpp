// Elementwise ops with numpy broadcasting, and the ops fused after them.
#include "op_factories.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "aoe/sdk/error.h"
#include "buffer_kernel.h"
#include "chain.h"
#include "cpu_op.h"
#include "eltwise.h"
#include "held_dtype.h"
#include "op_util.h"
#include "reference.h"

namespace aoe::cpu {
namespace {

const std::vector<int64_t> kChunks = {256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536};

// Inputs drawn where the op is defined and well conditioned: positive for
// roots, logs and powers, away from zero for divisors, inside the inverse
// trigonometric functions' domains.
ValueRange range_for(EltOp op, bool second_operand) {
  switch (op) {
    case EltOp::sqrt:
    case EltOp::log: return {0.1f, 2.0f};
    case EltOp::reciprocal: return {0.5f, 2.0f};
    case EltOp::div:
    case EltOp::fmod: return second_operand ? ValueRange{0.5f, 2.0f} : ValueRange{};
    case EltOp::pow: return second_operand ? ValueRange{-2.0f, 2.0f} : ValueRange{0.1f, 2.0f};
    case EltOp::asin:
    case EltOp::acos:
    case EltOp::atanh: return {-0.9f, 0.9f};
    case EltOp::acosh: return {1.1f, 3.0f};
    default: return {};
  }
}

class EltwiseOp final : public CpuOp {
 public:
  enum Knob : size_t { kIsa, kChunk, kStrategy, kThreads, kKnobCount };

  EltwiseOp(const sdk::OpTask& task, const HostCpu& host) : host_(host) {
    // Integers and bools are whole-number floats: the float kernels add,
    // multiply, compare and clip them exactly (Div and Mod on integers are
    // TypedEltwiseOp's).
    require_dtypes(task, Takes::held);
    const bool integral = !task.outputs.empty() && is_integral(task.outputs[0].dtype);
    const FusedOps fused = fused_ops(task);
    for (const auto& t : task.inputs) inputs_.push_back(t.shape);
    ranges_.assign(inputs_.size(), ValueRange{});

    // Step 0 loads input 0; the anchor then reads input 1 if binary. A unary
    // anchor's further inputs (Clip's bounds as tensors) are not read: the
    // bounds must come as attributes.
    ChainStep anchor = chain_step(task.op_type, task.attrs);
    const size_t anchor_operands = is_binary(anchor.op) ? 2 : 1;
    if (fused.anchor_inputs < anchor_operands)
      invalid(task.op_type + " takes " + std::to_string(anchor_operands) + " inputs, got " +
              std::to_string(fused.anchor_inputs));
    if (anchor.op != EltOp::clip && fused.anchor_inputs > anchor_operands)
      invalid(task.op_type + " takes " + std::to_string(anchor_operands) + " inputs, got " +
              std::to_string(fused.anchor_inputs));
    steps_.push_back({EltOp::copy, 0, 0, 0});
    operand_inputs_.push_back(0);
    if (is_binary(anchor.op)) {
      anchor.operand = 1;
      operand_inputs_.push_back(1);
    }
    steps_.push_back(anchor);
    ranges_[0] = range_for(anchor.op, false);
    if (is_binary(anchor.op)) ranges_[1] = range_for(anchor.op, true);
    for (size_t i = 0; i < ranges_.size() && integral; ++i) ranges_[i] = {-9.0f, 9.0f};
    for (auto step : fused.steps) {
      if (step.operand >= 0) {
        const size_t input = fused.inputs[static_cast<size_t>(step.operand)];
        step.operand = static_cast<int>(operand_inputs_.size());
        operand_inputs_.push_back(input);
        ranges_[input] = range_for(step.op, true);
      }
      steps_.push_back(step);
    }

    if (integral)
      for (const auto& s : steps_)
        if (s.op == EltOp::div || s.op == EltOp::fmod || s.op == EltOp::reciprocal)
          unsupported("the cpu device runs " + task.op_type + " '" + task.name + "' on " +
                      sdk::to_string(task.outputs[0].dtype) + " by its integer kernel, not fused");
    std::vector<Shape> shapes;
    for (size_t i : operand_inputs_) shapes.push_back(inputs_[i]);
    out_ = broadcast(shapes, task.op_type);
    outputs_ = {out_};
    if (!task.outputs.empty() && task.outputs[0].shape != out_)
      invalid(task.op_type + " output is " + to_string(task.outputs[0].shape) + ", expected " + to_string(out_));
    for (const auto& t : task.inputs) input_blocking_.push_back(blocking_of(t, host, task.op_type));
    if (!task.outputs.empty()) output_blocking_ = blocking_of(task.outputs[0], host, task.op_type);
    Shape view = out_.empty() ? Shape{1} : out_;
    if (output_blocking_) {
      view = blocked_view(view, view, true);
      for (size_t j = 0; j < shapes.size(); ++j)
        shapes[j] = blocked_view(align_rank(shapes[j], out_.size()), out_, input_blocking_[operand_inputs_[j]] > 0);
    } else if (std::any_of(input_blocking_.begin(), input_blocking_.end(), [](int lanes) { return lanes > 0; })) {
      invalid(task.op_type + " '" + task.name + "' takes a blocked input but leaves its output NCHW");
    }
    // Rows x cols with the longest run of cols every operand follows, ignores or
    // repeats along (a per-channel one on the blocked layout, its lanes).
    size_t split = view.size() - 1;
    for (size_t s = 0; s + 1 < view.size(); ++s) {
      bool fits = true;
      for (const auto& shape : shapes) fits = fits && operand_layout(shape, view, s, true).has_value();
      if (fits) {
        split = s;
        break;
      }
    }
    for (const auto& shape : shapes) layouts_.push_back(*operand_layout(shape, view, split, true));
    rows_ = elements(Shape(view.begin(), view.begin() + static_cast<std::ptrdiff_t>(split)));
    cols_ = elements(Shape(view.begin() + static_cast<std::ptrdiff_t>(split), view.end()));

    const int64_t total = elements(out_);
    space_.version = "1";
    space_.knobs.resize(kKnobCount);
    space_.knobs[kIsa] = isa_knob();
    space_.knobs[kChunk] = sized_knob("chunk", kChunks, total);
    space_.knobs[kStrategy] = choice_knob("strategy", sdk::KnobTag::schedule, {"fused", "op_by_op"});
    space_.knobs[kThreads] = threads_knob(host);
    // A runtime's choice: the widest ISA, chunks of every stream in half of
    // L1, every op on a chunk at once, threads for the work.
    const int64_t streams = static_cast<int64_t>(shapes.size()) + 1;
    space_.default_config = {static_cast<int64_t>(host.best_isa()),
                             at_most(space_.knobs[kChunk], host.l1d_bytes() / 2 / (4 * streams)), 0,
                             default_threads(host, static_cast<double>(total) * static_cast<double>(steps_.size()) * 0.3)};
  }

  ValueRange input_range(size_t i) const override { return ranges_[i]; }

  std::string check(const sdk::Config& c) const override { return isa_refusal(host_, c[kIsa]); }
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;

  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override {
    std::vector<RefOperand> operands;
    for (size_t i : operand_inputs_) operands.push_back({inputs[i], inputs_[i]});
    std::vector<double> values(static_cast<size_t>(elements(out_)), 0.0);
    reference_chain(steps_, operands, out_, values);
    store(values, outputs[0]);
  }

 private:
  friend class EltwiseKernel;

  // On the blocked layout the op runs over N x C/L x map x L: a blocked
  // operand (of the output's shape) has that shape, and so, as NCHW lays it
  // out, does an operand constant over the map ([N, C, 1...]) or over the
  // channels ([N, 1, map] is [N, 1, map, 1]).
  Shape blocked_view(const Shape& s, const Shape& out, bool blocked) const {
    const int lanes = output_blocking_;
    if (out.size() < 3 || out[1] % lanes != 0)
      invalid("an elementwise op's blocked output must be N x C x map with C a multiple of " + std::to_string(lanes) +
              ", not " + to_string(out));
    const bool per_channel = dims_product(s, 2, s.size()) == 1;
    if (blocked ? s != out : s[1] != 1 && !per_channel)
      invalid("an elementwise op on the blocked layout takes operands of its output's shape " + to_string(out) +
              " marked NCHWc, or NCHW ones constant over the channels or the map, not " + to_string(s));
    Shape v = {s[0], s[1] == 1 ? 1 : s[1] / lanes};
    v.insert(v.end(), s.begin() + 2, s.end());
    v.push_back(s[1] == 1 ? 1 : lanes);
    return v;
  }
  const HostCpu& host_;
  Shape out_;
  int64_t rows_ = 1, cols_ = 1;
  std::vector<ChainStep> steps_;       // the first copies operand 0
  std::vector<size_t> operand_inputs_;
  std::vector<OperandLayout> layouts_;
  std::vector<ValueRange> ranges_;
};

class EltwiseKernel final : public BufferKernel {
 public:
  EltwiseKernel(const EltwiseOp& op, const EltwiseConfig& cfg) : BufferKernel(op), op_(op), cfg_(cfg) {}

  void bind(const std::vector<const float*>& inputs) override {
    BufferKernel::bind(inputs);
    chain_.steps = op_.steps_;
    chain_.operands.clear();
    for (size_t i = 0; i < op_.operand_inputs_.size(); ++i)
      chain_.operands.push_back({inputs[op_.operand_inputs_[i]], &op_.layouts_[i]});
  }
  void run(ThreadPool& pool) override { eltwise(cfg_, chain_, outputs_[0].data(), op_.rows_, op_.cols_, pool); }

 private:
  const EltwiseOp& op_;
  EltwiseConfig cfg_;
  Chain chain_;
};

std::unique_ptr<Kernel> EltwiseOp::build(const sdk::Config& c) const {
  EltwiseConfig cfg;
  cfg.isa = &kernels_for(c[kIsa]);
  cfg.chunk = c[kChunk];
  cfg.strategy = c[kStrategy] == 0 ? EltStrategy::fused : EltStrategy::op_by_op;
  cfg.threads = static_cast<int>(c[kThreads]);
  return std::make_unique<EltwiseKernel>(*this, cfg);
}

}  // namespace

std::unique_ptr<CpuOp> make_eltwise_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<EltwiseOp>(task, host);
}

}  // namespace aoe::cpu
