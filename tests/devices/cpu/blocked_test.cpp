// The conversions between NCHW and the channel-blocked layout a run plans
// between kernels, against the plain loops that define the layout.
#include <gtest/gtest.h>

#include <vector>

#include "blocked.h"
#include "thread_pool.h"

namespace aoe::cpu {
namespace {

// NCHW values of n x channels x spatial, each its own index.
std::vector<float> plain_values(int64_t n, int64_t channels, int64_t spatial) {
  std::vector<float> v(static_cast<size_t>(n * channels * spatial));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) + 0.5f;
  return v;
}

// Every direction (plain to blocked, blocked to plain, one blocking into
// another), channels that leave padding lanes, maps longer than a task's run
// of pixels and maps of whole tiles and a tail (8 and 16 lanes transpose
// tiles of their lanes' width), on one thread and two: the result is the defining loops', with
// padding lanes zero.
TEST(Relayout, MatchesTheLayoutsDefinition) {
  struct Case {
    int64_t n, channels, spatial;
    int from, to;
  };
  const std::vector<Case> cases = {{2, 20, 300, 0, 16}, {2, 20, 300, 16, 0}, {1, 20, 513, 8, 16}, {1, 20, 513, 16, 8},
                                   {3, 5, 7, 0, 4},     {3, 5, 7, 4, 0},     {1, 32, 1, 0, 16},   {1, 16, 600, 0, 16},
                                   {2, 12, 37, 0, 8},   {2, 12, 37, 8, 0},   {1, 40, 260, 0, 16}, {1, 40, 260, 16, 0}};
  for (const auto& c : cases) {
    SCOPED_TRACE(std::to_string(c.channels) + " channels x " + std::to_string(c.spatial) + ", lanes " +
                 std::to_string(c.from) + " -> " + std::to_string(c.to));
    const auto plain = plain_values(c.n, c.channels, c.spatial);
    auto in_layout = [&](int lanes) {
      if (lanes == 0) return plain;
      std::vector<float> out(static_cast<size_t>(layout_elements(c.n, c.channels, c.spatial, lanes)), -1.0f);
      to_blocked(plain.data(), out.data(), c.n, c.channels, c.spatial, lanes);
      return out;
    };
    const auto src = in_layout(c.from), want = in_layout(c.to);
    for (int threads : {1, 2}) {
      ThreadPool pool(threads);
      std::vector<float> got(want.size(), -7.0f);
      Relayout{src.data(), got.data(), c.from, c.to, c.n, c.channels, c.spatial}.run(pool, threads);
      EXPECT_EQ(got, want) << threads << " threads";
    }
  }
}

}  // namespace
}  // namespace aoe::cpu
