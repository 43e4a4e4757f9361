// RNN, GRU and LSTM (ONNX's default activations: tanh; sigmoid and tanh;
// sigmoid, tanh and tanh), forward, reverse or bidirectional, `layout` 0
// (time first) or 1 (batch first), with their optional bias, sequence
// lengths, initial state and LSTM's peepholes and input_forget, GRU's
// linear_before_reset, and clip (each gate's input to its activation bounded,
// as ONNX Runtime bounds it).
// The frontend names which optional inputs and outputs the node has
// ("input_slots", "output_slots"); the sequence lengths are the model's
// constant, folded into "sequence_lens". Outputs: Y, Y_h, LSTM's Y_c.
// As ONNX Runtime runs them: every step's input projection X W^T as one
// GEMM, then step by step the recurrent product H R^T (a matrix-vector
// product at batch 1) and the gates, vectorised.
#include "op_factories.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"
#include "gemm.h"
#include "catalog.h"
#include "op_util.h"
#include "reference.h"
#include "threads_kernel.h"

namespace aoe::cpu {
namespace {

class RecurrentOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };
  enum class Cell { rnn, gru, lstm };
  // Input and output slots as ONNX numbers them.
  enum In : int { kX, kW, kR, kB, kLens, kInitialH, kInitialC, kP, kInSlots };
  enum Out : int { kY, kYh, kYc, kOutSlots };

