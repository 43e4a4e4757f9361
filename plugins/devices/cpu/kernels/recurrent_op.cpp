// RNN, GRU and LSTM (ONNX's default activations: tanh; sigmoid and tanh;
// sigmoid, tanh and tanh), forward, reverse or bidirectional, `layout` 0
// (time first) or 1 (batch first), with their optional bias, sequence
// lengths, initial state and LSTM's peepholes, GRU's linear_before_reset.
// The frontend names which optional inputs and outputs the node has
// ("input_slots", "output_slots"); the sequence lengths are the model's
// constant, folded into "sequence_lens". Outputs: Y, Y_h, LSTM's Y_c.
#include "op_factories.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"
#include "op_util.h"
#include "reference.h"
#include "threads_kernel.h"

namespace aoe::cpu {
namespace {

float sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

// Sixteen partial sums the vectoriser keeps in registers: one running sum
// waits on its last add, a step of a cell on each of its gates' sums.
float dot(const float* a, const float* b, int64_t n) {
  constexpr int64_t kLanes = 16;
  float part[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t l = 0; l < kLanes; ++l) part[l] += a[i + l] * b[i + l];
  float s = 0;
  for (; i < n; ++i) s += a[i] * b[i];
  for (const float p : part) s += p;
  return s;
}

class RecurrentOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };
  enum class Cell { rnn, gru, lstm };
  // Input and output slots as ONNX numbers them.
  enum In : int { kX, kW, kR, kB, kLens, kInitialH, kInitialC, kP, kInSlots };
  enum Out : int { kY, kYh, kYc, kOutSlots };

  RecurrentOp(const sdk::OpTask& task, const HostCpu& host) {
    const std::string& t = task.op_type;
    const std::string who = t + " '" + task.name + "'";
    cell_ = t == "LSTM" ? Cell::lstm : t == "GRU" ? Cell::gru : Cell::rnn;
    if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after " + t);
    in_ = tensor_slots(task, "input_slots", task.inputs.size(), kInSlots);
    out_ = tensor_slots(task, "output_slots", task.outputs.size(), kOutSlots);
    if (in_[kX] < 0 || in_[kW] < 0 || in_[kR] < 0) invalid(who + " takes X, W and R");
    if (cell_ != Cell::lstm && (in_[kInitialC] >= 0 || in_[kP] >= 0 || out_[kYc] >= 0)) invalid(who + " has no initial_c, P nor Y_c");
    require_f32(task, in_[kLens] >= 0 ? std::vector<size_t>{static_cast<size_t>(in_[kLens])} : std::vector<size_t>{});
    if (task.attrs.contains("clip")) unsupported(who + ": the cpu device runs recurrent cells without clip");
    if (int_attr(task.attrs, "input_forget", 0) != 0) unsupported(who + ": the cpu device runs LSTM without input_forget");
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
    space_.version = "1";
    space_.knobs.resize(kKnobCount);
    space_.knobs[kThreads] = threads_knob(host);
    const double work = static_cast<double>(directions_ * steps_ * batch_ * g * hidden_ * (input_ + hidden_)) * 2;
    space_.default_config = {std::min<int>(default_threads(host, work), static_cast<int>(std::max<int64_t>(1, batch_)))};
  }

  std::string check(const sdk::Config&) const override { return {}; }
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;

