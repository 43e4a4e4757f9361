// A whole model run on the host CPU: the graph lowered once as the
// subgraph tuner lowers it (every fusion, each kernel's tiling from the bank
// where it has one), its tensors allocated once, then run and timed end to
// end; optionally checked against the nodes' double-precision references.
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <vector>

#include "aoe/sdk/graph_run.h"
#include "evaluate.h"
#include "host_cpu.h"

namespace aoe::cpu {

// The run report. Throws sdk::Error(invalid_argument) naming the tensor
// for a missing or mis-sized input or output, unsupported naming the node
// for an op without a kernel.
nlohmann::json run_model(const sdk::GraphRun& run, const std::vector<sdk::TensorView>& inputs,
                         const std::vector<sdk::TensorView>& outputs, std::shared_ptr<const HostCpu> host,
                         const Tolerance& tolerance);

}  // namespace aoe::cpu
