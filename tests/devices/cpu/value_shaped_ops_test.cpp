// Ops whose output shapes depend on their input values (NonZero, Unique,
// NonMaxSuppression): each kernel against its double-precision reference
// and values worked out by hand; and models holding them, or an If whose
// condition is fed, run by the model executor in segments.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "aoe/sdk/error.h"
#include "dynamic_run.h"
#include "model_run.h"
#include "op_util.h"
#include "tasks.h"
#include "value_shaped_op.h"

namespace aoe::cpu {
namespace {

sdk::Node node(const std::string& op, nlohmann::json attrs = nlohmann::json::object()) {
  return {"n", op, {}, {}, std::move(attrs)};
}

std::vector<const HeldTensor*> slots(const std::vector<HeldTensor>& tensors) {
  std::vector<const HeldTensor*> out;
  for (const auto& t : tensors) out.push_back(t.values.empty() && t.shape.empty() ? nullptr : &t);
  return out;
}

// Kernel and reference agree exactly: shapes, and values (indices, counts, picked inputs).
void expect_same(const ValueShapedOp& op, const std::vector<HeldTensor>& inputs) {
  const auto got = op.run(slots(inputs)), want = op.reference(slots(inputs));
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].shape, want[i].shape) << "output " << i;
    EXPECT_EQ(got[i].values, want[i].values) << "output " << i;
  }
}

HeldTensor random_tensor(Shape shape, std::mt19937& rng, int distinct) {
  std::uniform_int_distribution<int> pick(0, distinct - 1);
  HeldTensor t{std::move(shape), {}};
  for (int64_t i = 0; i < elements(t.shape); ++i) t.values.push_back(static_cast<float>(pick(rng)) - 1.0f);
  return t;
}

TEST(NonZeroOp, IndicesOfEachNonZeroElementPerAxis) {
  const auto op = make_value_shaped_op(node("NonZero"));
  const HeldTensor x{{2, 2}, {1, 0, 1, 1}};
  const auto out = op->run({&x});
  EXPECT_EQ(out[0].shape, (Shape{2, 3}));
  EXPECT_EQ(out[0].values, (std::vector<float>{0, 1, 1, 0, 0, 1}));
  std::mt19937 rng(3);
  for (const Shape& shape : {Shape{}, Shape{7}, Shape{3, 4}, Shape{2, 3, 5}, Shape{2, 0, 3}}) {
    SCOPED_TRACE(to_string(shape));
    expect_same(*op, {random_tensor(shape, rng, 3)});
  }
  expect_same(*op, {HeldTensor{{4}, {0, 0, 0, 0}}});  // none: a [1, 0] result
}

