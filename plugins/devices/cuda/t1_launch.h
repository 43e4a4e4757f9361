// How a T1 problem's kernel is launched for one config: Kernel Tuner's
// rules (kernel_tuner/util.py: get_thread_block_dimensions,
// get_grid_dimensions), which its T1 reader (interface.py, tune_kernel_T1)
// applies to ProblemSize and GridDivX/Y/Z.
//
// GlobalSize and LocalSize do not enter: tune_kernel_T1 never reads them, so
// ProblemSize with the grid divisors wins. For benchmark_hub's convolution
// GlobalSize.X is "(262144 // block_size_x) // tile_size_x", 64 times the
// grid its ProblemSize gives; Kernel Tuner launches (and recorded) the latter.
// The dynamic shared memory is SharedMemory: tune_kernel_T1 passes none, so
// Kernel Tuner launches with 0 bytes, which is what both benchmark_hub
// problems give.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "launch_geometry.h"
#include "t1_problem.h"

namespace aoe::cuda {

// `values`: the parameters' values of a config, in the problem's parameter
// order. The block is block_size_x/y/z, 256, 1, 1 where a parameter is
// absent. Each grid dimension is ceil(problem size / divisor), the divisor
// the product of the GridDiv expressions (each cut to an int, as Python's
// int() does), or block_size_x/y/z (1 where absent) without them; a missing
// problem dimension is 1. Throws sdk::Error(invalid_argument) naming the
// problem and the expression when a divisor is not positive or a dimension
// is past what a launch takes.
LaunchGeometry t1_launch(const T1Problem& problem, const std::vector<nlohmann::json>& values);

}  // namespace aoe::cuda
