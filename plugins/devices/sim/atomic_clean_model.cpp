#include "atomic_clean_model.h"

#include <algorithm>
#include <deque>

#include "aoe/sdk/error.h"
#include "vector_model.h"

namespace aoe::sim {
namespace {

// The zero buffer a core fills once and copies out per chunk [H: TBE's
// atomic_addr_clean, MEMORY_CLEAR_UB_ZERO_BUFF].
constexpr int64_t kZeroBufferBytes = 48 << 10;

}  // namespace

AtomicCleanProblem atomic_clean_problem(const sdk::OpTask& task) {
  if (task.inputs.empty()) malformed(task, "names no tensor to clear");
  AtomicCleanProblem p;
  for (const auto& t : task.inputs) {
    if (!t.fully_known()) malformed(task, "clears a tensor of unknown shape");
    const int64_t b = sdk::dtype_bytes(t.dtype);
    if (b == 0) malformed(task, "clears a tensor of undefined dtype");
    p.bytes.push_back(align_up64(std::max<int64_t>(1, t.elements()) * b, kUbAlignBytes));
  }
  return p;
}

std::vector<int64_t> atomic_clean_shares(const std::vector<int64_t>& bytes, int64_t cores) {
  int64_t total = 0;
  for (auto b : bytes) total += b;
  const int64_t share = align_up64(ceil_div64(total / kUbAlignBytes, cores) * kUbAlignBytes, kZeroBufferBytes);
  std::vector<int64_t> segments;
  for (auto b : bytes) {
    for (int64_t left = b; left > 0; left -= share) segments.push_back(std::min(left, share));
  }
  std::sort(segments.begin(), segments.end(), std::greater<>());
  std::deque<int64_t> left(segments.begin(), segments.end());
  std::vector<int64_t> out;
  while (!left.empty()) {
    if (static_cast<int64_t>(out.size()) == cores - 1) {  // the last core takes what is left
      int64_t rest = 0;
      for (auto s : left) rest += s;
      out.push_back(rest);
      break;
    }
    int64_t load = left.front();
    left.pop_front();
    while (!left.empty() && load + left.back() <= share) {
      load += left.back();
      left.pop_back();
    }
    out.push_back(load);
  }
  return out;
}

AtomicCleanModel::AtomicCleanModel(const Soc& soc, AtomicCleanProblem problem) : ProblemModel(soc, std::move(problem)) {
  start_space(kKnobCount, kBlockDim);
  space_.default_config = {static_cast<int64_t>(atomic_clean_shares(p_.bytes, soc_.ai_cores).size())};
}

sdk::Measurement AtomicCleanModel::check(const sdk::Config& c) const {
  if (!space_.in_domain(c)) return refuse("a value lies outside its knob's domain");
  return {};
}

// Each core fills its zero buffer (one vector pass) and writes it out once
// per 48 KB of its share; the busiest core sets the time.
double AtomicCleanModel::time_us(const sdk::Config& c) const {
  const auto shares = atomic_clean_shares(p_.bytes, c[kBlockDim]);
  const auto active = static_cast<int64_t>(shares.size());
  const double fill = vector_cycles(soc_, VecClass::simple, kZeroBufferBytes / 2, 2);
  double busiest = 0;
  for (auto bytes : shares) {
    const int64_t chunks = ceil_div64(bytes, kZeroBufferBytes);
    const double last = static_cast<double>(bytes - (chunks - 1) * kZeroBufferBytes);
    const double cycles = fill + static_cast<double>(chunks - 1) * ub_to_gm_cycles(soc_, kZeroBufferBytes, active) +
                          ub_to_gm_cycles(soc_, last, active);
    busiest = std::max(busiest, cycles);
  }
  return kernel_us(soc_, busiest, roofline_us(), active);
}

double AtomicCleanModel::total_bytes() const {
  double total = 0;
  for (auto b : p_.bytes) total += static_cast<double>(b);
  return total;
}

double AtomicCleanModel::roofline_us() const { return memory_roofline_us(soc_, total_bytes()); }

}  // namespace aoe::sim
