// `aoe-host run`: the whole model with the bank's configs, through the real binary.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <numeric>
#include <set>
#include <string>
#include <tuple>

#include "aoe_host_fixture.h"
#include "child_process.h"
#include "catalog.h"
#include "npz_file.h"
#include "openblas_gemm.h"
#include "thread_pool.h"
#include "tiny_models.h"

namespace aoe::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class RunCommand : public AoeHostTest {
 protected:
  void SetUp() override {
    AoeHostTest::SetUp();
    write_conv_model(dir_ / "conv.onnx");
    write_relu_model(dir_ / "relu.onnx");
  }

  // `run` on the cpu device, one thread, two timed iterations, the report at `report`.
  ProcessResult run(const std::string& model, const std::string& report, std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {"run",       "--device",     "cpu", "--model",      (dir_ / model).string(),
                                     "--threads", "1",            "--iterations", "2", "--run_report",
                                     (dir_ / report).string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return aoe_host(args);
  }

  // `run` fed `inputs` (written to in.npz) and checked, its outputs
  // written to out.npz, which outputs() reads.
  ProcessResult run_fed(const std::string& model, const std::string& report,
                        const std::vector<std::pair<std::string, host::FloatArray>>& inputs) const {
    host::write_npz(dir_ / "in.npz", inputs);
    return run(model, report,
               {"--inputs", (dir_ / "in.npz").string(), "--outputs", (dir_ / "out.npz").string(), "--check"});
  }
  std::map<std::string, host::FloatArray> outputs() const { return host::read_npz(dir_ / "out.npz"); }

  json report(const std::string& name) const { return read_json(dir_ / name); }
  // The one op bank entry made the config `kernel` (of a run report) ran,
  // but for `knob`, set to `value` as the bank keeps it.
  void rewrite_banked_knob(const json& kernel, const std::string& knob, int64_t value) {
    const auto entries = op_bank_entries();
    ASSERT_EQ(entries.size(), 1u);
    const json& knobs = kernel["knobs"];
    const auto at = std::find(knobs.begin(), knobs.end(), knob);
    ASSERT_NE(at, knobs.end()) << kernel.dump(2);
    json entry = read_json(entries.front());
    entry["config_values"] = kernel["config_values"];
    entry["config_values"][static_cast<size_t>(at - knobs.begin())] = value;
    std::ofstream(entries.front()) << entry.dump();
  }

  std::vector<fs::path> op_bank_entries() const {
    std::vector<fs::path> out;
    if (!fs::exists(bank_ / "op")) return out;
    for (const auto& e : fs::recursive_directory_iterator(bank_ / "op"))
      if (e.is_regular_file() && e.path().extension() == ".json" && e.path().filename().string().find(".s") != std::string::npos)
        out.push_back(e.path());
    return out;
  }
};

std::string details(const ProcessResult& r) { return "stdout:\n" + r.out + "\nstderr:\n" + r.err; }

// An .npz of one array of `count` items of dtype `descr` (as np.savez writes
// it) holding `bytes`: a float32 array of the same bytes, its header's dtype
// and shape rewritten (same lengths, so the archive's sizes hold); a scalar
// where `scalar`.
void write_raw_npz(const fs::path& file, const std::string& name, const std::string& bytes, const std::string& descr,
                   size_t count, bool scalar = false) {
  ASSERT_EQ(bytes.size() % sizeof(float), 0u);
  std::vector<float> floats(bytes.size() / sizeof(float));
  std::memcpy(floats.data(), bytes.data(), bytes.size());
  host::write_npz(file, {{name, host::FloatArray{{static_cast<int64_t>(floats.size())}, floats}}});
  std::string text = read_text(file);
  const auto replace = [&](const std::string& from, const std::string& to) {
    ASSERT_EQ(from.size(), to.size());
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  };
  replace("'<f4'", "'" + descr + "'");
  const std::string shape = "(" + std::to_string(floats.size()) + ",)";
  replace(shape, scalar ? "()" + std::string(shape.size() - 2, ' ') : "(" + std::to_string(count) + ",)");
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
}

// An .npz of one int64 array, as np.savez writes token ids; of one int64 scalar where `scalar`.
void write_int64_npz(const fs::path& file, const std::string& name, const std::vector<int64_t>& values,
                     bool scalar = false) {
  write_raw_npz(file, name, std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(int64_t)),
                "<i8", values.size(), scalar);
}

// A bool mask, uint8 pixels and int8 values (np.savez's '|b1', '|u1', '|i1')
// are read as the whole numbers they hold.
TEST_F(RunCommand, ReadsBoolAndByteArraysOfAnNpz) {
  for (const auto& [descr, bytes, want] : std::vector<std::tuple<std::string, std::string, std::vector<float>>>{
           {"|b1", std::string("\x01\x00\x01\x01", 4), {1, 0, 1, 1}},
           {"|u1", std::string("\xc8\x00\x07\xff", 4), {200, 0, 7, 255}},
           {"|i1", std::string("\xfd\x00\x07\x80", 4), {-3, 0, 7, -128}}}) {
    SCOPED_TRACE(descr);
    write_raw_npz(dir_ / "bytes.npz", "m", bytes, descr, 4);
    const auto arrays = host::read_npz(dir_ / "bytes.npz");
    EXPECT_EQ(arrays.at("m").shape, (std::vector<int64_t>{4}));
    EXPECT_EQ(arrays.at("m").data, want);
  }
}

