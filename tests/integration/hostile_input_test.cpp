// aoe-host on models and shapes that ask for more than any machine holds:
// each is a clear error naming the model or the op, never an allocation.
#include <filesystem>

#include "aoe_host_fixture.h"

namespace aoe::test {
namespace {

namespace fs = std::filesystem;

// mlp's input x is [8,256]: 2^32 rows make it 2^40 elements, 4 TiB of fp32.
const std::string kTwoToTheForty = "x:4294967296,256";
// 2^28 rows: each tensor under the frontend's 1 TiB, the ops far beyond any memory.
const std::string kBeyondMemory = "x:268435456,256";

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST_F(AoeHostTest, TensorOfTwoToTheFortyElementsIsRefusedNamingModelAndTensor) {
  for (const std::string device : {"ascend910", "cpu"}) {
    const auto r = tune("mlp.onnx", {"--device", device, "--input_shape", kTwoToTheForty});
    EXPECT_EQ(r.exit_code, 2) << device << ": " << r.err;  // a bad --input_shape is a usage error
    EXPECT_TRUE(contains(r.err, "mlp.onnx")) << r.err;
    EXPECT_TRUE(contains(r.err, "tensor '")) << r.err;
    EXPECT_TRUE(contains(r.err, " node '")) << r.err;
    EXPECT_TRUE(contains(r.err, "1.0 TiB")) << r.err;
    EXPECT_TRUE(contains(r.err, "--input_shape")) << r.err;
    EXPECT_FALSE(contains(r.err, "bad_alloc")) << r.err;
    EXPECT_TRUE(result_files().empty());
  }
}

TEST_F(AoeHostTest, OpBeyondTheSocMemoryFailsNamingOpAndBothSizes) {
  const auto r = tune("mlp.onnx", {"--input_shape", kBeyondMemory});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const std::string result = read_text(result_files().at(0));
  EXPECT_TRUE(contains(result, "ascend910 cannot hold op")) << result;
  EXPECT_TRUE(contains(result, "32.0 GiB (34359738368 bytes)")) << result;
  EXPECT_EQ(only_result()["OPAT"]["opat_tuning_result"], "tuning failed");
}

TEST_F(AoeHostTest, OpBeyondThisMachinesMemoryFailsOnTheCpuWithoutAllocating) {
  const auto r = tune("mlp.onnx", {"--device", "cpu", "--input_shape", kBeyondMemory});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_FALSE(contains(r.err, "bad_alloc")) << r.err;
  const std::string result = read_text(result_files().at(0));
  EXPECT_TRUE(contains(result, "cpu cannot run op")) << result;
  EXPECT_TRUE(contains(result, "of memory")) << result;
}

TEST_F(AoeHostTest, TruncatedExternalWeightsAreAClearError) {
  fs::copy_file(model("resnet50.onnx"), dir_ / "resnet50.onnx");
  fs::copy_file(model("resnet50.weights"), dir_ / "resnet50.weights");
  fs::resize_file(dir_ / "resnet50.weights", fs::file_size(dir_ / "resnet50.weights") / 2);
  const auto r = aoe_host({"--plugin", "opat", "--device", "ascend910", "--model", (dir_ / "resnet50.onnx").string()});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_TRUE(contains(r.err, "resnet50.onnx")) << r.err;
  EXPECT_TRUE(contains(r.err, "resnet50.weights")) << r.err;
  EXPECT_TRUE(contains(r.err, "truncated")) << r.err;
  EXPECT_TRUE(result_files().empty());
}

}  // namespace
}  // namespace aoe::test
