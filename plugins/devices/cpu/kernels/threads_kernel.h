// The kernel of an op whose one knob is its threads: it holds the op as its
// own type, for the sizes and values the op worked out, and the threads the
// config chose.
#pragma once

#include <memory>

#include "buffer_kernel.h"

namespace aoe::cpu {

template <class Op>
class ThreadsKernel : public BufferKernel {
 public:
  ThreadsKernel(const Op& op, int threads) : BufferKernel(op), op_(op), threads_(threads) {}

 protected:
  const Op& op_;
  int threads_;
};

// The op's kernel K with the threads config `c` chose.
template <class K, class Op>
std::unique_ptr<Kernel> threads_kernel(const Op& op, const sdk::Config& c) {
  return std::make_unique<K>(op, static_cast<int>(c[Op::kThreads]));
}

}  // namespace aoe::cpu
