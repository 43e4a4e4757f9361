// The simulated Ascend device: prepares op tasks against an SoC model and
// times candidates with the op's cost model instead of hardware.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "aoe/sdk/device.h"
#include "aoe/sdk/component.h"
#include "op_model.h"
#include "soc.h"

namespace aoe::sim {

// Options: `noise` (relative sigma of each timing, default 0), `seed`, and
// for the ascend_sim component `soc`: a SoC target or a path to a SoC file.
struct SimOptions {
  double noise = 0;
  uint64_t seed = 0;
  std::string soc;

  static SimOptions parse(const nlohmann::json& options, const std::string& target);
};

// A built candidate is its modelled time: there is nothing else to run.
class SimCandidate final : public sdk::Candidate {
 public:
  explicit SimCandidate(double time_us) : time_us_(time_us) {}
  double time_us() const { return time_us_; }

 private:
  double time_us_;
};

class SimTask final : public sdk::DeviceTask {
 public:
  SimTask(std::shared_ptr<const Soc> soc, std::unique_ptr<OpModel> model, SimOptions options, uint64_t task_seed);

  sdk::TuningSpace space() const override { return model_->space(); }
  sdk::Measurement check(const sdk::Config& config) const override { return model_->check(config); }
  sdk::Built build(const sdk::Config& config) override;
  std::vector<sdk::Measurement> measure(const std::vector<sdk::Candidate*>& batch,
                                        const sdk::MeasureOptions& options) override;

  const OpModel& model() const { return *model_; }

 private:
  sdk::Measurement timed(double model_us, uint32_t repeats);

  std::shared_ptr<const Soc> soc_;  // the model refers to it; a task may outlive its device
  std::unique_ptr<OpModel> model_;
  SimOptions options_;
  std::mt19937_64 rng_;
};

class SimDevice final : public sdk::Device {
 public:
  // The component names the SoC file (ascend910 -> ascend910.yaml), except
  // ascend_sim, whose `soc` option does.
  explicit SimDevice(const sdk::CreateArgs& args);
  SimDevice(Soc soc, SimOptions options);

  nlohmann::json describe() const override;
  // Throws unsupported for an op (or fused op, or dtype) the SoC model lacks.
  std::unique_ptr<sdk::DeviceTask> prepare(const sdk::OpTask& task) override;
  // The whole subgraph under a strategy (fusion, layouts, L2, tilings), its
  // kernels timed one after another (subgraph_model.h). Throws unsupported
  // naming the node for an op without a model or a tensor of unknown dims.
  std::unique_ptr<sdk::DeviceTask> prepare_subgraph(const sdk::SubgraphTask& task) override;
  // The whole model's modelled time under the default strategy with the
  // bank's tilings; a model of time computes no outputs.
  nlohmann::json run_graph(const sdk::GraphRun& run, const std::vector<sdk::TensorView>& inputs,
                           const std::vector<sdk::TensorView>& outputs) override;
  // The op's model alone, for callers that want its figures; it refers to
  // this device's SoC.
  std::unique_ptr<OpModel> model(const sdk::OpTask& task) const;

 private:
  SimOptions options_;
  std::shared_ptr<const Soc> owned_soc_;
  const Soc& soc_;
};

}  // namespace aoe::sim
