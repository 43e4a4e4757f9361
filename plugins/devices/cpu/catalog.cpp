#include "catalog.h"

#include <algorithm>

namespace aoe::cpu {

// Mirrors isa/table.inl; a test holds the two together.
const std::vector<UKernelShape>& ukernel_catalog() {
  static const std::vector<UKernelShape> all = {
      {Isa::generic, 4, 8},   {Isa::generic, 6, 8},   {Isa::generic, 4, 4},   {Isa::generic, 8, 4},
      {Isa::avx2, 6, 16},     {Isa::avx2, 4, 24},     {Isa::avx2, 8, 8},      {Isa::avx2, 12, 8},
      {Isa::avx2, 3, 32},     {Isa::avx2, 2, 32},     {Isa::avx512, 14, 32},  {Isa::avx512, 8, 32},
      {Isa::avx512, 6, 64},   {Isa::avx512, 28, 16},  {Isa::avx512, 6, 48},   {Isa::avx512, 2, 64},
  };
  return all;
}

int64_t first_ukernel_of(Isa isa) {
  const auto& catalog = ukernel_catalog();
  for (size_t i = 0; i < catalog.size(); ++i)
    if (catalog[i].isa == isa) return static_cast<int64_t>(i);
  return 0;
}

int64_t ukernel_for_rows(Isa isa, int64_t m) {
  int64_t u = first_ukernel_of(isa);
  const auto& catalog = ukernel_catalog();
  if (m <= 2)
    for (size_t i = 0; i < catalog.size(); ++i)
      if (catalog[i].isa == isa && catalog[i].mr <= 2) u = static_cast<int64_t>(i);
  return u;
}

std::string UKernelShape::label() const {
  return std::string(isa_name(isa)) + "_" + std::to_string(mr) + "x" + std::to_string(nr);
}

std::string ConvTileShape::label() const { return std::to_string(ow) + "x" + std::to_string(ocb); }

std::vector<ConvTileShape> conv_tiles_of(Isa isa) {
  switch (isa) {
    case Isa::avx512: return {{4, 1}, {4, 2}, {8, 1}, {8, 2}, {14, 1}, {14, 2}, {28, 1}};
    case Isa::avx2: return {{4, 1}, {4, 2}, {6, 1}, {6, 2}, {8, 1}, {12, 1}};
    case Isa::generic: return {{4, 1}, {4, 2}, {8, 1}};
  }
  return {};
}

const std::vector<ConvTileShape>& conv_tile_union() {
  static const std::vector<ConvTileShape> all = [] {
    std::vector<ConvTileShape> tiles;
    for (Isa isa : {Isa::generic, Isa::avx2, Isa::avx512})
      for (const auto& t : conv_tiles_of(isa))
        if (std::none_of(tiles.begin(), tiles.end(), [&](const ConvTileShape& u) { return u.ow == t.ow && u.ocb == t.ocb; }))
          tiles.push_back(t);
    std::sort(tiles.begin(), tiles.end(), [](const ConvTileShape& a, const ConvTileShape& b) {
      return a.ow * a.ocb != b.ow * b.ocb ? a.ow * a.ocb < b.ow * b.ocb : a.ocb < b.ocb;
    });
    return tiles;
  }();
  return all;
}

std::vector<int> depthwise_tiles_of(Isa isa) {
  switch (isa) {
    case Isa::avx512: return {4, 8, 14};
    case Isa::avx2: return {4, 8, 12};
    case Isa::generic: return {4, 8};
  }
  return {};
}

std::vector<int> depthwise_tile_union() { return {4, 8, 12, 14}; }

const UKernel* find_ukernel(const IsaKernels& isa, int mr, int nr) {
  for (int i = 0; i < isa.ukernel_count; ++i)
    if (isa.ukernels[i].mr == mr && isa.ukernels[i].nr == nr) return &isa.ukernels[i];
  return nullptr;
}

const ConvTile* find_conv_tile(const IsaKernels& isa, int ow, int ocb) {
  for (int i = 0; i < isa.conv_tile_count; ++i)
    if (isa.conv_tiles[i].ow == ow && isa.conv_tiles[i].ocb == ocb) return &isa.conv_tiles[i];
  return nullptr;
}

const ConvTile* find_depthwise_tile(const IsaKernels& isa, int ow) {
  for (int i = 0; i < isa.depthwise_tile_count; ++i)
    if (isa.depthwise_tiles[i].ow == ow) return &isa.depthwise_tiles[i];
  return nullptr;
}

}  // namespace aoe::cpu
