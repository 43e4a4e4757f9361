// A subgraph as the cpu device runs it: checked once, a strategy space over
// it (knobs named as subgraph_task.h says: fuse:, layout:, tiling:), and
// each config lowered to a plan of kernels and layout conversions.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "aoe/sdk/fusion.h"
#include "aoe/sdk/subgraph_task.h"
#include "aoe/sdk/tuning_space.h"
#include "attention_op.h"
#include "attention_pattern.h"
#include "cpu_op.h"
#include "host_cpu.h"

namespace aoe::cpu {

// How an error names a node: "node 'name' (Op)".
std::string node_where(const sdk::Node& node);

// One step of a lowered subgraph. Stored tensors are named as in the graph;
// a copy converted to another layout is "<tensor>@<layout>", a kernel's
// output before its conversion "<tensor>@kernel".
struct PlanStep {
  enum class Kind { kernel, convert, view };
  Kind kind = Kind::kernel;
  std::string name;                 // kernel: its nodes joined by '+'; convert: "<from> -> <to>"; view: the node
  std::vector<std::string> nodes;   // kernel, view: the graph's nodes it runs, anchor first
  std::vector<std::string> reads;   // per input of the kernel's task (a constant by its own name)
  std::vector<std::string> writes;  // per output
  // Kernels only.
  sdk::OpTask task;                 // under the decisions: what operator tuning sees afterwards
  std::shared_ptr<const CpuOp> op;  // its activations marked in the layout the config runs on
  sdk::Config config;
  std::string batch_norm;           // the BatchNormalization node folded into this Conv, if any
  // Conversions only: lanes (0 plain) and the tensor's N x C x spatial.
  int from = 0, to = 0;
  int64_t n = 1, channels = 1, spatial = 1;
};

struct Plan {
  std::vector<PlanStep> steps;
  size_t kernels() const { return count(PlanStep::Kind::kernel); }
  size_t conversions() const { return count(PlanStep::Kind::convert); }
  size_t count(PlanStep::Kind kind) const {
    size_t n = 0;
    for (const auto& s : steps) n += s.kind == kind ? 1 : 0;
    return n;
  }
};

// Nodes that only reinterpret their input's shape: run as aliases. A
// Dropout with its mask output or a training_mode input runs a kernel.
bool is_view(const sdk::Node& node);

class SubgraphOp {
 public:
  // Throws sdk::Error(unsupported) naming the node and op for unknown dims
  // or an op without a kernel; invalid_argument for a malformed graph.
  SubgraphOp(const sdk::SubgraphTask& task, std::shared_ptr<const HostCpu> host);

  const sdk::SubgraphTask& task() const { return task_; }
  const sdk::Graph& graph() const { return task_.graph; }
  const sdk::TuningSpace& space() const { return space_; }
  const HostCpu& host() const { return *host_; }

  // The plan of a config in the space's domain. Throws
  // sdk::Error(invalid_argument) with the reason it cannot run (a tuned
  // tiling its kernel does not take, say).
  Plan lower(const sdk::Config& config) const;

  // `config` with each tensor that has a layout knob kept as the kernel
  // writing it leaves it: channel-blocked after a blocked kernel, so that
  // blocked readers take it as it is and the others share one conversion.
  // Never more conversions than `config`'s (the model's layout between
  // kernels is a conversion out of each blocked kernel, and one back in).
  sdk::Config stored_as_written(const sdk::Config& config) const;

  // Tensors the subgraph reads but no node writes (inputs, constants), with
  // the values random data is drawn from.
  const std::map<std::string, ValueRange>& given() const { return given_; }
  // Every node unfused, in double precision per node (ops' references):
  // fills `values` with every tensor, from the given ones. `after_node`, where
  // given, sees each node's outputs in `values` before the next node runs.
  using AfterNode = std::function<void(const sdk::Node&, std::map<std::string, std::vector<float>>&)>;
  void reference(std::map<std::string, std::vector<float>>& values, const AfterNode& after_node = {}) const;

 private:
  void check_node(const sdk::Node& node);
  sdk::Config kernel_config(const std::string& anchor, const CpuOp& op, bool tuned) const;
  int stored_lanes(const std::string& tensor, const sdk::SubgraphDecisions& d) const;
  std::vector<sdk::FusedOp> kernels_of(const sdk::SubgraphDecisions& d,
                                       std::map<std::string, std::shared_ptr<const AttentionOp>>& attention) const;

  sdk::SubgraphTask task_;
  std::shared_ptr<const HostCpu> host_;
  std::set<std::string> fusable_;
  int lanes_ = 1;                                   // of "NCHWc": the widest ISA's
  std::vector<std::unique_ptr<CpuOp>> node_ops_;    // per node: its reference (null: view, BatchNormalization)
  std::map<std::string, ValueRange> given_;
  std::set<std::string> layout_tensors_;            // those with a layout: knob
  // Attention cores one kernel can run (a fuse:<Softmax> knob each).
  std::vector<std::shared_ptr<const AttentionOp>> attention_;
  sdk::TuningSpace space_;
};

}  // namespace aoe::cpu
