#include "allreduce_cost.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "units.h"

namespace aoe::gdat {
namespace {

double log2_ceil(double p) { return std::ceil(std::log2(p)); }

}  // namespace

AllreduceCost::AllreduceCost(const Cluster& c) {
  overhead_us_ = c.overhead_us;
  if (!c.table.empty()) {
    table_ = c.table;
    char text[160];
    std::snprintf(text, sizeof text, "measured table, %zu rows, %s .. %s", table_.size(),
                  format_bytes(table_.front().bytes).c_str(), format_bytes(table_.back().bytes).c_str());
    label_ = text;
    return;
  }
  algorithm_ = c.algorithm;
  topology_ = c.topology;
  p_ = c.ranks;
  g_ = c.topology == Topology::hierarchical ? c.ranks_per_node : c.ranks;
  m_ = c.nodes();
  intra_ = c.intra;
  inter_ = c.inter;
  gamma_ = c.reduce_bytes_per_us > 0 ? 1.0 / c.reduce_bytes_per_us : 0.0;
  char text[200];
  if (topology_ == Topology::flat)
    std::snprintf(text, sizeof text, "%s over %d ranks, %s, %.3g us per step", to_string(algorithm_), c.ranks,
                  format_bandwidth(intra_.bytes_per_us).c_str(), intra_.latency_us);
  else
    std::snprintf(text, sizeof text, "%s over %d nodes x %d ranks, intra %s / %.3g us, inter %s / %.3g us",
                  to_string(algorithm_), c.nodes(), c.ranks_per_node, format_bandwidth(intra_.bytes_per_us).c_str(),
                  intra_.latency_us, format_bandwidth(inter_.bytes_per_us).c_str(), inter_.latency_us);
  label_ = text;
}

AllreduceCost AllreduceCost::from_table(std::vector<TablePoint> table, double overhead_us, std::string label) {
  AllreduceCost out;
  out.table_ = std::move(table);
  out.overhead_us_ = overhead_us;
  out.label_ = std::move(label);
  return out;
}

// A flat algorithm over a hierarchical cluster crosses nodes at every step, so
// the slower inter-node link paces it.
double AllreduceCost::formula(Algorithm a, double n) const {
  const Link& l = topology_ == Topology::flat ? intra_ : inter_;
  const double beta = 1.0 / l.bytes_per_us, alpha = l.latency_us, p = p_;
  switch (a) {
    case Algorithm::ring:  // reduce-scatter then all-gather
      return 2 * (p - 1) * alpha + 2 * (p - 1) / p * n * beta + (p - 1) / p * n * gamma_;
    case Algorithm::tree:  // pipelined double binary tree: log-depth latency, about 2n of traffic
      return 2 * log2_ceil(p) * alpha + 2 * n * beta + n * gamma_;
    case Algorithm::recursive_doubling:
      return log2_ceil(p) * (alpha + n * beta + n * gamma_);
    case Algorithm::hierarchical: {
      // Reduce-scatter in the node, allreduce of n/g across nodes per rail, all-gather in the node.
      const double g = g_, m = m_;
      const double bl = 1.0 / intra_.bytes_per_us, br = 1.0 / inter_.bytes_per_us;
      return 2 * (g - 1) * intra_.latency_us + 2 * (g - 1) / g * n * bl + 2 * (m - 1) * inter_.latency_us +
             2 * (m - 1) / m * (n / g) * br + ((g - 1) / g * n + (m - 1) / m * (n / g)) * gamma_;
    }
    case Algorithm::automatic: {
      // As NCCL picks by size: the fastest of those the topology allows.
      double best = std::min({formula(Algorithm::ring, n), formula(Algorithm::tree, n),
                              formula(Algorithm::recursive_doubling, n)});
      if (topology_ == Topology::hierarchical) best = std::min(best, formula(Algorithm::hierarchical, n));
      return best;
    }
  }
  return 0;
}

// Piecewise linear; below the first row the first time (the latency floor),
// past the last row the last segment's slope.
double AllreduceCost::interpolate(double n) const {
  const auto& t = table_;
  if (n <= t.front().bytes) return t.front().us;
  auto hi = std::lower_bound(t.begin(), t.end(), n, [](const TablePoint& p, double v) { return p.bytes < v; });
  if (hi == t.end()) hi = t.end() - 1;
  const auto lo = hi - 1;
  const double slope = (hi->us - lo->us) / (hi->bytes - lo->bytes);
  return lo->us + slope * (n - lo->bytes);
}

double AllreduceCost::operator()(double bytes) const {
  return (table_.empty() ? formula(algorithm_, bytes) : interpolate(bytes)) + overhead_us_;
}

LinearFit fit_alpha_beta(const std::vector<TablePoint>& points) {
  if (points.empty()) return {};
  if (points.size() == 1) return {points[0].us, 0};
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const double k = static_cast<double>(points.size());
  for (const auto& p : points) sx += p.bytes, sy += p.us, sxx += p.bytes * p.bytes, sxy += p.bytes * p.us;
  const double den = k * sxx - sx * sx;
  if (std::abs(den) < std::numeric_limits<double>::min()) return {sy / k, 0};
  const double b = (k * sxy - sx * sy) / den;
  return {(sy - b * sx) / k, b};
}

}  // namespace aoe::gdat
