// Every kernel of one ISA, in the order they depend on each other.
#include "simd.inl"
#include "math.inl"
#include "eltwise.inl"
#include "gemm.inl"
#include "rows.inl"
#include "conv.inl"
#include "pool.inl"
#include "table.inl"