  RecurrentOp(const sdk::OpTask& task, const HostCpu& host) : host_(&host) {
    const std::string& t = task.op_type;
    const std::string who = t + " '" + task.name + "'";
    cell_ = t == "LSTM" ? Cell::lstm : t == "GRU" ? Cell::gru : Cell::rnn;
    if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after " + t);
    in_ = tensor_slots(task, "input_slots", task.inputs.size(), kInSlots);
    out_ = tensor_slots(task, "output_slots", task.outputs.size(), kOutSlots);
    if (in_[kX] < 0 || in_[kW] < 0 || in_[kR] < 0) invalid(who + " takes X, W and R");
    if (cell_ != Cell::lstm && (in_[kInitialC] >= 0 || in_[kP] >= 0 || out_[kYc] >= 0)) invalid(who + " has no initial_c, P nor Y_c");
    require_f32(task, in_[kLens] >= 0 ? std::vector<size_t>{static_cast<size_t>(in_[kLens])} : std::vector<size_t>{});
    if (task.attrs.contains("clip")) {
      clip_ = static_cast<float>(float_attr(task.attrs, "clip", 0.0f));
      if (!(clip_ > 0)) invalid(who + ": clip must be above 0");
    }
    input_forget_ = cell_ == Cell::lstm && int_attr(task.attrs, "input_forget", 0) != 0;
    const std::string direction = string_attr(task.attrs, "direction", "forward");
    if (direction == "bidirectional") directions_ = 2;
    else if (direction == "reverse") reverse_only_ = true;
    else if (direction != "forward") invalid(who + ": direction '" + direction + "' is none of forward, reverse, bidirectional");
    std::vector<std::string> defaults = cell_ == Cell::lstm ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
                                        : cell_ == Cell::gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                             : std::vector<std::string>{"Tanh"};
    if (task.attrs.contains("activations")) {
      std::vector<std::string> want;
      for (int64_t d = 0; d < directions_; ++d) want.insert(want.end(), defaults.begin(), defaults.end());
      if (task.attrs.at("activations") != nlohmann::json(want))
        unsupported(who + ": the cpu device runs the default activations only");
    }
    batch_first_ = int_attr(task.attrs, "layout", 0) != 0;
    linear_before_reset_ = int_attr(task.attrs, "linear_before_reset", 0) != 0;
    const auto shape = [&](int slot) { return task.inputs[static_cast<size_t>(in_[static_cast<size_t>(slot)])].shape; };
    const Shape x = shape(kX), w = shape(kW), r = shape(kR);
    if (x.size() != 3) invalid(who + ": X must be 3-D, not " + to_string(x));
    steps_ = batch_first_ ? x[1] : x[0];
    batch_ = batch_first_ ? x[0] : x[1];
    input_ = x[2];
    hidden_ = int_attr(task.attrs, "hidden_size", w.size() == 3 ? w[1] / gates() : 0);
    const int64_t g = gates();
    if (w != Shape{directions_, g * hidden_, input_} || r != Shape{directions_, g * hidden_, hidden_})
      invalid(who + ": W " + to_string(w) + " and R " + to_string(r) + " for " + std::to_string(directions_) + " directions of " +
              std::to_string(hidden_) + " units over " + std::to_string(input_) + " inputs");
    const Shape state = batch_first_ ? Shape{batch_, directions_, hidden_} : Shape{directions_, batch_, hidden_};
    if (in_[kB] >= 0 && shape(kB) != Shape{directions_, 2 * g * hidden_}) invalid(who + ": B is " + to_string(shape(kB)));
    for (int slot : {kInitialH, kInitialC})
      if (in_[slot] >= 0 && shape(slot) != state) invalid(who + ": an initial state is " + to_string(shape(slot)) + ", not " + to_string(state));
    if (in_[kP] >= 0 && shape(kP) != Shape{directions_, 3 * hidden_}) invalid(who + ": P is " + to_string(shape(kP)));
    lengths_.assign(static_cast<size_t>(batch_), steps_);
    if (in_[kLens] >= 0) {
      lengths_ = folded_ints(task, static_cast<size_t>(in_[kLens]), "sequence_lens");
      if (static_cast<int64_t>(lengths_.size()) != batch_) invalid(who + ": a sequence length per batch entry");
      for (int64_t l : lengths_)
        if (l < 0 || l > steps_) invalid(who + ": sequence length " + std::to_string(l) + " for " + std::to_string(steps_) + " steps");
    }
    for (const auto& i : task.inputs) inputs_.push_back(i.shape);
    const Shape y = batch_first_ ? Shape{batch_, steps_, directions_, hidden_} : Shape{steps_, directions_, batch_, hidden_};
    for (int slot = 0; slot < static_cast<int>(out_.size()); ++slot) {
      const int i = out_[static_cast<size_t>(slot)];
      if (i < 0) continue;
      if (static_cast<size_t>(i) >= outputs_.size()) outputs_.resize(static_cast<size_t>(i) + 1);
      outputs_[static_cast<size_t>(i)] = slot == kY ? y : state;
      if (task.outputs[static_cast<size_t>(i)].fully_known() && task.outputs[static_cast<size_t>(i)].shape != outputs_[static_cast<size_t>(i)])
        invalid(who + ": output " + std::to_string(i) + " is " + to_string(task.outputs[static_cast<size_t>(i)].shape) + ", expected " +
                to_string(outputs_[static_cast<size_t>(i)]));
    }
    w_constant_ = task.inputs[static_cast<size_t>(in_[kW])].constant;
    r_constant_ = task.inputs[static_cast<size_t>(in_[kR])].constant;
    space_.version = "1";
    space_.knobs.resize(kKnobCount);
    space_.knobs[kThreads] = threads_knob(host);
    // Threads share each step's recurrent product: worth a region only where one step is.
    const double step_flops = 2.0 * static_cast<double>(batch_ * g * hidden_ * hidden_);
    space_.default_config = {default_threads(host, step_flops / 20.0)};
  }

  std::string check(const sdk::Config&) const override { return {}; }
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;

