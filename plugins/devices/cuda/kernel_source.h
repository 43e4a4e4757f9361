// The CUDA source NVRTC compiles for one config of a T1 problem, and the
// options it compiles with, as Kernel Tuner makes them
// (kernel_tuner/util.py: prepare_kernel_string; backends/nvcuda.py: compile).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "t1_launch.h"
#include "t1_problem.h"

namespace aoe::cuda {

// The KernelFile's text after one `#define NAME VALUE` line each for
// grid_size_x/y/z, block_size_x/y/z, every tuning parameter (in that order;
// a tuned block size keeps its place among the block sizes) and
// `kernel_tuner 1`, then `#line 1` so the compiler's line numbers are the
// file's. Values are written as Python's str() writes them (16, 1.5, True).
// As Kernel Tuner does for CUDA: a parameter named loop_unroll_factor* is a
// `constexpr int` instead, since `#pragma unroll` takes a constant, and where
// it is 0 the file's `#pragma unroll <name>` lines are removed; a source
// without `extern "C"` is wrapped in `extern "C" { ... }` so the kernel is
// found by its plain name.
std::string t1_kernel_source(const T1Problem& problem, const std::vector<nlohmann::json>& values,
                             const LaunchGeometry& launch);

// The problem's CompilerOptions, then -I<the KernelFile's folder> so its
// relative #includes resolve, and --std=c++11 when no option sets a
// standard (Kernel Tuner's default). The GPU architecture is the device's to add.
std::vector<std::string> t1_compile_options(const T1Problem& problem);

}  // namespace aoe::cuda
