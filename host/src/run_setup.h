// What a tuning run and a model run both set up from settings: the model,
// the device, the bank.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <string_view>

#include "aoe/sdk/graph.h"
#include "bank.h"
#include "frontend/graph_normaliser.h"
#include "frontend/model_weights.h"
#include "plugin_loader.h"
#include "settings.h"

namespace aoe::host {

// A plugin object destroyed through its own table.
class Instance {
 public:
  Instance(void* self, void (*destroy)(void*)) : self_(self), destroy_(destroy) {}
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;
  ~Instance() {
    if (self_) destroy_(self_);
  }
  void* get() const { return self_; }

 private:
  void* self_;
  void (*destroy_)(void*);
};

// The component of `kind` named `name`; ExitError(exit_plugin) when none is loaded.
const Component& find_or_exit(const PluginRegistry& registry, int32_t kind, const std::string& name);
// --model, or --singleop for single-op tuning; ExitError(exit_usage) for neither or both.
std::filesystem::path model_path(const Settings& s);
// The graph, shapes fixed by --input_shape; ExitError(exit_model or exit_usage) when it cannot be read.
// With `weights`, the model's float32 weights are read into it as well (a
// Caffe prototxt's from its --weight caffemodel; a TensorFlow graph's are not
// read yet and a single op has none: those stay empty). With `normalised`,
// what the graph normaliser changed (ONNX and Caffe models).
aoe::sdk::Graph load_model(const Settings& s, ModelWeights* weights = nullptr, Normalisation* normalised = nullptr);
// The same for an ONNX model in memory, shown as `name` in messages; --input_shape applies.
aoe::sdk::Graph load_model_bytes(const Settings& s, std::string_view bytes, const std::filesystem::path& name,
                                 ModelWeights* weights = nullptr, Normalisation* normalised = nullptr);
// --device_options as a JSON object; ExitError(exit_usage) otherwise.
nlohmann::json device_options(const Settings& s);
// The bank folder a tuning mode keeps (op, graph, gradient).
std::string bank_kind(const std::string& mode);
Bank bank_root(const Settings& s, const std::string& kind);

}  // namespace aoe::host
