// Fusion before tuning, as an inference compiler does it: a cube op (Conv,
// MatMul, Gemm) or an elementwise op absorbs the chain of elementwise ops
// that follows it, and a Conv absorbs the BatchNormalization after it by
// folding it into its weights and bias. Each fused op is one tuning task.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "aoe/sdk/graph.h"
#include "aoe/sdk/op_task.h"

namespace aoe::opat {

struct FusedOp {
  aoe::sdk::OpTask task;                // named after its nodes, joined by '+'
  std::vector<std::string> node_names;  // the model's nodes it stands for, anchor first
  std::vector<std::string> op_types;    // their op types, BatchNormalization included
};

// `fusable` are the op types the device runs fused after an anchor (its
// describe()'s "fused_op_types"). Every node of the graph ends up in exactly
// one FusedOp, in graph order of the anchors.
// `members` names the model's nodes behind a node that stands for several
// (see patterns.h); they are what FusedOp::node_names lists.
std::vector<FusedOp> fuse(const aoe::sdk::Graph& graph, const std::set<std::string>& fusable,
                          const std::map<std::string, std::vector<std::string>>& members = {});

}  // namespace aoe::opat
