// Unique (ONNX Unique-11): the distinct elements, or the distinct slices
// along `axis`, sorted or in order of first occurrence, with where each
// first occurs, which one each input element or slice is, and how often
// each occurs.
#include "value_shaped_op.h"

#include <algorithm>
#include <numeric>

#include "aoe/sdk/error.h"
#include "op_util.h"

namespace aoe::cpu {
namespace {

class UniqueOp final : public ValueShapedOp {
 public:
  explicit UniqueOp(const sdk::Node& node)
      : ValueShapedOp(node),
        has_axis_(node.attrs.contains("axis")),
        axis_(int_attr(node.attrs, "axis", 0)),
        sorted_(int_attr(node.attrs, "sorted", 1) != 0) {}
  std::vector<HeldTensor> run(const std::vector<const HeldTensor*>& inputs) const override;
  std::vector<HeldTensor> reference(const std::vector<const HeldTensor*>& inputs) const override;

 private:
  bool has_axis_ = false;
  int64_t axis_ = 0;
  bool sorted_ = true;
};

// The input as `count` slices of `length` values each: along `axis`, or
// every element a slice of one (no axis). Value j of slice i, j = o * inner + in,
// lies at (o * count + i) * inner + in.
struct Slices {
  int64_t outer = 1, count = 0, inner = 1;  // axes before, along, after
  float at(const HeldTensor& x, int64_t slice, int64_t j) const {
    return x.values[static_cast<size_t>((j / inner * count + slice) * inner + j % inner)];
  }
  int64_t length() const { return outer * inner; }
};

Slices slices_of(const HeldTensor& x, bool has_axis, int64_t axis, const std::string& what) {
  if (!has_axis) return {1, static_cast<int64_t>(x.values.size()), 1};
  const auto rank = static_cast<int64_t>(x.shape.size());
  const int64_t a = normalize_axis(axis, rank, what + ": axis");
  return {dims_product(x.shape, 0, static_cast<size_t>(a)), x.shape[static_cast<size_t>(a)],
          dims_product(x.shape, static_cast<size_t>(a) + 1, x.shape.size())};
}

// Y from the chosen slices, in their order: X's shape with the axis's extent their number.
HeldTensor gathered(const HeldTensor& x, const Slices& s, bool has_axis, int64_t axis, const std::vector<int64_t>& picked) {
  const auto k = static_cast<int64_t>(picked.size());
  HeldTensor y;
  if (!has_axis) {
    y.shape = {k};
    for (const int64_t i : picked) y.values.push_back(x.values[static_cast<size_t>(i)]);
    return y;
  }
  y.shape = x.shape;
  y.shape[static_cast<size_t>(normalize_axis(axis, static_cast<int64_t>(x.shape.size()), "axis"))] = k;
  y.values.resize(static_cast<size_t>(s.outer * k * s.inner));
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t g = 0; g < k; ++g)
      for (int64_t in = 0; in < s.inner; ++in)
        y.values[static_cast<size_t>((o * k + g) * s.inner + in)] =
            x.values[static_cast<size_t>((o * s.count + picked[static_cast<size_t>(g)]) * s.inner + in)];
  return y;
}

HeldTensor vector_of(const std::vector<int64_t>& v) {
  HeldTensor t{{static_cast<int64_t>(v.size())}, {}};
  for (const int64_t x : v) t.values.push_back(static_cast<float>(x));
  return t;
}

}  // namespace

// Slices stably sorted by their values: equal ones fall together, the first
// occurrence first in each run; unsorted, the runs then ordered by it.
std::vector<HeldTensor> UniqueOp::run(const std::vector<const HeldTensor*>& inputs) const {
  const HeldTensor& x = required_input(inputs, 0, name_);
  const Slices s = slices_of(x, has_axis_, axis_, name_);
  std::vector<std::vector<float>> keys(static_cast<size_t>(s.count));
  for (int64_t i = 0; i < s.count; ++i)
    for (int64_t j = 0; j < s.length(); ++j) keys[static_cast<size_t>(i)].push_back(s.at(x, i, j));
  std::vector<int64_t> order(static_cast<size_t>(s.count));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return keys[static_cast<size_t>(a)] < keys[static_cast<size_t>(b)]; });
  std::vector<std::vector<int64_t>> runs;  // each: the slices of one value, in input order
  for (size_t r = 0; r < order.size(); ++r) {
    if (r == 0 || keys[static_cast<size_t>(order[r])] != keys[static_cast<size_t>(order[r - 1])]) runs.emplace_back();
    runs.back().push_back(order[r]);
  }
  if (!sorted_)
    std::sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.front() < b.front(); });
  std::vector<int64_t> first, inverse(static_cast<size_t>(s.count)), counts;
  for (size_t g = 0; g < runs.size(); ++g) {
    first.push_back(runs[g].front());
    counts.push_back(static_cast<int64_t>(runs[g].size()));
    for (const int64_t i : runs[g]) inverse[static_cast<size_t>(i)] = static_cast<int64_t>(g);
  }
  return {gathered(x, s, has_axis_, axis_, first), vector_of(first), vector_of(inverse), vector_of(counts)};
}

// Each slice compared with the distinct ones met so far; sorted, the
// distinct ones then ordered by selection, smallest first.
std::vector<HeldTensor> UniqueOp::reference(const std::vector<const HeldTensor*>& inputs) const {
  const HeldTensor& x = required_input(inputs, 0, name_);
  const Slices s = slices_of(x, has_axis_, axis_, name_);
  const auto value = [&](int64_t slice, int64_t j) { return static_cast<double>(s.at(x, slice, j)); };
  // -1, 0, 1 as slice a is before, equal to, or after slice b, value by value.
  const auto compare = [&](int64_t a, int64_t b) {
    for (int64_t j = 0; j < s.length(); ++j)
      if (value(a, j) != value(b, j)) return value(a, j) < value(b, j) ? -1 : 1;
    return 0;
  };
  std::vector<int64_t> first, counts, inverse;
  for (int64_t i = 0; i < s.count; ++i) {
    int64_t found = -1;
    for (size_t g = 0; g < first.size() && found < 0; ++g)
      if (compare(i, first[g]) == 0) found = static_cast<int64_t>(g);
    if (found < 0) found = static_cast<int64_t>(first.size()), first.push_back(i), counts.push_back(0);
    ++counts[static_cast<size_t>(found)];
    inverse.push_back(found);
  }
  std::vector<int64_t> position(first.size());  // met order -> output order
  std::iota(position.begin(), position.end(), 0);
  if (sorted_) {
    for (size_t a = 0; a < first.size(); ++a) {
      size_t least = a;
      for (size_t b = a + 1; b < first.size(); ++b)
        if (compare(first[b], first[least]) < 0) least = b;
      std::swap(first[a], first[least]);
      std::swap(counts[a], counts[least]);
      std::swap(position[a], position[least]);
    }
    std::vector<int64_t> to(first.size());
    for (size_t g = 0; g < position.size(); ++g) to[static_cast<size_t>(position[g])] = static_cast<int64_t>(g);
    for (auto& v : inverse) v = to[static_cast<size_t>(v)];
  }
  return {gathered(x, s, has_axis_, axis_, first), vector_of(first), vector_of(inverse), vector_of(counts)};
}

std::unique_ptr<ValueShapedOp> make_unique_op(const sdk::Node& node) { return std::make_unique<UniqueOp>(node); }

}  // namespace aoe::cpu
