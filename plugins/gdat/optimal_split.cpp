#include "optimal_split.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace aoe::gdat {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Equal up to rounding: sums of the same terms in another order.
bool not_better(double candidate, double best) { return candidate >= best - 1e-9 * std::max(1.0, std::abs(best)); }

// Without a segment limit one row suffices: O(L^2). Ties go to fewer segments.
OptimalSplit unlimited(const GradientProfile& profile, const AllreduceCost& cost, double max_bucket_bytes) {
  const size_t L = profile.size();
  const auto prefix = profile.prefix_bytes();
  std::vector<double> end(L + 1, kInf);
  std::vector<size_t> from(L + 1, 0), segments(L + 1, 0);
  end[0] = 0;
  for (size_t j = 1; j <= L; ++j) {
    const double ready = profile.grads[j - 1].ready_us;
    for (size_t i = j; i-- > 0;) {
      const double bytes = static_cast<double>(prefix[j] - prefix[i]);
      if (max_bucket_bytes > 0 && bytes > max_bucket_bytes && j - i > 1) break;
      const double finish = std::max(ready, end[i]) + cost(bytes);
      const bool better = !not_better(finish, end[j]) ||
                          (not_better(finish, end[j]) && not_better(end[j], finish) && segments[i] + 1 < segments[j]);
      if (end[j] == kInf || better) end[j] = finish, from[j] = i, segments[j] = segments[i] + 1;
    }
  }
  OptimalSplit out;
  out.comm_end_us = end[L];
  for (size_t j = L; j > 0; j = from[j]) out.split.push_back(j - 1);
  std::reverse(out.split.begin(), out.split.end());
  return out;
}

}  // namespace

OptimalSplit optimal_split(const GradientProfile& profile, const AllreduceCost& cost, int max_segments,
                           double max_bucket_bytes) {
  const size_t L = profile.size();
  const auto prefix = profile.prefix_bytes();
  if (L == 0) return {};
  if (max_segments <= 0 || static_cast<size_t>(max_segments) >= L) return unlimited(profile, cost, max_bucket_bytes);
  const size_t K = static_cast<size_t>(max_segments);
  // end[k][j]: the earliest the link can finish the first j gradients in exactly k segments;
  // from[k][j]: where the last of those segments starts.
  std::vector<std::vector<double>> end(K + 1, std::vector<double>(L + 1, kInf));
  std::vector<std::vector<size_t>> from(K + 1, std::vector<size_t>(L + 1, 0));
  end[0][0] = 0;
  for (size_t k = 1; k <= K; ++k) {
    for (size_t j = k; j <= L; ++j) {
      const double ready = profile.grads[j - 1].ready_us;
      double best = kInf;
      size_t arg = 0;
      // Longer last segments as i falls; the cap stops them, but one gradient always fits.
      for (size_t i = j; i-- > k - 1;) {
        const double bytes = static_cast<double>(prefix[j] - prefix[i]);
        if (max_bucket_bytes > 0 && bytes > max_bucket_bytes && j - i > 1) break;
        if (end[k - 1][i] == kInf) continue;
        const double finish = std::max(ready, end[k - 1][i]) + cost(bytes);
        if (finish < best) best = finish, arg = i;
      }
      end[k][j] = best;
      from[k][j] = arg;
    }
  }
  size_t best_k = 0;
  for (size_t k = 1; k <= K; ++k)
    if (end[k][L] < kInf && (best_k == 0 || !not_better(end[k][L], end[best_k][L]))) best_k = k;
  OptimalSplit out;
  out.comm_end_us = kInf;
  if (best_k == 0) return out;  // no split fits both limits
  out.comm_end_us = end[best_k][L];
  for (size_t k = best_k, j = L; k > 0; --k) {
    out.split.push_back(j - 1);
    j = from[k][j];
  }
  std::reverse(out.split.begin(), out.split.end());
  return out;
}

}  // namespace aoe::gdat
