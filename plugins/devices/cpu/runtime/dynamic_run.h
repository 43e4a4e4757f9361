// A model some of whose shapes are known only as it runs: ops whose output
// shape depends on values (NonZero, Unique, NonMaxSuppression), If, whose
// branch a value chooses, and Loop, whose trip count or condition is one. Run in segments: every node whose input
// shapes are known is planned, fused and run as a static subgraph is; then
// the value-shaped ops it feeds run and give their shapes, and the nodes
// after them are inferred with those shapes and planned in turn. A node
// sized by values the run computes (a TopK's K, a Slice's bounds, a
// Reshape's shape: shape_inference.h) waits for the round after the one
// that computes them, and is planned with them as its attributes. A
// segment's plan is kept per distinct set of run-time shapes: a run whose
// shapes were met before allocates and plans nothing. Its kernels and the
// copies of the tensors it reads are kept too, while all segments' together
// stay within a budget; a segment past it makes them for each run and
// releases them after.
#pragma once

#include <nlohmann/json.hpp>

#include <limits>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "aoe/sdk/graph.h"
#include "host_cpu.h"
#include "shape_inference.h"
#include "subgraph_run.h"
#include "thread_pool.h"
#include "value_shaped_op.h"

namespace aoe::cpu {

// Whether the graph holds an op the static planner cannot size: then the
// model runs as a DynamicModel.
bool has_value_shaped_ops(const sdk::Graph& graph);

class DynamicModel {
 public:
  // `op_configs`: the bank's tilings by anchor, as SubgraphTask::op_configs;
  // weights the run does not lend are drawn from `seed`. `kept_bytes`: the
  // budget of the segments' kept kernels (their arenas) and input copies.
  DynamicModel(sdk::Graph graph, std::shared_ptr<const HostCpu> host, nlohmann::json op_configs, uint64_t seed,
               int64_t kept_bytes = std::numeric_limits<int64_t>::max());
  ~DynamicModel();

  // The graph's outputs from its inputs and the weights lent, by name.
  // Throws sdk::Error(unsupported) naming the node for an op after a
  // value-shaped one whose shape the device cannot infer.
  std::vector<HeldTensor> run(const GivenViews& given, ThreadPool& pool);
  // The same, each segment by its nodes' double-precision references and
  // each value-shaped op by its own: shapes included, nothing shared with run().
  std::vector<HeldTensor> reference(const GivenViews& given);

  // Each planned segment's kernels and each value-shaped op, with its mean
  // time over the runs so far, as the static run reports kernels.
  nlohmann::json kernels_report(size_t runs) const;
  // Forgets the times summed so far: the untimed runs' are not reported.
  void clear_times();
  // Segments planned (one per distinct set of run-time shapes).
  size_t segment_plans() const;
  // Times a segment's kernels and input copies were released after it ran, past the budget.
  size_t segments_released() const { return released_; }
  int64_t arena_bytes() const;
  Footprint footprint() const;

 private:
  struct Segment;
  struct Value;
  struct Round;
  using Values = std::map<std::string, Value>;
  void evaluate(const sdk::Graph& graph, const std::string& scope, Values& env, std::vector<std::vector<float>>& held,
                ThreadPool* pool);
  // Whether a round of evaluate() decided before decides the same now: the
  // same nodes pending, the same shapes in scope, the same values planned with.
  bool repeats(const Round& round, const std::vector<const sdk::Node*>& pending, const Values& env);
  Segment& segment_for(const sdk::Graph& graph, const std::string& scope, const std::vector<const sdk::Node*>& nodes,
                       const std::map<std::string, Shape>& shapes, const std::set<std::string>& needed, const Values& env);
  void run_segment(Segment& s, Values& env, std::vector<std::vector<float>>& held, ThreadPool* pool);
  // The segment's kernels and input copies kept where the budget has room for them, else released.
  void keep_or_release(Segment& s);
  void run_value_shaped(const std::string& scope, const sdk::Node& node, Values& env,
                        std::vector<std::vector<float>>& held, ThreadPool* pool);
  void run_loop(const std::string& id, const sdk::Node& node, Values& env, std::vector<std::vector<float>>& held,
                ThreadPool* pool);

  const std::vector<std::string>& reads(const sdk::Node& node);
  // The node as planned with the values it reads as the model runs (valued_),
  // and those values; itself and none where it reads none.
  std::pair<const sdk::Node*, const SlotValues*> with_its_values(const sdk::Node& node, const Values& env);
  // A buffer for a tensor the run computes, one of the last run's where one is
  // big enough: fresh ones (180 MB a run for Faster R-CNN) fault their pages
  // in every run. Recycled once nothing reads them.
  std::vector<float>& hold(std::vector<std::vector<float>>& held, size_t elements);
  void recycle(std::vector<std::vector<float>>& held);
  // The buffer of `held` that holds `values`, taken from it (a Loop's carried
  // value, which a torchvision paste loop grows by a mask each iteration),
  // else a copy of them (a value of the outer scope, say).
  static std::vector<float> taken_or_copied(std::vector<std::vector<float>>& held, std::span<const float> values);

  sdk::Graph graph_;
  std::shared_ptr<const HostCpu> host_;
  nlohmann::json op_configs_;
  uint64_t seed_;
  std::map<std::string, std::unique_ptr<Segment>> segments_;  // by scope, nodes and input shapes
  std::map<std::string, std::unique_ptr<ValueShapedOp>> ops_;  // by scope and node
  std::map<std::string, sdk::Graph> branches_;                 // If's and Loop's, by scope, node and branch or body
  std::map<std::string, double> op_ms_;                        // value-shaped ops' summed times
  std::map<std::string, std::string> op_types_;
  std::map<const sdk::Node*, std::vector<std::string>> reads_;
  // Nodes given values computed as the model ran as attributes, one per node and distinct
  // values: a run that meets values met before builds no node and plans nothing.
  std::map<std::pair<const sdk::Node*, SlotValues>, sdk::Node> valued_;
  // Per node, the values it read in the run before and what they gave: a run repeated on the same
  // inputs compares them instead of converting millions (a ScatterElements' indices) and looking them up.
  struct LastValues {
    std::vector<std::pair<size_t, std::vector<float>>> given;
    const sdk::Node* planned = nullptr;
    const SlotValues* values = nullptr;
  };
  std::map<const sdk::Node*, LastValues> last_values_;
  // Each graph's rounds as the run before decided them, by graph and scope: a
  // run that meets the same shapes repeats them without inferring a shape or
  // building a segment's key (most of a small model's run, Silero's).
  std::map<std::pair<const sdk::Graph*, std::string>, std::vector<Round>> rounds_;
  std::multimap<size_t, std::vector<float>> spare_;  // buffers recycled, by capacity
  int64_t kept_budget_, kept_ = 0;  // bytes of the kept segments' kernels' arenas and input copies
  size_t released_ = 0;
};

}  // namespace aoe::cpu
