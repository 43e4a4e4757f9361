// The split of a model into subgraphs, the units SGAT tunes and OPAT follows.
//
// Deterministic, from the graph alone, in the model's (topological) order:
// 1. A natural cut falls after a node when exactly one activation made so far
//    is still needed later: every path passes through it, as between residual
//    blocks or transformer sublayers. Graph inputs and constants do not
//    count, so an attention mask read by every layer does not glue the model
//    into one piece. No cut falls between an op and a sole reader that could
//    fuse into it (`fusable` op types, and BatchNormalization), so a kernel
//    never spans two subgraphs.
// 2. Between natural cuts lie segments: a chain (one path) or a block (paths
//    that branch and meet, such as a residual or attention block).
// 3. Segments are joined in order into subgraphs: a chain joins its
//    neighbours, but two blocks never share a subgraph, and no subgraph holds
//    more than max_nodes nodes. A segment longer than that is cut every
//    max_nodes nodes (a size cut: several tensors may cross it).
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "aoe/sdk/graph.h"
#include "aoe/sdk/subgraph_task.h"

namespace aoe::graph {

inline constexpr size_t kDefaultMaxSubgraphNodes = 40;

// Each subgraph's graph lists its nodes in model order, every tensor they
// touch, the activations read from outside as inputs, and as outputs what a
// later node or the model's output reads. Named "sg<i>: <first>..<last>".
std::vector<aoe::sdk::SubgraphTask> partition(const aoe::sdk::Graph& graph, const std::set<std::string>& fusable,
                                              size_t max_nodes = kDefaultMaxSubgraphNodes);

}  // namespace aoe::graph
