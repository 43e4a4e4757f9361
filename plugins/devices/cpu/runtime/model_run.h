// A whole model run on the host CPU: the graph lowered once as the
// subgraph tuner lowers it (every fusion, each kernel's tiling from the bank
// where it has one), its tensors allocated once, then run and timed end to
// end; optionally checked against the nodes' double-precision references.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "aoe/sdk/graph_run.h"
#include "evaluate.h"
#include "host_cpu.h"

namespace aoe::cpu {

// Told the name of each lent weight the run no longer reads, as soon as the
// last kernel that reads it is bound: its lender may free it.
using ReleaseWeight = std::function<void(const std::string& name)>;

// The buffer for a graph output of `dims` as the model runs, from its
// lender, where the one lent does not hold it (host.h's output_buffer).
using OutputBuffer = std::function<float*(const std::string& name, const std::vector<int64_t>& dims)>;

// The run report. Throws sdk::Error(invalid_argument) naming the tensor
// for a missing or mis-sized input or output, unsupported naming the node
// for an op without a kernel. An output the graph leaves unsized, or whose
// run-time shape its buffer does not hold, goes where `output_buffer` says. A checked run releases nothing: the reference
// reads every weight after the timed runs.
nlohmann::json run_model(const sdk::GraphRun& run, const std::vector<sdk::TensorView>& inputs,
                         const std::vector<sdk::TensorView>& outputs, std::shared_ptr<const HostCpu> host,
                         const Tolerance& tolerance, const ReleaseWeight& release = {},
                         const OutputBuffer& output_buffer = {});

}  // namespace aoe::cpu
