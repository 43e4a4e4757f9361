// An ONNX model as a plain graph a script without the onnx package reads:
// JSON for the nodes, their attributes, the inputs and the outputs, and one
// binary file holding every initializer's and tensor attribute's bytes
// (each named in the JSON by its offset, byte count, dtype and shape). The
// CUDA runtime bench's PyTorch columns run models so (bench/torch_run.py).
#pragma once

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <map>
#include <string>

namespace aoe::bench {

// `model` as read from `model_path` (external weights are read relative to
// it); `input_dims` gives a dim an input names symbolically ("batch" -> 8).
// Writes json_out and bin_out; throws std::runtime_error naming what it
// cannot read or write.
void export_graph(const onnx::ModelProto& model, const std::filesystem::path& model_path,
                  const std::map<std::string, int64_t>& input_dims, const std::filesystem::path& json_out,
                  const std::filesystem::path& bin_out);

}  // namespace aoe::bench
