// ONNX as other tools write it, where aoe once parted from ONNX Runtime: each
// model run through the real binary, its outputs worked by hand, and tuned.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "aoe_host_fixture.h"
#include "child_process.h"
#include "npz_file.h"
#include "tiny_models.h"

namespace aoe::test {
namespace {

namespace fs = std::filesystem;

class ExporterQuirks : public AoeHostTest {
 protected:
  // `run` on the cpu device fed `inputs` and checked against the reference; outputs() reads what it wrote.
  ProcessResult run(const std::string& model, const std::vector<std::pair<std::string, host::FloatArray>>& inputs) const {
    host::write_npz(dir_ / "in.npz", inputs);
    return aoe_host({"run", "--device", "cpu", "--model", (dir_ / model).string(), "--threads", "1", "--iterations", "1",
                     "--inputs", (dir_ / "in.npz").string(), "--outputs", (dir_ / "out.npz").string(), "--check"});
  }
  std::map<std::string, host::FloatArray> outputs() const { return host::read_npz(dir_ / "out.npz"); }
  ProcessResult opat(const std::string& model, const std::string& device) const {
    return aoe_host({"--plugin", "opat", "--device", device, "--model", (dir_ / model).string(), "--budget", "2"});
  }
};

// n values of no pattern a kernel could get right by accident.
std::vector<float> wavy(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::sin(static_cast<float>(i) * 1.7f);
  return v;
}

// A ceil_mode pool drops a last window that would start in the end padding,
// as ONNX Runtime and PyTorch do; shapes an older libonnx declared otherwise
// are dropped with a warning, not taken over the pool's own.
TEST_F(ExporterQuirks, ACeilModePoolDropsAWindowStartingInThePadding) {
  const auto x = wavy(20);
  for (const bool stale : {false, true}) {
    SCOPED_TRACE(stale ? "declared as libonnx 1.12 sized it" : "declared as run");
    write_ceil_pool_model(dir_ / "pools.onnx", stale);
    const auto r = run("pools.onnx", {{"x", host::FloatArray{{1, 1, 4, 5}, x}}});
    ASSERT_EQ(r.exit_code, 0) << failure_text(r);
    EXPECT_EQ(r.err.find("the shapes the file declares are ignored") != std::string::npos, stale) << r.err;
    const auto out = outputs();
    const auto at = [&](int row, int col) { return x[static_cast<size_t>(row * 5 + col)]; };
    EXPECT_EQ(out.at("y").shape, (std::vector<int64_t>{1, 1, 2, 2}));
    EXPECT_EQ(out.at("y").data, (std::vector<float>{std::max({at(0, 0), at(0, 2), at(0, 4)}), std::max(at(0, 2), at(0, 4)),
                                                    std::max({at(2, 0), at(2, 2), at(2, 4)}), std::max(at(2, 2), at(2, 4))}));
    EXPECT_EQ(out.at("z").shape, (std::vector<int64_t>{1, 1, 4, 3}));
    for (int row = 0; row < 4; ++row) {
      EXPECT_FLOAT_EQ(out.at("z").data[static_cast<size_t>(row * 3)], at(row, 0));
      EXPECT_FLOAT_EQ(out.at("z").data[static_cast<size_t>(row * 3 + 2)], (at(row, 3) + at(row, 4)) / 2);
    }
  }
  for (const char* device : {"ascend910", "cpu"}) {
    const auto tuned = opat("pools.onnx", device);
    EXPECT_EQ(tuned.exit_code, 0) << device << "\n" << failure_text(tuned);
  }
}

// An output's type may leave its shape out; inference gives it.
TEST_F(ExporterQuirks, AnOutputMayLeaveItsShapeOut) {
  write_shapeless_output_model(dir_ / "cut.onnx");
  const auto r = run("cut.onnx", {{"x", host::FloatArray{{2, 3}, {-1, 2, -3, 4, -5, 6}}}});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  EXPECT_EQ(outputs().at("y").data, (std::vector<float>{0, 2, 0, 4, 0, 6}));
}

// A first layer whose input another narrow conv wrote reads it as it can,
// where oneDNN has no kernel for it blocked with padding lanes.
TEST_F(ExporterQuirks, ANarrowConvFedByAnotherRunsUntuned) {
  write_narrow_conv_chain_model(dir_ / "narrow.onnx");
  const auto r = run("narrow.onnx", {{"x", host::FloatArray{{1, 2, 6, 5}, wavy(60)}}});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  EXPECT_EQ(outputs().at("y").shape, (std::vector<int64_t>{1, 2, 1, 1}));
}

// Opset 10's Resize: asymmetric coordinates; nearest rounds down along an
// axis that grows and up along one that shrinks, as ONNX Runtime keeps it.
TEST_F(ExporterQuirks, AnOpset10ResizeIsAsymmetric) {
  write_opset10_resize_model(dir_ / "resize10.onnx", false);
  const auto x = wavy(12), w = wavy(35);
  const auto r = run("resize10.onnx", {{"x", host::FloatArray{{1, 1, 3, 4}, x}}, {"w", host::FloatArray{{1, 1, 5, 7}, w}}});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  EXPECT_NE(r.err.find("3 opset-10 Resizes given their asymmetric coordinates"), std::string::npos) << r.err;
  const auto out = outputs();
  std::vector<float> up, down;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) up.push_back(x[static_cast<size_t>(i / 2 * 4 + static_cast<int>(std::floor(j / 1.5)))]);
  for (int i : {0, 2, 4})
    for (int j : {0, 3, 5}) down.push_back(w[static_cast<size_t>(i * 7 + j)]);
  EXPECT_EQ(out.at("up").data, up);
  EXPECT_EQ(out.at("down").data, down);
  ASSERT_EQ(out.at("lin").shape, (std::vector<int64_t>{1, 1, 1, 6}));
  EXPECT_FLOAT_EQ(out.at("lin").data[1], x[0] + (x[1] - x[0]) * (1 / 1.5f));
  EXPECT_FLOAT_EQ(out.at("lin").data[5], x[3]);
  EXPECT_EQ(opat("resize10.onnx", "ascend910").exit_code, 0);

