// The data a T1 argument starts from: what is copied into its buffer (and
// its __constant__ symbol) before the kernel runs, or a scalar's bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "t1_problem.h"

namespace aoe::cuda {

// argument.bytes() bytes, native-endian: a Constant fill repeats FillValue in
// the argument's type; a Random fill draws uniformly from [0, 1), the same
// for the same seed on any machine (the argument's RandomSeed, when it gives
// one, over `seed`). Kernel Tuner's T1 reader draws numpy.random.randn
// unseeded instead: the data is the kernel's input, not what is tuned, and a
// seed makes every run and the test double's answers repeatable.
std::vector<std::byte> t1_initial_data(const T1Argument& argument, uint64_t seed);

// The nearest IEEE half to a float, as CUDA's __float2half does.
uint16_t to_half(float value);

}  // namespace aoe::cuda
