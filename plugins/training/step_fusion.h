// CANN's fusions of a training step's kernels: the one table of rules of
// docs/training.md. A rule applies where the device lists each of its
// followers among its fused_op_types; elsewhere each kernel runs alone.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "aoe/sdk/fusion.h"
#include "training_step.h"

namespace aoe::training {

struct StepFusionRule {
  std::string kernel;  // as CANN names the fused kernel
  std::string anchor;
  std::vector<std::string> followers;
  // The anchor's output stays an output of the fused kernel (other kernels
  // read it); otherwise the chain hides it and nothing else may read it.
  bool keeps_anchor_output = false;
  // Where CANN fuses only some shapes; nullptr: every shape.
  bool (*applies)(const aoe::sdk::Graph& step, const std::vector<const aoe::sdk::Node*>& chain) = nullptr;
};

const std::vector<StepFusionRule>& step_fusion_rules();

// The input of a follower that the chain hands it, by its op type.
size_t chain_input(const std::string& follower);

struct StepKernel {
  aoe::sdk::FusedOp op;    // one kernel, or a fused chain named after its kernels joined by '+'
  std::string fusion;      // the rule's kernel name where a rule fused it, else ""
  std::string forward_op;  // the forward node its anchor comes from
};

// Every kernel of the step in exactly one StepKernel, in the order of the anchors.
std::vector<StepKernel> fuse_step(const TrainingStep& step, const std::set<std::string>& fusable);

}  // namespace aoe::training