  // Growing one axis and shrinking another in nearest mode no opset-11 mode says.
  write_opset10_resize_model(dir_ / "mixed.onnx", true);
  const auto refused = run("mixed.onnx", {{"x", host::FloatArray{{1, 1, 3, 4}, x}}, {"w", host::FloatArray{{1, 1, 5, 7}, w}}});
  EXPECT_EQ(refused.exit_code, 4) << failure_text(refused);
  EXPECT_NE(refused.err.find("mixed.onnx"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("Resize 'Resize_3' of opset 10 grows some axes and shrinks others"), std::string::npos)
      << refused.err;
}

// align_corners spans the output's own length, as ONNX Runtime and PyTorch
// do, where input x scale is not whole: 6 rows by 0.75 are 4, sampled at 0,
// 5/3, 10/3 and 5 (ONNX's reference spans 4.5: 0, 10/7, 20/7, 30/7).
TEST_F(ExporterQuirks, AlignCornersSpansTheOutputsLength) {
  write_align_corners_model(dir_ / "corners.onnx");
  std::vector<float> x;
  for (int row = 0; row < 6; ++row) x.insert(x.end(), {static_cast<float>(row), static_cast<float>(10 * row)});
  const auto r = run("corners.onnx", {{"x", host::FloatArray{{1, 1, 6, 2}, x}}});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const auto out = outputs();
  // Columns 0, 0.5 and 1 of a row r read r, 5.5r and 10r, linear in both axes.
  const float rows[] = {0, 5.0f / 3, 10.0f / 3, 5};
  for (int i = 0; i < 4; ++i) {
    const auto at = [&](const char* name, int col) { return out.at(name).data[static_cast<size_t>(i * 3 + col)]; };
    EXPECT_NEAR(at("lin", 0), rows[i], 1e-5) << i;
    EXPECT_NEAR(at("lin", 1), 5.5f * rows[i], 1e-5) << i;
    EXPECT_NEAR(at("lin", 2), 10 * rows[i], 1e-5) << i;
    const float nearest_row = std::nearbyint(rows[i]);  // round_prefer_floor: no ties here
    EXPECT_EQ(at("near", 0), nearest_row) << i;
    EXPECT_EQ(at("near", 2), 10 * nearest_row) << i;
  }
  for (const char* device : {"ascend910", "cpu"}) {
    const auto tuned = opat("corners.onnx", device);
    EXPECT_EQ(tuned.exit_code, 0) << device << "\n" << failure_text(tuned);
  }
}

// SAME padding of a ConvTranspose whose kernel is shorter than its stride:
// no padding at all, the output shorter than input x stride, as ONNX Runtime runs it.
TEST_F(ExporterQuirks, ASameConvTransposeNeverPadsBelowZero) {
  write_short_kernel_same_deconv_model(dir_ / "deconv.onnx");
  const auto r = run("deconv.onnx", {{"x", host::FloatArray{{2, 2, 1, 1}, {1, -2, 3, 0.5f}}}});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const auto y = outputs().at("y");
  EXPECT_EQ(y.shape, (std::vector<int64_t>{2, 4, 1, 1}));
  EXPECT_EQ(y.data, (std::vector<float>{1, 1, -2, -2, 3, 3, 0.5f, 0.5f}));
  EXPECT_EQ(opat("deconv.onnx", "ascend910").exit_code, 0);
}

// A Mod fused after a Div takes its divisor with it.
TEST_F(ExporterQuirks, AModFusedAfterADivTakesItsDivisor) {
  write_div_mod_model(dir_ / "divmod.onnx");
  const std::vector<float> x = {4.0f, -2.5f, 3.1f};
  const auto r = run("divmod.onnx", {{"x", host::FloatArray{{3}, x}}});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const std::vector<float> b = {0.7f, 0.9f, 1.3f};
  const auto y = outputs().at("y").data;
  ASSERT_EQ(y.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_FLOAT_EQ(y[i], std::fmod(x[i] / 1.5f, b[i])) << i;
}

// An Expand or a Tile to the shape its input has (a scalar's, none) is read
// through, or copied where its input and output are both the graph's.
TEST_F(ExporterQuirks, AnExpandOrTileThatChangesNothingIsReadThrough) {
  write_scalar_expand_model(dir_ / "expand.onnx");
  const auto r = run("expand.onnx", {{"x", host::FloatArray{{1}, {-1.25f}}}});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  EXPECT_NE(r.err.find("2 Identity/Dropout/same-type Cast/same-shape Expand and Tile nodes read through"), std::string::npos) << r.err;
  const auto y = outputs().at("y");
  EXPECT_TRUE(y.shape.empty());
  EXPECT_EQ(y.data, std::vector<float>{-2.5f});
  // Where each is an output of the graph too, the device copies the scalar.
  write_scalar_expand_model(dir_ / "outputs.onnx", true);
  const auto each = run("outputs.onnx", {{"x", host::FloatArray{{1}, {-1.25f}}}});
  ASSERT_EQ(each.exit_code, 0) << failure_text(each);
  const auto out = outputs();
  for (const char* name : {"s", "e", "t"}) {
    EXPECT_TRUE(out.at(name).shape.empty()) << name;
    EXPECT_EQ(out.at(name).data, std::vector<float>{-1.25f}) << name;
  }
  EXPECT_EQ(out.at("y").data, std::vector<float>{-2.5f});
}

// A window longer than its padded input is named when the model is read, as
// ONNX Runtime refuses it, not taken for a size known only as the model runs.
TEST_F(ExporterQuirks, AWindowLongerThanItsInputIsNamed) {
  write_oversized_pool_model(dir_ / "oversized.onnx");
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"run", "--device", "cpu", "--model", (dir_ / "oversized.onnx").string()},
        std::vector<std::string>{"--plugin", "opat", "--device", "ascend910", "--model", (dir_ / "oversized.onnx").string()}}) {
    const auto r = aoe_host(command);
    EXPECT_NE(r.exit_code, 0) << failure_text(r);
    EXPECT_NE(r.err.find("oversized.onnx': 'y' (the output of MaxPool 'pool') is sized [1,1,-1,-1]"), std::string::npos) << r.err;
  }
}

