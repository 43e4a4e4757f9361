// The attention core of a transformer found in a subgraph:
//   scores = MatMul(Q, K) -> elementwise (scale, mask) -> Softmax(last axis)
//   -> context = MatMul(probs, V)
// with the Transposes that move heads around folded into how Q, K, V and
// the context are read and written. One kernel can then run it head by
// head, each head's scores kept in cache instead of going to memory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aoe/sdk/graph.h"
#include "shape.h"

namespace aoe::cpu {

// A logical operand read from (or written to) a stored tensor through a
// permutation: element (i0, i1, ..) sits at sum(i_d * strides[d]).
struct StridedView {
  std::string tensor;            // the stored tensor
  Shape shape;                   // the logical operand's
  std::vector<int64_t> strides;  // per logical dim, in elements of the stored tensor
};

struct AttentionPattern {
  std::string softmax;             // its node: the one the strategy knob names
  std::vector<std::string> nodes;  // every node the kernel runs, the scores MatMul first
  // q [.., Sq, D], k [.., D, Sk], v [.., Sk, Dv], out [.., Sq, Dv]; the
  // batch dims (heads and the like) are the same in all four.
  StridedView q, k, v, out;
  Shape scores;                          // [.., Sq, Sk]
  std::vector<sdk::Node> chain;        // elementwise nodes between the scores and the Softmax
  std::vector<std::string> operands;   // per chain node: the tensor it takes besides the scores, or ""
};

// Every attention core of the graph whose intermediates nothing else reads.
std::vector<AttentionPattern> find_attention(const sdk::Graph& graph);

}  // namespace aoe::cpu
