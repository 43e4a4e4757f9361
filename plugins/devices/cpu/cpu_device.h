// The host CPU as a device: real fp32 kernels, each candidate checked
// against a reference and timed in a worker process.
#pragma once

#include <nlohmann/json.hpp>

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "aoe/sdk/device.h"
#include "aoe/sdk/component.h"
#include "cpu_op.h"
#include "cpu_options.h"
#include "evaluate.h"
#include "host_cpu.h"
#include "subgraph_op.h"
#include "subgraph_run.h"
#include "thread_pool.h"

namespace aoe::cpu {

// A built candidate: its config, and the fault it is to show when the
// `fault` option picks it. The kernel itself is made in the worker.
class CpuCandidate final : public sdk::Candidate {
 public:
  CpuCandidate(sdk::Config config, Fault fault) : config_(std::move(config)), fault_(fault) {}
  const sdk::Config& config() const { return config_; }
  Fault fault() const { return fault_; }

 private:
  sdk::Config config_;
  Fault fault_;
};

// A task of the cpu device: an op's (Op CpuOp, Data TaskData) or a
// subgraph's (SubgraphOp, SubgraphData). Candidates are configs the op
// accepts; each is measured against the expected outputs of inputs made
// once in the parent.
template <class Op, class Data>
class CpuDeviceTask final : public sdk::DeviceTask {
 public:
  CpuDeviceTask(std::shared_ptr<const HostCpu> host, std::unique_ptr<Op> op, CpuOptions options)
      : host_(std::move(host)), op_(std::move(op)), options_(options) {}

  sdk::TuningSpace space() const override { return op_->space(); }
  sdk::Measurement check(const sdk::Config& config) const override;
  sdk::Built build(const sdk::Config& config) override;
  std::vector<sdk::Measurement> measure(const std::vector<sdk::Candidate*>& batch,
                                        const sdk::MeasureOptions& options) override;

  const Op& op() const { return *op_; }

 private:
  const Data& data();

  std::shared_ptr<const HostCpu> host_;  // the op refers to it
  std::unique_ptr<Op> op_;
  CpuOptions options_;
  std::atomic<uint64_t> built_{0};
  std::once_flag data_once_;
  std::unique_ptr<Data> data_;
  std::unique_ptr<ThreadPool> pool_;  // isolation "none" only; workers make their own
};

// An op, each candidate checked against the op's reference.
using CpuTask = CpuDeviceTask<CpuOp, TaskData>;
// A subgraph: a strategy over it (fusion, layouts, tilings), each
// candidate run end to end and checked against the nodes run one by one.
using CpuSubgraphTask = CpuDeviceTask<SubgraphOp, SubgraphData>;

class CpuDevice final : public sdk::Device {
 public:
  explicit CpuDevice(const sdk::CreateArgs& args);
  explicit CpuDevice(CpuOptions options);

  nlohmann::json describe() const override;
  // Throws unsupported for an op, fused op or dtype the kernels lack.
  std::unique_ptr<sdk::DeviceTask> prepare(const sdk::OpTask& task) override;
  std::unique_ptr<CpuTask> prepare_cpu(const sdk::OpTask& task);
  // Throws unsupported naming the node for unknown dims or an op without a kernel.
  std::unique_ptr<sdk::DeviceTask> prepare_subgraph(const sdk::SubgraphTask& task) override;
  std::unique_ptr<CpuSubgraphTask> prepare_cpu_subgraph(const sdk::SubgraphTask& task);
  // The whole model in this process, lowered as prepare_subgraph() lowers a
  // subgraph, with the bank's tilings; see model_run.h.
  nlohmann::json run_graph(const sdk::GraphRun& run, const std::vector<sdk::TensorView>& inputs,
                           const std::vector<sdk::TensorView>& outputs) override;
  const HostCpu& host() const { return *host_; }

 private:
  CpuOptions options_;
  std::shared_ptr<const HostCpu> host_;
};

}  // namespace aoe::cpu