  // ONNX's equations step by step in double, each gate's sums written out.
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    const auto input = [&](int slot) { return in_[static_cast<size_t>(slot)] < 0 ? nullptr : in[static_cast<size_t>(in_[static_cast<size_t>(slot)])]; };
    const auto output = [&](int slot) { return out_[static_cast<size_t>(slot)] < 0 ? nullptr : out[static_cast<size_t>(out_[static_cast<size_t>(slot)])]; };
    const float *x = input(kX), *w = input(kW), *r = input(kR), *bias = input(kB), *p = input(kP);
    const int64_t hid = hidden_, g = gates();
    const auto sig = [](double v) { return 1 / (1 + std::exp(-v)); };
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
            for (int64_t k = 0; k < hid; ++k) hn[static_cast<size_t>(k)] = std::tanh(wx(k, t) + rs(k, h));
          } else if (cell_ == Cell::lstm) {
            for (int64_t k = 0; k < hid; ++k) {
              const auto kk = static_cast<size_t>(k);
              const double i = sig(wx(k, t) + rs(k, h) + peep(k) * c[kk]);
              const double f = sig(wx(2 * hid + k, t) + rs(2 * hid + k, h) + peep(2 * hid + k) * c[kk]);
              cn[kk] = f * c[kk] + i * std::tanh(wx(3 * hid + k, t) + rs(3 * hid + k, h));
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
              const double cand = linear_before_reset_ ? std::tanh(wx(2 * hid + k, t) + rgate[kk] * rs(2 * hid + k, h))
                                                       : std::tanh(wx(2 * hid + k, t) + rs(2 * hid + k, rh));
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

  Cell cell_ = Cell::rnn;
  bool batch_first_ = false, linear_before_reset_ = false;
  int64_t directions_ = 1, steps_ = 1, batch_ = 1, input_ = 1, hidden_ = 1;
  std::vector<int> in_;   // per slot: index into the task's inputs, -1 where omitted
  std::vector<int> out_;  // per slot: index into the outputs, -1 where omitted
  std::vector<int64_t> lengths_;  // per batch entry
  bool reverse_only_ = false;
};

class RecurrentKernel final : public ThreadsKernel<RecurrentOp> {
 public:
  RecurrentKernel(const RecurrentOp& op, int threads) : ThreadsKernel(op, threads) {
    scratch_.resize(static_cast<size_t>(threads * per_thread()));
  }

  // Batch entries in parallel: each runs its sequence one step after another.
  void run(ThreadPool& pool) override {
    const int64_t hid = op_.hidden_, in = op_.input_, g = op_.gates();
    const auto input = [&](int slot) { return op_.in_[static_cast<size_t>(slot)] < 0 ? nullptr : inputs_[static_cast<size_t>(op_.in_[static_cast<size_t>(slot)])]; };
    const auto output = [&](int slot) {
      const int i = op_.out_[static_cast<size_t>(slot)];
      return i < 0 ? nullptr : outputs_[static_cast<size_t>(i)].data();
    };
    const float *x = input(RecurrentOp::kX), *w = input(RecurrentOp::kW), *r = input(RecurrentOp::kR);
    const float *bias = input(RecurrentOp::kB), *h0 = input(RecurrentOp::kInitialH), *c0 = input(RecurrentOp::kInitialC);
    const float* peep = input(RecurrentOp::kP);
    float *y = output(RecurrentOp::kY), *yh = output(RecurrentOp::kYh), *yc = output(RecurrentOp::kYc);
    for (int64_t d = 0; d < op_.directions_; ++d) {
      const bool reverse = op_.reverse_only_ || d == 1;
      const float* wd = w + d * g * hid * in;
      const float* rd = r + d * g * hid * hid;
      const float* bd = bias ? bias + d * 2 * g * hid : nullptr;
      const float* pd = peep ? peep + d * 3 * hid : nullptr;
      pool.run(op_.batch_, threads_, [&](int64_t b, int thread) {
        float* h = scratch_.data() + static_cast<size_t>(thread * per_thread());
        float* c = h + hid;
        float* next = c + hid;
        float* gate = next + hid;
        for (int64_t k = 0; k < hid; ++k) {
          h[k] = h0 ? h0[op_.h_at(d, b) + k] : 0.0f;
          c[k] = c0 ? c0[op_.h_at(d, b) + k] : 0.0f;
        }
        const int64_t len = op_.lengths_[static_cast<size_t>(b)];
        for (int64_t step = 0; step < len; ++step) {
          const int64_t t = reverse ? len - 1 - step : step;
          const float* xt = x + op_.x_at(t, b);
          // Every gate's input part and biases; the recurrent part as each cell needs it.
          for (int64_t j = 0; j < g * hid; ++j)
            gate[j] = dot(wd + j * in, xt, in) + (bd ? bd[j] : 0.0f);
          step_cell(rd, bd, pd, h, c, next, gate);
          if (y) std::copy(h, h + hid, y + op_.y_at(t, d, b));
        }
        if (y)
          for (int64_t t = len; t < op_.steps_; ++t) std::fill_n(y + op_.y_at(t, d, b), hid, 0.0f);
        if (yh) std::copy(h, h + hid, yh + op_.h_at(d, b));
        if (yc) std::copy(c, c + hid, yc + op_.h_at(d, b));
      });
    }
  }

 private:
  // h, c, the next h, the gates and GRU's reset values.
  int64_t per_thread() const { return (4 + op_.gates()) * op_.hidden_; }

  // One step from h (and c) to the new state in h (and c); `gate` holds W x + Wb per gate.
  void step_cell(const float* rd, const float* bd, const float* pd, float* h, float* c, float* next, float* gate) const {
    const int64_t hid = op_.hidden_, g = op_.gates();
    const float* rb = bd ? bd + g * hid : nullptr;
    const auto recurrent = [&](int64_t j, const float* state) { return dot(rd + j * hid, state, hid) + (rb ? rb[j] : 0.0f); };
    if (op_.cell_ == RecurrentOp::Cell::rnn) {
      for (int64_t k = 0; k < hid; ++k) next[k] = std::tanh(gate[k] + recurrent(k, h));
    } else if (op_.cell_ == RecurrentOp::Cell::lstm) {
      // Gates i, o, f, c; peepholes i, o, f.
      for (int64_t k = 0; k < hid; ++k) {
        const float i = sigmoid(gate[k] + recurrent(k, h) + (pd ? pd[k] * c[k] : 0.0f));
        const float f = sigmoid(gate[2 * hid + k] + recurrent(2 * hid + k, h) + (pd ? pd[2 * hid + k] * c[k] : 0.0f));
        const float cand = std::tanh(gate[3 * hid + k] + recurrent(3 * hid + k, h));
        const float cell = f * c[k] + i * cand;
        const float o = sigmoid(gate[hid + k] + recurrent(hid + k, h) + (pd ? pd[hid + k] * cell : 0.0f));
        next[k] = o * std::tanh(cell);
        gate[k] = cell;  // kept until every unit has read the old c
      }
      std::copy(gate, gate + hid, c);
    } else {
      // Gates z, r, h; r scales h before R_h (or R_h h after, linear_before_reset).
      float* reset = gate + g * hid;  // scratch past the gates: h * r, or r itself
      for (int64_t k = 0; k < hid; ++k) {
        const float r = sigmoid(gate[hid + k] + recurrent(hid + k, h));
        reset[k] = op_.linear_before_reset_ ? r : r * h[k];
      }
      for (int64_t k = 0; k < hid; ++k) {
        const float z = sigmoid(gate[k] + recurrent(k, h));
        const float cand = std::tanh(gate[2 * hid + k] + (op_.linear_before_reset_ ? reset[k] * recurrent(2 * hid + k, h)
                                                                                  : recurrent(2 * hid + k, reset)));
        next[k] = (1 - z) * cand + z * h[k];
      }
    }
    std::copy(next, next + hid, h);
  }

  std::vector<float> scratch_;
};

std::unique_ptr<Kernel> RecurrentOp::build(const sdk::Config& c) const { return threads_kernel<RecurrentKernel>(*this, c); }

}  // namespace

std::unique_ptr<CpuOp> make_recurrent_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<RecurrentOp>(task, host);
}

}  // namespace aoe::cpu
