// Slice, Pad, Gather, the element and row gathers and scatters, and
// TfIdfVectorizer on small hand-computed cases: the
// kernel and the reference each give the values worked out here, for every
// threads count; Resize against its reference, and bilinear Resize against
// ONNX Runtime's values.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <limits>
#include <numeric>

#include "aoe/sdk/error.h"
#include "tasks.h"
#include "thread_pool.h"

namespace aoe::cpu {
namespace {

using test::expect_gives;
using test::f32;
using test::host;
using test::op;
using test::pool;
using test::refusal;
using Values = std::vector<float>;

sdk::TensorDesc i64(std::vector<int64_t> shape, bool constant = false) {
  sdk::TensorDesc t = f32(std::move(shape), constant);
  t.dtype = sdk::DType::i64;
  return t;
}

Values iota(size_t n) {
  Values v(n);
  std::iota(v.begin(), v.end(), 0.0f);
  return v;
}

// x[3,4] = 0..11; rows backwards by 2 from the last, columns 1 and 3.
TEST(SliceOp, NegativeAxesStartsAndStepsAsOnnxClampsThem) {
  auto t = op("Slice", {f32({3, 4}), i64({2}), i64({2}), i64({2}), i64({2})},
              {{"starts", {-1, 1}}, {"ends", {INT64_MIN, 4}}, {"axes", {0, -1}}, {"steps", {-2, 2}}});
  t.outputs = {f32({2, 2})};
  expect_gives(t, {iota(12), {}, {}, {}, {}}, {9, 11, 1, 3});
}

// Opset 1: attributes only, no steps; an end past the axis is clamped.
TEST(SliceOp, AttributesOfOpsetOneWithAnEndPastTheAxis) {
  const auto t = op("Slice", {f32({2, 3})}, {{"starts", {1}}, {"ends", {1000}}, {"axes", {1}}});
  expect_gives(t, {iota(6)}, {1, 2, 4, 5});
}

TEST(SliceOp, BoundsKnownOnlyAtRunTimeAreRefusedNamingTheOp) {
  const auto why = refusal(op("Slice", {f32({2, 3}), i64({1}), i64({1})}));
  EXPECT_NE(why.find("Slice 'Slice': its starts are computed while the model runs"), std::string::npos) << why;
  const auto twice = refusal(op("Slice", {f32({2, 3})}, {{"starts", {0, 0}}, {"ends", {1, 1}}, {"axes", {1, -1}}}));
  EXPECT_NE(twice.find("axis -1 is sliced twice"), std::string::npos) << twice;
  auto wrong = op("Slice", {f32({2, 3})}, {{"starts", {0}}, {"ends", {2}}, {"axes", {1}}});
  wrong.outputs = {f32({2, 3})};
  EXPECT_NE(refusal(wrong).find("output is [2,3], its values give [2,2]"), std::string::npos) << refusal(wrong);
}

// [[1,2,3],[4,5,6]], two before and one after along the columns, mirrored
// over the edge element.
TEST(PadOp, ReflectMirrorsWithoutRepeatingTheEdge) {
  const auto t = op("Pad", {f32({2, 3}), i64({4})}, {{"mode", "reflect"}, {"pads", {0, 2, 0, 1}}});
  expect_gives(t, {{1, 2, 3, 4, 5, 6}, {}}, {3, 2, 1, 2, 3, 2, 6, 5, 4, 5, 6, 5});
}

TEST(PadOp, EdgeRepeatsTheBorder) {
  const auto t = op("Pad", {f32({2, 3})}, {{"mode", "edge"}, {"pads", {1, 0, 0, 1}}});
  expect_gives(t, {{1, 2, 3, 4, 5, 6}}, {1, 2, 3, 3, 1, 2, 3, 3, 4, 5, 6, 6});
}

// A row of the value before, a column before, the last column cropped.
TEST(PadOp, ConstantFillsWithTheValueAndNegativePadsCrop) {
  const auto t = op("Pad", {f32({2, 3}), i64({4}), f32({}, true)}, {{"pads", {1, 1, 0, -1}}, {"value", 7.5}});
  expect_gives(t, {{1, 2, 3, 4, 5, 6}, {}, {0}}, {7.5f, 7.5f, 7.5f, 7.5f, 1, 2, 7.5f, 4, 5});
}

// constant_value fed as the model runs: the fill is read from the input.
TEST(PadOp, AConstantValueFedAtRunTimeIsReadThen) {
  const auto t = op("Pad", {f32({2, 2}), i64({4}), f32({})}, {{"pads", {0, 1, 0, 0}}});
  expect_gives(t, {{1, 2, 3, 4}, {}, {-2.5f}}, {-2.5f, 1, 2, -2.5f, 3, 4});
  const auto wide = refusal(op("Pad", {f32({2, 2}), i64({4}), f32({2})}, {{"pads", {0, 1, 0, 0}}}));
  EXPECT_NE(wide.find("Pad 'Pad': constant_value is [2]; it takes one value"), std::string::npos) << wide;
}

TEST(PadOp, RefusesWrapAndAReflectWiderThanTheAxis) {
  const auto wrap = refusal(op("Pad", {f32({2, 3})}, {{"mode", "wrap"}, {"pads", {0, 0, 0, 0}}}));
  EXPECT_NE(wrap.find("not 'wrap' (Pad 'Pad')"), std::string::npos) << wrap;
  const auto wide = refusal(op("Pad", {f32({2, 3})}, {{"mode", "reflect"}, {"pads", {0, 3, 0, 0}}}));
  EXPECT_NE(wide.find("reflect pads of 3 and 0 on axis 1"), std::string::npos) << wide;
  const auto late = refusal(op("Pad", {f32({2, 3}), i64({4})}));
  EXPECT_NE(late.find("its pads are computed while the model runs"), std::string::npos) << late;
}

// Rows [1,2,1,2] and [2,2,3,0]; the unigram 2 in slot 1, the bigram (1,2)
// in slot 0, its items up to one apart: (1,2) twice in the first row, both
// adjacent; 2 twice in each. Then the same ids as one row.
TEST(TfIdfVectorizerOp, CountsNgramsWithSkipsIntoTheirSlotsAndWeighsThem) {
  const nlohmann::json attrs = {{"min_gram_length", 1}, {"max_gram_length", 2}, {"max_skip_count", 1},
                                {"ngram_counts", {0, 1}}, {"ngram_indexes", {1, 0}}, {"pool_int64s", {2, 1, 2}},
                                {"weights", {0.5, 2.0}}};
  const Values x = {1, 2, 1, 2, 2, 2, 3, 0};
  const auto with_mode = [&](const char* mode) {
    auto a = attrs;
    a["mode"] = mode;
    return op("TfIdfVectorizer", {i64({2, 4})}, a);
  };
  expect_gives(with_mode("TF"), {x}, {2, 2, 0, 2});
  expect_gives(with_mode("IDF"), {x}, {0.5f, 2, 0, 2});
  expect_gives(with_mode("TFIDF"), {x}, {1, 4, 0, 4});
  auto flat = with_mode("TF");
  flat.inputs = {i64({8})};
  expect_gives(flat, {x}, {3, 4});  // (1,2) at 0-1 and 2-3, and at 2-4 one apart
  const auto o = make_op(with_mode("TFIDF"), host());
  test::expect_matches_reference(*o, test::sample_configs(*o, 4), pool());
  const auto uneven = refusal(op("TfIdfVectorizer", {i64({4})}, {{"mode", "TF"}, {"min_gram_length", 2},
                                 {"max_gram_length", 2}, {"ngram_counts", {0, 0}}, {"ngram_indexes", {0}}, {"pool_int64s", {1, 2, 3}}}));
  EXPECT_NE(uneven.find("TfIdfVectorizer 'TfIdfVectorizer': ngram_counts 0..3 of the 2-grams"), std::string::npos) << uneven;
}

// data[2,3,2] = 0..11 along axis -2 by [-1, 0]: the last row, then the first.
TEST(GatherOp, ConstantNegativeIndicesOnANegativeAxis) {
  auto t = op("Gather", {f32({2, 3, 2}), i64({2})}, {{"axis", -2}, {"indices", {-1, 0}}});
  t.outputs = {f32({2, 2, 2})};
  expect_gives(t, {iota(12), {0, 0}}, {4, 5, 0, 1, 10, 11, 6, 7});
}

// The same indices at run time, as floats holding whole numbers; and a 2-D
// indices tensor on axis 0.
TEST(GatherOp, IndicesAtRunTime) {
  expect_gives(op("Gather", {f32({2, 3, 2}), i64({2})}, {{"axis", 1}}), {iota(12), {-1, 0}}, {4, 5, 0, 1, 10, 11, 6, 7});
  Values want = iota(12);
  std::rotate(want.begin(), want.begin() + 6, want.end());
  expect_gives(op("Gather", {f32({2, 3, 2}), i64({2, 1})}), {iota(12), {1, -2}}, want);
}

TEST(GatherOp, AnIndexOutOfRangeFailsNamingItsPosition) {
  const auto bad = refusal(op("Gather", {f32({4, 2}), i64({2})}, {{"indices", {0, 4}}}));
  EXPECT_NE(bad.find("Gather 'Gather': index 4 at position 1 is out of range for an axis of 4"), std::string::npos) << bad;
  const auto unfolded = refusal(op("Gather", {f32({4, 2}), i64({2000}, true)}));
  EXPECT_NE(unfolded.find("its indices are a constant of 2000 values the frontend did not fold"), std::string::npos) << unfolded;
  const auto o = make_op(op("Gather", {f32({4, 2}), i64({2})}), host());
  const Values x = iota(8), idx = {0, -5};
  try {
    run_once(*o, o->space().default_config, {x.data(), idx.data()}, pool());
    ADD_FAILURE() << "an index of -5 ran";
  } catch (const sdk::Error& e) {
    EXPECT_NE(std::string(e.what()).find("index -5 at position 1"), std::string::npos) << e.what();
  }
}

// GatherElements, ScatterElements, GatherND and ScatterND on indices fed as
// the model runs (torch.gather after torch.topk, index_put), as floats
// holding whole numbers: negative ones count from the end, and one past its
// axis fails the run naming its position.
TEST(IndexedSlicesOps, IndicesAtRunTime) {
  expect_gives(op("GatherElements", {f32({2, 3}), i64({2, 2})}, {{"axis", 1}}), {iota(6), {2, 0, -1, 1}}, {2, 0, 5, 4});
  expect_gives(op("ScatterElements", {f32({2, 3}), i64({2, 2}), f32({2, 2})}, {{"axis", 1}, {"reduction", "add"}}),
               {Values(6, 0.0f), {0, -1, 1, 1}, {1, 2, 3, 4}}, {1, 0, 2, 0, 7, 0});
  expect_gives(op("GatherND", {f32({2, 3}), i64({2, 2})}), {iota(6), {1, 2, 0, -1}}, {5, 2});
  expect_gives(op("ScatterND", {f32({2, 3}), i64({1, 1}), f32({1, 3})}), {iota(6), {-1}, {9, 9, 9}}, {0, 1, 2, 9, 9, 9});
  for (const char* type : {"GatherElements", "GatherND"}) {
    SCOPED_TRACE(type);
    const auto o = make_op(op(type, {f32({2, 3}), i64({2, 2})}, {{"axis", 1}}), host());
    const Values x = iota(6), idx = {0, 1, 3, 0};
    try {
      run_once(*o, o->space().default_config, {x.data(), idx.data()}, pool());
      ADD_FAILURE() << "an index of 3 ran";
    } catch (const sdk::Error& e) {
      const std::string want = std::string(type) == "GatherND" ? "index 3 of row 1 is out of range for an axis of 2"
                                                              : "index 3 at position 2 is out of range for an axis of 3";
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  }
}

// Up and down, nearest, linear and cubic, on every threads count: the map
// plane by plane (each source row resized along W once) where N and C stay,
// and row by row where a leading axis is resized too (or keeps its size at a
// scale other than 1); a crop whose source positions fall outside the input
// takes the extrapolation value.
TEST(ResizeOp, MatchesItsReferencePlaneByPlaneAndRowByRow) {
  struct Case {
    std::vector<int64_t> in, out;
    const char* mode;
    const char* transform;
    std::vector<double> scales = {};
    nlohmann::json more = nlohmann::json::object();
  };
  const std::vector<Case> cases = {{{2, 3, 5, 7}, {2, 3, 10, 14}, "linear", "half_pixel"},
                                   {{2, 3, 5, 7}, {2, 3, 10, 21}, "nearest", "asymmetric"},
                                   {{1, 2, 9, 9}, {1, 2, 4, 3}, "linear", "align_corners"},
                                   {{1, 2, 9, 9}, {1, 2, 4, 3}, "nearest", "half_pixel"},
                                   {{1, 2, 6}, {1, 2, 15}, "linear", "pytorch_half_pixel"},
                                   {{1, 2, 4, 4}, {2, 4, 8, 8}, "linear", "asymmetric"},
                                   {{1, 3, 4, 4}, {1, 3, 8, 8}, "linear", "half_pixel", {1, 1.2, 2, 2}},
                                   {{2, 3, 4, 4}, {2, 3, 8, 8}, "nearest", "align_corners", {1, 1.2, 2, 2}},
                                   {{1, 1, 8, 8}, {1, 1, 4, 4}, "linear", "asymmetric"},  // every tap on a source pixel
                                   {{1, 1, 8, 8}, {1, 1, 4, 2}, "cubic", "asymmetric"},
                                   {{2, 3, 5, 7}, {2, 3, 9, 4}, "cubic", "half_pixel"},
                                   {{1, 2, 4, 4}, {2, 3, 8, 3}, "cubic", "asymmetric"},
                                   {{1, 2, 6}, {1, 2, 13}, "cubic", "align_corners", {}, {{"cubic_coeff_a", -0.5}, {"exclude_outside", 1}}},
                                   {{2, 3, 5, 5}, {2, 3, 3, 9}, "linear", "tf_crop_and_resize", {1, 1, 0.6, 1.8}, {{"extrapolation_value", 7}}},
                                   {{1, 2, 5, 5}, {2, 2, 4, 4}, "cubic", "tf_crop_and_resize", {}, {{"extrapolation_value", -3}}}};
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.mode) + " " + c.transform);
    auto task = op("Resize", {f32(c.in)}, {{"mode", c.mode}, {"coordinate_transformation_mode", c.transform}});
    task.outputs = {f32(c.out)};
    if (!c.scales.empty()) task.attrs["scales"] = c.scales;  // C keeps its size, but not its positions
    task.attrs.update(c.more);
    const auto o = make_op(task, host());
    std::vector<sdk::Config> configs;
    for (int64_t threads = 1; threads <= std::min(host().threads, 3); ++threads) configs.push_back({threads});
    test::expect_matches_reference(*o, configs, pool());
  }
}

