#include "run_setup.h"

#include <cstdlib>
#include <map>
#include <optional>

#include "aoe/sdk/error.h"
#include "command_line.h"
#include "exit_error.h"
#include "frontend/caffe_frontend.h"
#include "frontend/onnx_frontend.h"
#include "frontend/singleop_frontend.h"
#include "frontend/tensorflow_frontend.h"

namespace aoe::host {

using aoe::sdk::Error;
using nlohmann::json;

const Component& find_or_exit(const PluginRegistry& registry, int32_t kind, const std::string& name) {
  try {
    return registry.find(kind, name);
  } catch (const Error& e) {
    throw ExitError(exit_plugin, e.what());
  }
}

// The file the run tunes: an ONNX model, or ops described for single-op tuning.
std::filesystem::path model_path(const Settings& s) {
  if (s.has("model") && s.has("singleop"))
    throw ExitError(exit_usage, "pass either --model or --singleop, not both");
  if (!s.has("model") && !s.has("singleop"))
    throw ExitError(exit_usage, "no model: pass --model m.onnx (or --singleop op.json to tune one op)");
  return s.has("model") ? s.text("model") : s.text("singleop");
}

aoe::sdk::Graph load_model(const Settings& s, ModelWeights* weights, Normalisation* normalised) {
  if (s.has("singleop")) {
    try {
      return load_singleop(s.text("singleop"));
    } catch (const Error& e) {
      throw ExitError(exit_model, e.what());
    }
  }
  const bool caffe = s.text("framework") == "0";
  const bool tensorflow = s.text("framework") == "3";
  const std::filesystem::path model = s.text("model");
  if (s.has("weight") && !caffe)
    throw ExitError(exit_usage, "--weight (" + s.source("weight") + ") is a Caffe model's weights: pass --framework 0 "
                                "with the prototxt as --model");
  if (!caffe && model.extension() == ".prototxt")
    throw ExitError(exit_usage, "--model " + model.string() + " is a Caffe prototxt: pass --framework 0 (and its "
                                "caffemodel as --weight)");
  if (!tensorflow && model.extension() == ".pb")
    throw ExitError(exit_usage, "--model " + model.string() + " is a TensorFlow graph: pass --framework 3");
  try {
    const InputShapes shapes = parse_input_shape(s.text("input_shape"));
    if (caffe)
      return load_caffe(model, s.has("weight") ? std::optional(std::filesystem::path(s.text("weight"))) : std::nullopt,
                        shapes, weights, normalised);
    if (tensorflow) return load_tensorflow(model, shapes);
    return load_onnx(model, shapes, weights, normalised);
  } catch (const Error& e) {
    throw ExitError(e.code() == aoe::sdk::StatusCode::invalid_argument && s.has("input_shape") ? exit_usage : exit_model,
                    e.what());
  }
}

aoe::sdk::Graph load_model_bytes(const Settings& s, std::string_view bytes, const std::filesystem::path& name,
                                 ModelWeights* weights, Normalisation* normalised) {
  if (s.text("framework") != "5")
    throw ExitError(exit_usage, "framework " + s.text("framework") + " (" + s.source("framework") +
                                    "): a model in memory is read as ONNX (framework 5)");
  try {
    return load_onnx_bytes(bytes, name, parse_input_shape(s.text("input_shape")), weights, normalised);
  } catch (const Error& e) {
    throw ExitError(e.code() == aoe::sdk::StatusCode::invalid_argument && s.has("input_shape") ? exit_usage : exit_model,
                    e.what());
  }
}

json device_options(const Settings& s) {
  if (!s.has("device_options")) return json::object();
  json options;
  try {
    options = json::parse(s.text("device_options"));
  } catch (const json::exception& e) {
    throw ExitError(exit_usage, "device_options (" + s.source("device_options") + ") is not JSON: " + e.what());
  }
  if (!options.is_object())
    throw ExitError(exit_usage, "device_options (" + s.source("device_options") + ") must be a JSON object");
  return options;
}

// Each mode keeps its own bank, as AOE keeps custom/op and custom/graph apart.
std::string bank_kind(const std::string& mode) {
  static const std::map<std::string, std::string> kinds = {{"opat", "op"}, {"sgat", "graph"}, {"gdat", "gradient"}};
  return kinds.count(mode) ? kinds.at(mode) : mode;
}

// The kind's bank in its own folder; entries of the old mixed layout under
// the same root move there when the run first reads or writes the bank.
Bank bank_root(const Settings& s, const std::string& kind) {
  const char* home = std::getenv("HOME");
  return Bank::configured(kind, s.text("bank_path"), s.text("cache_path"), home ? home : ".");
}

}  // namespace aoe::host
