#include "reference.h"

namespace aoe::cpu {

double at_broadcast(const float* data, const Shape& shape, const Shape& out, const std::vector<int64_t>& index) {
  int64_t offset = 0, stride = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    const size_t d = shape.size() - 1 - i;
    const size_t o = out.size() - 1 - i;
    const int64_t at = shape[d] == 1 ? 0 : index[o];
    offset += at * stride;
    stride *= shape[d];
  }
  return data[offset];
}

bool next_index(std::vector<int64_t>& index, const Shape& shape) {
  for (size_t d = shape.size(); d-- > 0;) {
    if (++index[d] < shape[d]) return true;
    index[d] = 0;
  }
  return false;
}

void reference_chain(const std::vector<ChainStep>& steps, const std::vector<RefOperand>& operands, const Shape& out,
                     std::vector<double>& values) {
  if (steps.empty()) return;
  for_each_index(out, [&](const std::vector<int64_t>& index, int64_t flat) {
    double& x = values[static_cast<size_t>(flat)];
    for (const auto& s : steps) {
      const double y = s.operand < 0 ? 0.0
                                     : at_broadcast(operands[static_cast<size_t>(s.operand)].data,
                                                    operands[static_cast<size_t>(s.operand)].shape, out, index);
      x = apply_step(s, x, y);
    }
  });
}

void store(const std::vector<double>& values, float* out) {
  for (size_t i = 0; i < values.size(); ++i) out[i] = static_cast<float>(values[i]);
}

}  // namespace aoe::cpu
