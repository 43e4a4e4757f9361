// scikit-learn classifiers exported by skl2onnx end in a ZipMap: their
// probabilities as a sequence of maps, one per row, from class label to
// probability. The devices hold tensors: a ZipMap making a graph output
// becomes an Identity of its [N, classes] input, and that output the float
// tensor (its shape left to inference), as skl2onnx's zipmap=False option
// writes the model. Runs as the model is read, before ONNX's inference,
// which cannot type a sequence of maps.
#pragma once

#include <cstdint>

namespace onnx {
class GraphProto;
}

namespace aoe::host {

// Returns how many ZipMaps it rewrote.
int64_t zipmap_as_tensor(onnx::GraphProto& graph);

}  // namespace aoe::host
