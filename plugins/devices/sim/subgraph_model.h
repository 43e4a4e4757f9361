// A subgraph as the graph engine runs it on the SoC: its nodes lowered to
// kernels under a strategy (fusion, tensor layouts, L2 residency, operator
// tilings) and run one after another. The space is that strategy, its knobs
// named as aoe/sdk/subgraph_task.h says, so a tuning mode reads the
// decisions back by name.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "aoe/sdk/subgraph_task.h"
#include "op_model.h"
#include "soc.h"

namespace aoe::sim {

class SubgraphModel final : public OpModel {
 public:
  // One kernel a config runs: a fused op of the graph or a TransData.
  struct Kernel {
    std::string name;  // its nodes joined by '+', or "TransData:<tensor>"
    sdk::OpTask task;  // as it runs: sdk::under() the decisions
    sdk::Config config;  // its tiling in its op model's space
    double time_us = 0;
  };
  struct Plan {
    std::vector<Kernel> kernels;  // in the order they run; view ops are none
    int64_t l2_peak_bytes = 0;    // tensors kept in L2 at once, at the fullest point
    std::string invalid;          // why the config cannot run; empty if it can
  };

  // `fusable`: the op types the device fuses after an anchor. Throws
  // unsupported naming the node for an op the simulator has no model for
  // or a tensor of unknown dims.
  SubgraphModel(const Soc& soc, sdk::SubgraphTask task, std::set<std::string> fusable);

  const sdk::TuningSpace& space() const override { return space_; }
  sdk::Measurement check(const sdk::Config& config) const override;
  double time_us(const sdk::Config& config) const override;
  // One launch per kernel of the fullest fusion: no strategy runs fewer.
  double roofline_us() const override;

  // Lowers a config; a kernel whose model refuses it makes the plan invalid.
  Plan plan(const sdk::Config& config) const;

 private:
  void require_modelled() const;
  void require_given_modelled(const sdk::Node& n) const;
  void add_knobs();
  std::map<std::string, bool> default_fractal() const;
  bool is_activation(const std::string& tensor) const;
  bool is_layout_bearing(const std::string& tensor) const;
  std::string root_of(const std::string& tensor) const;
  // The op model's config for the kernel anchored at `anchor`, or why not.
  std::string tuned_config(const std::string& anchor, const OpModel& model, sdk::Config& out) const;

  const Soc& soc_;
  sdk::SubgraphTask task_;
  std::set<std::string> fusable_;
  std::map<std::string, std::string> alias_;  // a view's output -> the tensor it shows
  std::set<std::string> non_activations_;     // made by Constant, Shape, Size
  std::set<std::string> always_fused_;        // conv outputs a BatchNormalization folds into
  std::set<std::string> given_;               // nodes that are kernels fused already (aoe/sdk/fusion.h)
  size_t fullest_kernels_ = 0;
  sdk::TuningSpace space_;
};

bool is_view_op(const std::string& op_type);

}  // namespace aoe::sim
