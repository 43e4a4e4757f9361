// --singleop: one or more ops described in AOE's single-op JSON, as a graph
// of unconnected nodes, for tuning an op without a model.
#pragma once

#include <filesystem>

#include "aoe/sdk/graph.h"

namespace aoe::host {

// The file holds one op or a list of them:
//   {"op": "MatMul", "name": "mm",
//    "input_desc": [{"shape": [128, 768], "type": "float16", "format": "ND"}, ...],
//    "output_desc": [...],
//    "attr": [{"name": "transB", "type": "int", "value": 1}, ...]}
// Only "op" is required. Throws sdk::Error(invalid_argument) naming the file,
// the op's position and the key at fault.
sdk::Graph load_singleop(const std::filesystem::path& file);

}  // namespace aoe::host