  // ONNX's equations step by step in double, each gate's sums written out.
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const auto input = [&](int slot) { return in_[static_cast<size_t>(slot)] < 0 ? nullptr : in[static_cast<size_t>(in_[static_cast<size_t>(slot)])]; };
    const auto output = [&](int slot) { return out_[static_cast<size_t>(slot)] < 0 ? nullptr : out[static_cast<size_t>(out_[static_cast<size_t>(slot)])]; };
    const float *x = input(kX), *w = input(kW), *r = input(kR), *bias = input(kB), *p = input(kP);
    const int64_t hid = hidden_, g = gates();
    // clip bounds each gate's input to its activation, as ONNX Runtime applies it (not the cell's to h()).
    const auto bound = [&](double v) { return clip_ > 0 ? std::clamp<double>(v, -clip_, clip_) : v; };
    const auto sig = [&](double v) { return 1 / (1 + std::exp(-bound(v))); };
    const auto act = [&](double v) { return std::tanh(bound(v)); };
    for (int64_t d = 0; d < directions_; ++d)
      for (int64_t b = 0; b < batch_; ++b) {
        std::vector<double> h(static_cast<size_t>(hid), 0.0), c(h);
        for (int64_t k = 0; k < hid; ++k) {
          if (const float* h0 = input(kInitialH)) h[static_cast<size_t>(k)] = h0[h_at(d, b) + k];
          if (const float* c0 = input(kInitialC)) c[static_cast<size_t>(k)] = c0[h_at(d, b) + k];
        }
        const int64_t len = lengths_[static_cast<size_t>(b)];
        // Gate j's W x + Wb, and R s + Rb for a state s.
        const auto wx = [&](int64_t j, int64_t t) {
          double s = bias ? bias[d * 2 * g * hid + j] : 0.0;
          for (int64_t i = 0; i < input_; ++i) s += static_cast<double>(w[(d * g * hid + j) * input_ + i]) * x[x_at(t, b) + i];
          return s;
        };
        const auto rs = [&](int64_t j, const std::vector<double>& s) {
          double v = bias ? bias[d * 2 * g * hid + g * hid + j] : 0.0;
          for (int64_t i = 0; i < hid; ++i) v += static_cast<double>(r[(d * g * hid + j) * hid + i]) * s[static_cast<size_t>(i)];
          return v;
        };
        const auto peep = [&](int64_t k) { return p ? static_cast<double>(p[d * 3 * hid + k]) : 0.0; };
        for (int64_t step = 0; step < len; ++step) {
          const int64_t t = reverse_only_ || d == 1 ? len - 1 - step : step;
          std::vector<double> hn(static_cast<size_t>(hid)), cn(c);
          if (cell_ == Cell::rnn) {
            for (int64_t k = 0; k < hid; ++k) hn[static_cast<size_t>(k)] = act(wx(k, t) + rs(k, h));
          } else if (cell_ == Cell::lstm) {
            for (int64_t k = 0; k < hid; ++k) {
              const auto kk = static_cast<size_t>(k);
              const double i = sig(wx(k, t) + rs(k, h) + peep(k) * c[kk]);
              const double f = input_forget_ ? 1 - i : sig(wx(2 * hid + k, t) + rs(2 * hid + k, h) + peep(2 * hid + k) * c[kk]);
              cn[kk] = f * c[kk] + i * act(wx(3 * hid + k, t) + rs(3 * hid + k, h));
              const double o = sig(wx(hid + k, t) + rs(hid + k, h) + peep(hid + k) * cn[kk]);
              hn[kk] = o * std::tanh(cn[kk]);
            }
          } else {
            std::vector<double> rh(static_cast<size_t>(hid)), rgate(rh);
            for (int64_t k = 0; k < hid; ++k) {
              rgate[static_cast<size_t>(k)] = sig(wx(hid + k, t) + rs(hid + k, h));
              rh[static_cast<size_t>(k)] = rgate[static_cast<size_t>(k)] * h[static_cast<size_t>(k)];
            }
            for (int64_t k = 0; k < hid; ++k) {
              const auto kk = static_cast<size_t>(k);
              const double z = sig(wx(k, t) + rs(k, h));
              const double cand = linear_before_reset_ ? act(wx(2 * hid + k, t) + rgate[kk] * rs(2 * hid + k, h))
                                                       : act(wx(2 * hid + k, t) + rs(2 * hid + k, rh));
              hn[kk] = (1 - z) * cand + z * h[kk];
            }
          }
          h = hn, c = cn;
          if (float* y = output(kY))
            for (int64_t k = 0; k < hid; ++k) y[y_at(t, d, b) + k] = static_cast<float>(h[static_cast<size_t>(k)]);
        }
        if (float* y = output(kY))
          for (int64_t t = len; t < steps_; ++t)
            for (int64_t k = 0; k < hid; ++k) y[y_at(t, d, b) + k] = 0.0f;
        for (int64_t k = 0; k < hid; ++k) {
          if (float* yh = output(kYh)) yh[h_at(d, b) + k] = static_cast<float>(h[static_cast<size_t>(k)]);
          if (float* yc = output(kYc)) yc[h_at(d, b) + k] = static_cast<float>(c[static_cast<size_t>(k)]);
        }
      }
  }

 private:
  friend class RecurrentKernel;
  int gates() const { return cell_ == Cell::lstm ? 4 : cell_ == Cell::gru ? 3 : 1; }

  // Element offsets of X[t, b, :], Y[t, d, b, :] and Y_h[d, b, :] (initial_h's too) in either layout.
  int64_t x_at(int64_t t, int64_t b) const { return (batch_first_ ? b * steps_ + t : t * batch_ + b) * input_; }

  int64_t y_at(int64_t t, int64_t d, int64_t b) const {
    return (batch_first_ ? (b * steps_ + t) * directions_ + d : (t * directions_ + d) * batch_ + b) * hidden_;
  }

  int64_t h_at(int64_t d, int64_t b) const {
    return (batch_first_ ? b * directions_ + d : d * batch_ + b) * hidden_;
  }

  const HostCpu* host_;
  Cell cell_ = Cell::rnn;
  bool batch_first_ = false, linear_before_reset_ = false;
  bool input_forget_ = false;  // LSTM: the forget gate is 1 - the input gate, as ONNX Runtime couples them
  bool w_constant_ = false, r_constant_ = false;  // the model's weights: packed once at bind()
  float clip_ = 0;  // > 0: each gate's input to its activation bounded to +-clip
  int64_t directions_ = 1, steps_ = 1, batch_ = 1, input_ = 1, hidden_ = 1;
  std::vector<int> in_;   // per slot: index into the task's inputs, -1 where omitted
  std::vector<int> out_;  // per slot: index into the outputs, -1 where omitted
  std::vector<int64_t> lengths_;  // per batch entry
  bool reverse_only_ = false;
};

