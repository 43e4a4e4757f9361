// A model's own functions (ModelProto.functions), as PyTorch's dynamo
// exporter and onnxscript write them: each call is replaced by the
// function's body, as ONNX Runtime inlines them before it partitions a
// graph, so the normaliser and the devices see ONNX ops only.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <filesystem>

namespace aoe::host {

// Inlines every call of a model function (in the graph and its subgraphs,
// calls within functions too), the body's values renamed under the call's
// name, its attribute references (`ref_attr_name`) given the call's values
// or the function's defaults, then drops the functions. Returns the calls
// inlined; throws sdk::Error naming the file and the function for a
// function that calls itself or is defined twice.
int64_t inline_model_functions(onnx::ModelProto& model, const std::filesystem::path& path);

}  // namespace aoe::host
