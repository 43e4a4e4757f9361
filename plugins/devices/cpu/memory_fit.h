// Whether an op's buffers fit this machine's memory: its inputs, its outputs
// and the reference outputs candidates are checked against, all allocated
// before the first run. One that cannot fit is refused, not attempted.
#pragma once

#include <cstdint>

#include "aoe/sdk/op_task.h"

namespace aoe::cpu {

// The machine's physical memory, bytes (0 when the system does not say).
int64_t physical_memory_bytes();

// Throws sdk::Error(invalid_argument) naming the op, the bytes it needs and
// memory_bytes when they do not fit (memory_bytes 0: nothing refused).
void require_fits_memory(const sdk::OpTask& task, int64_t memory_bytes);

}  // namespace aoe::cpu
