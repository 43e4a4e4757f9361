// A split of the ready-ordered gradients into contiguous allreduce segments,
// and its forms in the APIs that take one: HCCL set_split_strategy_by_idx
// and MindSpore all_reduce_fusion_config (inclusive segment ends), HCCL
// set_split_strategy_by_size (percentages of bytes) and PyTorch DDP
// bucket_cap_mb_list (per-bucket caps in MiB).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace aoe::gdat {

// Inclusive segment ends, strictly increasing, the last one L-1.
using Split = std::vector<size_t>;

// Throws std::invalid_argument unless split is a valid split of count gradients.
void check_split(const Split& split, size_t count);

// The first gradient of each segment.
std::vector<size_t> segment_starts(const Split& split);
// Bytes per segment.
std::vector<uint64_t> segment_bytes(const Split& split, const std::vector<uint64_t>& bytes);

// Byte percentages per segment, rounded so the cumulative sums are exact to
// 1e-6: split_from_sizes takes them back to the same split.
std::vector<double> size_percentages(const Split& split, const std::vector<uint64_t>& bytes);
// HCCL by size: a segment ends at the first gradient where the cumulative
// bytes reach the cumulative percentage.
Split split_from_sizes(const std::vector<double>& percentages, const std::vector<uint64_t>& bytes);

// DDP caps: each bucket's exact bytes in MiB (exact in binary floating point).
std::vector<double> ddp_caps_mb(const Split& split, const std::vector<uint64_t>& bytes);
// DDP's rule: a bucket closes once its bytes reach its cap; caps are taken in
// order, then default_cap_mb for every later bucket.
Split split_from_ddp_caps(const std::vector<double>& caps_mb, const std::vector<uint64_t>& bytes,
                          double default_cap_mb = 25);

// MindSpore's reading of a split-index list: out-of-range or non-increasing
// indices are dropped, the last segment extends to the last gradient.
Split split_from_indices(const std::vector<int64_t>& indices, size_t count);

// "[0, 107] [108, 160]", as HCCL's log prints a split.
std::string segments_text(const Split& split);

}  // namespace aoe::gdat