// x[4,4] = 4h + w cropped to the roi fed as the model runs, rows -0.25 to
// 1.5 and columns 0.5 to 1.5 of the input, into 3 x 3: source rows -0.75,
// 1.875, 4.5 and columns 1.5, 3, 4.5; a position outside the input along
// either axis takes the extrapolation value.
TEST(ResizeOp, CropsToTheRoiAndExtrapolatesOutsideTheInput) {
  auto task = op("Resize", {f32({1, 1, 4, 4}), f32({8})},
                 {{"mode", "linear"}, {"coordinate_transformation_mode", "tf_crop_and_resize"}, {"extrapolation_value", -1}});
  task.outputs = {f32({1, 1, 3, 3})};
  const float e = -1;
  expect_gives(task, {iota(16), {0, 0, -0.25f, 0.5f, 1, 1, 1.5f, 1.5f}}, {e, e, e, 9, 10.5f, e, e, e, e});
}

// x[2,3] up 2x, linear, half_pixel: every value as ONNX Runtime 1.30's CPU
// Resize gives it, bit for bit (each element's four neighbours weighted and
// summed left to right in float32). Summed along the row first, then
// between rows, six of the 24 come out one float apart.
TEST(ResizeOp, BilinearSumsInFloat32AsOnnxRuntimeDoes) {
  auto task = op("Resize", {f32({1, 1, 2, 3})}, {{"mode", "linear"}, {"coordinate_transformation_mode", "half_pixel"}});
  task.outputs = {f32({1, 1, 4, 6})};
  const Values x = {1.289f, -0.772f, -1.098f, 0.878f, 0.989f, -0.333f};
  const Values ort = {1.28900003f,  0.773750007f, -0.256749988f, -0.853500009f, -1.01650000f,  -1.09800005f,
                      1.18624997f,  0.806750000f, 0.0477500111f, -0.475500047f, -0.762999952f, -0.906750083f,
                      0.980750024f, 0.872750044f, 0.656750023f,  0.280499995f,  -0.255999982f, -0.524250031f,
                      0.878000021f, 0.905749977f, 0.961250007f,  0.658499956f,  -0.00249999762f, -0.333000004f};
  const auto o = make_op(task, host());
  for (int64_t threads = 1; threads <= std::min(host().threads, 3); ++threads) {
    const auto got = run_once(*o, {threads}, {x.data()}, pool());
    EXPECT_EQ(got.at(0), ort) << threads << " threads";
  }
}

// A neighbour of weight 0 is not read: an infinite value beside an edge
// column or row gives no NaN.
TEST(ResizeOp, BilinearReadsNoNeighbourOfWeightZero) {
  auto task = op("Resize", {f32({1, 1, 2, 2})}, {{"mode", "linear"}, {"coordinate_transformation_mode", "asymmetric"}});
  task.outputs = {f32({1, 1, 4, 4})};
  const float inf = std::numeric_limits<float>::infinity();
  const auto got = run_once(*make_op(task, host()), {1}, {Values{1, inf, 3, 4}.data()}, pool());
  EXPECT_EQ(got.at(0)[0], 1.0f);   // source (0, 0) exactly
  EXPECT_EQ(got.at(0)[8], 3.0f);   // source (1, 0) exactly: the last row, no row below
  EXPECT_TRUE(std::isinf(got.at(0)[1])) << got.at(0)[1];
}

}  // namespace
}  // namespace aoe::cpu
