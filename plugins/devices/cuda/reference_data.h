// What a cuda task for one of a model's ops (gemm_plan.h, conv_plan.h) is
// fed and must give: the cpu device's reference kernel's inputs, drawn from
// the seed, and its outputs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aoe/sdk/op_task.h"
#include "evaluate.h"
#include "kernel_plan.h"

namespace aoe::cuda {

// Past this many multiply-adds the cpu's double-precision reference would
// take minutes (4096^3 is 6.9e10): the default config's outputs are the
// reference instead, as Kernel Tuner checks without an answer.
inline constexpr double kMostReferenceMacs = 4.0e9;

// The inputs, and the expected outputs where the op takes at most kMostReferenceMacs.
cpu::TaskData reference_data(const sdk::OpTask& task, uint64_t seed, double multiply_adds);

std::string bytes_of(const std::vector<float>& values);
ArgumentData buffer(std::string name, std::string bytes, bool output = false);

}  // namespace aoe::cuda
