#include "shape.h"

#include <algorithm>

#include "aoe/sdk/error.h"

namespace aoe::cpu {

int64_t elements(const Shape& shape) {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

int64_t dims_product(const Shape& shape, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t i = from; i < to; ++i) n *= shape[i];
  return n;
}

std::vector<int64_t> strides_of(const Shape& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

Shape align_rank(const Shape& shape, size_t rank) {
  Shape out(rank > shape.size() ? rank - shape.size() : 0, 1);
  out.insert(out.end(), shape.begin(), shape.end());
  return out;
}

BroadcastRows::BroadcastRows(const Shape& out, const std::vector<Shape>& operands)
    : out_(out), cols_(out.empty() ? 1 : out.back()), operands_(operands) {
  for (const auto& s : operands) strides_.push_back(strides_of(s));
}

BroadcastRows::Run BroadcastRows::operand(size_t k, int64_t row) const {
  const size_t rank = out_.size();
  if (rank == 0) return {};
  Run run;
  for (size_t a = rank - 1; a-- > 0;) {
    const int64_t i = row % out_[a];
    row /= out_[a];
    if (operands_[k][a] != 1) run.offset += i * strides_[k][a];
  }
  run.step = operands_[k][rank - 1] != 1 ? 1 : 0;
  return run;
}

Shape broadcast(const std::vector<Shape>& shapes, const std::string& what) {
  size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (const auto& s : shapes) {
    const Shape a = align_rank(s, rank);
    for (size_t i = 0; i < rank; ++i) {
      if (a[i] == out[i] || a[i] == 1) continue;
      if (out[i] != 1)
        throw sdk::Error(sdk::StatusCode::invalid_argument,
                         what + ": shapes " + to_string(s) + " and " + to_string(out) + " do not broadcast");
      out[i] = a[i];
    }
  }
  return out;
}

std::string to_string(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

int64_t normalize_axis(int64_t axis, int64_t rank, const std::string& what) {
  if (axis < -rank || axis >= rank)
    throw sdk::Error(sdk::StatusCode::invalid_argument,
                     what + " axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

}  // namespace aoe::cpu
