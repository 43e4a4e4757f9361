// c(n): the time to allreduce an n-byte fused buffer on the cluster, by the
// alpha-beta(-gamma) model of its algorithm and topology (Thakur, Rabenseifner
// & Gropp 2005), or by interpolating a measured table. Non-decreasing in n,
// which the optimal split relies on.
#pragma once

#include <string>
#include <vector>

#include "cluster.h"

namespace aoe::gdat {

class AllreduceCost {
 public:
  explicit AllreduceCost(const Cluster& cluster);
  // A measured table (bytes ascending, times non-decreasing), interpolated.
  static AllreduceCost from_table(std::vector<TablePoint> table, double overhead_us, std::string label);

  double operator()(double bytes) const;
  // One line: the algorithm and its figures, or the table's range.
  const std::string& label() const { return label_; }
  const std::vector<TablePoint>& table() const { return table_; }

 private:
  AllreduceCost() = default;
  double formula(Algorithm a, double bytes) const;
  double interpolate(double bytes) const;

  Algorithm algorithm_ = Algorithm::ring;
  Topology topology_ = Topology::flat;
  double p_ = 2, g_ = 1, m_ = 1;
  Link intra_, inter_;
  double gamma_ = 0;  // us per byte of reduction
  double overhead_us_ = 0;
  std::vector<TablePoint> table_;
  std::string label_;
};

// Least-squares a + b*n through measured points: the alpha-beta reading of a table.
struct LinearFit {
  double alpha_us = 0;
  double us_per_byte = 0;
};
LinearFit fit_alpha_beta(const std::vector<TablePoint>& points);

}  // namespace aoe::gdat
