#include "counter_random.h"

#include <bit>
#include <cmath>
#include <numbers>

namespace aoe::cpu {
namespace {

constexpr uint32_t kMultiplier0 = 0xD2511F53, kMultiplier1 = 0xCD9E8D57;
constexpr uint32_t kWeyl0 = 0x9E3779B9, kWeyl1 = 0xBB67AE85;  // the key's bump between rounds
constexpr float kTwoToMinus24 = 1.0f / 16777216.0f;

// SplitMix64's finaliser: spreads a seed's bits over the key.
uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

float unit(uint32_t word) { return static_cast<float>(word >> 8) * kTwoToMinus24; }

}  // namespace

std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> c, std::array<uint32_t, 2> key) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) key[0] += kWeyl0, key[1] += kWeyl1;
    const uint64_t p0 = static_cast<uint64_t>(kMultiplier0) * c[0];
    const uint64_t p1 = static_cast<uint64_t>(kMultiplier1) * c[2];
    c = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ key[0], static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ key[1], static_cast<uint32_t>(p0)};
  }
  return c;
}

CounterRandom::CounterRandom(uint64_t seed) {
  const uint64_t k = mix(seed);
  key_ = {static_cast<uint32_t>(k), static_cast<uint32_t>(k >> 32)};
}

std::array<uint32_t, 4> CounterRandom::block(uint64_t index, uint32_t stream) const {
  return philox4x32_10({static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32), stream, 0}, key_);
}

float CounterRandom::uniform(uint64_t i) const { return unit(block(i / 4, 0)[i % 4]); }

void CounterRandom::uniforms(uint64_t begin, uint64_t end, float* out) const {
  for (uint64_t i = begin; i < end;) {
    const auto words = block(i / 4, 0);
    for (uint64_t w = i % 4; w < 4 && i < end; ++w, ++i) *out++ = unit(words[w]);
  }
}

// Draws 2k and 2k+1 share a block of stream 1: r cos t and r sin t of its first two words.
float CounterRandom::normal(uint64_t i) const {
  const auto words = block(i / 2, 1);
  const double u1 = (static_cast<double>(words[0] >> 8) + 1.0) * kTwoToMinus24;  // (0, 1]: its log is finite
  const double angle = 2.0 * std::numbers::pi * unit(words[1]);
  const double r = std::sqrt(-2.0 * std::log(u1));
  return static_cast<float>(i % 2 == 0 ? r * std::cos(angle) : r * std::sin(angle));
}

uint64_t op_seed(const sdk::OpTask& task) {
  if (task.attrs.is_object() && task.attrs.contains("seed") && task.attrs["seed"].is_number())
    return std::bit_cast<uint64_t>(task.attrs["seed"].get<double>());
  uint64_t h = 0xCBF29CE484222325ULL;  // FNV-1a of the name
  for (const unsigned char c : task.name) h = (h ^ c) * 0x100000001B3ULL;
  return h;
}

}  // namespace aoe::cpu
