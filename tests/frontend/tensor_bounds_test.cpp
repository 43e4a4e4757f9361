// Models whose shapes or weight data would size an allocation wrongly: each
// refused by load_onnx with the model, the tensor and what to do.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "aoe/sdk/error.h"
#include "frontend/onnx_frontend.h"

namespace aoe::host {
namespace {

namespace fs = std::filesystem;
using T = onnx::TensorProto;

// x[2,4] -> MatMul(W[4,3]) -> y, W inline as raw data, opset 13.
onnx::ModelProto matmul_model() {
  onnx::ModelProto model;
  model.set_ir_version(onnx::IR_VERSION);
  auto* import = model.add_opset_import();
  import->set_domain("");
  import->set_version(13);
  auto* graph = model.mutable_graph();
  graph->set_name("bounds");
  const auto value = [](onnx::ValueInfoProto* v, const std::string& name, std::vector<int64_t> dims) {
    v->set_name(name);
    auto* type = v->mutable_type()->mutable_tensor_type();
    type->set_elem_type(T::FLOAT);
    for (auto d : dims) type->mutable_shape()->add_dim()->set_dim_value(d);
  };
  value(graph->add_input(), "x", {2, 4});
  value(graph->add_output(), "y", {2, 3});
  auto* w = graph->add_initializer();
  w->set_name("W");
  w->set_data_type(T::FLOAT);
  w->add_dims(4);
  w->add_dims(3);
  w->set_raw_data(std::string(4 * 3 * sizeof(float), '\0'));
  auto* node = graph->add_node();
  node->set_op_type("MatMul");
  node->set_name("mm");
  node->add_input("x");
  node->add_input("W");
  node->add_output("y");
  return model;
}

void set_external(T* w, const std::string& location, int64_t offset, int64_t length) {
  w->clear_raw_data();
  w->set_data_location(T::EXTERNAL);
  const auto entry = [&](const std::string& key, const std::string& value) {
    auto* e = w->add_external_data();
    e->set_key(key);
    e->set_value(value);
  };
  entry("location", location);
  entry("offset", std::to_string(offset));
  entry("length", std::to_string(length));
}

class TensorBounds : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("aoe_tensor_bounds_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "models");
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path save(const onnx::ModelProto& model) const {
    const fs::path path = dir_ / "models" / "m.onnx";
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    model.SerializeToOstream(&out);
    return path;
  }

  void write_bytes(const fs::path& file, size_t size) const {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << std::string(size, '\0');
  }

  // The message of the sdk::Error load_onnx throws; fails the test when it loads.
  static std::string error_of(const fs::path& model, const InputShapes& shapes = {}) {
    try {
      load_onnx(model, shapes);
    } catch (const sdk::Error& e) {
      EXPECT_EQ(e.code(), sdk::StatusCode::invalid_argument) << e.what();
      return e.what();
    }
    ADD_FAILURE() << model << " loaded";
    return {};
  }

  fs::path dir_;
};

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST_F(TensorBounds, AModelWithinBoundsLoads) {
  const auto path = save(matmul_model());
  EXPECT_NO_THROW(load_onnx(path));
}

TEST_F(TensorBounds, InputShapeOfTwoToTheFortyElementsNamesTensorNodeAndFix) {
  const auto path = save(matmul_model());
  const auto why = error_of(path, {{"x", {int64_t{1} << 38, 4}}});
  EXPECT_TRUE(has(why, path.string())) << why;
  EXPECT_TRUE(has(why, "tensor 'x' (input of MatMul node 'mm')")) << why;
  EXPECT_TRUE(has(why, "1099511627776 elements")) << why;
  EXPECT_TRUE(has(why, "--input_shape")) << why;
}

TEST_F(TensorBounds, DimsWhoseProductOverflowsAreRefused) {
  auto model = matmul_model();
  auto* w = model.mutable_graph()->mutable_initializer(0);
  w->set_dims(0, int64_t{1} << 40);
  w->set_dims(1, int64_t{1} << 40);
  const auto why = error_of(save(model));
  EXPECT_TRUE(has(why, "initializer 'W'")) << why;
  EXPECT_TRUE(has(why, "overflows")) << why;
}

TEST_F(TensorBounds, NegativeDimIsRefused) {
  auto model = matmul_model();
  model.mutable_graph()->mutable_initializer(0)->set_dims(0, -4);
  EXPECT_TRUE(has(error_of(save(model)), "negative dim")) << error_of(save(model));
}

TEST_F(TensorBounds, RawDataShorterThanItsDimsIsRefused) {
  auto model = matmul_model();
  model.mutable_graph()->mutable_initializer(0)->set_raw_data(std::string(5, '\0'));
  const auto why = error_of(save(model));
  EXPECT_TRUE(has(why, "initializer 'W' holds 5 bytes of raw data, but its dims [4,3] need 48")) << why;
}

TEST_F(TensorBounds, TypedDataShorterThanItsDimsIsRefused) {
  auto model = matmul_model();
  auto* w = model.mutable_graph()->mutable_initializer(0);
  w->clear_raw_data();
  for (int i = 0; i < 7; ++i) w->add_float_data(1.0f);
  EXPECT_TRUE(has(error_of(save(model)), "holds 7 values, but its dims [4,3] need 12"));
}

TEST_F(TensorBounds, ExternalDataBesideTheModelLoads) {
  auto model = matmul_model();
  set_external(model.mutable_graph()->mutable_initializer(0), "m.weights", 64, 48);
  write_bytes(dir_ / "models" / "m.weights", 64 + 48);
  EXPECT_NO_THROW(load_onnx(save(model)));
}

TEST_F(TensorBounds, ExternalDataPastTheEndOfItsFileIsRefused) {
  auto model = matmul_model();
  set_external(model.mutable_graph()->mutable_initializer(0), "m.weights", 64, 48);
  write_bytes(dir_ / "models" / "m.weights", 100);
  const auto why = error_of(save(model));
  EXPECT_TRUE(has(why, "reads bytes 64..112 of 'm.weights', which holds 100")) << why;
}

TEST_F(TensorBounds, ExternalDataOffsetThatOverflowsIsRefused) {
  auto model = matmul_model();
  set_external(model.mutable_graph()->mutable_initializer(0), "m.weights", INT64_MAX - 8, 48);
  write_bytes(dir_ / "models" / "m.weights", 100);
  EXPECT_TRUE(has(error_of(save(model)), "(overflow)"));
}

TEST_F(TensorBounds, ExternalDataLengthUnlikeItsDimsIsRefused) {
  auto model = matmul_model();
  set_external(model.mutable_graph()->mutable_initializer(0), "m.weights", 0, 4);
  write_bytes(dir_ / "models" / "m.weights", 100);
  EXPECT_TRUE(has(error_of(save(model)), "length 4, but its dims [4,3] need 48"));
}

TEST_F(TensorBounds, ExternalDataOutsideTheModelsFolderIsRefused) {
  write_bytes(dir_ / "secret", 48);
  const std::vector<std::string> locations = {"../secret", (dir_ / "secret").string(), "sub/../../secret"};
  for (const auto& location : locations) {
    auto model = matmul_model();
    set_external(model.mutable_graph()->mutable_initializer(0), location, 0, 48);
    const auto why = error_of(save(model));
    EXPECT_TRUE(has(why, "outside the model's folder")) << location << ": " << why;
  }
}

TEST_F(TensorBounds, ExternalDataThroughALinkOutOfTheFolderIsRefused) {
  write_bytes(dir_ / "secret", 48);
  fs::create_symlink(dir_ / "secret", dir_ / "models" / "link.weights");
  auto model = matmul_model();
  set_external(model.mutable_graph()->mutable_initializer(0), "link.weights", 0, 48);
  EXPECT_TRUE(has(error_of(save(model)), "outside the model's folder"));
}

TEST_F(TensorBounds, ExternalDataThatIsAFolderIsRefused) {
  fs::create_directories(dir_ / "models" / "weights");
  auto model = matmul_model();
  set_external(model.mutable_graph()->mutable_initializer(0), "weights", 0, 48);
  EXPECT_TRUE(has(error_of(save(model)), "which is not a file beside the model"));
}

}  // namespace
}  // namespace aoe::host