// A GEMM of m rows over k: MatMul's default micro-kernel and blocking;
// rows split across threads where there are many, else columns.
GemmConfig gemm_for(const HostCpu& host, int64_t m, int64_t k, int threads) {
  const auto& catalog = ukernel_catalog();
  const int64_t u = ukernel_for_rows(host.best_isa(), m);
  const int64_t nr = catalog[static_cast<size_t>(u)].nr;
  const int64_t kc = std::clamp<int64_t>(host.l1d_bytes() * 2 / 3 / (nr * 4), 16, std::max<int64_t>(k, 16));
  GemmConfig c = gemm_blocking(u, std::max<int64_t>(16, host.l2_bytes() / 2 / (kc * 4)), kc, 4096);
  c.threads = threads;
  c.split = m >= catalog[static_cast<size_t>(u)].mr * threads * 4 ? Split::m : Split::n;
  return c;
}

// Directions one after another; within one, threads share each step's
// recurrent product (by columns) and the batch entries' gates.
class RecurrentKernel final : public ThreadsKernel<RecurrentOp> {
 public:
  RecurrentKernel(const RecurrentOp& op, int threads)
      : ThreadsKernel(op, threads),
        isa_(&kernels_for(static_cast<int64_t>(op.host_->best_isa()))),
        project_(gemm_for(*op.host_, op.steps_ * op.batch_, op.input_, threads)),
        step_(gemm_for(*op.host_, op.batch_, op.hidden_, threads)),
        project_ws_(project_, threads),
        step_ws_(step_, threads) {
    const int64_t g = op.gates(), hid = op.hidden_, rows = op.steps_ * op.batch_;
    gx_.resize(static_cast<size_t>(rows * g * hid));
    gh_.resize(static_cast<size_t>(op.batch_ * g * hid));
    h_.resize(static_cast<size_t>(op.batch_ * hid));
    c_.resize(h_.size());
    reset_.resize(h_.size());
    scratch_.resize(static_cast<size_t>(threads * hid));
  }

