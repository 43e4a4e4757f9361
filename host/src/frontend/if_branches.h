// An If whose condition is known only as the model runs (PyTorch's export
// of `if sr == 16000:`) and a Loop whose trip count or condition is (a
// scripted or tf.while loop) stay in the graph, each branch and body
// normalised as the model is and carried to the devices in the graph IR.
#pragma once

#include <cstdint>
#include <functional>

#include "aoe/sdk/graph.h"

namespace onnx {
class GraphProto;
}

namespace aoe::host {

// Each branch of each If and each body of each Loop left in `graph` (and of those inside them)
// normalised as normalise_graph() does a model, then its initializers (its
// Constant nodes' values among them) moved to `graph`'s, renamed where the
// name is taken: the weights a run lends by name. Returns the constants moved.
int64_t lift_branch_constants(onnx::GraphProto& graph, int64_t opset, const std::function<void()>& infer_shapes);

// A branch as the graph IR: `convert` turns a GraphProto into it, and the
// names it reads from outside are described as `outer` describes them.
using BranchConverter = std::function<sdk::Graph(onnx::GraphProto&)>;
// Sets attributes then_branch and else_branch of each If of `ir`, and body of each Loop, the
// conversion of `proto` (node i of one is node i of the other), to its
// branches in the graph IR, those of the Ifs inside them too; `root` holds
// the initializers whose values become attributes (value_attributes.h).
void attach_if_branches(onnx::GraphProto& proto, const onnx::GraphProto& root, int64_t opset,
                        const BranchConverter& convert, sdk::Graph& ir);

}  // namespace aoe::host
