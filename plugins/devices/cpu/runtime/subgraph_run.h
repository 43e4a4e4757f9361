// A lowered subgraph run for real: its tensors allocated, inputs and
// constants from a seeded generator (a BatchNormalization folded into its
// Conv's weights and bias), every step run in order, outputs checked
// against the nodes run one by one in double precision.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "aoe/sdk/measurement.h"
#include "blocked.h"
#include "buffer.h"
#include "evaluate.h"
#include "subgraph_op.h"

namespace aoe::cpu {

// What a subgraph's candidates run on and must give.
struct SubgraphData {
  std::map<std::string, std::vector<float>> given;  // inputs and constants, in the model's layout
  std::vector<std::vector<float>> expected;         // per graph output
};

// The given tensors a kernel reads, by name: held by whoever lends them
// (SubgraphData, or the caller of a model run), never copied.
using GivenViews = std::map<std::string, std::span<const float>>;
GivenViews views_of(const std::map<std::string, std::vector<float>>& given);

// Random given tensors (inputs and constants) in their ranges from `seed`,
// but for those `lent` holds: their draws are skipped, so each drawn one has
// the values it has when all are drawn.
std::map<std::string, std::vector<float>> random_given(const SubgraphOp& op, uint64_t seed,
                                                       const GivenViews& lent = {});

// Random given tensors in their ranges from `seed`, then the reference outputs.
SubgraphData make_subgraph_data(const SubgraphOp& op, uint64_t seed);

// A plan's kernels built and bound on the given tensors, which must outlive
// it: the whole subgraph as one kernel (bind() does nothing: it is bound
// when made). Outputs are the graph's, in the model's layout.
class SubgraphKernel final : public Kernel {
 public:
  // `unread` is told each given tensor no step reads at run (every kernel
  // that reads it packed or reordered it), as soon as its last reader is
  // bound: its lender may free it then.
  SubgraphKernel(const SubgraphOp& op, const Plan& plan, const GivenViews& given,
                 const std::function<void(const std::string&)>& unread = {});

  void bind(const std::vector<const float*>&) override {}
  void run(ThreadPool& pool) override;
  // run(), adding each step's wall time in ms to `ms`, indexed as the
  // plan's steps (views take none).
  void run_profiled(ThreadPool& pool, std::vector<double>& ms);
  void read_output(size_t index, float* out) const override;
  float* output_data() override;
  const float* kept_output(size_t index) const override;
  // Of the given tensors, those it reads at run.
  Footprint footprint() const override;
  // The arena the tensors between kernels share by lifetime.
  int64_t arena_bytes() const { return arena_ ? static_cast<int64_t>(arena_->bytes()) : 0; }

 private:
  struct Step {
    std::shared_ptr<const CpuOp> op;  // the kernel refers to it
    std::unique_ptr<Kernel> kernel;
    Relayout convert;
    int threads = 1;
    size_t plan_step = 0;
    bool empty = false;  // every tensor it writes has no elements (a detector's zero boxes): nothing to run
  };
  void run_step(Step& s, ThreadPool& pool);
  const float* at(const std::string& tensor) const;
  using Folded = std::array<std::unique_ptr<Buffer>, 2>;  // a Conv's weights and bias, a BatchNormalization folded in
  // Points the Conv's weights and bias among `inputs` at the folded ones.
  Folded fold_batch_norm(const PlanStep& step, const GivenViews& given, std::vector<const float*>& inputs);

  const SubgraphOp& op_;
  std::vector<Step> steps_;
  std::map<std::string, const float*> tensors_;
  std::vector<std::unique_ptr<Buffer>> owned_;  // folded weights the kernels read at run
  std::unique_ptr<Buffer> arena_;
  Footprint given_;
};

// The whole subgraph lowered for `config`, bound to the data: run and timed
// as one kernel, as bind_kernel() gives an op's.
BoundKernel bind_subgraph(const SubgraphOp& op, const sdk::Config& config, const SubgraphData& data);

}  // namespace aoe::cpu
