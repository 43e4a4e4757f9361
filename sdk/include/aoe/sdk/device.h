// SPDX-License-Identifier: Apache-2.0
// What a device plugin author implements: a Device that prepares op (and
// subgraph) tasks, and a DeviceTask that checks, builds and times candidates.
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <vector>

#include "aoe/sdk/measurement.h"
#include "aoe/sdk/error.h"
#include "aoe/sdk/graph_run.h"
#include "aoe/sdk/op_task.h"
#include "aoe/sdk/subgraph_task.h"
#include "aoe/sdk/tuning_space.h"

namespace aoe::sdk {

// A built candidate; each device subclasses it with what it needs to run.
class Candidate {
 public:
  virtual ~Candidate() = default;
};

// A build either yields a candidate or says why not (data, not an exception).
struct Built {
  std::unique_ptr<Candidate> candidate;
  Measurement failure;

  static Built ok(std::unique_ptr<Candidate> c) { return {std::move(c), {}}; }
  static Built failed(ResultStatus status, std::string why) {
    return {nullptr, Measurement::failed(status, std::move(why))};
  }
};

class DeviceTask {
 public:
  virtual ~DeviceTask() = default;
  // Asked once per task; the SDK keeps the answer.
  virtual TuningSpace space() const = 0;
  // ok, or invalid with the constraint it breaks. Called before every build.
  virtual Measurement check(const Config&) const { return {}; }
  virtual Built build(const Config& config) = 0;
  // One result per candidate, in order.
  virtual std::vector<Measurement> measure(const std::vector<Candidate*>& batch, const MeasureOptions& options) = 0;
};

class Device {
 public:
  virtual ~Device() = default;
  // soc_version, cores, buffers, bandwidths: whatever describes the target.
  virtual nlohmann::json describe() const = 0;
  // Throws Error(StatusCode::unsupported, ...) for an op the device cannot run.
  virtual std::unique_ptr<DeviceTask> prepare(const OpTask& task) = 0;
  // A task whose space is a strategy over the whole subgraph (knobs named as
  // subgraph_task.h says) and whose candidates run it end to end. SDK 1.1.
  virtual std::unique_ptr<DeviceTask> prepare_subgraph(const SubgraphTask& task) {
    throw Error(StatusCode::unsupported, "the device does not measure subgraphs (" + task.name + ")");
  }
  // Runs the whole model with the bank's tilings: reads `inputs` (the
  // graph's, by name), fills `outputs` (the graph's, in order, sized by the
  // caller) and returns the run report (latency, memory, which kernels ran
  // tuned). SDK 1.4.
  virtual nlohmann::json run_graph(const GraphRun& run, const std::vector<TensorView>& inputs,
                                   const std::vector<TensorView>& outputs) {
    (void)inputs;
    (void)outputs;
    throw Error(StatusCode::unsupported, "the device does not run models (" + run.graph.name + ")");
  }
};

}  // namespace aoe::sdk