  // The model's W and R packed once, as a MatMul packs a constant B: W^T
  // per direction; R^T per direction in two parts where GRU needs them apart.
  void bind(const std::vector<const float*>& inputs) override {
    BufferKernel::bind(inputs);
    w_packed_.clear();
    r_packed_.clear();
    for (int64_t d = 0; d < op_.directions_; ++d) {
      if (op_.w_constant_) w_packed_.push_back(std::make_unique<PackedB>(w_source(d), op_.input_, gate_count(), project_));
      if (op_.r_constant_)
        for (const Part& part : parts())
          r_packed_.push_back(std::make_unique<PackedB>(r_source(d, part), op_.hidden_, part.count, step_));
    }
  }

  void run(ThreadPool& pool) override {
    const int64_t hid = op_.hidden_;
    const auto output = [&](int slot) {
      const int i = op_.out_[static_cast<size_t>(slot)];
      return i < 0 ? nullptr : outputs_[static_cast<size_t>(i)].data();
    };
    const float *h0 = input(RecurrentOp::kInitialH), *c0 = input(RecurrentOp::kInitialC);
    float *y = output(RecurrentOp::kY), *yh = output(RecurrentOp::kYh), *yc = output(RecurrentOp::kYc);
    const auto split = parts();
    for (int64_t d = 0; d < op_.directions_; ++d) {
      const bool reverse = op_.reverse_only_ || d == 1;
      project(d, pool);
      for (int64_t b = 0; b < op_.batch_; ++b)
        for (int64_t k = 0; k < hid; ++k) {
          h_[static_cast<size_t>(b * hid + k)] = h0 ? h0[op_.h_at(d, b) + k] : 0.0f;
          c_[static_cast<size_t>(b * hid + k)] = c0 ? c0[op_.h_at(d, b) + k] : 0.0f;
        }
      for (int64_t step = 0; step < op_.steps_; ++step) {
        // The gates' recurrent products for every batch entry at once; GRU's
        // candidate reads r * h unless linear_before_reset, so it waits for r.
        recurrent(d, split, 0, h_.data(), pool);
        if (split.size() > 1) {
          for (int64_t b = 0; b < op_.batch_; ++b)
            if (step < length(b)) reset_gate(b, time(reverse, step, b));
          recurrent(d, split, 1, reset_.data(), pool);
        }
        pool.run(op_.batch_, threads_, [&](int64_t b, int thread) {
          if (step >= length(b)) return;
          const int64_t t = time(reverse, step, b);
          cell(d, b, t, scratch_.data() + static_cast<size_t>(thread * hid));
          if (y) std::copy_n(h_.data() + b * hid, hid, y + op_.y_at(t, d, b));
        });
      }
      for (int64_t b = 0; b < op_.batch_; ++b) {
        if (y)
          for (int64_t t = length(b); t < op_.steps_; ++t) std::fill_n(y + op_.y_at(t, d, b), hid, 0.0f);
        if (yh) std::copy_n(h_.data() + b * hid, hid, yh + op_.h_at(d, b));
        if (yc) std::copy_n(c_.data() + b * hid, hid, yc + op_.h_at(d, b));
      }
    }
  }

  Footprint footprint() const override {
    Footprint f = BufferKernel::footprint();
    for (const auto* v : {&gx_, &gh_, &h_, &c_, &reset_, &scratch_}) f.emplace_back(v->data(), v->size() * sizeof(float));
    for (const auto* ws : {&project_ws_, &step_ws_}) {
      const auto w = ws->footprint();
      f.insert(f.end(), w.begin(), w.end());
    }
    return f;
  }

