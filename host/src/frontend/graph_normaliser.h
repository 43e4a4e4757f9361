// The one place every model passes through before a mode or the runtime sees
// it, as ONNX Runtime's basic graph optimisations and onnx-simplifier do:
// exporters' habits (Constant nodes, shape arithmetic, Identity, empty
// optional inputs) turned into the plain graph the devices read.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "aoe/sdk/graph.h"

namespace onnx {
class GraphProto;
class NodeProto;
}

namespace aoe::host {

// Adds to `names` what a node's subgraphs (If's branches, Loop's and Scan's
// bodies) read, the outer scope's names among them.
void read_in_subgraphs(const onnx::NodeProto& node, std::set<std::string>& names);
// Adds to `names` what the graph's nodes (their subgraphs too) and its outputs read.
void read_in_graph(const onnx::GraphProto& graph, std::set<std::string>& names);

// What the normaliser did: a count per rule, in the order the rules ran.
struct Normalisation {
  std::vector<std::pair<std::string, int64_t>> counts;

  void add(const std::string& rule, int64_t count);  // adds to the rule's count when it ran before
  // "3 Constant nodes to initializers, 12 nodes folded, ..." or "nothing to change".
  std::string summary() const;
  nlohmann::json to_json() const;  // {"constant_to_initializer": 3, ...}
};

// Before them, as the model is read: topological_order (topological_order.h)
// and zipmap_as_tensor (zipmap_as_tensor.h).
// The rules on the shape-inferred ONNX graph, in this order:
//   constant_to_initializer: each Constant node, of any dtype, becomes an initializer;
//   fold_constants: each node whose outputs follow from constants and known shapes
//     (constant_folding.h) is removed, its outputs kept as initializers where read;
//   inline_constant_if: an If whose condition is now a constant is replaced by
//     the branch it takes;
//   unroll_constant_loop: a Loop whose trip count is a constant and whose every
//     iteration runs becomes copies of its body (unroll_loops.h);
//   unroll_scan: a Scan whose sequence length the shapes tell becomes copies of
//     its body, its scan inputs sliced per step;
//   variadic_to_binary: Sum, Mean, Max and Min of n inputs become chains of Add,
//     Max or Min (Mean: times 1/n), of one input an Identity;
//   softmax_along_an_axis: before opset 13, Softmax, LogSoftmax and Hardmax
//     flatten their input to 2-D at `axis` (default 1): given axis -1 where
//     that is the same, wrapped in Flatten and Reshape where not;
//   einsum_as_matmul: an Einsum contracting two operands becomes Transpose,
//     Reshape, MatMul, Reshape, Transpose, each where needed (einsum_as_matmul.h);
//   sequences_as_tensors: a sequence whose elements are known becomes them, and
//     what reads it the tensor ops it amounts to (sequences_as_tensors.h);
//   loop_appends_as_scans: a sequence a Loop of no constant trip count carries
//     from SequenceEmpty and only appends to, read after it by
//     ConcatFromSequence alone, becomes a scan output (loop_appends_as_scans.h);
//     where any of the last eight changed the graph, `infer_shapes` runs and the ten again;
//   remove_identity: Identity, Dropout in inference and a Cast to the type its
//     input has, read through;
//   empty_optional_inputs: an optional input given as a tensor of no elements
//     (Resize's roi, as Paddle2ONNX writes it) is read as absent (""), and
//     absent inputs at the end of the list are dropped;
//   roi_align_mode_of_its_opset: before opset 16, a RoiAlign is given
//     coordinate_transformation_mode output_half_pixel, the only mode it had
//     (opset 16's default is half_pixel);
//   clip_bounds_as_max_min: a Clip whose min or max is computed as the model
//     runs becomes Max(x, min) then Min(., max) (then `infer_shapes` runs).
// A graph output keeps the node that makes it where reading through would rename it.
Normalisation normalise_graph(onnx::GraphProto& graph, int64_t opset, const std::function<void()>& infer_shapes);

// The last rule, on the converted graph: the inputs whose values decide what an
// op computes become its attributes (value_attributes.h). Adds its count.
void normalise_converted(const onnx::GraphProto& proto, int64_t opset, sdk::Graph& graph, Normalisation& done);

}  // namespace aoe::host
