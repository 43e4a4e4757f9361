// SSD's Caffe layers (Permute, Normalize, PriorBox, DetectionOutput), as the
// prototxts of SSD detectors (OpenCV's face detector, MobileNet-SSD) hold
// them, through the real binary: each output worked out by hand.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "aoe_host_fixture.h"
#include "caffe.pb.h"
#include "child_process.h"
#include "npz_file.h"

namespace aoe::test {
namespace {

namespace fs = std::filesystem;

class CaffeSsd : public AoeHostTest {
 protected:
  ProcessResult run(const std::vector<std::string>& model, const std::vector<std::pair<std::string, host::FloatArray>>& inputs) const {
    host::write_npz(dir_ / "in.npz", inputs);
    std::vector<std::string> args = {"run", "--device", "cpu", "--framework", "0", "--threads", "1", "--iterations", "1",
                                     "--inputs", (dir_ / "in.npz").string(), "--outputs", (dir_ / "out.npz").string(), "--check"};
    args.insert(args.end(), model.begin(), model.end());
    return aoe_host(args);
  }
  std::map<std::string, host::FloatArray> outputs() const { return host::read_npz(dir_ / "out.npz"); }
};

// Two priors per cell of a 2x2 map on an 8x8 image: a 4x4 box, then a 6x6
// one (sqrt(min_size * max_size)); a 2x2 map of three classes' scores.
constexpr const char* kDetector = R"(
layer { name: "in" type: "Input" top: "loc_map" top: "conf_map" top: "image"
  input_param { shape { dim: 1 dim: 8 dim: 2 dim: 2 } shape { dim: 1 dim: 6 dim: 2 dim: 2 } shape { dim: 1 dim: 3 dim: 8 dim: 8 } } }
layer { name: "loc_perm" type: "Permute" bottom: "loc_map" top: "loc_perm" permute_param { order: 0 order: 2 order: 3 order: 1 } }
layer { name: "loc" type: "Flatten" bottom: "loc_perm" top: "loc" }
layer { name: "conf_perm" type: "Permute" bottom: "conf_map" top: "conf_perm" permute_param { order: 0 order: 2 order: 3 order: 1 } }
layer { name: "conf_rows" type: "Reshape" bottom: "conf_perm" top: "conf_rows" reshape_param { shape { dim: 0 dim: -1 dim: 3 } } }
layer { name: "conf_softmax" type: "Softmax" bottom: "conf_rows" top: "conf_softmax" softmax_param { axis: 2 } }
layer { name: "conf" type: "Flatten" bottom: "conf_softmax" top: "conf" }
layer { name: "priors" type: "PriorBox" bottom: "loc_map" bottom: "image" top: "priors"
  prior_box_param { min_size: 4 max_size: 9 variance: 0.1 variance: 0.1 variance: 0.2 variance: 0.2 } }
layer { name: "ratios" type: "PriorBox" bottom: "image" bottom: "image" top: "ratios"
  prior_box_param { min_size: 4 aspect_ratio: 2 flip: true clip: true variance: 0.1 } }
layer { name: "detections" type: "DetectionOutput" bottom: "loc" bottom: "conf" bottom: "priors" top: "detections"
  detection_output_param { num_classes: 3 background_label_id: 0 nms_param { nms_threshold: 0.4 top_k: 6 }
    code_type: CENTER_SIZE keep_top_k: 4 confidence_threshold: 0.3 } }
layer { name: "few" type: "DetectionOutput" bottom: "loc" bottom: "conf" bottom: "priors" top: "few"
  detection_output_param { num_classes: 3 nms_param { nms_threshold: 0.4 top_k: 3 } code_type: CENTER_SIZE confidence_threshold: 0.3 } }
layer { name: "none" type: "DetectionOutput" bottom: "loc" bottom: "conf" bottom: "priors" top: "none"
  detection_output_param { num_classes: 3 nms_param { nms_threshold: 0.4 } code_type: CENTER_SIZE confidence_threshold: 0.99 } }
)";

// Prior k (cell k / 2, row-major; the 4x4 box first), its normalised corners.
std::array<double, 4> prior(int k) {
  const double x = (k / 2) % 2, y = (k / 2) / 2;
  if (k % 2 == 0) return {x / 2, y / 2, (x + 1) / 2, (y + 1) / 2};
  return {(4 * x - 1) / 8, (4 * y - 1) / 8, (4 * x + 5) / 8, (4 * y + 5) / 8};
}

// Boxes decoded from the priors, each class's candidates (top_k) cut by NMS
// (a 6x6 prior overlaps the 4x4 one of its cell by 16/36 > 0.4), the
// keep_top_k best of all, by label, then by score.
TEST_F(CaffeSsd, DetectionsAreTheBestBoxesAfterEachClasssNms) {
  std::ofstream(dir_ / "ssd.prototxt") << kDetector;
  // Class 1's logits per prior; class 2's are -5 but prior 7's, 4; the background's 0.
  const std::array<double, 8> z1 = {2, 1.8, -2, 0.5, 1.5, 0, 3, -1};
  std::vector<float> conf(24, 0.0f), loc(32, 0.0f);
  for (int k = 0; k < 8; ++k) {
    const int cell = k / 2, j = k % 2;
    conf[static_cast<size_t>((j * 3 + 1) * 4 + cell)] = static_cast<float>(z1[static_cast<size_t>(k)]);
    conf[static_cast<size_t>((j * 3 + 2) * 4 + cell)] = k == 7 ? 4.0f : -5.0f;
  }
  // Prior 6 (the 4x4 box of cell 3) moved and widened: centre + variance * offset * size, size * exp(variance * offset).
  const std::array<float, 4> moved = {1.0f, -2.0f, static_cast<float>(5 * std::log(1.5)), 0.0f};
  for (int i = 0; i < 4; ++i) loc[static_cast<size_t>(i * 4 + 3)] = moved[static_cast<size_t>(i)];
  const auto r = run({"--model", (dir_ / "ssd.prototxt").string()},
                     {{"loc_map", {{1, 8, 2, 2}, loc}}, {"conf_map", {{1, 6, 2, 2}, conf}}, {"image", {{1, 3, 8, 8}, std::vector<float>(192, 0.5f)}}});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const auto out = outputs();

  const auto p = [&](int label, int k) {
    const double e1 = std::exp(z1[static_cast<size_t>(k)]), e2 = std::exp(k == 7 ? 4.0 : -5.0);
    return (label == 1 ? e1 : e2) / (1 + e1 + e2);
  };
  const auto box = [&](int k) {
    if (k != 6) return prior(k);
    const double cx = 0.75 + 0.1 * 1.0 * 0.5, cy = 0.75 + 0.1 * -2.0 * 0.5, w = 1.5 * 0.5, h = 0.5;
    return std::array<double, 4>{cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2};
  };
  const auto expect_rows = [&](const std::string& name, const std::vector<std::pair<int, int>>& rows) {
    const auto& got = out.at(name);
    ASSERT_EQ(got.shape, (std::vector<int64_t>{1, 1, static_cast<int64_t>(rows.size()), 7})) << name;
    for (size_t i = 0; i < rows.size(); ++i) {
      const auto [label, k] = rows[i];
      const float* row = got.data.data() + i * 7;
      EXPECT_EQ(row[0], 0.0f) << name << " row " << i;
      EXPECT_EQ(row[1], static_cast<float>(label)) << name << " row " << i;
      EXPECT_NEAR(row[2], p(label, k), 1e-6) << name << " row " << i;
      for (int c = 0; c < 4; ++c) EXPECT_NEAR(row[3 + c], box(k)[static_cast<size_t>(c)], 1e-6) << name << " row " << i << " corner " << c;
    }
  };
  // Class 1 ranks priors 6, 0, 1, 4, 3, 5: 1 falls to 0's NMS, 5 to 4's; class 2 keeps 7.
  // The four best are 7, 6, 0 and 4.
  expect_rows("detections", {{1, 6}, {1, 0}, {1, 4}, {2, 7}});
  // Three candidates a class: class 1's 6, 0 and 1, of which 1 falls.
  expect_rows("few", {{1, 6}, {1, 0}, {2, 7}});
  EXPECT_EQ(out.at("none").data, (std::vector<float>{0, -1, -1, -1, -1, -1, -1}));

  // Aspect ratios 1, 2 and 1/2 about cell (0, 0)'s centre (0.5, 0.5) of the 8x8 image, clipped to [0, 1].
  const auto& ratios = out.at("ratios");
  ASSERT_EQ(ratios.shape, (std::vector<int64_t>{1, 2, 64 * 3 * 4}));
  const double s = std::sqrt(2.0);
  const std::vector<double> first = {0, 0, 2.5 / 8, 2.5 / 8, 0, 0, (0.5 + 2 * s) / 8, (0.5 + s) / 8, 0, 0, (0.5 + s) / 8, (0.5 + 2 * s) / 8};
  for (size_t i = 0; i < first.size(); ++i) EXPECT_NEAR(ratios.data[i], first[i], 1e-6) << i;
  for (size_t i = 64 * 12; i < ratios.data.size(); ++i) ASSERT_EQ(ratios.data[i], 0.1f) << i;

  // Tuned like any model: its Permutes and reshapes timed, DetectionOutput's ops listed or timed.
  for (const std::string device : {"ascend910", "cpu"}) {
    const auto t = aoe_host({"--plugin", "opat", "--device", device, "--framework", "0", "--model", (dir_ / "ssd.prototxt").string(),
                             "--budget", "2"});
    EXPECT_EQ(t.exit_code, 0) << device << ": " << failure_text(t);
  }
}

// Each position's channels as a unit vector, times the caffemodel's scale per channel.
TEST_F(CaffeSsd, NormalizeScalesEachPositionsUnitVector) {
  std::ofstream(dir_ / "norm.prototxt") << R"(
layer { name: "in" type: "Input" top: "x" input_param { shape { dim: 1 dim: 3 dim: 2 dim: 2 } } }
layer { name: "norm" type: "Normalize" bottom: "x" top: "y" norm_param { across_spatial: false channel_shared: false } }
layer { name: "whole" type: "Normalize" bottom: "x" top: "z" norm_param { across_spatial: true channel_shared: true } }
)";
  aoe::caffe::NetParameter weights;
  for (const auto& [name, values] : std::vector<std::pair<std::string, std::vector<float>>>{{"norm", {1, 2, 3}}, {"whole", {10}}}) {
    auto* layer = weights.add_layer();
    layer->set_name(name);
    auto* blob = layer->add_blobs();
    blob->mutable_shape()->add_dim(static_cast<int64_t>(values.size()));
    for (float v : values) blob->add_data(v);
  }
  std::ofstream(dir_ / "norm.caffemodel", std::ios::binary) << weights.SerializeAsString();
  const std::vector<float> x = {3, 0, 1, -2, 4, 0, 1, 2, 0, 0, 1, 4};
  const auto r = run({"--model", (dir_ / "norm.prototxt").string(), "--weight", (dir_ / "norm.caffemodel").string()},
                     {{"x", {{1, 3, 2, 2}, x}}});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const auto out = outputs();
  double all = 0;
  for (float v : x) all += v * v;
  for (int pos = 0; pos < 4; ++pos) {
    double sum = 1e-10;
    for (int c = 0; c < 3; ++c) sum += x[static_cast<size_t>(c * 4 + pos)] * x[static_cast<size_t>(c * 4 + pos)];
    for (int c = 0; c < 3; ++c) {
      const auto i = static_cast<size_t>(c * 4 + pos);
      EXPECT_NEAR(out.at("y").data[i], x[i] / std::sqrt(sum) * (c + 1), 1e-6) << i;
      EXPECT_NEAR(out.at("z").data[i], x[i] / std::sqrt(all + 1e-10) * 10, 1e-6) << i;
    }
  }
}

// What aoe does not read is named: SSD's per-class locations and adaptive NMS.
TEST_F(CaffeSsd, DetectionOutputsItDoesNotReadAreNamed) {
  std::string net = kDetector;
  const std::string first = "detection_output_param { ";
  net.insert(net.find(first) + first.size(), "share_location: false ");
  std::ofstream(dir_ / "bad.prototxt") << net;
  const auto r = aoe_host({"--plugin", "opat", "--device", "ascend910", "--framework", "0", "--model", (dir_ / "bad.prototxt").string()});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("'detections' (DetectionOutput)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("share_location false"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace aoe::test
