// NumPy's .npz archives of float32 arrays: the run command's inputs and outputs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace aoe::host {

struct FloatArray {
  std::vector<int64_t> shape;
  std::vector<float> data;  // row-major
};

// Arrays by name (the member's name without ".npy"), as np.savez writes
// them: stored, not compressed; int32, int64, uint8 and int8 arrays (token
// ids) and bools (masks, as 0 and 1) as floats holding whole numbers. Throws aoe::sdk::Error(invalid_argument)
// naming the file and member for anything else (compression, another
// dtype, Fortran order, sizes that do not fit the file).
std::map<std::string, FloatArray> read_npz(const std::filesystem::path& file);

// np.load reads it back; written atomically.
void write_npz(const std::filesystem::path& file, const std::vector<std::pair<std::string, FloatArray>>& arrays);

}  // namespace aoe::host
