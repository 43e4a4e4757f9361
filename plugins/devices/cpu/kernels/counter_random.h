// Counter-based random draws for the ops whose outputs are random
// (RandomUniform, RandomNormal, Bernoulli, Multinomial, Dropout in training).
// Draw i of a stream is a pure function of the seed and i: Philox4x32-10
// (Salmon et al., SC'11, the generator of cuRAND and PyTorch's CUDA ops) of
// the counter i / 4 under the seed's key. So a kernel split across threads
// and its single-threaded reference give the same values, and the device's
// check compares a random op as it compares any other.
#pragma once

#include <array>
#include <cstdint>

#include "aoe/sdk/op_task.h"

namespace aoe::cpu {

// One block of the generator: four 32-bit words for a 128-bit counter and a 64-bit key.
std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key);

// The draws of one seed, each addressed by its index.
class CounterRandom {
 public:
  explicit CounterRandom(uint64_t seed);
  // Draw i, uniform in [0, 1) with 24 random bits (every float32 step of it).
  float uniform(uint64_t i) const;
  // Draws begin .. end-1 into out[0 .. end-begin), four to a block.
  void uniforms(uint64_t begin, uint64_t end, float* out) const;
  // body(i, u) for each draw i of [begin, end) and its uniform u, drawn a
  // block of the stack at a time (so no output buffer holds them first).
  template <typename Body>
  void each_uniform(int64_t begin, int64_t end, Body&& body) const {
    float u[256];
    for (int64_t at = begin; at < end; at += 256) {
      const int64_t n = end - at < 256 ? end - at : 256;
      uniforms(static_cast<uint64_t>(at), static_cast<uint64_t>(at + n), u);
      for (int64_t k = 0; k < n; ++k) body(at + k, u[k]);
    }
  }
  // Draw i of the standard normal: Box-Muller over a block of its own stream.
  float normal(uint64_t i) const;

 private:
  std::array<uint32_t, 4> block(uint64_t index, uint32_t stream) const;
  std::array<uint32_t, 2> key_;
};

// A random op's seed: its `seed` attribute (ONNX writes it as a float or an
// int) where it has one, else one made from its name. So a model draws the
// same values on every run, and two unseeded ops draw different ones.
uint64_t op_seed(const sdk::OpTask& task);

}  // namespace aoe::cpu
