// SPDX-License-Identifier: Apache-2.0
// Element counts and byte sizes of tensors, checked: a shape read from a file
// may multiply past int64, and a wrapped count would size a buffer.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "aoe/sdk/graph.h"

namespace aoe::sdk {

// a * b, or nullopt when either is negative or the product overflows int64.
inline std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
  int64_t out = 0;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

// a + b, or nullopt when either is negative or the sum overflows int64.
inline std::optional<int64_t> checked_add(int64_t a, int64_t b) {
  int64_t out = 0;
  if (a < 0 || b < 0 || __builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

// The product of dims; nullopt when a dim is unknown (< 0) or it overflows.
inline std::optional<int64_t> checked_elements(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (auto d : dims) {
    const auto next = checked_mul(n, d);
    if (!next) return std::nullopt;
    n = *next;
  }
  return n;
}

// Bytes of the tensor; nullopt when its shape or dtype is unknown or the size overflows.
inline std::optional<int64_t> checked_bytes(const TensorDesc& t) {
  const int width = dtype_bytes(t.dtype);
  const auto n = checked_elements(t.shape);
  if (!n || width == 0) return std::nullopt;
  return checked_mul(*n, width);
}

// Bytes of all the tensors, each of unknown dtype counted at `default_width`;
// nullopt when a shape is unknown or the sum overflows.
inline std::optional<int64_t> checked_total_bytes(const std::vector<TensorDesc>& tensors, int default_width = 4) {
  int64_t total = 0;
  for (const auto& t : tensors) {
    const auto n = checked_elements(t.shape);
    const int width = dtype_bytes(t.dtype) ? dtype_bytes(t.dtype) : default_width;
    const auto bytes = n ? checked_mul(*n, width) : std::nullopt;
    const auto sum = bytes ? checked_add(total, *bytes) : std::nullopt;
    if (!sum) return std::nullopt;
    total = *sum;
  }
  return total;
}

// "4.0 TiB", "512 MiB", "100 B": sizes in messages, binary units.
inline std::string bytes_text(int64_t bytes) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 6) {
    v /= 1024;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return text;
}

}  // namespace aoe::sdk