// Writers that move every tensor out of the model (and ONNX's own, past 1 KiB)
// leave shapes and float16 weights in a data file: the shape is read in to be
// folded, and the weights reach the run in their own dtype.
TEST_F(ExporterQuirks, EveryExternalTensorIsReadWhateverItsDtype) {
  write_external_half_model(dir_ / "half.onnx");
  const std::vector<float> x{1, -2, 0.5f, 3};
  const auto r = run("half.onnx", {{"x", host::FloatArray{{1, 4}, x}}});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  EXPECT_NE(r.err.find("2 external shape, scale and index tensors read into the model"), std::string::npos) << r.err;
  const auto y = outputs().at("y"), gathered = outputs().at("g");
  EXPECT_EQ(y.shape, (std::vector<int64_t>{90, 100}));
  ASSERT_EQ(y.data.size(), 9000u);
  ASSERT_EQ(gathered.data.size(), 9000u);
  for (int j = 0; j < 9000; ++j) {
    float sum = 0;
    for (int k = 0; k < 4; ++k) sum += x[static_cast<size_t>(k)] * external_half_weight(k, j);
    ASSERT_EQ(y.data[static_cast<size_t>(j)], sum) << j;  // exact: multiples of 1/8 below 8
    ASSERT_EQ(gathered.data[static_cast<size_t>(8999 - j)], sum) << j;
  }
  for (const char* device : {"ascend910", "cpu"}) {
    const auto tuned = opat("half.onnx", device);
    EXPECT_EQ(tuned.exit_code, 0) << device << "\n" << failure_text(tuned);
  }
}