TEST_F(RunCommand, MatchesTheReferenceAndReportsLatencyAndMemory) {
  const auto r = run("conv.onnx", "report.json", {"--check"});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  const json rep = report("report.json");
  EXPECT_TRUE(rep["check"]["match"].get<bool>()) << rep.dump(2);
  EXPECT_EQ(rep["latency_ms"]["runs"], 2);
  EXPECT_LE(rep["latency_ms"]["min"].get<double>(), rep["latency_ms"]["median"].get<double>());
  EXPECT_LE(rep["latency_ms"]["median"].get<double>(), rep["latency_ms"]["p90"].get<double>());
  EXPECT_GT(rep["memory"]["peak_rss_bytes"].get<int64_t>(), 0);
  // Conv, Relu and Add fuse into one kernel; an empty bank leaves it at its default.
  ASSERT_EQ(rep["kernels"].size(), 1u) << rep.dump(2);
  EXPECT_EQ(rep["kernels"][0]["name"], "Conv_0+Relu_1+Add_2");
  EXPECT_EQ(rep["kernels"][0]["config_source"], "default");
  EXPECT_EQ(rep["tuned_kernel_count"], 0);
  EXPECT_EQ(rep["bank"]["miss"], 1);
  EXPECT_NE(r.out.find("latency over 2 runs: min"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("peak memory"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("outputs match the reference"), std::string::npos) << r.out;
}

// Each kernel's FMA work, two flops a multiply-add, and the run's total:
// the lower bound model_runtime_bench divides by the machine's FMA peak.
// Attention's products are batched MatMuls of heads.
TEST_F(RunCommand, ReportsTheFmaWorkOfItsConvsAndProducts) {
  write_matmul_model(dir_ / "matmul.onnx");
  write_transposed_conv_model(dir_ / "up.onnx");
  write_attention_model(dir_ / "attention.onnx", 6, 5);
  for (const auto& [model, flops] : std::vector<std::pair<std::string, double>>{
           {"conv.onnx", 2.0 * (4 * 8 * 8) * (3 * 3 * 3)},  // each output element: Cin x 3 x 3
           {"matmul.onnx", 2.0 * (4 * 6) * 8},               // each output element: K = 8
           {"up.onnx", 2.0 * (4 * 5 * 5) * (3 * 3 * 3)},     // each input element: Cout / group x 3 x 3
           {"attention.onnx", 2.0 * (2 * 6 * 5) * (4 + 4)}}) {  // per head: the scores (D = 4), the context (Dv = 4)
    SCOPED_TRACE(model);
    const auto r = run(model, model + ".json");
    ASSERT_EQ(r.exit_code, 0) << details(r);
    const json rep = report(model + ".json");
    double kernels = 0;
    for (const auto& k : rep["kernels"]) kernels += k.value("gflop", 0.0);
    EXPECT_NEAR(rep["gflop"].get<double>(), flops / 1e9, 1e-15) << rep["kernels"].dump(2);
    EXPECT_NEAR(kernels, flops / 1e9, 1e-15) << rep["kernels"].dump(2);
  }
}

// A bilinear Resize as ONNX Runtime 1.30's CPU Resize gives it, bit for
// bit: each element's four neighbours summed in float32 in its order (the
// values recorded from it); summed along a row first, six would differ by
// a float, which a DynamicQuantizeLinear after it can make a whole step.
TEST_F(RunCommand, BilinearResizeGivesOnnxRuntimesValues) {
  write_bilinear_model(dir_ / "bilinear.onnx");
  const auto r = run_fed("bilinear.onnx", "bilinear.json",
                         {{"x", host::FloatArray{{1, 1, 2, 3}, {1.289f, -0.772f, -1.098f, 0.878f, 0.989f, -0.333f}}}});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  const std::vector<float> ort = {
      1.28900003f,  0.773750007f, -0.256749988f, -0.853500009f, -1.01650000f,    -1.09800005f,
      1.18624997f,  0.806750000f, 0.0477500111f, -0.475500047f, -0.762999952f,   -0.906750083f,
      0.980750024f, 0.872750044f, 0.656750023f,  0.280499995f,  -0.255999982f,   -0.524250031f,
      0.878000021f, 0.905749977f, 0.961250007f,  0.658499956f,  -0.00249999762f, -0.333000004f};
  EXPECT_EQ(outputs().at("y").data, ort);
}

// Each kernel's time and the conversions' are measured inside the timed
// runs: together they take no more than a run does on average.
TEST_F(RunCommand, ReportsWhereTheTimeGoes) {
  write_data_move_model(dir_ / "moves.onnx");
  const auto r = run("moves.onnx", "report.json");
  ASSERT_EQ(r.exit_code, 0) << details(r);
  const json rep = report("report.json");
  ASSERT_GT(rep["kernels"].size(), 1u) << rep.dump(2);
  double steps = rep["conversions"]["ms"].get<double>();
  for (const auto& k : rep["kernels"]) {
    ASSERT_TRUE(k.contains("ms")) << k.dump(2);
    EXPECT_GT(k["ms"].get<double>(), 0.0) << k.dump(2);
    steps += k["ms"].get<double>();
  }
  EXPECT_LE(steps, rep["latency_ms"]["mean"].get<double>() * (1 + 1e-9)) << rep.dump(2);
  EXPECT_NE(r.out.find("time by kernel, mean per run (the costliest"), std::string::npos) << r.out;
}

TEST_F(RunCommand, ReadsInputsAndWritesOutputsAsNpz) {
  // relu.onnx's output is named as conv.onnx's input: its .npz feeds the next run.
  ASSERT_EQ(run("relu.onnx", "relu.json", {"--outputs", (dir_ / "x.npz").string()}).exit_code, 0);
  const auto first = run("conv.onnx", "a.json", {"--inputs", (dir_ / "x.npz").string(), "--outputs",
                                                 (dir_ / "y1.npz").string(), "--check"});
  ASSERT_EQ(first.exit_code, 0) << details(first);
  EXPECT_TRUE(report("a.json")["check"]["match"].get<bool>());
  const auto again = run("conv.onnx", "b.json", {"--inputs", (dir_ / "x.npz").string(), "--outputs",
                                                 (dir_ / "y2.npz").string()});
  ASSERT_EQ(again.exit_code, 0) << details(again);
  EXPECT_EQ(read_text(dir_ / "y1.npz"), read_text(dir_ / "y2.npz"));
  EXPECT_GT(fs::file_size(dir_ / "y1.npz"), 4u * 4 * 8 * 8);
  // Other inputs give other outputs: the file is read, not ignored.
  const auto random = run("conv.onnx", "c.json", {"--outputs", (dir_ / "y3.npz").string()});
  ASSERT_EQ(random.exit_code, 0) << details(random);
  EXPECT_NE(read_text(dir_ / "y1.npz"), read_text(dir_ / "y3.npz"));
}

// The model's own weights reach the kernels, inline or kept as external data;
// before, they were drawn from --seed and y held random values.
TEST_F(RunCommand, RunsWithTheModelsOwnWeights) {
  for (const bool external : {false, true}) {
    const std::string name = external ? "external.onnx" : "inline.onnx";
    write_weights_model(dir_ / name, external);
    const auto out = dir_ / (name + ".npz");
    const auto r = run(name, name + ".json", {"--outputs", out.string(), "--check"});
    ASSERT_EQ(r.exit_code, 0) << details(r);
    const auto y = host::read_npz(out).at("y").data;
    EXPECT_EQ(y, (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8})) << name;
    EXPECT_EQ(report(name + ".json")["weights"]["from_model"], 2) << name;
    EXPECT_EQ(report(name + ".json")["weights"]["drawn_from_seed"], 0) << name;
    EXPECT_NE(r.out.find("weights: 2 from the model, 0 drawn from --seed"), std::string::npos) << r.out;
  }
  // Tuning needs only dims, running needs the values: a missing data file is an error naming it.
  fs::remove(dir_ / "external.weights");
  const auto r = run("external.onnx", "missing.json");
  EXPECT_EQ(r.exit_code, 4) << details(r);
  EXPECT_NE(r.err.find("initializer 'W'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("external.weights"), std::string::npos) << r.err;
}

// A weight every kernel copied at bind is freed by the host once the device
// says so; the run gives what a checked run, which frees none, gives. The
// ConvTranspose reads the Relu's output on every run, not once at bind.
TEST_F(RunCommand, FreesTheWeightsTheKernelsCopied) {
  write_upsample_model(dir_ / "up.onnx");
  const auto checked = run("up.onnx", "checked.json", {"--check", "--outputs", (dir_ / "checked.npz").string()});
  ASSERT_EQ(checked.exit_code, 0) << details(checked);
  EXPECT_TRUE(report("checked.json")["check"]["match"].get<bool>()) << report("checked.json").dump(2);
  EXPECT_EQ(report("checked.json")["weights"]["released_after_binding"], 0);
  const auto r = run("up.onnx", "freed.json", {"--outputs", (dir_ / "freed.npz").string()});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  // The kernel (col2im) keeps its own copies of W, reordered, and of B.
  EXPECT_EQ(report("freed.json")["weights"]["released_after_binding"], 2) << report("freed.json").dump(2);
  EXPECT_EQ(read_text(dir_ / "checked.npz"), read_text(dir_ / "freed.npz"));
}

// A Caffe model runs with its caffemodel's values, the BatchNorm's running
// sums divided by their factor; without --weight they are drawn.
TEST_F(RunCommand, RunsACaffeModelWithItsCaffemodel) {
  const fs::path models = AOE_MODELS_DIR;
  const std::vector<std::string> caffe = {"--framework", "0", "--model", (models / "conv_block.prototxt").string()};
  std::vector<std::string> args = {"run", "--device", "cpu", "--threads", "1", "--iterations", "1", "--check",
                                   "--run_report", (dir_ / "caffe.json").string()};
  args.insert(args.end(), caffe.begin(), caffe.end());
  auto with_weights = args;
  with_weights.insert(with_weights.end(), {"--weight", (models / "conv_block.caffemodel").string()});
  const auto r = aoe_host(with_weights);
  ASSERT_EQ(r.exit_code, 0) << details(r);
  const json rep = report("caffe.json");
  EXPECT_TRUE(rep["check"]["match"].get<bool>()) << rep["check"].dump();
  // conv1's weight; bn1's mean and variance; its Scale's scale and bias; conv2's weight and bias.
  EXPECT_EQ(rep["weights"]["from_model"], 7) << rep["weights"].dump();
  EXPECT_EQ(rep["weights"]["drawn_from_seed"], 0) << rep["weights"].dump();
  const auto shapes_only = aoe_host(args);
  ASSERT_EQ(shapes_only.exit_code, 0) << details(shapes_only);
  EXPECT_EQ(report("caffe.json")["weights"]["from_model"], 0);
  EXPECT_EQ(report("caffe.json")["weights"]["drawn_from_seed"], 7);
}

// Caffe's elementwise, cutting and tiling layers, as deploy prototxts of the
// model zoo hold them (V2 layers; Clip and Swish of Caffe's last release; an
// SE block's Scale by its gate, and SENet's Axpy), each output its definition's value.
TEST_F(RunCommand, RunsCaffesElementwiseCuttingAndTilingLayers) {
  std::ofstream(dir_ / "layers.prototxt") << R"(
layer { name: "in" type: "Input" top: "x" input_param { shape { dim: 1 dim: 4 dim: 3 dim: 4 } } }
layer { name: "elu" type: "ELU" bottom: "x" top: "e" elu_param { alpha: 0.5 } }
layer { name: "clip" type: "Clip" bottom: "x" top: "cl" clip_param { min: -0.5 max: 0.75 } }
layer { name: "swish" type: "Swish" bottom: "x" top: "sw" swish_param { beta: 2 } }
layer { name: "gate" type: "Pooling" bottom: "x" top: "g" pooling_param { pool: AVE global_pooling: true } }
layer { name: "gate_rows" type: "Flatten" bottom: "g" top: "gr" }
layer { name: "se" type: "Scale" bottom: "x" bottom: "gr" top: "se" scale_param { axis: 0 } }
layer { name: "axpy" type: "Axpy" bottom: "g" bottom: "x" bottom: "x" top: "ax" }
layer { name: "pow" type: "Power" bottom: "x" top: "p" power_param { power: 2 scale: 0.5 shift: 1 } }
layer { name: "exp" type: "Exp" bottom: "x" top: "ex" exp_param { base: 2 } }
layer { name: "log" type: "Log" bottom: "p" top: "lg" log_param { base: 10 } }
layer { name: "bnll" type: "BNLL" bottom: "x" top: "b" }
layer { name: "th" type: "Threshold" bottom: "x" top: "th" threshold_param { threshold: 0.25 } }
layer { name: "slice" type: "Slice" bottom: "x" top: "s1" top: "s2" slice_param { axis: 1 slice_point: 1 } }
layer { name: "pool" type: "Pooling" bottom: "x" top: "small" pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "crop" type: "Crop" bottom: "x" bottom: "small" top: "c" crop_param { axis: 2 offset: 1 } }
layer { name: "tile" type: "Tile" bottom: "s1" top: "t" tile_param { axis: 1 tiles: 3 } }
layer { name: "diff" type: "Eltwise" bottom: "s2" bottom: "t" top: "d" eltwise_param { operation: SUM coeff: 1 coeff: -1 } }
)";
  std::vector<float> x(48);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.125f * static_cast<float>(static_cast<int>(i * 5 % 23) - 11);
  host::write_npz(dir_ / "in.npz", {{"x", host::FloatArray{{1, 4, 3, 4}, x}}});
  const auto r = aoe_host({"run", "--device", "cpu", "--framework", "0", "--model", (dir_ / "layers.prototxt").string(),
                           "--threads", "1", "--iterations", "1", "--check", "--inputs", (dir_ / "in.npz").string(),
                           "--outputs", (dir_ / "out.npz").string(), "--run_report", (dir_ / "layers.json").string()});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  EXPECT_TRUE(report("layers.json")["check"]["match"].get<bool>()) << report("layers.json")["check"].dump();
  const auto out = outputs();
  const auto at = [&](int c, int h, int w) { return static_cast<double>(x[static_cast<size_t>((c * 3 + h) * 4 + w)]); };
  const auto mean = [&](int c) {
    double sum = 0;
    for (int i = 0; i < 12; ++i) sum += x[static_cast<size_t>(c * 12 + i)];
    return sum / 12;
  };
  for (int c = 0; c < 4; ++c)
    for (int h = 0; h < 3; ++h)
      for (int w = 0; w < 4; ++w) {
        const size_t i = static_cast<size_t>((c * 3 + h) * 4 + w);
        const double v = at(c, h, w), p = std::pow(1 + 0.5 * v, 2);
        EXPECT_NEAR(out.at("e").data[i], v > 0 ? v : 0.5 * (std::exp(v) - 1), 1e-5) << i;
        EXPECT_EQ(out.at("cl").data[i], static_cast<float>(std::min(std::max(v, -0.5), 0.75))) << i;
        EXPECT_NEAR(out.at("sw").data[i], v / (1 + std::exp(-2 * v)), 1e-5) << i;
        EXPECT_NEAR(out.at("se").data[i], v * mean(c), 1e-6) << i;
        EXPECT_NEAR(out.at("ax").data[i], v * mean(c) + v, 1e-6) << i;
        EXPECT_NEAR(out.at("ex").data[i], std::pow(2.0, v), 1e-5) << i;
        EXPECT_NEAR(out.at("lg").data[i], std::log10(p), 1e-5) << i;
        EXPECT_NEAR(out.at("b").data[i], std::log1p(std::exp(v)), 1e-5) << i;
        EXPECT_EQ(out.at("th").data[i], v > 0.25 ? 1.0f : 0.0f) << i;
        if (c > 0) EXPECT_NEAR(out.at("d").data[i - 12], v - at(0, h, w), 1e-6) << i;
        if (h >= 1 && h < 3 && w >= 1 && w < 3)
          EXPECT_EQ(out.at("c").data[static_cast<size_t>((c * 2 + h - 1) * 2 + w - 1)], x[i]) << i;
      }
  EXPECT_EQ(out.at("c").shape, (std::vector<int64_t>{1, 4, 2, 2}));
  EXPECT_EQ(out.at("d").shape, (std::vector<int64_t>{1, 3, 3, 4}));
}

// Layers of Caffe's forks that published networks hold: ReLU6, ShuffleNet's
// ShuffleChannel, YOLO ports' nearest Upsample, PSPNet's corner-aligned Interp.
TEST_F(RunCommand, RunsTheLayersOfCaffesForks) {
  std::ofstream(dir_ / "forks.prototxt") << R"(
layer { name: "in" type: "Input" top: "x" input_param { shape { dim: 1 dim: 4 dim: 2 dim: 3 } } }
layer { name: "r6" type: "ReLU6" bottom: "x" top: "r6" }
layer { name: "shuffle" type: "ShuffleChannel" bottom: "x" top: "sh" shuffle_channel_param { group: 2 } }
layer { name: "up" type: "Upsample" bottom: "x" top: "up" upsample_param { scale: 2 } }
layer { name: "zoom" type: "Interp" bottom: "x" top: "zoom" interp_param { zoom_factor: 2 } }
layer { name: "sized" type: "Interp" bottom: "x" top: "sized" interp_param { height: 4 width: 2 } }
)";
  std::vector<float> x(24);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) * 0.75f - 3.0f;
  host::write_npz(dir_ / "in.npz", {{"x", host::FloatArray{{1, 4, 2, 3}, x}}});
  const auto r = aoe_host({"run", "--device", "cpu", "--framework", "0", "--model", (dir_ / "forks.prototxt").string(),
                           "--threads", "1", "--iterations", "1", "--check", "--inputs", (dir_ / "in.npz").string(),
                           "--outputs", (dir_ / "out.npz").string()});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  const auto out = outputs();
  const auto at = [&](int c, double h, double w) {  // bilinear within channel c's 2x3 map
    const int h0 = static_cast<int>(h), w0 = static_cast<int>(w), h1 = std::min(h0 + 1, 1), w1 = std::min(w0 + 1, 2);
    const auto v = [&](int a, int b) { return static_cast<double>(x[static_cast<size_t>((c * 2 + a) * 3 + b)]); };
    const double dh = h - h0, dw = w - w0;
    return (1 - dh) * ((1 - dw) * v(h0, w0) + dw * v(h0, w1)) + dh * ((1 - dw) * v(h1, w0) + dw * v(h1, w1));
  };
  for (int c = 0; c < 4; ++c)
    for (int h = 0; h < 2; ++h)
      for (int w = 0; w < 3; ++w) {
        const auto i = static_cast<size_t>((c * 2 + h) * 3 + w);
        EXPECT_EQ(out.at("r6").data[i], std::min(std::max(x[i], 0.0f), 6.0f)) << i;
        // Groups of 2 interleaved: channels 0, 2, 1, 3.
        EXPECT_EQ(out.at("sh").data[i], x[static_cast<size_t>((std::array<int, 4>{0, 2, 1, 3}[static_cast<size_t>(c)] * 2 + h) * 3 + w)]) << i;
      }
  ASSERT_EQ(out.at("up").shape, (std::vector<int64_t>{1, 4, 4, 6}));
  for (size_t i = 0; i < out.at("up").data.size(); ++i) {
    const size_t c = i / 24, h = i / 6 % 4, w = i % 6;
    EXPECT_EQ(out.at("up").data[i], x[(c * 2 + h / 2) * 3 + w / 2]) << i;
  }
  // Zoomed by 2: 2 + 1 rows, 3 + 2 columns; corners aligned, so row r of 3 samples at r / 2.
  ASSERT_EQ(out.at("zoom").shape, (std::vector<int64_t>{1, 4, 3, 5}));
  ASSERT_EQ(out.at("sized").shape, (std::vector<int64_t>{1, 4, 4, 2}));
  for (int c = 0; c < 4; ++c) {
    for (int h = 0; h < 3; ++h)
      for (int w = 0; w < 5; ++w)
        EXPECT_NEAR(out.at("zoom").data[static_cast<size_t>((c * 3 + h) * 5 + w)], at(c, h / 2.0, w / 2.0), 1e-5) << c << h << w;
    for (int h = 0; h < 4; ++h)
      for (int w = 0; w < 2; ++w)
        EXPECT_NEAR(out.at("sized").data[static_cast<size_t>((c * 4 + h) * 2 + w)], at(c, h / 3.0, w * 2.0), 1e-5) << c << h << w;
  }
}

