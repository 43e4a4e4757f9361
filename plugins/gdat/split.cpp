#include "split.h"

#include <cmath>
#include <stdexcept>

namespace aoe::gdat {

void check_split(const Split& split, size_t count) {
  if (count == 0) throw std::invalid_argument("no gradients to split");
  if (split.empty() || split.back() != count - 1)
    throw std::invalid_argument("the last segment must end at gradient " + std::to_string(count - 1));
  for (size_t k = 1; k < split.size(); ++k)
    if (split[k] <= split[k - 1]) throw std::invalid_argument("segment ends must increase");
}

std::vector<size_t> segment_starts(const Split& split) {
  std::vector<size_t> out;
  size_t first = 0;
  for (size_t end : split) {
    out.push_back(first);
    first = end + 1;
  }
  return out;
}

std::vector<uint64_t> segment_bytes(const Split& split, const std::vector<uint64_t>& bytes) {
  std::vector<uint64_t> out;
  size_t i = 0;
  for (size_t end : split) {
    uint64_t sum = 0;
    for (; i <= end; ++i) sum += bytes[i];
    out.push_back(sum);
  }
  return out;
}

std::vector<double> size_percentages(const Split& split, const std::vector<uint64_t>& bytes) {
  double total = 0;
  for (auto b : bytes) total += static_cast<double>(b);
  std::vector<double> out;
  double cumulative = 0, previous = 0;
  const auto sizes = segment_bytes(split, bytes);
  for (size_t k = 0; k < sizes.size(); ++k) {
    cumulative += static_cast<double>(sizes[k]);
    const double rounded = k + 1 == sizes.size() ? 100.0 : std::round(cumulative / total * 100 * 1e6) / 1e6;
    out.push_back(std::round((rounded - previous) * 1e6) / 1e6);
    previous = rounded;
  }
  return out;
}

Split split_from_sizes(const std::vector<double>& percentages, const std::vector<uint64_t>& bytes) {
  double total = 0;
  for (auto b : bytes) total += static_cast<double>(b);
  Split out;
  double target = 0, cumulative = 0;
  size_t i = 0;
  for (size_t k = 0; k + 1 < percentages.size() && i < bytes.size(); ++k) {
    target += percentages[k];
    // The tolerance absorbs the 1e-6 rounding of size_percentages.
    while (i < bytes.size()) {
      cumulative += static_cast<double>(bytes[i]);
      if (cumulative / total * 100 >= target - 2e-6) break;
      ++i;
    }
    if (i >= bytes.size() - 1) break;
    if (out.empty() || i > out.back()) out.push_back(i);
    ++i;
  }
  out.push_back(bytes.size() - 1);
  if (out.size() >= 2 && out[out.size() - 2] == out.back()) out.pop_back();
  return out;
}

std::vector<double> ddp_caps_mb(const Split& split, const std::vector<uint64_t>& bytes) {
  std::vector<double> out;
  for (auto b : segment_bytes(split, bytes)) out.push_back(static_cast<double>(b) / 1048576.0);
  return out;
}

Split split_from_ddp_caps(const std::vector<double>& caps_mb, const std::vector<uint64_t>& bytes, double default_cap_mb) {
  Split out;
  double size = 0;
  size_t bucket = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    size += static_cast<double>(bytes[i]);
    const double cap = (bucket < caps_mb.size() ? caps_mb[bucket] : default_cap_mb) * 1048576.0;
    if (size >= cap || i + 1 == bytes.size()) {
      out.push_back(i);
      size = 0;
      ++bucket;
    }
  }
  return out;
}

Split split_from_indices(const std::vector<int64_t>& indices, size_t count) {
  Split out;
  for (int64_t v : indices) {
    if (v < 0 || static_cast<size_t>(v) >= count) continue;
    if (!out.empty() && static_cast<size_t>(v) <= out.back()) continue;
    out.push_back(static_cast<size_t>(v));
  }
  if (out.empty() || out.back() != count - 1) {
    if (!out.empty()) out.pop_back();
    out.push_back(count - 1);
  }
  return out;
}

std::string segments_text(const Split& split) {
  std::string out;
  const auto starts = segment_starts(split);
  for (size_t k = 0; k < split.size(); ++k)
    out += (out.empty() ? "[" : " [") + std::to_string(starts[k]) + ", " + std::to_string(split[k]) + "]";
  return out;
}

}  // namespace aoe::gdat
