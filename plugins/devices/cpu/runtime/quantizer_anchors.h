// A model checked against its nodes' double-precision references diverges
// at its quantizers: a quantizer rounds x / scale to a whole step, and
// where that lies within float rounding of a tie the run and the reference
// round apart, one step, and every node after it differs by more than any
// tolerance allows (an ONNX Runtime-quantized IS-Net: the run equal to ONNX
// Runtime's to 1.4e-7, its double-precision reference 0.26 away). So a
// checked run keeps what each quantizer wrote, and the reference takes the
// run's values where the two are that close: then what follows is checked
// kernel against reference from the same quantized tensors.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "aoe/sdk/graph.h"

namespace aoe::cpu {

// The tensors the graph's quantizers (QuantizeLinear, DynamicQuantizeLinear)
// write, in node order.
std::vector<std::string> quantizer_outputs(const sdk::Graph& graph);

// What the reference took from the run.
struct QuantizerAnchors {
  std::map<std::string, std::vector<float>> run;  // by tensor: what the run wrote
  int64_t nodes = 0;     // quantizers whose outputs the reference took
  int64_t stepped = 0;   // elements of theirs one step from the reference's
  int64_t refused = 0;   // quantizers further apart: a mismatch the check shows

  // After the reference ran `node`: where it is a quantizer whose run values
  // are held, their scale within 1e-5 of the reference's, their zero point
  // equal, and their elements equal but for at most 1% of them (or one) one
  // step apart, the run's replace the reference's in `values`.
  void anchor(const sdk::Node& node, std::map<std::string, std::vector<float>>& values);
  // {"quantizers", "elements_one_step_apart", "quantizers_apart"}
  nlohmann::json to_json() const;
};

}  // namespace aoe::cpu
