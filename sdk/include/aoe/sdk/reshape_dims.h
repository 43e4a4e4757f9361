// SPDX-License-Identifier: Apache-2.0
// Reshape's target as ONNX defines it: a 0 copies the input's dim at that
// index (unless allowzero), one -1 takes what the others leave. The host
// folds constant Reshapes and a device sizes run-time ones by it, so both
// read a target alike.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "aoe/sdk/tensor_size.h"

namespace aoe::sdk {

// The dims of `in` reshaped to `target`; nullopt where ONNX gives none, with
// `why` (when given) saying what is wrong.
inline std::optional<std::vector<int64_t>> reshape_dims(const std::vector<int64_t>& in, std::vector<int64_t> target,
                                                        bool allow_zero, std::string* why = nullptr) {
  const auto refuse = [&](std::string reason) -> std::optional<std::vector<int64_t>> {
    if (why) *why = std::move(reason);
    return std::nullopt;
  };
  const auto listed = [](const std::vector<int64_t>& dims) {
    std::string s = "[";
    for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
    return s + "]";
  };
  const auto total = checked_elements(in);
  if (!total) return refuse("the input's dims " + listed(in) + " are unknown or multiply past int64");
  int64_t known = 1;
  std::optional<size_t> rest;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == 0 && !allow_zero) {
      if (i >= in.size()) return refuse("a 0 in the shape past the input's rank");
      target[i] = in[i];
    }
    if (target[i] == -1) {
      if (rest) return refuse("two -1 in the shape");
      rest = i;
    } else if (target[i] < 0) {
      return refuse("a negative dim in the shape");
    } else {
      const auto product = checked_mul(known, target[i]);
      if (!product) return refuse("the shape " + listed(target) + " multiplies past int64");
      known = *product;
    }
  }
  // A -1 beside a 0 takes 0, which holds the input only where it is empty.
  if (rest) target[*rest] = known == 0 ? 0 : *total / known;
  if (checked_elements(target) != *total)
    return refuse("the shape " + listed(target) + " does not hold the input's " + std::to_string(*total) + " values");
  return target;
}

}  // namespace aoe::sdk
