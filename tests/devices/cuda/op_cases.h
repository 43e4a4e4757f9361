// One-node graphs of every op the cuda device's op kernels compute, small
// enough to run on CPU threads: shared by the tests that compile their
// sources (clang, NVRTC) and run them.
#pragma once

#include <string>
#include <vector>

#include "aoe/sdk/graph.h"

namespace aoe::cuda {

struct OpCase {
  std::string name;
  sdk::Graph graph;  // one node
};

std::vector<OpCase> op_cases();

}  // namespace aoe::cuda
