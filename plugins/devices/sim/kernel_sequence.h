// Kernels run one after the other in one launch, as CANN's FusedDbnDw runs
// batch-norm's data gradient and then the weight gradient from it: the
// launch is paid once, each part keeps its own tiling knobs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "aoe/sdk/op_task.h"
#include "op_model.h"
#include "soc.h"

namespace aoe::sim {

// A part's task: `op_type` from `inputs` to `output`, named as the op it is
// a part of.
sdk::OpTask part_task(const sdk::OpTask& op, const char* op_type, std::vector<sdk::TensorDesc> inputs,
                      sdk::TensorDesc output, nlohmann::json attrs = nlohmann::json::object());

class KernelSequence final : public OpModel {
 public:
  struct Part {
    std::string prefix;  // put before the part's knob names; empty for the first
    std::unique_ptr<OpModel> model;
  };

  KernelSequence(const Soc& soc, std::vector<Part> parts);

  const sdk::TuningSpace& space() const override { return space_; }
  sdk::Measurement check(const sdk::Config& config) const override;
  double time_us(const sdk::Config& config) const override;
  double roofline_us() const override;

 private:
  // The part's slice of a config.
  sdk::Config slice(const sdk::Config& config, size_t part) const;

  const Soc& soc_;
  std::vector<Part> parts_;
  std::vector<size_t> first_knob_;
  sdk::TuningSpace space_;
};

}  // namespace aoe::sim