// Shapes the file declares inside an If's branches were worked out for the
// input shapes it was exported with; --input_shape sets others, and inference
// redoes the branches' shapes as it does the graph's.
TEST_F(ExporterQuirks, ABranchsDeclaredShapesGiveWayToInputShape) {
  write_rate_if_model(dir_ / "rate.onnx");  // x and both branches' outputs declared [3]
  host::write_npz(dir_ / "in.npz", {{"sr", host::FloatArray{{}, {16000}}}, {"x", host::FloatArray{{5}, {1, -2, 3, 4, -5}}}});
  const auto r = aoe_host({"run", "--device", "cpu", "--model", (dir_ / "rate.onnx").string(), "--input_shape", "x:5",
                           "--iterations", "1", "--inputs", (dir_ / "in.npz").string(), "--outputs",
                           (dir_ / "out.npz").string(), "--check"});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  EXPECT_EQ(outputs().at("y").data, (std::vector<float>{2, -4, 6, 8, -10}));
}

// A Mul after a Conv whose operand varies along some of a map's axes only
// (one value per row) is not fused into the conv: it runs on its own.
TEST_F(ExporterQuirks, AnOperandOverPartOfAMapStaysOutOfTheConv) {
  write_conv_row_scale_model(dir_ / "rows.onnx");
  const auto x = wavy(9);
  const auto r = run("rows.onnx", {{"x", host::FloatArray{{1, 1, 3, 3}, x}}});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const auto y = outputs().at("y").data;
  ASSERT_EQ(y.size(), 18u);
  const float w[] = {1, 2}, rows[] = {1, 10, 100};
  for (int m = 0; m < 2; ++m)
    for (int i = 0; i < 9; ++i)
      EXPECT_FLOAT_EQ(y[static_cast<size_t>(m * 9 + i)], w[m] * x[static_cast<size_t>(i)] * rows[i / 3]) << m << "," << i;
  for (const char* device : {"ascend910", "cpu"}) {
    const auto tuned = opat("rows.onnx", device);
    EXPECT_EQ(tuned.exit_code, 0) << device << "\n" << failure_text(tuned);
  }
}

// A Split of constants is folded, each of its outputs: tf2onnx reorders a
// TensorFlow Pad's pads with one, and a Pad of unknown pads has no shape.
TEST_F(ExporterQuirks, AConstantSplitIsFoldedOutputByOutput) {
  write_split_pads_model(dir_ / "split.onnx");
  const auto x = wavy(12);
  const auto r = run("split.onnx", {{"x", host::FloatArray{{1, 2, 2, 3}, x}}});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const auto y = outputs().at("y");
  ASSERT_EQ(y.shape, (std::vector<int64_t>{1, 2, 3, 5}));
  for (int c = 0; c < 2; ++c)
    for (int h = 0; h < 3; ++h)
      for (int w = 0; w < 5; ++w) {
        const float want = h >= 1 && w < 3 ? 3 * x[static_cast<size_t>(c * 6 + (h - 1) * 3 + w)] : 0.0f;
        EXPECT_FLOAT_EQ(y.data[static_cast<size_t>((c * 3 + h) * 5 + w)], want) << c << "," << h << "," << w;
      }
  for (const char* device : {"ascend910", "cpu"}) {
    const auto tuned = opat("split.onnx", device);
    EXPECT_EQ(tuned.exit_code, 0) << device << "\n" << failure_text(tuned);
  }
}

}  // namespace
}  // namespace aoe::test
