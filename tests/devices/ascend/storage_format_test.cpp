// Where an element lands in each storage format, and the way back.
#include <gtest/gtest.h>

#include <numeric>

#include "storage_format.h"

namespace aoe::ascend {
namespace {

std::vector<float> iota(int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 1.0f);
  return v;
}

TEST(StorageFormat, FractalNzTilesAMatrixColumnBlocksFirst) {
  const std::vector<int64_t> dims = {20, 40};  // M1 = 2, N1 = 3
  EXPECT_EQ(storage_shape(StorageFormat::fractal_nz, dims), (std::vector<int64_t>{3, 2, 16, 16}));
  const auto data = iota(20 * 40);
  const auto stored = to_storage(StorageFormat::fractal_nz, dims, data.data());
  ASSERT_EQ(stored.size(), 3u * 2 * 16 * 16);
  // (m, n) = (17, 33): column block 2, row block 1, row 1, column 1.
  EXPECT_EQ(stored[((2 * 2 + 1) * 16 + 1) * 16 + 1], data[17 * 40 + 33]);
  EXPECT_EQ(stored[((0 * 2 + 1) * 16 + 4) * 16], 0.0f);  // row 20 is padding
}

TEST(StorageFormat, Nc1hwc0SplitsChannelsInto16s) {
  const std::vector<int64_t> dims = {2, 20, 3, 5};
  EXPECT_EQ(storage_shape(StorageFormat::nc1hwc0, dims), (std::vector<int64_t>{2, 2, 3, 5, 16}));
  const auto data = iota(2 * 20 * 3 * 5);
  const auto stored = to_storage(StorageFormat::nc1hwc0, dims, data.data());
  // (n, c, h, w) = (1, 18, 2, 4): c1 1, c0 2.
  EXPECT_EQ(stored[(((1 * 2 + 1) * 3 + 2) * 5 + 4) * 16 + 2], data[((1 * 20 + 18) * 3 + 2) * 5 + 4]);
}

TEST(StorageFormat, FractalZLaysFilterChannelBlocksOverOutputBlocks) {
  const std::vector<int64_t> dims = {24, 20, 3, 3};  // N1 = 2, C1 = 2
  EXPECT_EQ(storage_shape(StorageFormat::fractal_z, dims), (std::vector<int64_t>{2 * 3 * 3, 2, 16, 16}));
  const auto data = iota(24 * 20 * 3 * 3);
  const auto stored = to_storage(StorageFormat::fractal_z, dims, data.data());
  // (n, c, h, w) = (17, 19, 1, 2): row (c1 1)*9 + 1*3 + 2 = 14, n1 1, n0 1, c0 3.
  EXPECT_EQ(stored[((14 * 2 + 1) * 16 + 1) * 16 + 3], data[((17 * 20 + 19) * 3 + 1) * 3 + 2]);
}

TEST(StorageFormat, EveryFormatReadsBackWhatItStored) {
  const std::vector<int64_t> dims = {3, 20, 5, 7};
  const auto data = iota(3 * 20 * 5 * 7);
  for (auto f : {StorageFormat::nchw, StorageFormat::nc1hwc0, StorageFormat::fractal_z, StorageFormat::fractal_nz}) {
    std::vector<float> back(data.size());
    from_storage(f, dims, to_storage(f, dims, data.data()).data(), back.data());
    EXPECT_EQ(back, data) << format_name(f);
  }
}

TEST(StorageFormat, ARankAFormatCannotHoldIsNamed) {
  try {
    storage_shape(StorageFormat::nc1hwc0, {4, 4});
    FAIL() << "NC1HWC0 took a matrix";
  } catch (const std::exception& e) {
    EXPECT_STREQ(e.what(), "NC1HWC0 cannot store a tensor of rank 2");
  }
}

}  // namespace
}  // namespace aoe::ascend
