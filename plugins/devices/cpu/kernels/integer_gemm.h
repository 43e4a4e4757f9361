// The integer GEMM tile under ConvInteger and QLinearConv: 8-bit values less
// their zero points, each in [-255, 255], held in int16 and multiplied in
// pairs of taps (as x86's pmaddwd takes them) into int32 sums.
#pragma once

#include <cstdint>

namespace aoe::cpu {

// The tile: kIntRows output channels by kIntCols output positions.
constexpr int64_t kIntRows = 4, kIntCols = 8;

// An int32 sum of products of values in [-255, 255] is exact while it holds at
// most (2^31 - 1) / 255^2 = 33025 of them; sums over more taps are taken in
// chunks of this many pairs (33024 taps) and added in int64.
constexpr int64_t kExactPairs = 16512;

// How the tile is computed: plain loops, SSE2 (4 int32 lanes), AVX2 (8).
enum class IntTileIsa : int { portable = 0, sse2 = 1, avx2 = 2 };

// The widest this build and CPU run.
IntTileIsa widest_int_tile_isa();

// sums[r * kIntCols + j] = the sum over `pairs` pairs p and taps t of
// rows[(p * kIntRows + r) * 2 + t] * cols[(p * kIntCols + j) * 2 + t].
// `isa` must not be wider than widest_int_tile_isa().
void integer_tile_sums(int64_t pairs, const int16_t* rows, const int16_t* cols, int64_t* sums, IntTileIsa isa);

}  // namespace aoe::cpu
