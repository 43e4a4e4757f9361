// What the host's output_buffer (SDK 1.6) does with a device's request:
// lends from a model run's outputs, or refuses a shape it cannot hold.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "aoe/sdk/error.h"
#include "run_time_outputs.h"

namespace aoe::test {
namespace {

using host::FloatArray;

class RunTimeOutputs : public ::testing::Test {
 protected:
  float* lend(const std::string& name, const std::vector<int64_t>& dims) {
    return host::lend_run_time_output(outputs_, name, dims);
  }
  // The message of the Error a request for `dims` throws.
  std::string refusal(const std::string& name, const std::vector<int64_t>& dims) {
    try {
      lend(name, dims);
    } catch (const sdk::Error& e) {
      EXPECT_EQ(e.code(), sdk::StatusCode::invalid_argument) << e.what();
      return e.what();
    }
    ADD_FAILURE() << "output_buffer lent " << name;
    return {};
  }

  std::vector<std::pair<std::string, FloatArray>> outputs_ = {{"where", FloatArray{{1, -1}, {}}},
                                                               {"y", FloatArray{{2}, {0, 0}}}};
};

TEST_F(RunTimeOutputs, LendsABufferOfTheShapeAskedAndRecordsIt) {
  float* data = lend("where", {1, 3});
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(outputs_[0].second.shape, (std::vector<int64_t>{1, 3}));
  ASSERT_EQ(outputs_[0].second.data.size(), 3u);
  EXPECT_EQ(data, outputs_[0].second.data.data());
  // Asked again for the same count (each timed run), the same buffer.
  EXPECT_EQ(lend("where", {3, 1}), data);
  EXPECT_EQ(outputs_[0].second.shape, (std::vector<int64_t>{3, 1}));
  // No values: no buffer, the shape still recorded.
  EXPECT_EQ(lend("where", {1, 0}), nullptr);
  EXPECT_EQ(outputs_[0].second.shape, (std::vector<int64_t>{1, 0}));
}

TEST_F(RunTimeOutputs, RefusesAShapeItCannotHoldNamingTheOutput) {
  EXPECT_NE(refusal("where", {1, -2}).find("output 'where': run-time shape [1,-2] has a negative dim"),
            std::string::npos);
  EXPECT_NE(refusal("where", {1 << 20, 1 << 11}).find("output 'where': run-time shape [1048576,2048] holds more than"),
            std::string::npos);
  // A product past 2^64 is caught before it wraps.
  EXPECT_NE(refusal("where", {int64_t{1} << 40, int64_t{1} << 40, 16}).find("holds more than"), std::string::npos);
  EXPECT_NE(refusal("logits", {2}).find("'logits' is not an output of the model"), std::string::npos);
  EXPECT_EQ(outputs_[0].second.shape, (std::vector<int64_t>{1, -1}));  // nothing recorded
}

}  // namespace
}  // namespace aoe::test
