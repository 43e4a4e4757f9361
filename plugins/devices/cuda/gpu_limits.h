// What a GPU allows one block: the bounds a kernel config is checked against.
#pragma once

namespace aoe::cuda {

// Defaults are those of every GPU since Volta, before the shared-memory opt-in;
// the device fills them from cuDeviceGetAttribute.
struct GpuLimits {
  int max_threads_per_block = 1024;
  int max_shared_bytes_per_block = 48 * 1024;
  int max_registers_per_thread = 255;
  int warp_size = 32;
  int max_registers_per_block = 64 * 1024;
  // Streaming multiprocessors: the untuned default sizes its tiles to fill them.
  int multiprocessors = 1;
  // major * 10 + minor; 0 where not known. TF32's mma.sync needs 80 (Ampere) or more.
  int compute_capability = 0;
};

}  // namespace aoe::cuda