 private:
  // Gates of R^T one product computes: all of them, or for GRU whose
  // candidate reads r * h, z and r first and the candidate's after.
  struct Part {
    int64_t first, count;
  };
  std::vector<Part> parts() const {
    const int64_t hid = op_.hidden_;
    if (op_.cell_ == RecurrentOp::Cell::gru && !op_.linear_before_reset_) return {{0, 2 * hid}, {2 * hid, hid}};
    return {{0, gate_count()}};
  }
  int64_t gate_count() const { return op_.gates() * op_.hidden_; }
  int64_t length(int64_t b) const { return op_.lengths_[static_cast<size_t>(b)]; }
  int64_t time(bool reverse, int64_t step, int64_t b) const { return reverse ? length(b) - 1 - step : step; }
  const float* input(int slot) const {
    const int i = op_.in_[static_cast<size_t>(slot)];
    return i < 0 ? nullptr : inputs_[static_cast<size_t>(i)];
  }
  // B = W_d^T (input x gates) and R_d^T's columns of a part (hidden x count).
  DenseSource w_source(int64_t d) const {
    return DenseSource({input(RecurrentOp::kW) + d * gate_count() * op_.input_, 1, op_.input_});
  }
  DenseSource r_source(int64_t d, const Part& part) const {
    return DenseSource({input(RecurrentOp::kR) + (d * gate_count() + part.first) * op_.hidden_, 1, op_.hidden_});
  }

  // gx = X W^T + Wb, and the recurrent biases that add outside any gate's
  // product (all but the candidate's of a linear_before_reset GRU), row by
  // row of X in its own layout.
  void project(int64_t d, ThreadPool& pool) {
    const int64_t n = gate_count(), rows = op_.steps_ * op_.batch_;
    const DenseSource w = w_source(d);
    GemmCall call;
    call.m = rows;
    call.n = n;
    call.k = op_.input_;
    call.a = {input(RecurrentOp::kX), op_.input_, 1};
    call.b = &w;
    call.packed_b = op_.w_constant_ ? w_packed_[static_cast<size_t>(d)].get() : nullptr;
    call.c = gx_.data();
    call.ldc = n;
    gemm(project_, call, project_ws_, &pool);
    const float* bias = input(RecurrentOp::kB);
    if (!bias) return;
    std::vector<float> both(bias + d * 2 * n, bias + d * 2 * n + n);
    const int64_t folded = op_.cell_ == RecurrentOp::Cell::gru && op_.linear_before_reset_ ? 2 * op_.hidden_ : n;
    for (int64_t j = 0; j < folded; ++j) both[static_cast<size_t>(j)] += bias[d * 2 * n + n + j];
    for (int64_t r = 0; r < rows; ++r) isa_->binary(EltOp::add, 0, gx_.data() + r * n, both.data(), 1, n);
  }

  // gh[:, part] = states [batch x hidden] times R_d^T's part.
  void recurrent(int64_t d, const std::vector<Part>& parts, size_t p, const float* states, ThreadPool& pool) {
    const Part& part = parts[p];
    const DenseSource r = r_source(d, part);
    GemmCall call;
    call.m = op_.batch_;
    call.n = part.count;
    call.k = op_.hidden_;
    call.a = {states, op_.hidden_, 1};
    call.b = &r;
    call.packed_b = op_.r_constant_ ? r_packed_[static_cast<size_t>(d) * parts.size() + p].get() : nullptr;
    call.c = gh_.data() + part.first;
    call.ldc = gate_count();
    gemm(step_, call, step_ws_, &pool);
  }

  // GRU: z and r from their sums, then r * h for the candidate's product.
  void reset_gate(int64_t b, int64_t t) {
    const int64_t hid = op_.hidden_;
    float* zr = gh_.data() + b * gate_count();
    const float* x = gx_.data() + row(t, b) * gate_count();
    isa_->binary(EltOp::add, 0, zr, x, 1, 2 * hid);
    bound(zr, 2 * hid);
    isa_->unary(EltOp::sigmoid, 0, 0, zr, 2 * hid);
    float* rh = reset_.data() + b * hid;
    std::copy_n(h_.data() + b * hid, hid, rh);
    isa_->binary(EltOp::mul, 0, rh, zr + hid, 1, hid);
  }

  // X's row of (t, b) in its own layout.
  int64_t row(int64_t t, int64_t b) const { return op_.x_at(t, b) / op_.input_; }