TEST(UniqueOp, SortedAndUnsortedValuesWithAllFourOutputs) {
  const std::vector<HeldTensor> x = {{{6}, {2, 1, 1, 3, 4, 3}}};
  const auto sorted = make_value_shaped_op(node("Unique"))->run(slots(x));
  EXPECT_EQ(sorted[0].values, (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(sorted[1].values, (std::vector<float>{1, 0, 3, 4}));
  EXPECT_EQ(sorted[2].values, (std::vector<float>{1, 0, 0, 2, 3, 2}));
  EXPECT_EQ(sorted[3].values, (std::vector<float>{2, 1, 2, 1}));
  const auto unsorted = make_value_shaped_op(node("Unique", {{"sorted", 0}}))->run(slots(x));
  EXPECT_EQ(unsorted[0].values, (std::vector<float>{2, 1, 3, 4}));
  EXPECT_EQ(unsorted[1].values, (std::vector<float>{0, 1, 3, 4}));
  EXPECT_EQ(unsorted[2].values, (std::vector<float>{0, 1, 1, 2, 3, 2}));
  EXPECT_EQ(unsorted[3].values, (std::vector<float>{1, 2, 2, 1}));
  std::mt19937 rng(5);
  for (const int sorted_attr : {0, 1}) {
    expect_same(*make_value_shaped_op(node("Unique", {{"sorted", sorted_attr}})), {random_tensor({4, 5}, rng, 4)});
    for (const int64_t axis : {0, 1, 2, -1}) {
      SCOPED_TRACE(axis);
      // Two values per element over few elements per slice: slices repeat.
      expect_same(*make_value_shaped_op(node("Unique", {{"sorted", sorted_attr}, {"axis", axis}})), {random_tensor({3, 4, 2}, rng, 2)});
    }
  }
}

TEST(UniqueOp, SlicesAlongAnAxis) {
  // ONNX's example: rows [1, 0, 0], [1, 0, 0], [2, 3, 4] along axis 0.
  const auto out = make_value_shaped_op(node("Unique", {{"axis", 0}}))->run(slots({{{3, 3}, {1, 0, 0, 1, 0, 0, 2, 3, 4}}}));
  EXPECT_EQ(out[0].shape, (Shape{2, 3}));
  EXPECT_EQ(out[0].values, (std::vector<float>{1, 0, 0, 2, 3, 4}));
  EXPECT_EQ(out[1].values, (std::vector<float>{0, 2}));
  EXPECT_EQ(out[2].values, (std::vector<float>{0, 0, 1}));
  EXPECT_EQ(out[3].values, (std::vector<float>{2, 1}));
}

std::vector<HeldTensor> nms_inputs(const HeldTensor& boxes, const HeldTensor& scores, float max, float iou, float score) {
  return {boxes, scores, {{1}, {max}}, {{1}, {iou}}, {{1}, {score}}};
}

TEST(NonMaxSuppressionOp, KeepsTheBestBoxesPerClassAsTheDefinitionSays) {
  // ONNX's suppress_by_IOU_and_scores: six boxes, overlapping in two groups.
  const HeldTensor boxes{{1, 6, 4}, {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, -0.1f, 1, 0.9f, 0, 10, 1, 11, 0, 10.1f, 1, 11.1f, 0, 100, 1, 101}};
  const HeldTensor scores{{1, 1, 6}, {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f}};
  const auto op = make_value_shaped_op(node("NonMaxSuppression"));
  auto out = op->run(slots(nms_inputs(boxes, scores, 3, 0.5f, 0.4f)));
  EXPECT_EQ(out[0].shape, (Shape{2, 3}));
  EXPECT_EQ(out[0].values, (std::vector<float>{0, 0, 3, 0, 0, 0}));
  out = op->run(slots(nms_inputs(boxes, scores, 2, 0.5f, 0.0f)));
  EXPECT_EQ(out[0].values, (std::vector<float>{0, 0, 3, 0, 0, 0}));  // at most two
  out = op->run(slots(nms_inputs(boxes, scores, 0, 0.5f, 0.0f)));
  EXPECT_EQ(out[0].shape, (Shape{0, 3}));  // max_output_boxes_per_class 0: none
  // torchvision's "no limit", INT64_MAX, held as a float: every box that survives, not none.
  const float no_limit = static_cast<float>(std::numeric_limits<int64_t>::max());
  for (const bool reference : {false, true}) {
    const auto inputs = nms_inputs(boxes, scores, no_limit, 0.5f, 0.0f);
    out = reference ? op->reference(slots(inputs)) : op->run(slots(inputs));
    EXPECT_EQ(out[0].values, (std::vector<float>{0, 0, 3, 0, 0, 0, 0, 0, 5}));
  }
}

TEST(NonMaxSuppressionOp, BothBoxFormatsAndManyClassesMatchTheReference) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (const int center : {0, 1}) {
    SCOPED_TRACE(center);
    HeldTensor boxes{{2, 40, 4}, {}}, scores{{2, 3, 40}, {}};
    for (int i = 0; i < 2 * 40; ++i) {
      const float a = u(rng) * 10, b = u(rng) * 10, w = 0.5f + u(rng) * 3, h = 0.5f + u(rng) * 3;
      // Corners given either way round, as flipped_coordinates does.
      if (center) boxes.values.insert(boxes.values.end(), {a, b, w, h});
      else if (i % 2) boxes.values.insert(boxes.values.end(), {a, b, a + h, b + w});
      else boxes.values.insert(boxes.values.end(), {a + h, b + w, a, b});
    }
    for (int i = 0; i < 2 * 3 * 40; ++i) scores.values.push_back(u(rng));
    const auto op = make_value_shaped_op(node("NonMaxSuppression", {{"center_point_box", center}}));
    for (const float iou : {0.0f, 0.3f, 0.7f})
      for (const float score : {0.0f, 0.5f})
        for (const float max : {1.0f, 5.0f, 100.0f}) expect_same(*op, nms_inputs(boxes, scores, max, iou, score));
    expect_same(*op, {boxes, scores});  // no max_output_boxes_per_class: nothing selected
  }
}

TEST(NonMaxSuppressionOp, ThousandsOfBoxesOffsetByClassAsTorchvisionRunsItMatchTheReference) {
  // torchvision's batched NMS: every class's boxes in one class, moved
  // apart by class. With boxes of no area, boxes spanning every class,
  // and exact duplicates.
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  constexpr int kBoxes = 2400, kClasses = 24;
  HeldTensor boxes{{1, kBoxes, 4}, {}}, scores{{1, 1, kBoxes}, {}};
  for (int i = 0; i < kBoxes; ++i) {
    const float offset = static_cast<float>(i % kClasses) * 101.0f;
    const float y = offset + u(rng) * 90, x = offset + u(rng) * 90, h = 1 + u(rng) * 30 * u(rng), w = 1 + u(rng) * 30;
    if (i % 97 == 0) boxes.values.insert(boxes.values.end(), {0, 0, kClasses * 101.0f, kClasses * 101.0f});
    else if (i % 89 == 0) boxes.values.insert(boxes.values.end(), {y, x, y, x + w});
    else if (i % 83 == 0) boxes.values.insert(boxes.values.end(), boxes.values.end() - 4, boxes.values.end());
    else boxes.values.insert(boxes.values.end(), {y, x, y + h, x + w});
    scores.values.push_back(u(rng));
  }
  const auto op = make_value_shaped_op(node("NonMaxSuppression"));
  const float no_limit = static_cast<float>(std::numeric_limits<int64_t>::max());
  for (const float iou : {0.0f, 0.3f, 0.7f, 1.0f}) {
    SCOPED_TRACE(iou);
    expect_same(*op, nms_inputs(boxes, scores, no_limit, iou, 0.0f));
  }
  const auto kept = op->run(slots(nms_inputs(boxes, scores, no_limit, 0.5f, 0.0f)));
  EXPECT_GT(kept[0].shape[0], kBoxes / 4);  // most boxes of distinct classes survive
  // Outside [0, 1], boxes that do not intersect would overlap enough: refused, as ONNX Runtime does.
  for (const float iou : {-0.5f, 1.5f, NAN})
    EXPECT_THROW(op->run(slots(nms_inputs(boxes, scores, no_limit, iou, 0.0f))), sdk::Error);
}

// ---- models ------------------------------------------------------------------------------

sdk::TensorDesc desc(const std::string& name, Shape shape, sdk::DType dtype = sdk::DType::f32, bool constant = false) {
  return {.name = name, .shape = std::move(shape), .dtype = dtype, .constant = constant};
}

// y = the sum of the positions where x > 0, through NonZero: Greater ->
// NonZero -> Cast -> ReduceSum, the last two planned once NonZero ran.
sdk::Graph positive_positions(int64_t n) {
  sdk::Graph g;
  g.name = "positions";
  g.inputs = {"x"};
  g.outputs = {"y", "count"};
  for (auto t : {desc("x", {n}), desc("zero", {1}, sdk::DType::f32, true), desc("positive", {n}, sdk::DType::boolean),
                 desc("where", {1, -1}, sdk::DType::i64), desc("where_f", {1, -1}), desc("y", {}),
                 desc("shape", {2}, sdk::DType::i64), desc("count", {2}, sdk::DType::i64)})
    g.tensors[t.name] = t;
  g.nodes = {{"greater", "Greater", {"x", "zero"}, {"positive"}, nlohmann::json::object()},
             {"nonzero", "NonZero", {"positive"}, {"where"}, nlohmann::json::object()},
             {"cast", "Cast", {"where"}, {"where_f"}, {{"to", 1}}},
             {"sum", "ReduceSum", {"where_f"}, {"y"}, {{"keepdims", 0}}},
             {"shape_of", "Shape", {"where"}, {"count"}, nlohmann::json::object()}};
  return g;
}

nlohmann::json run(const sdk::Graph& graph, std::vector<std::pair<std::string, std::vector<float>>>& given,
                   std::vector<std::vector<float>>& outputs, int64_t iterations = 2) {
  sdk::GraphRun r;
  r.graph = graph;
  r.iterations = iterations;
  r.threads = 1;
  r.check = true;
  std::vector<sdk::TensorView> in, out;
  for (auto& [name, v] : given) in.push_back({name, v.data(), v.size()});
  for (size_t i = 0; i < outputs.size(); ++i) out.push_back({graph.outputs[i], outputs[i].data(), outputs[i].size()});
  return run_model(r, in, out, std::make_shared<const HostCpu>(test::host()), Tolerance{});
}

TEST(DynamicModel, NonZeroFeedsOpsPlannedOnceItsShapeIsKnown) {
  std::vector<std::pair<std::string, std::vector<float>>> given = {{"x", {1, -2, 3, 0, 5, 6}}, {"zero", {0}}};
  std::vector<std::vector<float>> outputs = {std::vector<float>(1), std::vector<float>(2)};
  const auto report = run(positive_positions(6), given, outputs);
  EXPECT_EQ(outputs[0], (std::vector<float>{0 + 2 + 4 + 5}));
  EXPECT_EQ(outputs[1], (std::vector<float>{1, 4}));
  EXPECT_TRUE(report["check"]["match"].get<bool>()) << report["check"].dump();
  // Warm-up and timed runs saw one shape: the part before NonZero and the part after it, each planned once.
  EXPECT_EQ(report["shapes_known_at_run"]["segment_plans"], 2) << report.dump(2);
}

TEST(DynamicModel, EachDistinctShapeIsPlannedOnce) {
  DynamicModel model(positive_positions(4), std::make_shared<const HostCpu>(test::host()), nlohmann::json::object(), 0);
  ThreadPool pool(1);
  const std::vector<float> zero = {0}, a = {1, 1, -1, -1}, b = {1, -1, 1, -1}, c = {1, 1, 1, -1};
  const auto with = [&](const std::vector<float>& x) { return GivenViews{{"x", x}, {"zero", zero}}; };
  EXPECT_EQ(model.run(with(a), pool)[0].values, (std::vector<float>{1}));
  EXPECT_EQ(model.run(with(b), pool)[0].values, (std::vector<float>{2}));  // two positives again: no new plan
  EXPECT_EQ(model.segment_plans(), 2u);
  EXPECT_EQ(model.run(with(c), pool)[0].values, (std::vector<float>{3}));  // three: the tail planned anew
  EXPECT_EQ(model.segment_plans(), 3u);
}

// y = x[indices], the indices computed as the model runs (a Cast of a
// fed input): the GatherElements reads them as it runs, planned once.
sdk::Graph gather_at_run_time_indices(int64_t n = 4) {
  sdk::Graph g;
  g.name = "gather";
  g.inputs = {"x", "at"};
  g.outputs = {"y"};
  for (auto t : {desc("x", {n}), desc("at", {n}), desc("indices", {n}, sdk::DType::i64), desc("y", {n})}) g.tensors[t.name] = t;
  g.nodes = {{"cast", "Cast", {"at"}, {"indices"}, {{"to", 7}}},
             {"gather", "GatherElements", {"x", "indices"}, {"y"}, {{"axis", 0}}}};
  return g;
}

// y = ReduceSum(x [2, 2], axes) with the axes computed as the model runs:
// the reduction is planned with them as its attribute.
sdk::Graph sum_over_run_time_axes() {
  sdk::Graph g;
  g.name = "sum";
  g.inputs = {"x", "at"};
  g.outputs = {"y"};
  for (auto t : {desc("x", {2, 2}), desc("at", {1}), desc("axes", {1}, sdk::DType::i64), desc("y", {2})}) g.tensors[t.name] = t;
  g.nodes = {{"cast", "Cast", {"at"}, {"axes"}, {{"to", 7}}},
             {"sum", "ReduceSum", {"x", "axes"}, {"y"}, {{"keepdims", 0}}}};
  return g;
}

TEST(DynamicModel, ValuesMetInTheRunBeforeOrEarlierGiveTheirOwnPlan) {
  DynamicModel model(sum_over_run_time_axes(), std::make_shared<const HostCpu>(test::host()), nlohmann::json::object(), 0);
  ThreadPool pool(1);
  const std::vector<float> x = {10, 20, 30, 40}, rows = {0}, columns = {1};
  const auto over = [&](const std::vector<float>& axes) { return model.run(GivenViews{{"x", x}, {"at", axes}}, pool)[0].values; };
  for (int i = 0; i < 2; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(over(rows), (std::vector<float>{40, 60}));
    EXPECT_EQ(over(rows), (std::vector<float>{40, 60}));  // the run before's values
    EXPECT_EQ(over(columns), (std::vector<float>{30, 70}));
  }
  EXPECT_EQ(model.segment_plans(), 3u);  // the Cast; the sum for each set of axes
}

// Indices computed as the model runs, whatever they are, are read by the
// gather's kernel: one plan for every set of them, negative ones counting
// from the end, thousands of them (torchvision's RoI pooling scatters millions).
TEST(DynamicModel, RunTimeIndicesOfAnElementGatherNeedNoNewPlan) {
  const int64_t n = 3000;
  DynamicModel model(gather_at_run_time_indices(n), std::make_shared<const HostCpu>(test::host()), nlohmann::json::object(), 0);
  ThreadPool pool(1);
  for (int64_t shift : {3, 11}) {
    std::vector<float> x(n), at(n), expected(n);
    for (int64_t i = 0; i < n; ++i) {
      x[i] = static_cast<float>(i);
      at[i] = static_cast<float>((i * 7 + shift) % n - (i % 2 ? n : 0));  // negative ones count from the end
      expected[i] = static_cast<float>((i * 7 + shift) % n);
    }
    EXPECT_EQ(model.run(GivenViews{{"x", x}, {"at", at}}, pool)[0].values, expected);
  }
  EXPECT_EQ(model.segment_plans(), 1u);
  std::vector<float> x(n), past(n, 0.0f);
  past[17] = static_cast<float>(n);
  try {
    model.run(GivenViews{{"x", x}, {"at", past}}, pool);
    ADD_FAILURE() << "an index past the axis ran";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("GatherElements 'gather': index 3000 at position 17 is out of range for an axis of 3000"),
              std::string::npos) << e.what();
  }
}

