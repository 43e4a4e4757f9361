// A sequence whose elements are known before the model runs (built by
// SequenceConstruct, SequenceEmpty, SequenceInsert and SequenceErase at
// constant positions, or by SplitToSequence of a tensor whose dims are
// known) is a list of tensors: what reads it becomes the tensor ops it
// amounts to. SequenceAt is its element, SequenceLength a constant,
// ConcatFromSequence a Concat (of Unsqueezes, with new_axis), and
// SplitToSequence a Split (Squeezed where keepdims is 0). Exporters write such
// lists (PyTorch's scripted list ops; a loop that appends, once unrolled);
// devices run tensors only. A sequence read by anything else (a graph output,
// a Loop) stays, with what makes it.
#pragma once

#include <cstdint>

namespace onnx {
class GraphProto;
}

namespace aoe::host {

// Rewrites the sequence ops whose sequences are known, removes the sequence ops
// nothing reads any more; returns how many nodes were rewritten or removed.
int64_t sequences_as_tensors(onnx::GraphProto& graph, int64_t opset);

}  // namespace aoe::host
