#include "argument_data.h"

#include <cmath>
#include <cstring>

namespace aoe::cuda {
namespace {

// splitmix64: a fixed generator, so the same seed gives the same data with any standard library.
uint64_t next(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double uniform(uint64_t& state) { return static_cast<double>(next(state) >> 11) * 0x1.0p-53; }

template <typename T>
void put(std::byte* at, T value) {
  std::memcpy(at, &value, sizeof value);
}

void store(ElementType type, double v, std::byte* at) {
  switch (type) {
    case ElementType::boolean: put<uint8_t>(at, v != 0); break;
    case ElementType::int8: put(at, static_cast<int8_t>(v)); break;
    case ElementType::uint8: put(at, static_cast<uint8_t>(v)); break;
    case ElementType::int16: put(at, static_cast<int16_t>(v)); break;
    case ElementType::uint16: put(at, static_cast<uint16_t>(v)); break;
    case ElementType::int32: put(at, static_cast<int32_t>(v)); break;
    case ElementType::uint32: put(at, static_cast<uint32_t>(v)); break;
    case ElementType::int64: put(at, static_cast<int64_t>(v)); break;
    case ElementType::uint64: put(at, static_cast<uint64_t>(v)); break;
    case ElementType::half: put(at, to_half(static_cast<float>(v))); break;
    case ElementType::float32: put(at, static_cast<float>(v)); break;
    case ElementType::float64: put(at, v); break;
  }
}

}  // namespace

uint16_t to_half(float value) {
  uint32_t f = 0;
  std::memcpy(&f, &value, sizeof f);
  const uint32_t sign = (f >> 16) & 0x8000u;
  const uint32_t abs = f & 0x7fffffffu;
  if (abs >= 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0));  // inf, nan
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds past 65504: inf
  if (abs < 0x38800000u) {  // a half subnormal (or zero): scale and round to nearest even
    const float scaled = std::fabs(value) * 0x1.0p24f;
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(scaled)));
  }
  // Rebias the exponent, keep 10 mantissa bits, round to nearest even.
  const uint32_t rebiased = abs - 0x38000000u;
  const uint32_t rounded = rebiased + 0xfffu + ((rebiased >> 13) & 1u);
  return static_cast<uint16_t>(sign | (rounded >> 13));
}

std::vector<std::byte> t1_initial_data(const T1Argument& a, uint64_t seed) {
  const uint64_t width = size_of(a.type);
  std::vector<std::byte> out(a.bytes());
  if (a.fill == FillType::constant) {
    store(a.type, a.fill_value, out.data());
    for (uint64_t i = 1; i < a.elements; ++i) std::memcpy(out.data() + i * width, out.data(), width);
    return out;
  }
  uint64_t state = a.random_seed.value_or(seed);
  for (uint64_t i = 0; i < a.elements; ++i) store(a.type, uniform(state), out.data() + i * width);
  return out;
}

}  // namespace aoe::cuda
