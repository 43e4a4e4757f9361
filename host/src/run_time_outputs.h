// A model run's outputs whose shape is known only as the model runs: the
// device asks for their buffers through output_buffer (SDK 1.6), and the
// host checks the shape it names before it allocates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "npz_file.h"

namespace aoe::host {

// The most values the host lends one output of run-time shape: 4 GiB of float32.
inline constexpr uint64_t kMaxRunTimeOutputValues = uint64_t{1} << 30;

// `name`'s buffer among `outputs`, sized to `dims`, which become its shape;
// nullptr when it holds no values. The same count keeps the same buffer.
// Throws sdk::Error(invalid_argument) naming the output for a name not
// among them, a negative dim, or more than kMaxRunTimeOutputValues values.
float* lend_run_time_output(std::vector<std::pair<std::string, FloatArray>>& outputs, const std::string& name,
                            const std::vector<int64_t>& dims);

}  // namespace aoe::host
