// A kernel that reads its inputs where they lie and writes outputs of its
// own, in the model's layout or, for an op that follows a blocked input,
// in the blocked one (whole channel blocks: the same size).
#pragma once

#include <cstring>
#include <vector>

#include "blocked.h"
#include "buffer.h"
#include "cpu_op.h"

namespace aoe::cpu {

class BufferKernel : public Kernel {
 public:
  explicit BufferKernel(const CpuOp& op) : op_(op) {
    for (const auto& s : op.output_shapes()) outputs_.emplace_back(elements(s));
  }
  void bind(const std::vector<const float*>& inputs) override { inputs_ = inputs; }
  void read_output(size_t index, float* out) const override {
    if (const int lanes = op_.output_blocking()) {
      const Shape& s = op_.output_shapes()[index];
      from_blocked(outputs_[index].data(), out, s[0], s[1], dims_product(s, 2, s.size()), lanes);
    } else if (outputs_[index].bytes() > 0) {
      std::memcpy(out, outputs_[index].data(), outputs_[index].bytes());  // empty: no buffers
    }
  }
  float* output_data() override { return outputs_[0].data(); }
  const float* kept_output(size_t index) const override { return outputs_[index].data(); }
  Footprint footprint() const override {
    Footprint f;
    for (const auto& o : outputs_) f.emplace_back(o.data(), o.bytes());
    add_input_buffers(f, inputs_, op_);
    return f;
  }
  // Every output is written whole by run().
  int64_t placeable_elements(size_t index) const override { return outputs_[index].size(); }
  void place_output(size_t index, float* at) override { outputs_[index].place(at); }

 protected:
  const CpuOp& op_;
  std::vector<const float*> inputs_;
  std::vector<Buffer> outputs_;
};

}  // namespace aoe::cpu