// A list of run-time values of 256 or more travels to the op's plan as the
// bytes of its int64s, read back as the list (RoiAlign's batch indices, one per box).
TEST(DynamicModel, ALongListOfRunTimeValuesTravelsAsBytes) {
  std::vector<int64_t> values;
  for (int64_t i = 0; i < 300; ++i) values.push_back(i % 2 ? -i * 1000003 : i);
  const nlohmann::json attrs = {{"batch_indices", ints_attribute(values)}};
  EXPECT_TRUE(attrs["batch_indices"].is_binary());
  EXPECT_EQ(ints_attr(attrs, "batch_indices", {}), values);
}

// A segment past the budget for kept kernels and input copies makes them
// for each run and releases them after: the same outputs, the same plans,
// only memory traded for the remaking.
TEST(DynamicModel, SegmentsPastTheBudgetReleaseTheirKernelsAfterEachRun) {
  const std::vector<float> zero = {0}, a = {1, 1, -1, -1}, c = {1, 1, 1, -1};
  const auto with = [&](const std::vector<float>& x) { return GivenViews{{"x", x}, {"zero", zero}}; };
  ThreadPool pool(1);
  std::vector<size_t> kernels_reported;
  for (const int64_t budget : {std::numeric_limits<int64_t>::max(), int64_t{1}}) {
    SCOPED_TRACE(budget);
    DynamicModel model(positive_positions(4), std::make_shared<const HostCpu>(test::host()), nlohmann::json::object(), 0,
                       budget);
    for (int i = 0; i < 2; ++i) {
      EXPECT_EQ(model.run(with(a), pool)[0].values, (std::vector<float>{1}));
      EXPECT_EQ(model.run(with(c), pool)[0].values, (std::vector<float>{3}));
    }
    EXPECT_EQ(model.segment_plans(), 3u);  // the head, and the tail for two positives and for three
    // Within the budget nothing is released; with one byte none is kept: each of
    // the 8 segment runs releases what it made.
    EXPECT_EQ(model.segments_released(), budget == 1 ? 8u : 0u);
    kernels_reported.push_back(model.kernels_report(4).size());
  }
  EXPECT_EQ(kernels_reported[0], kernels_reported[1]);  // a released segment's kernels are still reported
}

