// NonZero: the indices of the elements that are not zero, one row per axis,
// in row-major order of the elements (ONNX NonZero-13).
#include "value_shaped_op.h"

#include "aoe/sdk/error.h"

namespace aoe::cpu {
namespace {

class NonZeroOp final : public ValueShapedOp {
 public:
  using ValueShapedOp::ValueShapedOp;
  std::vector<HeldTensor> run(const std::vector<const HeldTensor*>& inputs) const override;
  std::vector<HeldTensor> reference(const std::vector<const HeldTensor*>& inputs) const override;
};

}  // namespace

const HeldTensor& required_input(const std::vector<const HeldTensor*>& inputs, size_t slot, const std::string& what) {
  if (slot >= inputs.size() || !inputs[slot])
    throw sdk::Error(sdk::StatusCode::invalid_argument, what + ": input " + std::to_string(slot) + " is missing");
  return *inputs[slot];
}

// Counted first, so each index is written once where it belongs: axis a's
// row starts at a * count. A scalar counts as one element of a vector, as numpy's nonzero takes it.
std::vector<HeldTensor> NonZeroOp::run(const std::vector<const HeldTensor*>& inputs) const {
  const HeldTensor& given = required_input(inputs, 0, name_);
  HeldTensor vector;
  if (given.shape.empty()) vector = {{1}, given.values};
  const HeldTensor& x = given.shape.empty() ? vector : given;
  const auto rank = static_cast<int64_t>(x.shape.size());
  const float* v = x.values.data();
  const auto n = static_cast<int64_t>(x.values.size());
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += v[i] != 0.0f ? 1 : 0;
  HeldTensor out{{rank, count}, std::vector<float>(static_cast<size_t>(rank * count))};
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);  // of element i, kept by counting up
  int64_t column = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (v[i] != 0.0f) {
      for (int64_t a = 0; a < rank; ++a) out.values[static_cast<size_t>(a * count + column)] = static_cast<float>(index[a]);
      ++column;
    }
    for (int64_t a = rank - 1; a >= 0; --a) {
      if (++index[static_cast<size_t>(a)] < x.shape[static_cast<size_t>(a)]) break;
      index[static_cast<size_t>(a)] = 0;
    }
  }
  return {std::move(out)};
}

std::vector<HeldTensor> NonZeroOp::reference(const std::vector<const HeldTensor*>& inputs) const {
  const HeldTensor& x = required_input(inputs, 0, name_);
  const Shape shape = x.shape.empty() ? Shape{1} : x.shape;
  const size_t rank = shape.size();
  std::vector<std::vector<double>> rows(rank);
  for (size_t i = 0; i < x.values.size(); ++i) {
    if (static_cast<double>(x.values[i]) == 0.0) continue;
    size_t rest = i;  // the flat index unravelled, last axis fastest
    for (size_t a = rank; a-- > 0;) {
      const auto d = static_cast<size_t>(shape[a]);
      rows[a].push_back(static_cast<double>(rest % d));
      rest /= d;
    }
  }
  const int64_t count = rank ? static_cast<int64_t>(rows[0].size()) : 0;
  HeldTensor out{{static_cast<int64_t>(rank), count}, {}};
  for (const auto& row : rows)
    for (const double r : row) out.values.push_back(static_cast<float>(r));
  return {std::move(out)};
}

std::unique_ptr<ValueShapedOp> make_non_zero_op(const sdk::Node& node) { return std::make_unique<NonZeroOp>(node); }

}  // namespace aoe::cpu
