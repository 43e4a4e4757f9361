// A model's own weights, for running it: the float32 initializers by name,
// and the integer and bool ones as the whole numbers a device's float32
// buffers hold them as.
// Tuning needs only their dims; `aoe-host run` hands their values to the
// device so that the outputs are the model's.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace onnx {
class GraphProto;
}

namespace aoe::host {

using ModelWeights = std::map<std::string, std::vector<float>>;

// Every FLOAT initializer of `graph`, from its raw data, its float_data or
// its external data file beside `model`, and every float64 (rounded to
// float32), float16, bfloat16, integer and bool one from its raw, typed or external data (past 2^24 in magnitude, the nearest float32:
// the ops that read such values, Slice's bounds, take them as attributes),
// moved out: each one is left empty
// as its values are taken, so call it last, once nothing reads `graph`.
// Call after check_initializers, which bounds each one's size, offset and
// length. An external data file that is absent (tuning allows it) is an
// sdk::Error naming the tensor and the file: running needs the values.
ModelWeights take_initializers(onnx::GraphProto& graph, const std::filesystem::path& model);

}  // namespace aoe::host