// out = cond ? x + x : the sum of x kept as [1]: branches of different shapes.
sdk::Graph run_time_if() {
  sdk::Graph then_branch, else_branch, g;
  then_branch.outputs = {"twice"};
  then_branch.tensors = {{"x", desc("x", {3})}, {"twice", desc("twice", {3})}};
  then_branch.nodes = {{"double", "Add", {"x", "x"}, {"twice"}, nlohmann::json::object()}};
  else_branch.outputs = {"total"};
  else_branch.tensors = {{"x", desc("x", {3})}, {"total", desc("total", {1})}};
  else_branch.nodes = {{"sum", "ReduceSum", {"x"}, {"total"}, {{"keepdims", 1}}}};
  g.name = "choose";
  g.inputs = {"cond", "x"};
  g.outputs = {"out"};
  g.tensors = {{"cond", desc("cond", {1}, sdk::DType::boolean)}, {"x", desc("x", {3})}, {"out", desc("out", {-1})}};
  g.nodes = {{"if", "If", {"cond"}, {"out"}, {{"then_branch", then_branch}, {"else_branch", else_branch}}}};
  return g;
}

TEST(DynamicModel, AnIfRunsTheBranchItsConditionChoosesAsTheModelRuns) {
  for (const float cond : {1.0f, 0.0f}) {
    std::vector<std::pair<std::string, std::vector<float>>> given = {{"cond", {cond}}, {"x", {1, 2, 3}}};
    std::vector<std::vector<float>> outputs = {std::vector<float>(cond ? 3 : 1)};
    const auto report = run(run_time_if(), given, outputs);
    EXPECT_EQ(outputs[0], (cond ? std::vector<float>{2, 4, 6} : std::vector<float>{6}));
    EXPECT_TRUE(report["check"]["match"].get<bool>()) << report["check"].dump();
  }
  // A buffer of the other branch's size is an error naming the output and its shape.
  std::vector<std::pair<std::string, std::vector<float>>> given = {{"cond", {1}}, {"x", {1, 2, 3}}};
  std::vector<std::vector<float>> outputs = {std::vector<float>(1)};
  try {
    run(run_time_if(), given, outputs);
    FAIL() << "a buffer of the wrong size was taken";
  } catch (const sdk::Error& e) {
    EXPECT_NE(std::string(e.what()).find("output 'out' has shape [3]"), std::string::npos) << e.what();
  }
}

