#include "storage_format.h"

#include <functional>

#include "aoe/sdk/error.h"

namespace aoe::ascend {
namespace {

int64_t blocks(int64_t n) { return (n + kCube - 1) / kCube; }

void require_rank(StorageFormat f, const std::vector<int64_t>& origin, bool ok) {
  if (!ok)
    throw sdk::Error(sdk::StatusCode::invalid_argument,
                     std::string(format_name(f)) + " cannot store a tensor of rank " + std::to_string(origin.size()));
}

// Calls visit(origin offset, storage offset) for every element of the origin tensor.
void for_each_element(StorageFormat f, const std::vector<int64_t>& origin,
                      const std::function<void(int64_t, int64_t)>& visit) {
  const int64_t total = element_count(origin);
  if (f == StorageFormat::nd || f == StorageFormat::nchw) {
    for (int64_t i = 0; i < total; ++i) visit(i, i);
    return;
  }
  if (f == StorageFormat::fractal_nz) {
    const int64_t m = origin[origin.size() - 2], n = origin.back();
    const int64_t m1 = blocks(m), n1 = blocks(n), matrix = m1 * n1 * kCube * kCube;
    for (int64_t i = 0; i < total; ++i) {
      const int64_t batch = i / (m * n), r = i / n % m, c = i % n;
      visit(i, batch * matrix + (((c / kCube) * m1 + r / kCube) * kCube + r % kCube) * kCube + c % kCube);
    }
    return;
  }
  const int64_t n = origin[0], c = origin[1], h = origin[2], w = origin[3];
  const int64_t c1 = blocks(c);
  for (int64_t i = 0; i < total; ++i) {
    const int64_t in = i / (c * h * w), ic = i / (h * w) % c, ih = i / w % h, iw = i % w;
    if (f == StorageFormat::nc1hwc0)
      visit(i, (((in * c1 + ic / kCube) * h + ih) * w + iw) * kCube + ic % kCube);
    else  // fractal_z: [C1*H*W, N1, N0, C0]
      visit(i, ((((ic / kCube) * h * w + ih * w + iw) * blocks(n) + in / kCube) * kCube + in % kCube) * kCube +
                   ic % kCube);
  }
}

}  // namespace

const char* format_name(StorageFormat f) {
  switch (f) {
    case StorageFormat::nd: return "ND";
    case StorageFormat::nchw: return "NCHW";
    case StorageFormat::nc1hwc0: return "NC1HWC0";
    case StorageFormat::fractal_z: return "FRACTAL_Z";
    case StorageFormat::fractal_nz: return "FRACTAL_NZ";
  }
  return "ND";
}

aclFormat acl_format(StorageFormat f) {
  switch (f) {
    case StorageFormat::nd: return ACL_FORMAT_ND;
    case StorageFormat::nchw: return ACL_FORMAT_NCHW;
    case StorageFormat::nc1hwc0: return ACL_FORMAT_NC1HWC0;
    case StorageFormat::fractal_z: return ACL_FORMAT_FRACTAL_Z;
    case StorageFormat::fractal_nz: return ACL_FORMAT_FRACTAL_NZ;
  }
  return ACL_FORMAT_ND;
}

std::optional<StorageFormat> storage_format(aclFormat f) {
  for (auto s : {StorageFormat::nd, StorageFormat::nchw, StorageFormat::nc1hwc0, StorageFormat::fractal_z,
                 StorageFormat::fractal_nz})
    if (acl_format(s) == f) return s;
  return std::nullopt;
}

int64_t element_count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (auto d : dims) n *= d;
  return n;
}

std::vector<int64_t> storage_shape(StorageFormat f, const std::vector<int64_t>& origin) {
  switch (f) {
    case StorageFormat::nd:
    case StorageFormat::nchw: return origin;
    case StorageFormat::nc1hwc0:
      require_rank(f, origin, origin.size() == 4);
      return {origin[0], blocks(origin[1]), origin[2], origin[3], kCube};
    case StorageFormat::fractal_z:
      require_rank(f, origin, origin.size() == 4);
      return {blocks(origin[1]) * origin[2] * origin[3], blocks(origin[0]), kCube, kCube};
    case StorageFormat::fractal_nz: {
      require_rank(f, origin, origin.size() >= 2);
      std::vector<int64_t> out(origin.begin(), origin.end() - 2);
      for (int64_t d : {blocks(origin.back()), blocks(origin[origin.size() - 2]), kCube, kCube}) out.push_back(d);
      return out;
    }
  }
  return origin;
}

std::vector<float> to_storage(StorageFormat f, const std::vector<int64_t>& origin, const float* data) {
  std::vector<float> out(static_cast<size_t>(element_count(storage_shape(f, origin))), 0.0f);
  for_each_element(f, origin, [&](int64_t from, int64_t to) { out[static_cast<size_t>(to)] = data[from]; });
  return out;
}

void from_storage(StorageFormat f, const std::vector<int64_t>& origin, const float* storage, float* out) {
  for_each_element(f, origin, [&](int64_t to, int64_t from) { out[to] = storage[from]; });
}

}  // namespace aoe::ascend
