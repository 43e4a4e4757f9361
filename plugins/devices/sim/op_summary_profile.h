// CANN's own profiler output as a kernel profile: msprof's op_summary_*.csv
// (Op Name, OP Type, Task Type, Block Dim, Input Shapes, Input Data Types,
// Input Formats, the same for outputs, Task Duration(us), aicore_time(us))
// and torch_npu's kernel_details.csv, which names some of them Name, Type,
// Accelerator Core and Duration(us). Tensors are `;`-separated, a shape's
// dims `,`-separated; dtypes and formats as CANN spells them (DT_FLOAT16,
// FLOAT16, FLOAT, BF16; FORMAT_NC1HWC0, FRACTAL_Z, ...).
#pragma once

#include <optional>
#include <string>

#include "kernel_profile.h"
#include "profile_csv.h"

namespace aoe::sim {

class OpSummaryColumns {
 public:
  // The columns of a header that is an op summary's; nullopt for one that is not.
  static std::optional<OpSummaryColumns> of(const CsvHeader& header);

  // A row as a kernel, its time from aicore_time(us) where the row has a
  // number there (the AI cores' own time), else from the task's duration;
  // the column used is counted in `profile.time_columns`. A row whose task
  // ran elsewhere than on AI cores (AI_CPU, HCCL, ...) is counted in
  // `profile.skipped` and gives nullopt. Throws invalid_argument naming the
  // row and the column for one that cannot be read.
  std::optional<ProfiledKernel> kernel(const CsvRow& row, KernelProfile& profile) const;

 private:
  std::string name_, type_, block_dim_, duration_;
  std::optional<std::string> task_type_, aicore_time_;
};

// A dtype or format as the compact profiles spell it: DT_FLOAT16 -> float16,
// FLOAT -> float, FORMAT_FRACTAL_Z -> FracZ, FORMAT_ND -> ND.
std::string compact_dtype_name(const std::string& cann);
std::string compact_format_name(const std::string& cann);

}  // namespace aoe::sim
