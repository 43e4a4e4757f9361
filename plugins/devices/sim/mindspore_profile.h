// MindSpore's profiler output (1.x) as a kernel profile: framework_raw_<N>.csv
// (task_id, stream_id, block_dim, full_op_name, op_name, op_type, subgraph,
// op_info: each tensor's format, data_type and shape, as JSON) holds the
// kernels; aicore_intermediate_<N>_detail.csv beside it (full_op_name,
// execution_time: each op's average, milliseconds) times them. Dtypes are
// MindSpore's (NUMBER_TYPE_FLOAT16 -> float16, NUMBER_TYPE_FLOAT -> float),
// formats as written (NC1HWC0, FracZ, FRACTAL_NZ, DefaultFormat).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "kernel_profile.h"
#include "profile_csv.h"

namespace aoe::sim {

class MindSporeKernels {
 public:
  // Whether a header is framework_raw's.
  static bool is_framework_raw(const CsvHeader& header);

  // Reads the times beside `framework_raw`: aicore_intermediate_<N>_detail.csv
  // for framework_raw_<N>.csv, else the one such file in its folder. Throws
  // invalid_argument naming the files where there is none, or several to
  // choose from, or a row of it that cannot be read.
  explicit MindSporeKernels(const std::filesystem::path& framework_raw);

  // A row as a kernel timed by the detail file; a row the file does not time
  // (an op off the AI cores) is counted in `profile.skipped` and gives
  // nullopt. Throws invalid_argument naming the row for op_info that is not
  // a tensor list.
  std::optional<ProfiledKernel> kernel(const CsvRow& row, KernelProfile& profile) const;

  const std::filesystem::path& times_file() const { return times_file_; }

 private:
  std::filesystem::path times_file_;
  std::map<std::string, double> times_us_;  // by full_op_name
};

}  // namespace aoe::sim
