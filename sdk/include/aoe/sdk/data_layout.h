// SPDX-License-Identifier: Apache-2.0
// The layout of an op's feature maps: the IR's ops are ONNX's, channels
// first; an op that reads its activations channels last (TensorFlow's NHWC,
// kept as the model gives it) says so in its "data_format" attribute.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "aoe/sdk/error.h"

namespace aoe::sdk {

// The attribute, as CANN's Conv2D and TensorFlow name it. Absent means NCHW.
// Weights keep ONNX's layout (OIHW) under either value: they are constants a
// device lays out its own way (Fractal Z, blocked), as ONNX Runtime's NhwcConv does.
inline constexpr const char* kDataFormatAttr = "data_format";

enum class DataLayout { nchw, nhwc };

inline const char* to_string(DataLayout l) { return l == DataLayout::nhwc ? "NHWC" : "NCHW"; }

// Throws invalid_argument naming `op` for a value that is neither.
inline DataLayout data_layout(const nlohmann::json& attrs, const std::string& op) {
  if (!attrs.is_object() || !attrs.contains(kDataFormatAttr)) return DataLayout::nchw;
  const auto& v = attrs.at(kDataFormatAttr);
  if (v.is_string() && v.get<std::string>() == "NHWC") return DataLayout::nhwc;
  if (v.is_string() && v.get<std::string>() == "NCHW") return DataLayout::nchw;
  throw Error(StatusCode::invalid_argument, op + " attribute data_format is " + v.dump() + "; it is \"NCHW\" or \"NHWC\"");
}

// The axis of channels in a feature map of `rank` dims.
inline size_t channel_axis(DataLayout l, size_t rank) { return l == DataLayout::nhwc && rank > 1 ? rank - 1 : 1; }

// A 4-D feature map's dims in N, C, H, W order, whatever its layout.
inline std::array<int64_t, 4> nchw_dims(const std::vector<int64_t>& shape, DataLayout l) {
  if (shape.size() != 4) throw Error(StatusCode::invalid_argument, "a 4-D feature map has 4 dims, not " + std::to_string(shape.size()));
  if (l == DataLayout::nhwc) return {shape[0], shape[3], shape[1], shape[2]};
  return {shape[0], shape[1], shape[2], shape[3]};
}

// The shape of a 4-D feature map given in N, C, H, W order, laid out as `l`.
inline std::vector<int64_t> laid_out(const std::array<int64_t, 4>& nchw, DataLayout l) {
  if (l == DataLayout::nhwc) return {nchw[0], nchw[2], nchw[3], nchw[1]};
  return {nchw[0], nchw[1], nchw[2], nchw[3]};
}

}  // namespace aoe::sdk
