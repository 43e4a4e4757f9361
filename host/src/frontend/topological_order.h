// Nodes put in an order that runs each after the nodes it reads from. ONNX
// asks exporters for that order, but some tools' rewrites break it (a float16
// conversion appends the casts of its inputs at the end), and ONNX Runtime
// sorts the graph itself; so does aoe, before the checker sees it.
#pragma once

#include <cstdint>
#include <filesystem>

namespace onnx {
class GraphProto;
}

namespace aoe::host {

// Stable: nodes already in order keep it. Returns how many nodes moved.
// A node inside an If, Loop or Scan body that reads an outer value waits for
// it like its node does. Throws sdk::Error(invalid_argument) naming the
// model and a node on a cycle.
int64_t order_topologically(onnx::GraphProto& graph, const std::filesystem::path& model);

}  // namespace aoe::host
