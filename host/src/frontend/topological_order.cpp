#include "topological_order.h"

#include <onnx/onnx_pb.h>

#include <map>
#include <queue>
#include <set>
#include <string>
#include <vector>

#include "aoe/sdk/error.h"
#include "graph_normaliser.h"

namespace aoe::host {
namespace {

using sdk::Error;
using sdk::StatusCode;

std::string node_label(const onnx::NodeProto& node, int index) {
  return "node " + (node.name().empty() ? "#" + std::to_string(index) : "'" + node.name() + "'") + " (" +
         node.op_type() + ")";
}

}  // namespace

int64_t order_topologically(onnx::GraphProto& graph, const std::filesystem::path& model) {
  const int n = graph.node_size();
  std::map<std::string, int> producer;
  for (int i = 0; i < n; ++i)
    for (const auto& o : graph.node(i).output())
      if (!o.empty()) producer[o] = i;
  std::vector<std::vector<int>> readers(static_cast<size_t>(n));
  std::vector<int> waiting(static_cast<size_t>(n), 0);
  for (int i = 0; i < n; ++i) {
    const auto& node = graph.node(i);
    std::set<std::string> read(node.input().begin(), node.input().end());
    read_in_subgraphs(node, read);
    std::set<int> from;
    for (const auto& name : read)
      if (auto it = producer.find(name); it != producer.end() && it->second != i) from.insert(it->second);
    for (int p : from) readers[static_cast<size_t>(p)].push_back(i);
    waiting[static_cast<size_t>(i)] = static_cast<int>(from.size());
  }
  // The earliest ready node first: a graph already in order stays as it is.
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < n; ++i)
    if (waiting[static_cast<size_t>(i)] == 0) ready.push(i);
  std::vector<int> order;
  while (!ready.empty()) {
    const int i = ready.top();
    ready.pop();
    order.push_back(i);
    for (int r : readers[static_cast<size_t>(i)])
      if (--waiting[static_cast<size_t>(r)] == 0) ready.push(r);
  }
  if (static_cast<int>(order.size()) < n) {
    int stuck = 0;
    while (waiting[static_cast<size_t>(stuck)] == 0) ++stuck;
    throw Error(StatusCode::invalid_argument, "ONNX model '" + model.string() + "': " +
                                                  node_label(graph.node(stuck), stuck) +
                                                  " is on a cycle of nodes that read each other's outputs; re-export the model");
  }
  int64_t moved = 0;
  for (int i = 0; i < n; ++i) moved += order[static_cast<size_t>(i)] != i ? 1 : 0;
  if (moved == 0) return 0;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> sorted;
  for (int i : order) *sorted.Add() = std::move(*graph.mutable_node(i));
  graph.mutable_node()->Swap(&sorted);
  return moved;
}

}  // namespace aoe::host
