// What the double's NVRTC reads in a source, and the "cubin" it writes: a
// text record of the kernels' name expressions, the defines, the
// __constant__ names and the options, then the source itself (what a
// kernel run from its source compiles), which cuModuleLoadData reads back.
#pragma once

#include <string>
#include <vector>

#include "double_config.h"

namespace aoe::cuda_double {

// Object-like `#define NAME VALUE` lines, the first of each name; function-like macros are skipped.
Defines parse_defines(const std::string& source);

// The names declared __constant__: the last identifier before `[`, `=` or `;`.
std::vector<std::string> parse_constants(const std::string& source);

struct Image {
  std::vector<std::string> kernels, constants, options;
  Defines defines;
  std::string source;
};

std::string write_image(const Image& image);
// False when `bytes` is not a record write_image wrote.
bool read_image(const char* bytes, Image& image);

}  // namespace aoe::cuda_double