// out = cond ? x * w : the sum of x * w kept as [1], w the model's weight
// that both branches read from outside, as an exporter's If does.
sdk::Graph if_reading_a_weight() {
  sdk::Graph g = run_time_if();
  auto then_branch = g.nodes[0].attrs["then_branch"].get<sdk::Graph>();
  then_branch.nodes = {{"scale", "Mul", {"x", "w"}, {"twice"}, nlohmann::json::object()}};
  auto else_branch = g.nodes[0].attrs["else_branch"].get<sdk::Graph>();
  else_branch.tensors["scaled"] = desc("scaled", {3});
  else_branch.nodes = {{"scale", "Mul", {"x", "w"}, {"scaled"}, nlohmann::json::object()},
                       {"sum", "ReduceSum", {"scaled"}, {"total"}, {{"keepdims", 1}}}};
  g.nodes[0].attrs["then_branch"] = then_branch;
  g.nodes[0].attrs["else_branch"] = else_branch;
  g.tensors["w"] = desc("w", {3}, sdk::DType::f32, true);
  return g;
}

// A run that meets the shapes and values of a run before repeats its
// rounds as they were decided; a condition that changes picks its branch.
TEST(DynamicModel, RunsRepeatTheirRoundsAndFollowAChangedCondition) {
  DynamicModel model(if_reading_a_weight(), std::make_shared<const HostCpu>(test::host()), nlohmann::json::object(), 0);
  ThreadPool pool(1);
  const std::vector<float> w = {1, 10, 100}, on = {1}, off = {0};
  std::vector<float> x = {1, 2, 3};
  const auto out = [&](const std::vector<float>& cond) {
    return model.run(GivenViews{{"cond", cond}, {"x", x}, {"w", w}}, pool)[0].values;
  };
  for (int i = 0; i < 2; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(out(on), (std::vector<float>{1, 20, 300}));
    EXPECT_EQ(out(on), (std::vector<float>{1, 20, 300}));
    EXPECT_EQ(out(off), (std::vector<float>{321}));
    x = {3, 2, 1};  // new values, the same shapes
    EXPECT_EQ(out(off), (std::vector<float>{123}));
    EXPECT_EQ(out(on), (std::vector<float>{3, 20, 100}));
    x = {1, 2, 3};
  }
  EXPECT_EQ(model.segment_plans(), 2u);  // each branch's, once
}

TEST(DynamicModel, AnOpWhoseShapeCannotBeInferredAfterNonZeroIsRefusedByName) {
  sdk::Graph g = positive_positions(6);
  g.nodes[2] = {"s2d", "SpaceToDepth", {"where"}, {"where_f"}, {{"blocksize", 2}}};
  std::vector<std::pair<std::string, std::vector<float>>> given = {{"x", {1, -2, 3, 0, 5, 6}}, {"zero", {0}}};
  std::vector<std::vector<float>> outputs = {std::vector<float>(1), std::vector<float>(2)};
  try {
    run(g, given, outputs);
    FAIL() << "the SpaceToDepth ran";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), sdk::StatusCode::unsupported);
    EXPECT_NE(std::string(e.what()).find("node 's2d' (SpaceToDepth)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace aoe::cpu
