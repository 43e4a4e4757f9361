// What each ISA's kernel table holds, known without running its code (a
// table built for a wider ISA may not even be constructible on this CPU).
// Tuning spaces list these, so a config means the same on every machine.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "isa.h"

namespace aoe::cpu {

struct UKernelShape {
  Isa isa;
  int mr, nr;
  std::string label() const;  // "avx512_14x32"
};
// Every micro-kernel of every ISA, narrowest ISA first.
const std::vector<UKernelShape>& ukernel_catalog();
// The index of the ISA's first micro-kernel in the catalog, its largest
// general one: what a GEMM runs untuned. 0 when the ISA lists none.
int64_t first_ukernel_of(Isa isa);
// What a GEMM of m rows runs untuned: for a row or two (a matrix-vector
// product) the ISA's thinnest micro-kernel, else first_ukernel_of(isa).
int64_t ukernel_for_rows(Isa isa, int64_t m);

struct ConvTileShape {
  int ow, ocb;
  std::string label() const;  // "8x2": 8 output pixels of 2 channel blocks
};
// Direct-convolution tiles by ISA (without the 1-pixel border tiles), and their union.
std::vector<ConvTileShape> conv_tiles_of(Isa isa);
const std::vector<ConvTileShape>& conv_tile_union();
// Depthwise tiles (output pixels at once) by ISA, and their union.
std::vector<int> depthwise_tiles_of(Isa isa);
std::vector<int> depthwise_tile_union();

const UKernel* find_ukernel(const IsaKernels& isa, int mr, int nr);
const ConvTile* find_conv_tile(const IsaKernels& isa, int ow, int ocb);
const ConvTile* find_depthwise_tile(const IsaKernels& isa, int ow);

}  // namespace aoe::cpu
