// The gradients of one training step in the order they become ready during
// backward, with their sizes and ready times: the input of every split.
// Also the profile CSV a user may supply with --gradient_profile.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace aoe::gdat {

struct Gradient {
  std::string name;
  uint64_t bytes = 0;   // as communicated
  double ready_us = 0;  // after the start of backward, when the gradient is final
};

struct GradientProfile {
  std::vector<Gradient> grads;  // ready order: ready_us non-decreasing
  double backward_us = 0;       // end of backward, at or after the last ready time
  double forward_us = 0;
  std::string source;  // where the times came from, for the report

  size_t size() const { return grads.size(); }
  uint64_t total_bytes() const;
  // prefix[i] = bytes of gradients 0..i-1.
  std::vector<uint64_t> prefix_bytes() const;
  // Sizes and ready times, the latter rounded to 0.5% of backward so timing
  // noise does not change it: what a cached answer must match.
  std::string canonical_text() const;
};

// Throws aoe::sdk::Error(invalid_argument) when the profile cannot be split:
// empty, a zero-byte gradient, ready times out of order.
void check_profile(const GradientProfile& profile, const std::string& origin);

// A --gradient_profile file, rows as written.
struct ProfileRow {
  std::string name;
  uint64_t bytes = 0;
  std::optional<double> ready_us;
};
struct ProfileFile {
  std::vector<ProfileRow> rows;
  bool has_ready = false;  // a ready_us (or ready_ms) column
  std::optional<double> forward_us, backward_us;  // from '# forward_us: ...' comment lines
};

// CSV with a header. Columns, any order, case-insensitive:
//   tensor | name                                       required
//   bytes | bytes_fp32 | bytes_fp16 | bytes_bf16         required
//   ready_us | ready_ms                                   optional
// Others (index, shape, numel) are ignored. '#' starts a comment line;
// '# forward_us: N' and '# backward_us: N' give the step's totals.
ProfileFile read_profile_csv(const std::filesystem::path& file);

// A file with ready times: rows sorted by ready time (ties keep file order).
GradientProfile profile_from_file(const ProfileFile& file, const std::string& origin);

// Writes tensor,bytes,ready_us in ready order: a file read_profile_csv takes back.
void write_profile_csv(const std::filesystem::path& file, const GradientProfile& profile);

}  // namespace aoe::gdat
