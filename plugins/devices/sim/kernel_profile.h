// A measured profile of one training or inference step on an Ascend chip:
// one row per kernel launch, in one of three layouts. The compact one
// (op_name, op_type, block_dim, inputs, outputs, measured_us; each tensor
// `format:dtype:shape`, joined by `|`), CANN's own profiler output
// (op_summary_profile.h) or MindSpore's (mindspore_profile.h). The simulator's fidelity is scored against such files.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "aoe/sdk/graph.h"

namespace aoe::sim {

struct ProfiledTensor {
  std::string format;         // NC1HWC0, FracZ, FRACTAL_NZ, ND, DefaultFormat, ...
  std::string dtype_name;     // as written: float16, float, int32, uint, ...
  sdk::DType dtype = sdk::DType::undefined;  // undefined where the name is not one aoe knows
  std::vector<int64_t> dims;  // as stored (NC1HWC0 is 5-D); empty: a scalar
};

struct ProfiledKernel {
  std::string name, op_type;
  int64_t block_dim = 0;
  std::vector<ProfiledTensor> inputs, outputs;
  double measured_us = 0;
  int64_t line = 0;  // in its file, from 1 (the header)
};

struct KernelProfile {
  std::vector<ProfiledKernel> kernels;  // the AI cores' kernels
  std::map<std::string, int64_t> skipped;       // rows run elsewhere, by task type (AI_CPU, HCCL, ...)
  std::map<std::string, int64_t> time_columns;  // the column each kernel's time came from: rows
  // The type name that showed the labels come from MindSpore's shifted
  // type table (mindspore_dtypes.h), so they were read one type on; empty
  // where they were read as written.
  std::string labels_shifted_by;
};

// How a reader takes dtype labels: one type on where the file shows
// MindSpore's shifted table, or always as written.
enum class DtypeLabels { detect, as_written };

// Throws sdk::Error(invalid_argument) naming the file, the line and the
// column for a row that cannot be read (a bad number or shape, a missing
// column) or a file with no kernel, and io for a file that cannot be
// opened. Op types are not checked here: one the simulator does not model
// is uncovered, not an error.
KernelProfile read_kernel_profile(const std::filesystem::path& file, DtypeLabels labels = DtypeLabels::detect);

// One tensor as written, e.g. `NC1HWC0:float16:32,4,56,56,16`; throws
// invalid_argument saying what is wrong with it.
ProfiledTensor parse_profiled_tensor(const std::string& text);

// Dimensions written `32,4,56,56,16` (empty: a scalar); throws
// invalid_argument naming `tensor` and the one that is not a size.
std::vector<int64_t> parse_dims(const std::string& shape, const std::string& tensor);
// The dtype a profile's name for it says: float16, float, int32, ... .
sdk::DType profiled_dtype(const std::string& name);

}  // namespace aoe::sim
