// The storage formats the device hands AscendCL, and how data in the model's
// layout (ND, NCHW) is laid out in each and read back. The test double of
// libascendcl.so reads tensors through the same functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "acl_api.h"

namespace aoe::ascend {

// The cube's block: 16 elements of a fractal's side, 16 channels of a C0 group.
inline constexpr int64_t kCube = 16;

enum class StorageFormat { nd, nchw, nc1hwc0, fractal_z, fractal_nz };

const char* format_name(StorageFormat f);  // "ND", "NC1HWC0", ...
aclFormat acl_format(StorageFormat f);
std::optional<StorageFormat> storage_format(aclFormat f);

// The dims of a tensor of `origin` dims stored in `f`: NC1HWC0 takes N,C,H,W;
// FRACTAL_Z a conv filter N,C,H,W (group 1); FRACTAL_NZ a matrix ..,M,N.
// Throws sdk::Error(invalid_argument) for a rank the format does not take.
std::vector<int64_t> storage_shape(StorageFormat f, const std::vector<int64_t>& origin);
int64_t element_count(const std::vector<int64_t>& dims);

// Data of `origin` dims in the model's layout -> `f`, padding with zeros.
std::vector<float> to_storage(StorageFormat f, const std::vector<int64_t>& origin, const float* data);
// `f` -> the model's layout; `out` holds element_count(origin) floats.
void from_storage(StorageFormat f, const std::vector<int64_t>& origin, const float* storage, float* out);

}  // namespace aoe::ascend
