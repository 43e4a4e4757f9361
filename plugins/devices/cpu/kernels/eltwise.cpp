#include "eltwise.h"

#include <algorithm>

namespace aoe::cpu {
namespace {

// Elements [begin, end) of the output, row segment by row segment.
void run_range(const IsaKernels& isa, const Chain& chain, float* out, int64_t cols, int64_t begin, int64_t end) {
  while (begin < end) {
    const int64_t row = begin / cols, col = begin % cols;
    const int64_t n = std::min(end - begin, cols - col);
    chain.apply(isa, out + begin, row, col, n);
    begin += n;
  }
}

}  // namespace

void eltwise(const EltwiseConfig& cfg, const Chain& chain, float* out, int64_t rows, int64_t cols, ThreadPool& pool) {
  const int64_t total = rows * cols;
  const int64_t chunks = (total + cfg.chunk - 1) / cfg.chunk;
  auto over_chunks = [&](const Chain& part) {
    pool.run(chunks, cfg.threads, [&](int64_t c, int) {
      run_range(*cfg.isa, part, out, cols, c * cfg.chunk, std::min(total, (c + 1) * cfg.chunk));
    });
  };
  if (cfg.strategy == EltStrategy::fused) {
    over_chunks(chain);
    return;
  }
  Chain step;
  step.operands = chain.operands;
  for (const auto& s : chain.steps) {
    step.steps = {s};
    over_chunks(step);
  }
}

}  // namespace aoe::cpu
