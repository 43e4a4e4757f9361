// RNN, GRU and LSTM (ONNX's default activations: tanh; sigmoid and tanh;
// sigmoid, tanh and tanh), forward, reverse or bidirectional, `layout` 0
// (time first) or 1 (batch first), with their optional bias, sequence
// lengths, initial state and LSTM's peepholes, GRU's linear_before_reset.
// The frontend names which optional inputs and outputs the node has
// ("input_slots", "output_slots"); the sequence lengths are the model's
// constant, folded into "sequence_lens". Outputs: Y, Y_h, LSTM's Y_c.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu_op.h"

namespace aoe::cpu {

class RecurrentOp final : public CpuOp {
 public:
  enum Knob : size_t { kThreads, kKnobCount };
  enum class Cell { rnn, gru, lstm };
  // Input and output slots as ONNX numbers them.
  enum In : int { kX, kW, kR, kB, kLens, kInitialH, kInitialC, kP, kInSlots };
  enum Out : int { kY, kYh, kYc, kOutSlots };

  RecurrentOp(const sdk::OpTask& task, const HostCpu& host);
  std::string check(const sdk::Config& config) const override;
  std::unique_ptr<Kernel> build(const sdk::Config& config) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  friend class RecurrentKernel;
  int gates() const { return cell_ == Cell::lstm ? 4 : cell_ == Cell::gru ? 3 : 1; }
  // Element offsets of X[t, b, :], Y[t, d, b, :] and Y_h[d, b, :] (initial_h's too) in either layout.
  int64_t x_at(int64_t t, int64_t b) const;
  int64_t y_at(int64_t t, int64_t d, int64_t b) const;
  int64_t h_at(int64_t d, int64_t b) const;

  Cell cell_ = Cell::rnn;
  bool batch_first_ = false, linear_before_reset_ = false;
  int64_t directions_ = 1, steps_ = 1, batch_ = 1, input_ = 1, hidden_ = 1;
  std::vector<int> in_;   // per slot: index into the task's inputs, -1 where omitted
  std::vector<int> out_;  // per slot: index into the outputs, -1 where omitted
  std::vector<int64_t> lengths_;  // per batch entry
  bool reverse_only_ = false;
};

}  // namespace aoe::cpu