  // One step of entry b: the gates from gx and gh, then the new h (and c).
  void cell(int64_t d, int64_t b, int64_t t, float* tmp) {
    const int64_t hid = op_.hidden_, n = gate_count();
    const float* x = gx_.data() + row(t, b) * n;
    float* g = gh_.data() + b * n;
    float* h = h_.data() + b * hid;
    float* c = c_.data() + b * hid;
    const auto sig = [&](float* v) { bound(v, hid), isa_->unary(EltOp::sigmoid, 0, 0, v, hid); };
    const auto tanh = [&](float* v) { bound(v, hid), isa_->unary(EltOp::tanh, 0, 0, v, hid); };
    if (op_.cell_ == RecurrentOp::Cell::rnn) {
      isa_->binary(EltOp::add, 0, g, x, 1, hid);
      tanh(g);
      std::copy_n(g, hid, h);
    } else if (op_.cell_ == RecurrentOp::Cell::lstm) {
      // Gates i, o, f, c; peepholes i, o, f, the output's on the new c.
      const float* p = input(RecurrentOp::kP);
      const float* pd = p ? p + d * 3 * hid : nullptr;
      float *i = g, *o = g + hid, *f = g + 2 * hid, *cand = g + 3 * hid;
      isa_->binary(EltOp::add, 0, g, x, 1, n);
      for (int64_t k = 0; pd && k < hid; ++k) i[k] += pd[k] * c[k], f[k] += pd[2 * hid + k] * c[k];
      sig(i);
      if (op_.input_forget_) {
        for (int64_t k = 0; k < hid; ++k) f[k] = 1 - i[k];
      } else {
        sig(f);
      }
      tanh(cand);
      for (int64_t k = 0; k < hid; ++k) c[k] = f[k] * c[k] + i[k] * cand[k];
      for (int64_t k = 0; pd && k < hid; ++k) o[k] += pd[hid + k] * c[k];
      sig(o);
      std::copy_n(c, hid, tmp);
      isa_->unary(EltOp::tanh, 0, 0, tmp, hid);
      for (int64_t k = 0; k < hid; ++k) h[k] = o[k] * tmp[k];
    } else {
      // Gates z, r, h: z and r done by reset_gate unless linear_before_reset,
      // where r scales the candidate's recurrent sum (with its bias) instead.
      float *z = g, *r = g + hid, *cand = g + 2 * hid;
      if (op_.linear_before_reset_) {
        isa_->binary(EltOp::add, 0, g, x, 1, 2 * hid);
        bound(g, 2 * hid);
        isa_->unary(EltOp::sigmoid, 0, 0, g, 2 * hid);
        const float* bias = input(RecurrentOp::kB);
        for (int64_t k = 0; k < hid; ++k)
          cand[k] = x[2 * hid + k] + r[k] * (cand[k] + (bias ? bias[d * 2 * n + n + 2 * hid + k] : 0.0f));
      } else {
        isa_->binary(EltOp::add, 0, cand, x + 2 * hid, 1, hid);
      }
      tanh(cand);
      for (int64_t k = 0; k < hid; ++k) h[k] = (1 - z[k]) * cand[k] + z[k] * h[k];
    }
  }

  // The op's clip on gate inputs, where it has one.
  void bound(float* v, int64_t n) const {
    if (op_.clip_ > 0) isa_->unary(EltOp::clip, -op_.clip_, op_.clip_, v, n);
  }

  const IsaKernels* isa_;
  GemmConfig project_, step_;
  GemmWorkspace project_ws_, step_ws_;
  std::vector<std::unique_ptr<PackedB>> w_packed_, r_packed_;
  std::vector<float> gx_, gh_;  // X W^T (+ biases) of every step; H R^T of this one
  std::vector<float> h_, c_, reset_;  // the state per batch entry; GRU's r * h
  std::vector<float> scratch_;        // per thread: tanh(c)
};

std::unique_ptr<Kernel> RecurrentOp::build(const sdk::Config& c) const { return threads_kernel<RecurrentKernel>(*this, c); }

}  // namespace

std::unique_ptr<CpuOp> make_recurrent_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<RecurrentOp>(task, host);
}

}  // namespace aoe::cpu
