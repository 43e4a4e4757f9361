// Tensor shapes: element counts, row-major strides, numpy broadcasting.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace aoe::cpu {

using Shape = std::vector<int64_t>;

int64_t elements(const Shape& shape);
// The product of dims [from, to): the extent of a run of axes.
int64_t dims_product(const Shape& shape, size_t from, size_t to);
// Blocks of `b` that cover `a`, and `a` rounded up to whole blocks.
inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }
// Row-major strides, in elements.
std::vector<int64_t> strides_of(const Shape& shape);
// The numpy broadcast of `shapes`; throws sdk::Error(invalid_argument) naming `what` when they clash.
Shape broadcast(const std::vector<Shape>& shapes, const std::string& what);
// `shape` right-aligned to `rank` dims with leading 1s.
Shape align_rank(const Shape& shape, size_t rank);

// Operands broadcast to `out`, walked a row (out's last axis) at a time:
// where an operand's row starts, and whether it advances along the row
// (step 1) or repeats one value (step 0, broadcast along it).
class BroadcastRows {
 public:
  struct Run {
    int64_t offset = 0, step = 0;
  };
  BroadcastRows() = default;
  // `operands` at out's rank (align_rank).
  BroadcastRows(const Shape& out, const std::vector<Shape>& operands);
  int64_t rows() const { return cols_ ? elements(out_) / cols_ : 0; }
  int64_t cols() const { return cols_; }
  Run operand(size_t k, int64_t row) const;

 private:
  Shape out_;
  int64_t cols_ = 1;
  std::vector<Shape> operands_;
  std::vector<std::vector<int64_t>> strides_;
};
std::string to_string(const Shape& shape);
// An axis in [-rank, rank) as an index; throws invalid_argument naming `what`.
int64_t normalize_axis(int64_t axis, int64_t rank, const std::string& what);

}  // namespace aoe::cpu
