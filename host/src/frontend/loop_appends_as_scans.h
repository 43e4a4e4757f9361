// A Loop that appends one tensor per iteration to a sequence it carries,
// starting from SequenceEmpty, and whose sequence is read after it only by
// ConcatFromSequence, is a Loop with a scan output: what PyTorch's scripted
// `for i in range(n): outs.append(t)` then `torch.cat(outs)` or
// `torch.stack(outs)` exports. The carried sequence becomes a scan output
// (the values stacked on a new first axis), and each ConcatFromSequence a
// Transpose and Reshape of it, so a loop whose trip count is known only as
// the model runs (a decoder's length fed as an input) runs on tensors. A
// Loop of a constant trip count is left to unroll_constant_loop.
// The appended tensor's rank must be known; a dim known only as the model
// runs is read then (a dim that changes from one iteration to the next is the
// Loop's error, naming its scan output).
#pragma once

#include <cstdint>

namespace onnx {
class GraphProto;
}

namespace aoe::host {

// Rewrites each such sequence of each such Loop; returns how many sequences.
int64_t loop_appends_as_scans(onnx::GraphProto& graph, int64_t opset);

}  // namespace aoe::host
