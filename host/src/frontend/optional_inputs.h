// An input of optional type (a scripted module's Optional[Tensor] argument,
// as PyTorch exports it) is fed as the tensor it holds, as ONNX Runtime is
// fed it: its type becomes that tensor's, OptionalHasElement of it a constant
// true and OptionalGetElement of it an Identity, in the graph and in its
// subgraphs (If branches read it from there). The If on whether it holds one
// then folds away.
#pragma once

#include <cstdint>

namespace onnx {
class GraphProto;
}

namespace aoe::host {

// Rewrites each such input; returns how many.
int64_t optional_inputs_as_tensors(onnx::GraphProto& graph);

}  // namespace aoe::host