TEST_F(RunCommand, AMismatchedInputShapeIsAnErrorNamingTheInput) {
  write_small_relu_model(dir_ / "small.onnx");
  ASSERT_EQ(run("small.onnx", "small.json", {"--outputs", (dir_ / "small.npz").string()}).exit_code, 0);
  const auto r = run("conv.onnx", "r.json", {"--inputs", (dir_ / "small.npz").string()});
  EXPECT_EQ(r.exit_code, 2) << details(r);
  EXPECT_NE(r.err.find("input 'x'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[1,2]"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[1,3,8,8]"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "r.json"));
}

// Slice, Pad and Gather whose values are the model's constants, through the
// real binary: the outputs are the ones worked out by hand and the reference's.
TEST_F(RunCommand, RunsSlicePadAndGatherWithTheModelsValues) {
  write_data_move_model(dir_ / "moves.onnx");
  std::vector<float> x(10);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  const auto r = run_fed("moves.onnx", "moves.json", {{"x", host::FloatArray{{2, 5}, x}}});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  EXPECT_TRUE(report("moves.json")["check"]["match"].get<bool>()) << report("moves.json").dump(2);
  EXPECT_EQ(report("moves.json")["kernel_count"], 4);
  const auto out = outputs();
  // Slice: [[4,2,0],[9,7,5]]; reflect pad: columns 1,0,1,2,1,0 of it; Gather: the rows swapped.
  EXPECT_EQ(out.at("y").data, (std::vector<float>{7, 9, 7, 5, 7, 9, 2, 4, 2, 0, 2, 4}));
  EXPECT_EQ(out.at("z").data, (std::vector<float>{0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

// Gather's indices as the model's integer input: given in an .npz (whole
// numbers, negative ones too) or drawn over the table's rows; one out of
// range fails the run naming the op and its position.
TEST_F(RunCommand, FeedsAnIntegerInputAsGatherIndices) {
  write_lookup_model(dir_ / "lookup.onnx");
  const auto r = run_fed("lookup.onnx", "lookup.json", {{"ids", host::FloatArray{{4}, {4, -1, 0, 2}}}});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  EXPECT_EQ(outputs().at("y").data, (std::vector<float>{12, 13, 14, 12, 13, 14, 0, 1, 2, 6, 7, 8}));
  write_int64_npz(dir_ / "ids64.npz", "ids", {4, -1, 0, 2});
  const auto ints = run("lookup.onnx", "ints.json", {"--inputs", (dir_ / "ids64.npz").string(), "--outputs",
                                                     (dir_ / "y64.npz").string()});
  ASSERT_EQ(ints.exit_code, 0) << details(ints);
  EXPECT_EQ(host::read_npz(dir_ / "y64.npz").at("y").data, outputs().at("y").data);
  const auto drawn = run("lookup.onnx", "drawn.json", {"--check"});
  ASSERT_EQ(drawn.exit_code, 0) << details(drawn);
  EXPECT_TRUE(report("drawn.json")["check"]["match"].get<bool>());
  host::write_npz(dir_ / "bad.npz", {{"ids", host::FloatArray{{4}, {0, 1, 5, 2}}}});
  const auto bad = run("lookup.onnx", "bad.json", {"--inputs", (dir_ / "bad.npz").string()});
  EXPECT_NE(bad.exit_code, 0) << details(bad);
  EXPECT_NE(bad.err.find("Gather 'Gather_0': index 5 at position 2 is out of range"), std::string::npos) << bad.err;
}

// Integer arithmetic on a shape and a fed int64 input, as the model runs:
// Shape, Add, Mul, a truncating Div, Mod with the divisor's sign and a bool
// comparison, each held as whole numbers, checked against the reference.
TEST_F(RunCommand, RunsInt64ShapeArithmetic) {
  write_shape_arithmetic_model(dir_ / "shapes.onnx");
  const auto r = run_fed("shapes.onnx", "shapes.json",
                         {{"x", host::FloatArray{{3, 4}, std::vector<float>(12, 1.0f)}},
                          {"n", host::FloatArray{{2}, {5, -9}}}});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  EXPECT_TRUE(report("shapes.json")["check"]["match"].get<bool>()) << report("shapes.json").dump(2);
  // m = ([3, 4] + [5, -9]) * [3, -2] = [24, 10]
  const auto out = outputs();
  EXPECT_EQ(out.at("q").data, (std::vector<float>{6, 2}));
  EXPECT_EQ(out.at("r").data, (std::vector<float>{0, 2}));
  EXPECT_EQ(out.at("big").data, (std::vector<float>{1, 0}));
  const auto drawn = run("shapes.onnx", "drawn.json", {"--check"});
  ASSERT_EQ(drawn.exit_code, 0) << details(drawn);
  EXPECT_TRUE(report("drawn.json")["check"]["match"].get<bool>()) << report("drawn.json").dump(2);
}

// A bool mask from comparisons and logic picks between two float tensors.
TEST_F(RunCommand, RunsWhereOnABoolMaskComputedAsTheModelRuns) {
  write_mask_where_model(dir_ / "mask.onnx");
  const auto r = run_fed("mask.onnx", "mask.json",
                         {{"x", host::FloatArray{{2, 3}, {1, -2, 3, 0.5f, 5, -6}}},
                          {"y", host::FloatArray{{2, 3}, {0, -3, 4, 0, 6, -7}}}});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  EXPECT_TRUE(report("mask.json")["check"]["match"].get<bool>()) << report("mask.json").dump(2);
  EXPECT_EQ(outputs().at("z").data, (std::vector<float>{1, -3, 4, 0.5f, 6, -7}));
}

// Float Constants, shape arithmetic, Identity, Dropout and an empty optional
// input, as exporters write them: normalised away, the outputs the reference's.
TEST_F(RunCommand, RunsAnExportersGraphNormalised) {
  write_exported_model(dir_ / "exported.onnx");
  const auto r = run("exported.onnx", "exported.json", {"--check"});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  const json rep = report("exported.json");
  EXPECT_TRUE(rep["check"]["match"].get<bool>()) << rep.dump(2);
  const json& done = rep["normalised"];
  EXPECT_EQ(done["constant_to_initializer"], 6) << done.dump();
  // Shape, Gather, Unsqueeze, Concat; Equal, Gather, Squeeze.
  EXPECT_EQ(done["fold_constants"], 7) << done.dump();
  EXPECT_EQ(done["inline_constant_if"], 1) << done.dump();
  EXPECT_EQ(done["variadic_to_binary"], 1) << done.dump();
  EXPECT_EQ(done["remove_identity"], 3) << done.dump();  // Identity, Dropout, a float-to-float Cast
  EXPECT_EQ(done["empty_optional_inputs"], 1) << done.dump();
  std::vector<std::string> ops;
  for (const auto& k : rep["kernels"]) ops.push_back(k["op_type"]);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "If"), 0) << rep["kernels"].dump(2);
  EXPECT_NE(r.out.find("graph normalised: constant_to_initializer 6, drop_unused "), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("normalised exported.onnx: 6 Constant nodes made initializers"), std::string::npos) << r.err;
  // The same model tunes on the simulator: every op a task or listed, none failing.
  const auto tuned = aoe_host({"--plugin", "opat", "--device", "ascend910", "--model", (dir_ / "exported.onnx").string(),
                               "--budget", "4"});
  EXPECT_EQ(tuned.exit_code, 0) << details(tuned);
}

// Nodes out of order and a Clip bound fed at run time, as converted exports
// have them: sorted, the Clip run as Max and Min, checked against the reference.
TEST_F(RunCommand, RunsAGraphOutOfOrderWithARunTimeClipBound) {
  write_converted_model(dir_ / "converted.onnx");
  const auto r = run("converted.onnx", "converted.json", {"--check"});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  const json rep = report("converted.json");
  EXPECT_TRUE(rep["check"]["match"].get<bool>()) << rep.dump(2);
  EXPECT_EQ(rep["normalised"]["topological_order"], 2) << rep["normalised"].dump();
  EXPECT_EQ(rep["normalised"]["clip_bounds_as_max_min"], 1) << rep["normalised"].dump();
}

// Dropout in training and the random ops draw by their seeds (an unseeded
// op's made from its name): a second run draws the same values, the check
// passes (its reference draws them too), and each output follows its law.
TEST_F(RunCommand, RunsRandomDrawsReproduciblyAndChecked) {
  write_random_draws_model(dir_ / "random.onnx");
  std::vector<float> x(256);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 3.0f * std::sin(0.37f * static_cast<float>(i)) + 0.01f;
  const auto first = run_fed("random.onnx", "random.json", {{"x", {{4, 64}, x}}});
  ASSERT_EQ(first.exit_code, 0) << details(first);
  EXPECT_TRUE(report("random.json")["check"]["match"].get<bool>()) << report("random.json").dump(2);
  const auto drawn = outputs();
  ASSERT_EQ(run_fed("random.onnx", "again.json", {{"x", {{4, 64}, x}}}).exit_code, 0);
  for (const auto& [name, array] : outputs()) EXPECT_EQ(array.data, drawn.at(name).data) << name;

  // Dropout: each kept element scaled by 1 / 0.75, the mask true where kept, about 3/4 kept.
  const auto& y = drawn.at("y").data;
  const auto& mask = drawn.at("mask").data;
  int kept = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_TRUE(mask[i] == 0.0f || mask[i] == 1.0f) << i;
    EXPECT_NEAR(y[i], mask[i] * x[i] / 0.75f, 1e-5f) << i;
    kept += mask[i] == 1.0f;
  }
  EXPECT_NEAR(kept, 192, 5 * std::sqrt(256 * 0.75 * 0.25));
  // Normal draws of mean 1 and scale 0.5; uniform ones in [-2, 2); Bernoulli 0 or 1; class indices below 64.
  const auto& n = drawn.at("n").data;
  EXPECT_NEAR(std::accumulate(n.begin(), n.end(), 0.0) / 256, 1.0, 5 * 0.5 / 16);
  for (const float u : drawn.at("u").data) EXPECT_TRUE(u >= -2.0f && u < 2.0f) << u;
  for (const float b : drawn.at("b").data) EXPECT_TRUE(b == 0.0f || b == 1.0f) << b;
  ASSERT_EQ(drawn.at("m").shape, (std::vector<int64_t>{4, 16}));
  for (const float m : drawn.at("m").data) EXPECT_TRUE(m >= 0 && m < 64 && m == std::floor(m)) << m;
  EXPECT_NE(drawn.at("u").data, drawn.at("n").data);
  // OPAT takes the model on the simulator and on the cpu device: its random ops tuned or listed, none
  // failing; the Dropout in training is a kernel, which the cpu device times.
  for (const char* device : {"ascend910", "cpu"}) {
    for (const auto& f : result_files()) fs::remove(f);
    const auto tuned = aoe_host({"--plugin", "opat", "--device", device, "--model", (dir_ / "random.onnx").string(),
                                 "--budget", "4"});
    EXPECT_EQ(tuned.exit_code, 0) << device << "\n" << details(tuned);
    EXPECT_NE(tuned.err.find("6 op tasks to tune"), std::string::npos) << tuned.err;
    if (std::string(device) == "cpu") EXPECT_NE(tuned.err.find("Dropout_0 (Dropout 4x64"), std::string::npos) << tuned.err;
    // The simulator times the draws as Philox's rounds, the Dropout in training too; Multinomial it lists.
    const json opat = only_result()["OPAT"];
    std::set<std::string> listed;
    for (const auto& op : opat["unsupported_operators"]) listed.insert(op["op_type"].get<std::string>());
    if (std::string(device) == "ascend910") EXPECT_EQ(listed, (std::set<std::string>{"Multinomial"})) << tuned.err;
    else EXPECT_TRUE(listed.empty()) << tuned.err;
  }
}

// Models of opsets 18 to 21 at IR version 10, as PyTorch's dynamo exporter and
// newer ONNX write them, run as their opset-17 forms: each output equals the
// same value written at opset 17 from the ops' definitions, on the same inputs.
TEST_F(RunCommand, ModelsOfOpsets18To21RunAsTheirOpset17Twins) {
  for (const int opset : {18, 19, 20, 21}) {
    SCOPED_TRACE("opset " + std::to_string(opset));
    const std::string newer = "newer" + std::to_string(opset), twin = "twin" + std::to_string(opset);
    write_newer_opset_model(dir_ / (newer + ".onnx"), opset);
    write_newer_opset_twin(dir_ / (twin + ".onnx"), opset);
    std::vector<float> x(120);
    for (size_t i = 0; i < x.size(); ++i) x[i] = 0.05f * static_cast<float>(static_cast<int>(i * 7 % 31) - 15);
    const auto r = run_fed(newer + ".onnx", newer + ".json", {{"x", host::FloatArray{{1, 4, 6, 5}, x}}});
    ASSERT_EQ(r.exit_code, 0) << details(r);
    const json rep = report(newer + ".json");
    EXPECT_TRUE(rep["check"]["match"].get<bool>()) << rep.dump(2);
    // ReduceMean, ReduceMax, ReduceL2, Split, Mish, Resize, the Pad of listed axes, GroupNormalization; Cast; two Gelus.
    EXPECT_EQ(rep["normalised"]["read_as_opset_17"], opset >= 20 ? 11 : opset == 19 ? 9 : 8) << rep["normalised"].dump();
    const auto got = outputs();
    ASSERT_EQ(run_fed(twin + ".onnx", twin + ".json", {{"x", host::FloatArray{{1, 4, 6, 5}, x}}}).exit_code, 0);
    const auto want = outputs();
    ASSERT_EQ(got.size(), want.size());
    for (const auto& [name, array] : want) {
      ASSERT_TRUE(got.count(name)) << name;
      EXPECT_EQ(got.at(name).shape, array.shape) << name;
      ASSERT_EQ(got.at(name).data.size(), array.data.size()) << name;
      for (size_t i = 0; i < array.data.size(); ++i)
        ASSERT_NEAR(got.at(name).data[i], array.data[i], 1e-5 + 1e-5 * std::abs(array.data[i])) << name << "[" << i << "]";
    }
  }
}

// A model's own functions are inlined: each call its body, an attribute
// reference given the call's value or the function's default, a call within
// a function too; the outputs are the functions' formulas.
TEST_F(RunCommand, AModelsOwnFunctionsAreInlined) {
  write_function_model(dir_ / "functions.onnx");
  const std::vector<float> x = {-2.0f, -0.5f, 0.0f, 0.25f, 1.0f, 3.0f};
  const auto r = run_fed("functions.onnx", "functions.json", {{"x", host::FloatArray{{2, 3}, x}}});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  const json rep = report("functions.json");
  EXPECT_TRUE(rep["check"]["match"].get<bool>()) << rep.dump(2);
  EXPECT_EQ(rep["normalised"]["inline_functions"], 3) << rep["normalised"].dump();  // Swish, Outer, Swish within it
  const auto swish = [](double v, double beta) { return v / (1.0 + std::exp(-beta * v)); };
  const auto out = outputs();
  for (size_t i = 0; i < x.size(); ++i) {
    const double y1 = swish(x[i], 1.5);
    EXPECT_NEAR(out.at("y1").data[i], y1, 1e-6) << i;
    EXPECT_NEAR(out.at("y2").data[i], std::max(0.0, swish(y1, 1.0)), 1e-6) << i;
  }
}

// x * Sigmoid(x) after a Conv is one Swish, run in the convolution's epilogue
// (on the cpu device and the simulator alike) and checked.
TEST_F(RunCommand, ASiluAfterAConvRunsInItsEpilogue) {
  write_conv_silu_model(dir_ / "silu.onnx");
  const auto r = run("silu.onnx", "silu.json", {"--check"});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  const json rep = report("silu.json");
  EXPECT_TRUE(rep["check"]["match"].get<bool>()) << rep.dump(2);
  ASSERT_EQ(rep["kernels"].size(), 1u) << rep["kernels"].dump(2);
  EXPECT_EQ(rep["kernels"][0]["name"], "Conv_0+Sigmoid_1+Mul_2");
  const auto tuned = aoe_host({"--plugin", "opat", "--device", "ascend910", "--model", (dir_ / "silu.onnx").string(),
                               "--budget", "4"});
  ASSERT_EQ(tuned.exit_code, 0) << details(tuned);
  const json opat = only_result_file()[1]["OPAT"];
  ASSERT_EQ(opat["opat_tuned_operators"].size(), 1u) << opat.dump(2);
  EXPECT_EQ(opat["opat_tuned_operators"][0]["op_name"], "Conv_0+Sigmoid_1+Mul_2") << opat.dump(2);
}

// A 3-D convolution runs, checked, its Relu fused; OPAT tunes it on the cpu
// device and on the simulator.
TEST_F(RunCommand, RunsAndTunesAThreeDimensionalConv) {
  write_conv3d_model(dir_ / "conv3d.onnx");
  const auto r = run("conv3d.onnx", "conv3d.json", {"--check"});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  const json rep = report("conv3d.json");
  EXPECT_TRUE(rep["check"]["match"].get<bool>()) << rep.dump(2);
  ASSERT_EQ(rep["kernels"].size(), 1u) << rep["kernels"].dump(2);
  EXPECT_EQ(rep["kernels"][0]["name"], "Conv_0+Relu_1");
  const auto tuned = aoe_host({"--plugin", "opat", "--device", "cpu", "--model", (dir_ / "conv3d.onnx").string(),
                               "--budget", "4"});
  ASSERT_EQ(tuned.exit_code, 0) << details(tuned);
  const json result = only_result_file();
  EXPECT_EQ(result[1]["OPAT"]["unsupported_operators"].size(), 0u) << result.dump(2);
  EXPECT_EQ(result[1]["OPAT"]["opat_tuning_result"], "tuning successful") << result.dump(2);
  // On the simulator, as CANN's Conv3D: timed and tuned too.
  const auto simulated = aoe_host({"--plugin", "opat", "--device", "ascend910", "--model",
                                   (dir_ / "conv3d.onnx").string(), "--budget", "4", "--work_path", (dir_ / "sim").string()});
  ASSERT_EQ(simulated.exit_code, 0) << details(simulated);
  int results = 0;
  for (const auto& file : fs::directory_iterator(dir_ / "sim")) {
    if (file.path().extension() != ".json") continue;
    ++results;
    const json opat = read_json(file.path())[1]["OPAT"];
    EXPECT_EQ(opat["unsupported_operators"].size(), 0u) << opat.dump(2);
    ASSERT_EQ(opat["opat_tuned_operators"].size(), 1u) << opat.dump(2);
    EXPECT_GT(opat["opat_tuned_operators"][0]["performance_after_tune(us)"].get<double>(), 0.0);
  }
  EXPECT_EQ(results, 1);
}

// What no opset-17 form computes the same is refused naming the node; an
// opset past the newest read, and float8 tensors, naming what to do.
TEST_F(RunCommand, NewerOpsetNodesWithoutAnOpset17FormAreRefusedByName) {
  write_newer_opset_model(dir_ / "newer.onnx", 18);
  onnx::ModelProto model;
  {
    std::ifstream in(dir_ / "newer.onnx", std::ios::binary);
    ASSERT_TRUE(model.ParseFromIstream(&in));
  }
  const auto save_as = [&](const onnx::ModelProto& m, const std::string& name) {
    std::ofstream out(dir_ / name, std::ios::binary);
    m.SerializeToOstream(&out);
  };
  auto antialias = model;
  for (auto& node : *antialias.mutable_graph()->mutable_node())
    for (auto& a : *node.mutable_attribute())
      if (a.name() == "antialias") a.set_i(1);
  save_as(antialias, "antialias.onnx");
  auto bitwise = model;
  auto* node = bitwise.mutable_graph()->add_node();
  node->set_name("bits"), node->set_op_type("BitwiseNot"), node->add_input("x"), node->add_output("b");
  save_as(bitwise, "bitwise.onnx");
  auto newest = model;
  newest.mutable_opset_import(0)->set_version(23);
  save_as(newest, "opset23.onnx");
  auto float8 = model;
  float8.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(17);
  save_as(float8, "float8.onnx");
  for (const auto& [file, says] : std::vector<std::pair<std::string, std::string>>{
           {"antialias.onnx", "node 'Resize_6' (Resize, opset 18) resizes with antialias"},
           {"bitwise.onnx", "node 'bits' (BitwiseNot, opset 18) is not in opset 17"},
           {"opset23.onnx", "uses unknown opset 23 of the default ONNX domain; supported opsets are 1..21"},
           {"float8.onnx", "tensor 'x' has element type 17 (float8, int4 or float4)"}}) {
    const auto r = run(file, file + ".json");
    EXPECT_NE(r.exit_code, 0) << file;
    EXPECT_NE((r.out + r.err).find(says), std::string::npos) << file << ": " << details(r);
  }
}

// Before opset 13 a Softmax without an axis normalises each batch's values
// together; a LogSoftmax along the last axis is the same in either opset.
TEST_F(RunCommand, AnOpset11SoftmaxNormalisesWhatItsOpsetSays) {
  write_opset11_softmax_model(dir_ / "softmax11.onnx");
  std::vector<float> x(24);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.1f * static_cast<float>(i % 7);
  const auto r = run_fed("softmax11.onnx", "softmax11.json", {{"x", host::FloatArray{{2, 3, 4}, x}}});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  EXPECT_EQ(report("softmax11.json")["normalised"]["softmax_along_an_axis"], 2);
  const auto out = outputs();
  for (size_t b = 0; b < 2; ++b) {
    double sum = 0;
    for (size_t i = 0; i < 12; ++i) sum += out.at("y").data[b * 12 + i];
    EXPECT_NEAR(sum, 1.0, 1e-5) << "batch " << b;
  }
  for (size_t row = 0; row < 6; ++row) {
    double sum = 0;
    for (size_t i = 0; i < 4; ++i) sum += std::exp(out.at("z").data[row * 4 + i]);
    EXPECT_NEAR(sum, 1.0, 1e-5) << "row " << row;
  }
}

// Einsums that contract two operands run as the MatMuls they are (five of
// them), those of one operand as a ReduceSum and a Transpose (two; the
// diagonal stays an Einsum), each output what its equation gives, worked
// out here term by term.
TEST_F(RunCommand, EinsumsRunAsTheMatMulsSumsAndTransposesTheyAre) {
  write_einsum_model(dir_ / "einsum.onnx");
  const auto values = [](size_t n, float scale) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>(static_cast<int>(i % 11) - 5);
    return v;
  };
  const auto q = values(24, 0.1f), k = values(40, 0.07f), u = values(3, 0.5f), t = values(5, 0.3f), e = values(12, 0.2f),
             f = values(12, 0.15f), d = values(9, 1.0f);
  const auto r = run_fed("einsum.onnx", "einsum.json",
                         {{"q", {{2, 3, 4}, q}}, {"k", {{2, 5, 4}, k}}, {"u", {{3}, u}}, {"t", {{5}, t}},
                          {"e", {{3, 4}, e}}, {"f", {{3, 4}, f}}, {"d", {{3, 3}, d}}});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  EXPECT_EQ(report("einsum.json")["normalised"]["einsum_as_matmul"], 5);
  EXPECT_EQ(report("einsum.json")["normalised"]["einsum_of_one_operand"], 2);
  std::vector<float> w(24), w2(8);  // as write_einsum_model makes them
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.1f * static_cast<float>(i % 7) - 0.3f;
  for (size_t i = 0; i < w2.size(); ++i) w2[i] = 0.25f * static_cast<float>(i) - 1.0f;
  std::map<std::string, std::vector<double>> want;
  for (size_t b = 0; b < 2; ++b)
    for (size_t i = 0; i < 3; ++i)
      for (size_t n = 0; n < 5; ++n) {
        double sum = 0;
        for (size_t j = 0; j < 4; ++j) sum += q[b * 12 + i * 4 + j] * k[b * 20 + n * 4 + j];
        want["s"].push_back(sum);
      }
  for (size_t b = 0; b < 2; ++b)
    for (size_t h = 0; h < 2; ++h)
      for (size_t i = 0; i < 3; ++i)
        for (size_t n = 0; n < 3; ++n) {
          double sum = 0;
          for (size_t j = 0; j < 4; ++j) sum += q[b * 12 + i * 4 + j] * w[j * 6 + h * 3 + n];
          want["p"].push_back(sum);
        }
  for (size_t i = 0; i < 3; ++i)
    for (size_t j = 0; j < 5; ++j) want["o"].push_back(u[i] * t[j]);
  for (size_t b = 0; b < 2; ++b)
    for (size_t i = 0; i < 3; ++i)
      for (size_t n = 0; n < 2; ++n) {
        double sum = 0;
        for (size_t j = 0; j < 4; ++j) sum += q[b * 12 + i * 4 + j] * w2[j * 2 + n];
        want["c"].push_back(sum);
      }
  for (size_t i = 0; i < 3; ++i) {
    double sum = 0;
    for (size_t j = 0; j < 4; ++j) sum += e[i * 4 + j] * f[i * 4 + j];
    want["r"].push_back(sum);
    want["g"].push_back(d[i * 3 + i]);
    double row = 0;
    for (size_t j = 0; j < 4; ++j) row += e[i * 4 + j];
    want["m"].push_back(row);
  }
  for (size_t j = 0; j < 4; ++j)
    for (size_t i = 0; i < 3; ++i) want["tr"].push_back(e[i * 4 + j]);
  const std::map<std::string, std::vector<int64_t>> shapes = {{"s", {2, 3, 5}}, {"p", {2, 2, 3, 3}}, {"o", {3, 5}},
                                                              {"c", {2, 3, 2}}, {"r", {3}},          {"g", {3}},
                                                              {"m", {3}},       {"tr", {4, 3}}};
  const auto out = outputs();
  for (const auto& [name, values_wanted] : want) {
    SCOPED_TRACE(name);
    const auto& got = out.at(name);
    EXPECT_EQ(got.shape, shapes.at(name));
    ASSERT_EQ(got.data.size(), values_wanted.size());
    for (size_t i = 0; i < got.data.size(); ++i) EXPECT_NEAR(got.data[i], values_wanted[i], 1e-5) << i;
  }
}

// Sequence ops over sequences whose elements are known run as the tensor ops
// they amount to: each output against what the sequence holds.
TEST_F(RunCommand, SequencesOfKnownElementsRunAsTensors) {
  write_sequences_model(dir_ / "sequences.onnx");
  std::vector<float> x(24), y(8);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) - 7.5f;
  for (size_t i = 0; i < y.size(); ++i) y[i] = 100.0f + static_cast<float>(i);
  const auto r = run_fed("sequences.onnx", "sequences.json", {{"x", {{6, 4}, x}}, {"y", {{2, 4}, y}}});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  // Five readers rewritten, the five sequences they read gone.
  EXPECT_EQ(report("sequences.json")["normalised"]["sequences_as_tensors"], 10);
  std::map<std::string, std::vector<float>> want;
  want["a"] = y;
  want["n"] = {3};
  want["c"] = std::vector<float>(x.begin(), x.begin() + 4);
  want["c"].insert(want["c"].end(), y.begin(), y.end());
  want["c"].insert(want["c"].end(), x.begin() + 4, x.begin() + 12);
  for (size_t col = 0; col < 4; ++col)
    for (size_t row = 0; row < 2; ++row) want["st"].push_back(y[row * 4 + col]);
  for (size_t row = 0; row < 6; ++row)
    for (int copy = 0; copy < 2; ++copy) want["cc"].insert(want["cc"].end(), x.begin() + row * 4, x.begin() + row * 4 + 4);
  const std::map<std::string, std::vector<int64_t>> shapes = {
      {"a", {2, 4}}, {"n", {}}, {"c", {5, 4}}, {"st", {4, 2}}, {"cc", {6, 8}}};
  const auto out = outputs();
  for (const auto& [name, values] : want) {
    SCOPED_TRACE(name);
    EXPECT_EQ(out.at(name).shape, shapes.at(name));
    EXPECT_EQ(out.at(name).data, values);
  }
}

// A model whose output is a list, not a tensor, is refused by name, saying how to re-export it.
TEST_F(RunCommand, AnOutputThatIsAListIsRefusedByName) {
  write_list_output_model(dir_ / "list.onnx");
  const auto r = run("list.onnx", "list.json");
  EXPECT_EQ(r.exit_code, 4) << details(r);
  for (const std::string part : {"output 'list' of list.onnx", "a sequence", "torch.stack"})
    EXPECT_NE(r.err.find(part), std::string::npos) << r.err;
}

// An optional input is fed as the tensor it holds: the branch that reads it runs.
TEST_F(RunCommand, AnOptionalInputIsFedAsItsTensor) {
  write_optional_input_model(dir_ / "optional.onnx");
  const std::vector<float> x = {1, -2, 3, -4, 5, 6}, scale = {2, 2, -1, -1, 0.5f, 3};
  const auto r = run_fed("optional.onnx", "optional.json", {{"x", {{2, 3}, x}}, {"scale", {{2, 3}, scale}}});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  EXPECT_EQ(report("optional.json")["normalised"]["optional_inputs_as_tensors"], 1);
  std::vector<float> want;
  for (size_t i = 0; i < x.size(); ++i) want.push_back(std::max(0.0f, x[i] * scale[i]));
  EXPECT_EQ(outputs().at("y").data, want);
}

// A Loop whose trip count is fed, appending to sequences: they become scan
// outputs, the ConcatFromSequence after it a Reshape and a Transpose of them.
TEST_F(RunCommand, ALoopAppendingToAListRunsForTheTripsFed) {
  write_appending_loop_model(dir_ / "appending.onnx");
  const std::vector<float> x = {1, -2, 3, 0.5f, 4, -6};  // as write_appending_loop_model makes it
  for (const int64_t n : {3, 5}) {
    SCOPED_TRACE(n);
    write_int64_npz(dir_ / "n.npz", "n", {n}, true);
    const auto r = run("appending.onnx", "appending.json",
                       {"--inputs", (dir_ / "n.npz").string(), "--outputs", (dir_ / "out.npz").string(), "--check"});
    ASSERT_EQ(r.exit_code, 0) << details(r);
    EXPECT_EQ(report("appending.json")["normalised"]["loop_appends_as_scans"], 2);
    std::vector<float> cat, stack;
    for (int64_t i = 0; i < n; ++i)
      for (const float v : x) cat.push_back(v * static_cast<float>(i));
    for (size_t row = 0; row < 2; ++row)
      for (int64_t i = 0; i < n; ++i)
        for (size_t col = 0; col < 3; ++col) stack.push_back(x[row * 3 + col] + static_cast<float>(i));
    const auto out = outputs();
    EXPECT_EQ(out.at("cat").shape, (std::vector<int64_t>{2 * n, 3}));
    EXPECT_EQ(out.at("cat").data, cat);
    EXPECT_EQ(out.at("stack").shape, (std::vector<int64_t>{2, n, 3}));
    EXPECT_EQ(out.at("stack").data, stack);
  }
}

// A decoder's first step: its past fed empty (--input_shape with a 0 dim),
// run and tuned on the simulator.
TEST_F(RunCommand, AnInputMayBeEmpty) {
  write_past_concat_model(dir_ / "past.onnx");
  const std::vector<float> x = {1, -2, 3, -4, 5, -6, 7, -8, 9, -10, 11, -12};
  host::write_npz(dir_ / "in.npz", {{"past", host::FloatArray{{1, 0, 4}, {}}}, {"x", host::FloatArray{{1, 3, 4}, x}}});
  const auto r = run("past.onnx", "past.json",
                     {"--input_shape", "past:1,0,4", "--inputs", (dir_ / "in.npz").string(), "--outputs",
                      (dir_ / "out.npz").string(), "--check"});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  const auto y = outputs().at("y");
  EXPECT_EQ(y.shape, (std::vector<int64_t>{1, 3, 4}));
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(y.data[i], std::max(x[i], 0.0f)) << i;
  const auto tuned = aoe_host({"--plugin", "opat", "--device", "ascend910", "--model", (dir_ / "past.onnx").string(),
                               "--input_shape", "past:1,0,4", "--budget", "2"});
  EXPECT_EQ(tuned.exit_code, 0) << details(tuned);
}

// bench/ort_compare on the bundled MLP, an exporter's graph and the Lp and RoI pools, its scratch
// folder given relative: aoe's side always; where onnxruntime-node is installed (AOE_ONNXRUNTIME_NODE), every
// output within allclose of ONNX Runtime's on the same inputs.
TEST_F(RunCommand, OrtCompareRunsAModelInBothRuntimes) {
  write_exported_model(dir_ / "exported.onnx");
  write_lp_and_roi_pools_model(dir_ / "pools.onnx");
  for (const fs::path model : {fs::path(AOE_MODELS_DIR) / "mlp.onnx", dir_ / "exported.onnx", dir_ / "pools.onnx"}) {
    // --work relative to where it is run, as a user types it
    const auto r = run_process({AOE_ORT_COMPARE, model.string(), "--iterations", "2", "--work",
                                "compare_" + model.stem().string()},
                               dir_);
    ASSERT_EQ(r.exit_code, 0) << details(r);
    EXPECT_NE(r.out.find("ort_compare: " + model.filename().string()), std::string::npos) << r.out;
    if (r.out.find("ONNX Runtime: skipped") != std::string::npos) {
      EXPECT_NE(r.out.find("aoe: "), std::string::npos) << r.out;
      EXPECT_TRUE(fs::exists(dir_ / ("compare_" + model.stem().string()) / "aoe_outputs.npz"));
      continue;
    }
    EXPECT_NE(r.out.find("aoe/ORT"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("outside"), std::string::npos) << r.out;
  }
}

// LpPool, GlobalLpPool, LpNormalization and MaxRoiPool run checked; OPAT
// takes the model on the simulator and on the cpu device, none failing.
TEST_F(RunCommand, RunsLpAndRoiPoolsChecked) {
  write_lp_and_roi_pools_model(dir_ / "pools.onnx");
  const auto r = run("pools.onnx", "pools.json", {"--check"});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  EXPECT_TRUE(report("pools.json")["check"]["match"].get<bool>()) << report("pools.json").dump(2);
  for (const char* device : {"ascend910", "cpu"}) {
    const auto tuned = aoe_host({"--plugin", "opat", "--device", device, "--model", (dir_ / "pools.onnx").string(),
                                 "--budget", "2"});
    EXPECT_EQ(tuned.exit_code, 0) << device << "\n" << details(tuned);
  }
}

// A Clip bounded on one side by an infinite constant (openWakeWord's mel
// spectrogram clamps with max = +inf) clamps on the other side alone; a Pad
// fills with -inf.
TEST_F(RunCommand, ClipAndPadTakeInfiniteConstants) {
  write_one_sided_clip_model(dir_ / "clamp.onnx");
  const auto r = run_fed("clamp.onnx", "clamp.json", {{"x", host::FloatArray{{4}, {-1, 0.25f, 2, 1e30f}}}});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  const auto out = outputs();
  EXPECT_EQ(out.at("y").data, (std::vector<float>{0.5f, 0.5f, 2, 1e30f}));
  EXPECT_EQ(out.at("z").data, (std::vector<float>{-1, 0.25f, 1, 1}));
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(out.at("p").data, (std::vector<float>{-inf, -1, 0.25f, 2, 1e30f, -inf}));
  EXPECT_TRUE(report("clamp.json")["check"]["match"].get<bool>()) << report("clamp.json").dump(2);
}

// ort_compare --inputs: the user's arrays feed both runtimes, an input the
// file lacks is drawn from the seed; sr picks the If's branch, so aoe's
// outputs say which value it was fed (and ONNX Runtime's, where installed,
// match them only when fed the same).
TEST_F(RunCommand, OrtCompareFeedsTheUsersInputs) {
  write_rate_if_model(dir_ / "rate.onnx");
  const auto compare = [&](const std::string& inputs, const std::string& work) {
    return run_process({AOE_ORT_COMPARE, (dir_ / "rate.onnx").string(), "--iterations", "1", "--inputs",
                        (dir_ / inputs).string(), "--work", (dir_ / work).string()},
                       dir_);
  };
  const auto ran_alike = [&](const ProcessResult& r) {
    ASSERT_EQ(r.exit_code, 0) << details(r);
    if (r.out.find("ONNX Runtime: skipped") == std::string::npos) EXPECT_EQ(r.out.find("outside"), std::string::npos) << r.out;
  };

  host::write_npz(dir_ / "both.npz", {{"sr", host::FloatArray{{}, {16000}}}, {"x", host::FloatArray{{3}, {1, -2, 3}}}});
  auto r = compare("both.npz", "both");
  ran_alike(r);
  EXPECT_NE(r.out.find("sr, x from both.npz, the rest from seed 1"), std::string::npos) << r.out;
  EXPECT_EQ(host::read_npz(dir_ / "both" / "aoe_outputs.npz").at("y").data, (std::vector<float>{2, -4, 6}));

  host::write_npz(dir_ / "sr.npz", {{"sr", host::FloatArray{{}, {8000}}}});
  r = compare("sr.npz", "sr");
  ran_alike(r);
  EXPECT_NE(r.out.find("sr from sr.npz, the rest from seed 1"), std::string::npos) << r.out;
  const auto fed = host::read_npz(dir_ / "sr" / "inputs.npz");
  EXPECT_EQ(fed.at("sr").data, std::vector<float>{8000});
  const auto& x = fed.at("x").data;
  ASSERT_EQ(x.size(), 3u);
  EXPECT_NE(x, (std::vector<float>{1, -2, 3}));
  EXPECT_EQ(host::read_npz(dir_ / "sr" / "aoe_outputs.npz").at("y").data, (std::vector<float>{-x[0], -x[1], -x[2]}));
}

TEST_F(RunCommand, OrtCompareRefusesInputsThatDoNotFitTheModel) {
  write_rate_if_model(dir_ / "rate.onnx");
  for (const auto& [arrays, error] : std::vector<std::pair<std::vector<std::pair<std::string, host::FloatArray>>, std::string>>{
           {{{"rate", {{}, {16000}}}}, "'rate' is no input of the model (its inputs: sr, x)"},
           {{{"x", {{4}, {1, 2, 3, 4}}}}, "'x' is [4], the model takes [3]"},
           {{{"sr", {{}, {0.5f}}}}, "'sr' is an int64 input, but holds 0.5"}}) {
    SCOPED_TRACE(error);
    host::write_npz(dir_ / "bad.npz", arrays);
    const auto r = run_process({AOE_ORT_COMPARE, (dir_ / "rate.onnx").string(), "--inputs", (dir_ / "bad.npz").string(),
                                "--work", (dir_ / "bad").string()},
                               dir_);
    EXPECT_EQ(r.exit_code, 2) << details(r);
    EXPECT_NE(r.err.find("bad.npz: " + error), std::string::npos) << r.err;
  }
}

// A Loop of a constant trip count and a Scan of a known length run as copies
// of their bodies: y = sum of (x + i) for i < 3, and running column sums
// taken from the last column on.
TEST_F(RunCommand, RunsALoopAndAScanUnrolled) {
  write_sum_loop_model(dir_ / "loop.onnx");
  host::write_npz(dir_ / "x.npz", {{"x", host::FloatArray{{2}, {1, 2}}}});
  auto r = run("loop.onnx", "loop.json", {"--inputs", (dir_ / "x.npz").string(), "--outputs", (dir_ / "y.npz").string()});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  EXPECT_EQ(report("loop.json")["normalised"]["unroll_constant_loop"], 1) << report("loop.json")["normalised"].dump();
  auto out = host::read_npz(dir_ / "y.npz");
  EXPECT_EQ(out.at("y").data, (std::vector<float>{6, 9}));
  EXPECT_EQ(out.at("ys").data, (std::vector<float>{1, 2, 3, 5, 6, 9}));

  write_column_scan_model(dir_ / "scan.onnx");
  host::write_npz(dir_ / "xs.npz", {{"xs", host::FloatArray{{2, 3}, {1, 2, 3, 4, 5, 6}}}});
  r = run("scan.onnx", "scan.json", {"--inputs", (dir_ / "xs.npz").string(), "--outputs", (dir_ / "sums.npz").string()});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  EXPECT_EQ(report("scan.json")["normalised"]["unroll_scan"], 1) << report("scan.json")["normalised"].dump();
  out = host::read_npz(dir_ / "sums.npz");
  EXPECT_EQ(out.at("s").data, (std::vector<float>{6, 15}));
  EXPECT_EQ(out.at("sums").data, (std::vector<float>{3, 5, 6, 6, 11, 15}));
}

// NonZero's output shape is known only as the model runs: the ops after it
// are planned once it ran, and the outputs and --check say what they computed.
TEST_F(RunCommand, RunsANonZeroFeedingLaterOps) {
  write_positive_positions_model(dir_ / "positions.onnx");
  const auto r = run_fed("positions.onnx", "positions.json", {{"x", host::FloatArray{{6}, {1, -2, 3, 0, 5, 6}}}});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  const auto out = outputs();
  EXPECT_EQ(out.at("y").data, (std::vector<float>{0 + 2 + 4 + 5}));
  EXPECT_EQ(out.at("count").data, (std::vector<float>{1, 4}));
  const json rep = report("positions.json");
  EXPECT_TRUE(rep["check"]["match"].get<bool>()) << rep.dump(2);
  EXPECT_EQ(rep["shapes_known_at_run"]["segment_plans"], 2) << rep.dump(2);
}

// Ops sized by values computed as the model runs (TopK's K, Range's and
// Slice's bounds, the shapes of ConstantOfShape, Expand, Reshape and Tile,
// Split's sizes, GatherND's indices) run once an earlier segment computed
// those values, planned with them; another count plans again, and a count
// of 0 gives empty tensors (whose kernels run nothing).
TEST_F(RunCommand, OpsSizedByRunTimeValuesRunOnceTheValuesAreComputed) {
  write_run_time_values_model(dir_ / "values.onnx");
  for (const auto& [x, v] : std::vector<std::pair<std::vector<float>, std::vector<float>>>{
           {{1, -1, 2, -2, 3, -3, 0.5, -4, 4, 0, -5, 6}, {1, 2, 3, 0.5, 4, 6}},
           {{-1, -1, 2, -2, -3, -3, 0, -4, 5, 0, -5, 0}, {2, 5}},
           {std::vector<float>(12, -1.0f), {}}}) {
    const auto r = run_fed("values.onnx", "values.json", {{"x", host::FloatArray{{2, 6}, x}}});
    ASSERT_EQ(r.exit_code, 0) << details(r);
    const json rep = report("values.json");
    EXPECT_TRUE(rep["check"]["match"].get<bool>()) << rep.dump(2);
    const auto out = outputs();
    const auto n = static_cast<int64_t>(v.size()), k = std::min<int64_t>(n, 3);
    std::vector<float> top = v;
    std::sort(top.rbegin(), top.rend());
    top.resize(static_cast<size_t>(k));
    EXPECT_EQ(out.at("top").data, top);
    std::vector<float> count(static_cast<size_t>(n));
    std::iota(count.begin(), count.end(), 0.0f);
    EXPECT_EQ(out.at("count").data, count);
    EXPECT_EQ(out.at("ones").data, std::vector<float>(static_cast<size_t>(n), 1.5f));
    EXPECT_EQ(out.at("expanded").data, std::vector<float>(static_cast<size_t>(n), 1.0f));
    EXPECT_EQ(out.at("sliced").data, std::vector<float>(v.begin() + std::min<int64_t>(n, 1), v.begin() + k));
    const int64_t twice = std::min<int64_t>(n, 2);
    EXPECT_EQ(out.at("tiled").shape, (std::vector<int64_t>{n, twice}));
    if (n > 0) EXPECT_EQ(out.at("tiled").data[static_cast<size_t>(twice * (n - 1))], v.back());
    EXPECT_EQ(out.at("head").data, std::vector<float>(v.begin(), v.begin() + std::min<int64_t>(n, 1)));
    EXPECT_EQ(out.at("tail").data, std::vector<float>(v.begin() + std::min<int64_t>(n, 1), v.end()));
  }
}

// An If whose condition is an input runs the branch it chooses, each with
// constants of its own (an initializer, a Constant) and the model's weight w.
TEST_F(RunCommand, RunsAnIfWhoseConditionIsFed) {
  write_run_time_if_model(dir_ / "if.onnx");
  for (const float cond : {1.0f, 0.0f}) {
    SCOPED_TRACE(cond);
    const auto r = run_fed("if.onnx", "if.json",
                           {{"cond", host::FloatArray{{1}, {cond}}}, {"x", host::FloatArray{{3}, {1, 2, 3}}}});
    ASSERT_EQ(r.exit_code, 0) << details(r);
    const auto y = outputs().at("y").data;
    EXPECT_EQ(y, (cond ? std::vector<float>{3, 0, 8} : std::vector<float>{9, 8, 7}));
    const json rep = report("if.json");
    EXPECT_TRUE(rep["check"]["match"].get<bool>()) << rep.dump(2);
    EXPECT_EQ(rep["normalised"]["lift_branch_constants"], 2) << rep["normalised"].dump();
  }
}

// A graph output of NonZero's is sized only as the model runs: the host
// lends its buffer once the device knows the shape, and the .npz, the
// report and --check hold that shape.
TEST_F(RunCommand, WritesAGraphOutputOfRunTimeShape) {
  write_nonzero_output_model(dir_ / "where.onnx");
  for (const auto& [x, positions] : std::vector<std::pair<std::vector<float>, std::vector<float>>>{
           {{1, -2, 3, 0, 5, 6}, {0, 2, 4, 5}}, {{-1, -2, -3, 0, 0, 0}, {}}}) {
    const auto r = run_fed("where.onnx", "where.json", {{"x", host::FloatArray{{6}, x}}});
    ASSERT_EQ(r.exit_code, 0) << details(r);
    const auto where = outputs().at("where");
    const auto k = static_cast<int64_t>(positions.size());
    EXPECT_EQ(where.shape, (std::vector<int64_t>{1, k}));
    EXPECT_EQ(where.data, positions);
    const json rep = report("where.json");
    EXPECT_TRUE(rep["check"]["match"].get<bool>()) << rep.dump(2);
    EXPECT_EQ(rep["outputs"], json::parse(R"([{"name": "where", "shape": [1, )" + std::to_string(k) + "]}]"))
        << rep.dump(2);
  }
}

// An If whose branches give outputs of different sizes, fed each way.
TEST_F(RunCommand, WritesAnIfsOutputOfEachBranchsShape) {
  write_branch_shapes_if_model(dir_ / "if_shapes.onnx");
  for (const float cond : {1.0f, 0.0f}) {
    SCOPED_TRACE(cond);
    const auto r = run_fed("if_shapes.onnx", "if.json",
                           {{"cond", host::FloatArray{{1}, {cond}}}, {"x", host::FloatArray{{3}, {1, 2, 3}}}});
    ASSERT_EQ(r.exit_code, 0) << details(r);
    const auto y = outputs().at("y");
    EXPECT_EQ(y.shape, (std::vector<int64_t>{cond ? 3 : 6}));
    EXPECT_EQ(y.data, (cond ? std::vector<float>{2, 4, 6} : std::vector<float>{1, 2, 3, 1, 2, 3}));
    EXPECT_TRUE(report("if.json")["check"]["match"].get<bool>()) << report("if.json").dump(2);
  }
}

// A Loop whose trip count is fed stays a Loop and runs its body as many
// times as the run says, none included; its scan output has that many rows.
TEST_F(RunCommand, RunsALoopWhoseTripCountIsFed) {
  write_sum_loop_model(dir_ / "fed_loop.onnx", true);
  for (const int64_t trips : {3, 5, 0}) {
    SCOPED_TRACE(trips);
    std::vector<float> y = {0, 0}, ys;
    for (int64_t i = 0; i < trips; ++i) {
      for (size_t k = 0; k < 2; ++k) y[k] += static_cast<float>(k + 1) + static_cast<float>(i);
      ys.insert(ys.end(), y.begin(), y.end());
    }
    const auto r = run_fed("fed_loop.onnx", "fed_loop.json",
                           {{"x", host::FloatArray{{2}, {1, 2}}},
                            {"trips", host::FloatArray{{}, {static_cast<float>(trips)}}}});
    ASSERT_EQ(r.exit_code, 0) << details(r);
    const auto out = outputs();
    EXPECT_EQ(out.at("y").data, y);
    EXPECT_EQ(out.at("ys").shape, (std::vector<int64_t>{trips, 2}));
    EXPECT_EQ(out.at("ys").data, ys);
    EXPECT_TRUE(report("fed_loop.json")["check"]["match"].get<bool>()) << report("fed_loop.json").dump(2);
  }
}

// A Slice past the end gives an empty tensor, as ONNX allows: the run
// gives it, and tuning lists the Slice with the reason and goes on.
TEST_F(RunCommand, AnEmptySliceRunsAndIsListedNotTuned) {
  write_empty_slice_model(dir_ / "empty.onnx");
  const auto r = run("empty.onnx", "empty.json", {"--outputs", (dir_ / "out.npz").string(), "--check"});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  const auto out = host::read_npz(dir_ / "out.npz");
  EXPECT_EQ(out.at("none").shape, (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(out.at("y").data.size(), 12u);
  for (const char* device : {"ascend910", "cpu"}) {
    for (const auto& f : result_files()) fs::remove(f);
    const auto tuned = aoe_host({"--plugin", "opat", "--device", device, "--model", (dir_ / "empty.onnx").string(),
                                 "--budget", "2"});
    ASSERT_EQ(tuned.exit_code, 0) << device << "\n" << details(tuned);
    const json listed = only_result()["OPAT"]["unsupported_operators"];
    ASSERT_EQ(listed.size(), 1u) << listed.dump(2);
    EXPECT_EQ(listed[0]["op_type"], "Slice");
    EXPECT_NE(listed[0]["reason"].get<std::string>().find("tensor 'none' is empty (a dim of 0)"), std::string::npos)
        << listed.dump(2);
  }
}

// ReduceSum's axes fed as a list of none (ONNX's own node tests do): every
// axis, or with noop_with_empty_axes none. An input declared [0] can hold
// nothing else, so tuning reads it as the empty list and tunes the sum.
// NonMaxSuppression's constant box limit reaches the simulator, which costs
// the suppression for that many kept boxes, where a limit fed as the model
// runs is costed for every box; the cpu device runs either and matches.
TEST_F(RunCommand, ANonMaxSuppressionsConstantLimitSizesItsSimulatedKernel) {
  std::map<bool, double> sim_us;
  for (const bool constant : {true, false}) {
    const std::string name = constant ? "nms_constant.onnx" : "nms_fed.onnx";
    write_nms_model(dir_ / name, constant);
    for (const auto& f : result_files()) fs::remove(f);
    const auto tuned = aoe_host({"--plugin", "opat", "--device", "ascend910", "--model", (dir_ / name).string(), "--budget", "1"});
    ASSERT_EQ(tuned.exit_code, 0) << details(tuned);
    const json opat = only_result()["OPAT"];
    ASSERT_EQ(opat["opat_tuned_operators"].size(), 1u) << opat.dump(2);
    sim_us[constant] = opat["opat_tuned_operators"][0]["performance_before_tune(us)"].get<double>();
  }
  EXPECT_LT(sim_us[true], sim_us[false]);
  const auto run = aoe_host({"run", "--device", "cpu", "--model", (dir_ / "nms_constant.onnx").string(), "--iterations", "1",
                             "--check"});
  ASSERT_EQ(run.exit_code, 0) << details(run);
  EXPECT_NE(run.out.find("check: outputs match the reference"), std::string::npos) << run.out;
}

TEST_F(RunCommand, ReduceSumOfAnEmptyAxesInputIsTuned) {
  write_empty_axes_model(dir_ / "axes.onnx");
  const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  const auto r = run_fed("axes.onnx", "axes.json", {{"x", host::FloatArray{{3, 2, 2}, x}}, {"axes", host::FloatArray{{0}, {}}}});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  const auto out = outputs();
  EXPECT_EQ(out.at("sum").data, (std::vector<float>{78}));
  EXPECT_EQ(out.at("same").data, x);
  for (const char* device : {"ascend910", "cpu"}) {
    for (const auto& f : result_files()) fs::remove(f);
    const auto tuned = aoe_host({"--plugin", "opat", "--device", device, "--model", (dir_ / "axes.onnx").string(),
                                 "--budget", "2"});
    ASSERT_EQ(tuned.exit_code, 0) << device << "\n" << details(tuned);
    const json opat = only_result()["OPAT"];
    std::set<std::string> tuned_ops;
    for (const auto& op : opat["opat_tuned_operators"]) tuned_ops.insert(op["op_name"].get<std::string>());
    EXPECT_TRUE(tuned_ops.count("ReduceSum_0")) << device << "\n" << opat.dump(2);
    if (std::string(device) == "ascend910") {
      // The pass-through runs no kernel there: listed with why.
      const json listed = opat["unsupported_operators"];
      ASSERT_EQ(listed.size(), 1u) << listed.dump(2);
      EXPECT_EQ(listed[0]["op_name"], "ReduceSum_1");
      EXPECT_NE(listed[0]["reason"].get<std::string>().find("passes its input through"), std::string::npos)
          << listed.dump(2);
    }
  }
}

// A dynamically quantized product, as ONNX Runtime's quantizer writes
// models: q rounds x / scale to whole steps, and where that lies within float
// rounding of a tie the run and the double-precision reference may round
// apart. The check takes the run's q where it is that close, and so checks
// MatMulInteger from the same q (without, one step is |w| apart in y).
TEST_F(RunCommand, ADynamicallyQuantizedModelIsCheckedFromTheRunsQuantizedValues) {
  write_dynamic_quantized_model(dir_ / "quantized.onnx");
  const auto r = run("quantized.onnx", "quantized.json", {"--inputs", "random", "--seed", "1", "--check"});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  const json check = report("quantized.json")["check"];
  EXPECT_TRUE(check["match"].get<bool>()) << check.dump(2);
  ASSERT_TRUE(check.contains("quantizers")) << check.dump(2);
  EXPECT_EQ(check["quantizers"]["quantizers"], 1) << check.dump(2);
  EXPECT_EQ(check["quantizers"]["quantizers_apart"], 0) << check.dump(2);
  EXPECT_LE(check["quantizers"]["elements_one_step_apart"].get<int64_t>(), 4096 * 256 / 100) << check.dump(2);
}

// A while loop: no trip count, the body's condition computed from its
// carried value and an outer initializer, a constant of its own lifted.
TEST_F(RunCommand, RunsAWhileLoopUntilItsConditionFails) {
  write_doubling_while_model(dir_ / "while.onnx");
  const auto r = run_fed("while.onnx", "while.json", {{"x", host::FloatArray{{1}, {3}}}});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  const auto out = outputs();
  EXPECT_EQ(out.at("y").data, (std::vector<float>{192}));
  EXPECT_EQ(out.at("steps").shape, (std::vector<int64_t>{6, 1}));
  EXPECT_EQ(out.at("steps").data, (std::vector<float>{6, 12, 24, 48, 96, 192}));
  const json rep = report("while.json");
  EXPECT_TRUE(rep["check"]["match"].get<bool>()) << rep.dump(2);
  EXPECT_EQ(rep["normalised"]["lift_branch_constants"], 1) << rep["normalised"].dump();
  // Tuning lists the Loop as an op it does not tune, and goes on.
  for (const char* device : {"ascend910", "cpu"}) {
    const auto tuned = aoe_host({"--plugin", "opat", "--device", device, "--model", (dir_ / "while.onnx").string(),
                                 "--budget", "2"});
    EXPECT_EQ(tuned.exit_code, 0) << device << "\n" << details(tuned);
    EXPECT_NE(tuned.err.find("Loop"), std::string::npos) << tuned.err;
  }
}

TEST_F(RunCommand, AnUnsupportedOpIsAnErrorNamingIt) {
  write_gradient_model(dir_ / "gradient.onnx");
  const auto r = run("gradient.onnx", "r.json");
  EXPECT_EQ(r.exit_code, 4) << details(r);
  EXPECT_NE(r.err.find("Gradient"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "r.json"));
}

TEST_F(RunCommand, ADeviceThatCannotComputeOutputsSaysSo) {
  const auto r = aoe_host({"run", "--device", "ascend910", "--model", (dir_ / "conv.onnx").string(), "--check"});
  EXPECT_NE(r.exit_code, 0) << details(r);
  EXPECT_NE(r.err.find("models time only"), std::string::npos) << r.err;
}

TEST_F(RunCommand, TheSimulatorAnswersWithItsModelledTime) {
  const auto r = aoe_host({"run", "--device", "ascend910", "--model", (dir_ / "conv.onnx").string(), "--run_report",
                           (dir_ / "sim.json").string()});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  const json rep = report("sim.json");
  EXPECT_TRUE(rep["modelled"].get<bool>());
  EXPECT_GT(rep["latency_ms"]["median"].get<double>(), 0.0);
  EXPECT_NE(r.out.find("(modelled)"), std::string::npos) << r.out;
}

TEST_F(RunCommand, TuneOnMissFillsAnEmptyBankAndTheNextRunIsAllHits) {
  const auto first = run("conv.onnx", "first.json", {"--tune_on_miss", "--budget", "3", "--check"});
  ASSERT_EQ(first.exit_code, 0) << details(first);
  EXPECT_FALSE(op_bank_entries().empty());
  const json tuned = report("first.json");
  EXPECT_EQ(tuned["bank"]["miss"], 0) << tuned.dump(2);
  EXPECT_TRUE(tuned["check"]["match"].get<bool>());

  const auto second = run("conv.onnx", "second.json");
  ASSERT_EQ(second.exit_code, 0) << details(second);
  const json rep = report("second.json");
  EXPECT_EQ(rep["bank"]["miss"], 0) << rep.dump(2);
  EXPECT_EQ(rep["bank"]["hit"], 1);
  EXPECT_EQ(rep["tuned_kernel_count"], rep["kernel_count"]);
  for (const auto& k : rep["kernels"]) EXPECT_EQ(k["config_source"], "bank") << k.dump();
  EXPECT_NE(second.out.find("tuned: Conv_0+Relu_1+Add_2"), std::string::npos) << second.out;
}

TEST_F(RunCommand, ABankEntryChangesWhichKernelConfigRuns) {
  ASSERT_EQ(run("relu.onnx", "default.json").exit_code, 0);
  const json untuned = report("default.json")["kernels"][0];
  ASSERT_EQ(untuned["config_source"], "default");
  // A bank entry for the op, made by tuning it.
  ASSERT_EQ(run("relu.onnx", "tuned.json", {"--tune_on_miss", "--budget", "2"}).exit_code, 0);
  const auto entries = op_bank_entries();
  ASSERT_EQ(entries.size(), 1u);
  // Its config set to the default's but for the instruction set: generic,
  // which every machine runs.
  json entry = read_json(entries.front());
  json values = untuned["config_values"];
  const json described = untuned["config"];
  ASSERT_TRUE(described.contains("isa")) << untuned.dump(2);
  if (described["isa"] == "generic") GTEST_SKIP() << "this machine's default instruction set is already generic";
  // config_values follow the space's knob order, which the report names.
  size_t isa = 0;
  for (size_t i = 0; i < untuned["knobs"].size(); ++i)
    if (untuned["knobs"][i] == "isa") isa = i;
  values[isa] = 0;
  entry["config_values"] = values;
  std::ofstream(entries.front()) << entry.dump();

  const auto r = run("relu.onnx", "banked.json");
  ASSERT_EQ(r.exit_code, 0) << details(r);
  const json banked = report("banked.json")["kernels"][0];
  EXPECT_EQ(banked["config_source"], "bank");
  EXPECT_EQ(banked["config_values"], values);
  EXPECT_EQ(banked["config"]["isa"], "generic");
  EXPECT_NE(banked["config_values"], untuned["config_values"]);
}

// OpenBLAS is a value of the GEMM's "ukernel" knob where the device was
// built with it: a bank entry naming it runs it, and the outputs still match.
TEST_F(RunCommand, ABankEntryCanChooseOpenBlasForAGemm) {
  write_matmul_model(dir_ / "matmul.onnx");
  ASSERT_EQ(run("matmul.onnx", "tuned.json", {"--tune_on_miss", "--budget", "2"}).exit_code, 0);
  const json tuned = report("tuned.json")["kernels"][0];
  ASSERT_EQ(tuned["op_type"], "MatMul") << tuned.dump(2);
  if (!cpu::openblas_built()) GTEST_SKIP() << "the cpu device was built without OpenBLAS (libopenblas-dev)";
  // The value past the micro-kernels.
  ASSERT_NO_FATAL_FAILURE(rewrite_banked_knob(tuned, "ukernel", static_cast<int64_t>(cpu::ukernel_catalog().size())));

  const auto r = run("matmul.onnx", "openblas.json", {"--check"});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  const json banked = report("openblas.json")["kernels"][0];
  EXPECT_EQ(banked["config_source"], "bank");
  EXPECT_EQ(banked["config"]["ukernel"], "openblas");
}

// OpenBLAS and oneDNN start the threads a config names: a run holds every
// kernel to its own --threads.
TEST_F(RunCommand, ABankConfigRunsOnAtMostTheRunsThreads) {
  if (cpu::available_threads() < 2) GTEST_SKIP() << "one CPU: every config runs on one thread";
  write_matmul_model(dir_ / "matmul.onnx");
  ASSERT_EQ(run("matmul.onnx", "tuned.json", {"--tune_on_miss", "--budget", "2"}).exit_code, 0);
  ASSERT_NO_FATAL_FAILURE(rewrite_banked_knob(report("tuned.json")["kernels"][0], "threads", 2));

  ASSERT_EQ(run("matmul.onnx", "one.json", {"--threads", "1", "--check"}).exit_code, 0);
  EXPECT_EQ(report("one.json")["kernels"][0]["config"]["threads"], 1);
  EXPECT_EQ(report("one.json")["kernels"][0]["config_source"], "bank");
  ASSERT_EQ(run("matmul.onnx", "two.json", {"--threads", "2"}).exit_code, 0);
  EXPECT_EQ(report("two.json")["kernels"][0]["config"]["threads"], 2);
}

// A kernel at its default is made for the run's threads too: one made for
// the machine's would split its work for threads the run does not have
// (oneDNN's convolution into parts, run one after another).
TEST_F(RunCommand, ADefaultConfigIsMadeForTheRunsThreads) {
  if (cpu::available_threads() < 2) GTEST_SKIP() << "one CPU: every config runs on one thread";
  write_projection_model(dir_ / "projection.onnx");
  ASSERT_EQ(run("projection.onnx", "two.json", {"--threads", "2"}).exit_code, 0);
  const json two = report("two.json")["kernels"][0];
  ASSERT_EQ(two["config_source"], "default") << two.dump(2);
  ASSERT_EQ(two["config"]["threads"], 2) << "a product this small is not split: " << two.dump(2);

  const auto r = run("projection.onnx", "one.json", {"--check"});
  ASSERT_EQ(r.exit_code, 0) << details(r);
  EXPECT_EQ(report("one.json")["kernels"][0]["config"]["threads"], 1);
}

TEST_F(RunCommand, ABadIterationCountIsAUsageError) {
  const auto r = run("conv.onnx", "r.json", {"--iterations", "0"});
  EXPECT_EQ(r.exit_code, 2) << details(r);
  EXPECT_NE(r.err.find("iterations"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace aoe::test
