// Einsum: hand-computed equations (implicit output in ASCII order, a trace,
// a diagonal, an outer product), broadcast ellipses and three operands
// against the reference on every threads count, and malformed equations
// refused naming the op.
#include <gtest/gtest.h>

#include <numeric>

#include "tasks.h"

namespace aoe::cpu {
namespace {

using test::f32;
using test::host;
using test::op;
using test::pool;
using test::refusal;
using Values = std::vector<float>;

sdk::OpTask einsum(const std::string& equation, std::vector<sdk::TensorDesc> inputs) {
  return op("Einsum", std::move(inputs), {{"equation", equation}});
}

Values iota(size_t n, float from = 1) {
  Values v(n);
  std::iota(v.begin(), v.end(), from);
  return v;
}

// The output's shape, and its values from the kernel on every threads count and from the reference.
void expect_gives(const sdk::OpTask& task, const std::vector<Values>& inputs, const Shape& shape, const Values& want) {
  EXPECT_EQ(make_op(task, host())->output_shapes()[0], shape) << task.attrs.dump();
  test::expect_gives(task, inputs, want);
}

// a[2,3] = 1..6, b[3,2] = 1..6, m[3,3] = 1..9.
TEST(EinsumOp, HandComputedEquations) {
  expect_gives(einsum("ij,jk", {f32({2, 3}), f32({3, 2})}), {iota(6), iota(6)}, {2, 2}, {22, 28, 49, 64});
  // Implicit output: the letters used once in ASCII order, uppercase first: a transpose.
  expect_gives(einsum("bA", {f32({2, 3})}), {iota(6)}, {3, 2}, {1, 4, 2, 5, 3, 6});
  expect_gives(einsum("ii", {f32({3, 3})}), {iota(9)}, {}, {15});
  expect_gives(einsum("ii->i", {f32({3, 3})}), {iota(9)}, {3}, {1, 5, 9});
  expect_gives(einsum("i, j", {f32({2}), f32({3})}), {iota(2), iota(3)}, {2, 3}, {1, 2, 3, 2, 4, 6});
  expect_gives(einsum("ij->", {f32({2, 3})}), {iota(6)}, {}, {21});
}

// The ellipsis' dims broadcast numpy's way ([2,1] against [5]); a chain of
// three products; a summed label strided in every operand; outputs enough
// for runs on several threads.
TEST(EinsumOp, MatchesItsReferenceOnEveryThreadsCount) {
  const std::vector<std::pair<sdk::OpTask, Shape>> cases = {
      {einsum("...ij,...jk->...ik", {f32({2, 1, 3, 4}), f32({5, 4, 2})}), {2, 5, 3, 2}},
      {einsum("ij,jk,kl->li", {f32({4, 5}), f32({5, 6}), f32({6, 3})}), {3, 4}},
      {einsum("bji,bkj->bik", {f32({3, 7, 4}), f32({3, 2, 7})}), {3, 4, 2}},
      {einsum("...ii->...i", {f32({2, 3, 4, 4})}), {2, 3, 4}},
      {einsum("ijk,ijk->", {f32({3, 4, 5}), f32({3, 4, 5})}), {}},
      {einsum("bij,bjk->bik", {f32({8, 64, 3}), f32({8, 3, 64})}), {8, 64, 64}},
      {einsum("ij->ji", {f32({300, 200})}), {200, 300}}};
  std::vector<sdk::Config> configs;
  for (int64_t threads = 1; threads <= std::min(host().threads, 3); ++threads) configs.push_back({threads});
  for (const auto& [task, shape] : cases) {
    SCOPED_TRACE(task.attrs.dump());
    const auto o = make_op(task, host());
    EXPECT_EQ(o->output_shapes()[0], shape);
    test::expect_matches_reference(*o, configs, pool());
  }
}

TEST(EinsumOp, MalformedEquationsAreRefusedNamingTheOp) {
  EXPECT_NE(refusal(einsum("ij,jk->ik", {f32({2, 3})})).find("Einsum 'Einsum': equation 'ij,jk->ik' names 2 operands, the op has 1 inputs"),
            std::string::npos);
  EXPECT_NE(refusal(einsum("ij,jk->ik", {f32({2, 3}), f32({4, 2})})).find("label 'j' is 3 long in one place and 4"),
            std::string::npos);
  EXPECT_NE(refusal(einsum("...i->i", {f32({2, 3})})).find("leaves out '...'"), std::string::npos);
  EXPECT_NE(refusal(einsum("ijk", {f32({2, 3})})).find("term 'ijk' labels 3 dims of input 0"), std::string::npos);
  EXPECT_NE(refusal(einsum("i1", {f32({2, 3})})).find("'1' in term 'i1' is neither a letter"), std::string::npos);
  EXPECT_NE(refusal(einsum("ij->k", {f32({2, 3})})).find("output label 'k' labels no input dim"), std::string::npos);
}

}  // namespace
}  // namespace aoe::cpu
