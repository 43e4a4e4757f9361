// scikit-learn models as skl2onnx exports them (ai.onnx.ml: linear models,
// tree ensembles, feature transforms, a ZipMap at the end), through the real
// binary: each output worked out by hand, and OPAT on both devices exits 0.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "aoe_host_fixture.h"
#include "child_process.h"
#include "npz_file.h"

namespace aoe::test {
namespace {

namespace fs = std::filesystem;
using Attr = onnx::AttributeProto;

class ScikitLearn : public AoeHostTest {
 protected:
  ProcessResult run(const onnx::ModelProto& model, const host::FloatArray& x) const {
    save(model);
    host::write_npz(dir_ / "in.npz", {{"X", x}});
    return aoe_host({"run", "--device", "cpu", "--model", (dir_ / "m.onnx").string(), "--threads", "1", "--iterations",
                     "1", "--inputs", (dir_ / "in.npz").string(), "--outputs", (dir_ / "out.npz").string(), "--check",
                     "--input_shape", "X:" + std::to_string(x.shape[0]) + "," + std::to_string(x.shape[1])});
  }
  std::map<std::string, host::FloatArray> outputs() const { return host::read_npz(dir_ / "out.npz"); }
  void expect_tunes() const {
    for (const char* device : {"ascend910", "cpu"}) {
      const auto r = aoe_host({"--plugin", "opat", "--device", device, "--model", (dir_ / "m.onnx").string(), "--budget",
                               "2", "--input_shape", "X:2,2"});
      EXPECT_EQ(r.exit_code, 0) << device << "\n" << failure_text(r);
    }
  }
  void save(const onnx::ModelProto& model) const {
    std::ofstream out(dir_ / "m.onnx", std::ios::binary | std::ios::trunc);
    ASSERT_TRUE(model.SerializeToOstream(&out));
  }
};

// A model of X [N, 2] (N unnamed) and the given outputs, importing ai.onnx.ml 1.
onnx::ModelProto ml_model(const std::vector<std::pair<std::string, int>>& outputs) {
  onnx::ModelProto model;
  model.set_ir_version(7);
  model.set_producer_name("skl2onnx");
  model.add_opset_import()->set_version(13);
  auto* ml = model.add_opset_import();
  ml->set_domain("ai.onnx.ml");
  ml->set_version(1);
  auto* g = model.mutable_graph();
  g->set_name("pipeline");
  auto* x = g->add_input();
  x->set_name("X");
  auto* type = x->mutable_type()->mutable_tensor_type();
  type->set_elem_type(onnx::TensorProto::FLOAT);
  type->mutable_shape()->add_dim()->set_dim_param("N");
  type->mutable_shape()->add_dim()->set_dim_value(2);
  for (const auto& [name, elem] : outputs) {
    auto* out = g->add_output();
    out->set_name(name);
    out->mutable_type()->mutable_tensor_type()->set_elem_type(elem);
  }
  return model;
}

onnx::NodeProto* ml_node(onnx::ModelProto& model, const std::string& op, const std::vector<std::string>& inputs,
                         const std::vector<std::string>& outputs) {
  auto* node = model.mutable_graph()->add_node();
  node->set_op_type(op);
  node->set_domain("ai.onnx.ml");
  node->set_name(op + "_" + std::to_string(model.graph().node_size()));
  for (const auto& i : inputs) node->add_input(i);
  for (const auto& o : outputs) node->add_output(o);
  return node;
}

Attr* attribute(onnx::NodeProto* node, const std::string& name, Attr::AttributeType type) {
  auto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(type);
  return a;
}
void floats(onnx::NodeProto* n, const std::string& name, const std::vector<float>& v) {
  auto* a = attribute(n, name, Attr::FLOATS);
  for (float f : v) a->add_floats(f);
}
void ints(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = attribute(n, name, Attr::INTS);
  for (int64_t i : v) a->add_ints(i);
}
void strings(onnx::NodeProto* n, const std::string& name, const std::vector<std::string>& v) {
  auto* a = attribute(n, name, Attr::STRINGS);
  for (const auto& s : v) a->add_strings(s);
}
void text(onnx::NodeProto* n, const std::string& name, const std::string& v) { attribute(n, name, Attr::STRING)->set_s(v); }
void number(onnx::NodeProto* n, const std::string& name, float v) { attribute(n, name, Attr::FLOAT)->set_f(v); }

double logistic(double s) { return 1 / (1 + std::exp(-s)); }

// LogisticRegression of three classes: scores X W^T + b, softmax, then L1
// (as skl2onnx writes it), the probabilities through a ZipMap: the output
// is their [N, 3] tensor, and the label the class of the largest score.
TEST_F(ScikitLearn, ALogisticRegressionsZipMapGivesItsProbabilityTensor) {
  auto model = ml_model({{"label", onnx::TensorProto::INT64}, {"output_probability", onnx::TensorProto::UNDEFINED}});
  model.mutable_graph()->mutable_output(1)->clear_type();
  auto* seq = model.mutable_graph()->mutable_output(1)->mutable_type()->mutable_sequence_type()->mutable_elem_type();
  seq->mutable_map_type()->set_key_type(onnx::TensorProto::INT64);
  seq->mutable_map_type()->mutable_value_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  const std::vector<float> w = {1, -1, 0.5f, 2, -2, 0.25f}, b = {0.1f, -0.3f, 0.2f};
  auto* linear = ml_node(model, "LinearClassifier", {"X"}, {"label", "probability_tensor"});
  floats(linear, "coefficients", w);
  floats(linear, "intercepts", b);
  ints(linear, "classlabels_ints", {4, 5, 6});
  text(linear, "post_transform", "SOFTMAX");
  text(ml_node(model, "Normalizer", {"probability_tensor"}, {"probabilities"}), "norm", "L1");
  ints(ml_node(model, "ZipMap", {"probabilities"}, {"output_probability"}), "classlabels_int64s", {4, 5, 6});
  const std::vector<float> x = {0.5f, 1.5f, -1, 0.25f};
  const auto r = run(model, host::FloatArray{{2, 2}, x});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  EXPECT_NE(r.err.find("1 ZipMap outputs given as their probability tensors"), std::string::npos) << r.err;
  const auto out = outputs();
  ASSERT_EQ(out.at("output_probability").shape, (std::vector<int64_t>{2, 3}));
  for (int row = 0; row < 2; ++row) {
    double s[3], sum = 0;
    int best = 0;
    for (int c = 0; c < 3; ++c) {
      s[c] = b[c] + w[c * 2] * x[row * 2] + w[c * 2 + 1] * x[row * 2 + 1];
      if (s[c] > s[best]) best = c;
    }
    for (double& v : s) sum += (v = std::exp(v));
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(out.at("output_probability").data[row * 3 + c], s[c] / sum, 1e-6);
    EXPECT_EQ(out.at("label").data[row], static_cast<float>(4 + best));
  }
  expect_tunes();
}

// Gradient boosting of two classes: two stumps whose margins add to a base
// value, one score made [logistic(-s), logistic(s)], the label s > 0; a NaN
// goes where nodes_missing_value_tracks_true sends it.
TEST_F(ScikitLearn, ABoostedBinaryClassifierWalksEachTreeToALeaf) {
  auto model = ml_model({{"label", onnx::TensorProto::INT64}, {"probabilities", onnx::TensorProto::FLOAT}});
  auto* trees = ml_node(model, "TreeEnsembleClassifier", {"X"}, {"label", "probabilities"});
  // Tree 0: X[0] <= 0.5 ? -1 : 2. Tree 1: X[1] < 0 (or NaN) ? 0.5 : -0.75.
  ints(trees, "nodes_treeids", {0, 0, 0, 1, 1, 1});
  ints(trees, "nodes_nodeids", {0, 1, 2, 0, 1, 2});
  ints(trees, "nodes_featureids", {0, 0, 0, 1, 0, 0});
  strings(trees, "nodes_modes", {"BRANCH_LEQ", "LEAF", "LEAF", "BRANCH_LT", "LEAF", "LEAF"});
  floats(trees, "nodes_values", {0.5f, 0, 0, 0, 0, 0});
  ints(trees, "nodes_truenodeids", {1, 0, 0, 1, 0, 0});
  ints(trees, "nodes_falsenodeids", {2, 0, 0, 2, 0, 0});
  ints(trees, "nodes_missing_value_tracks_true", {0, 0, 0, 1, 0, 0});
  ints(trees, "class_treeids", {0, 0, 1, 1});
  ints(trees, "class_nodeids", {1, 2, 1, 2});
  ints(trees, "class_ids", {0, 0, 0, 0});
  floats(trees, "class_weights", {-1, 2, 0.5f, -0.75f});
  floats(trees, "base_values", {0.25f});
  ints(trees, "classlabels_int64s", {7, 9});
  text(trees, "post_transform", "LOGISTIC");
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto r = run(model, host::FloatArray{{4, 2}, {0.5f, 1, 0.75f, -1, 0, nan, 2, 0}});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const auto out = outputs();
  const std::vector<double> margins = {-1 - 0.75 + 0.25, 2 + 0.5 + 0.25, -1 + 0.5 + 0.25, 2 - 0.75 + 0.25};
  for (size_t row = 0; row < margins.size(); ++row) {
    EXPECT_NEAR(out.at("probabilities").data[row * 2], logistic(-margins[row]), 1e-6) << row;
    EXPECT_NEAR(out.at("probabilities").data[row * 2 + 1], logistic(margins[row]), 1e-6) << row;
    EXPECT_EQ(out.at("label").data[row], margins[row] > 0 ? 9.0f : 7.0f) << row;
  }
  expect_tunes();
}

// A forest regressor averages its trees, then adds the base value.
TEST_F(ScikitLearn, AForestRegressorAveragesItsTrees) {
  auto model = ml_model({{"variable", onnx::TensorProto::FLOAT}});
  auto* trees = ml_node(model, "TreeEnsembleRegressor", {"X"}, {"variable"});
  ints(trees, "nodes_treeids", {0, 0, 0, 1, 1, 1});
  ints(trees, "nodes_nodeids", {0, 1, 2, 0, 1, 2});
  ints(trees, "nodes_featureids", {1, 0, 0, 0, 0, 0});
  strings(trees, "nodes_modes", {"BRANCH_GT", "LEAF", "LEAF", "BRANCH_GTE", "LEAF", "LEAF"});
  floats(trees, "nodes_values", {0, 0, 0, 1, 0, 0});
  ints(trees, "nodes_truenodeids", {1, 0, 0, 1, 0, 0});
  ints(trees, "nodes_falsenodeids", {2, 0, 0, 2, 0, 0});
  ints(trees, "target_treeids", {0, 0, 1, 1});
  ints(trees, "target_nodeids", {1, 2, 1, 2});
  ints(trees, "target_ids", {0, 0, 0, 0});
  floats(trees, "target_weights", {10, 20, 3, 5});
  floats(trees, "base_values", {100});
  text(trees, "aggregate_function", "AVERAGE");
  const auto r = run(model, host::FloatArray{{3, 2}, {1, 1, 0.5f, -1, 2, 0}});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  EXPECT_EQ(outputs().at("variable").shape, (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(outputs().at("variable").data, (std::vector<float>{106.5f, 112.5f, 111.5f}));
  expect_tunes();
}

// A pipeline's feature transforms: NaN imputed per feature, then scaled,
// normalised, a feature picked and binarized.
TEST_F(ScikitLearn, APipelinesFeatureTransformsRunInTurn) {
  auto model = ml_model({{"scaled", onnx::TensorProto::FLOAT}, {"bits", onnx::TensorProto::FLOAT}});
  auto* impute = ml_node(model, "Imputer", {"X"}, {"imputed"});
  floats(impute, "imputed_value_floats", {3, 4});
  number(impute, "replaced_value_float", std::numeric_limits<float>::quiet_NaN());
  auto* scale = ml_node(model, "Scaler", {"imputed"}, {"scaled"});
  floats(scale, "offset", {1, 2});
  floats(scale, "scale", {0.5f, 2});
  text(ml_node(model, "Normalizer", {"scaled"}, {"normed"}), "norm", "MAX");
  auto* index = model.mutable_graph()->add_initializer();
  index->set_name("second");
  index->set_data_type(onnx::TensorProto::INT64);
  index->add_dims(1);
  index->add_int64_data(1);
  ml_node(model, "ArrayFeatureExtractor", {"normed", "second"}, {"picked"});
  number(ml_node(model, "Binarizer", {"picked"}, {"bits"}), "threshold", 0.5f);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto r = run(model, host::FloatArray{{3, 2}, {nan, 2.5f, 5, nan, 3, 2}});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const auto out = outputs();
  // Rows scaled: [1, 1], [2, 4], [1, 0]; by their max: [1, 1], [0.5, 1], [1, 0].
  EXPECT_EQ(out.at("scaled").data, (std::vector<float>{1, 1, 2, 4, 1, 0}));
  EXPECT_EQ(out.at("bits").shape, (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(out.at("bits").data, (std::vector<float>{1, 1, 0}));
  expect_tunes();
}

// OneHotEncoder: each value a row over the categories, 1 at its own; a value
// of no category (scikit-learn's handle_unknown="ignore") all 0.
TEST_F(ScikitLearn, AOneHotEncoderGivesEachValueARowOfItsCategories) {
  auto model = ml_model({{"encoded", onnx::TensorProto::FLOAT}});
  auto* encoder = ml_node(model, "OneHotEncoder", {"X"}, {"encoded"});
  ints(encoder, "cats_int64s", {3, 1, 7});
  const auto r = run(model, host::FloatArray{{2, 2}, {1, 7, 2, 3}});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  const auto out = outputs();
  EXPECT_EQ(out.at("encoded").shape, (std::vector<int64_t>{2, 2, 3}));
  EXPECT_EQ(out.at("encoded").data, (std::vector<float>{0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0}));
  expect_tunes();
}

// libsvm's SVC of three classes, a support vector each, linear kernel: each
// pair (0,1), (0,2), (1,2) decides by both its classes' vectors, votes, and
// the scores are the three decisions; an SVR sums its RBF kernels.
TEST_F(ScikitLearn, AnSvcVotesOverItsPairsOfClassesAndAnSvrSumsItsKernels) {
  const std::vector<float> sv = {1, 0, 0, 1, -1, -1};  // one per class
  // coefficients [classes - 1, vectors]: class i's vector in pair (i, j) reads row j - 1, class j's row i.
  const std::vector<float> coef = {1, -1, 0.5f, 2, -0.5f, -2}, rho = {0.1f, -0.2f, 0.3f};
  auto model = ml_model({{"label", onnx::TensorProto::INT64}, {"probabilities", onnx::TensorProto::FLOAT}});
  auto* svc = ml_node(model, "SVMClassifier", {"X"}, {"label", "probabilities"});
  floats(svc, "coefficients", coef);
  floats(svc, "support_vectors", sv);
  ints(svc, "vectors_per_class", {1, 1, 1});
  floats(svc, "rho", rho);
  text(svc, "kernel_type", "LINEAR");
  ints(svc, "classlabels_ints", {0, 1, 2});
  const std::vector<float> x = {2, 1, -1, 3, 0.5f, -2};
  auto r = run(model, host::FloatArray{{3, 2}, x});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  auto out = outputs();
  for (int row = 0; row < 3; ++row) {
    double k[3];
    for (int v = 0; v < 3; ++v) k[v] = x[row * 2] * sv[v * 2] + x[row * 2 + 1] * sv[v * 2 + 1];
    const int pairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    int votes[3] = {0, 0, 0};
    for (int p = 0; p < 3; ++p) {
      const int i = pairs[p][0], j = pairs[p][1];
      const double d = coef[(j - 1) * 3 + i] * k[i] + coef[i * 3 + j] * k[j] + rho[p];
      EXPECT_NEAR(out.at("probabilities").data[row * 3 + p], d, 1e-5) << row << " " << p;
      ++votes[d > 0 ? i : j];
    }
    const int best = static_cast<int>(std::max_element(votes, votes + 3) - votes);
    EXPECT_EQ(out.at("label").data[row], static_cast<float>(best)) << row;
  }
  expect_tunes();

  auto regression = ml_model({{"variable", onnx::TensorProto::FLOAT}});
  auto* svr = ml_node(regression, "SVMRegressor", {"X"}, {"variable"});
  floats(svr, "coefficients", {2, -1});
  floats(svr, "support_vectors", {0, 0, 1, 1});
  attribute(svr, "n_supports", Attr::INT)->set_i(2);
  floats(svr, "rho", {0.5f});
  text(svr, "kernel_type", "RBF");
  floats(svr, "kernel_params", {0.5f, 0, 3});
  r = run(regression, host::FloatArray{{2, 2}, {1, 0, 2, 2}});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  out = outputs();
  // |x - v|^2: row 0, 1 and 1; row 1, 8 and 2.
  EXPECT_NEAR(out.at("variable").data[0], 2 * std::exp(-0.5) - std::exp(-0.5) + 0.5, 1e-6);
  EXPECT_NEAR(out.at("variable").data[1], 2 * std::exp(-4.0) - std::exp(-1.0) + 0.5, 1e-6);
}

// A chain of 64 branches whose two ways both go to the next: 2^64 paths to
// one leaf, each node searched once as the ensemble is read.
TEST_F(ScikitLearn, BranchesSharingAChildAreReadInTimeLinearInTheirNodes) {
  auto model = ml_model({{"variable", onnx::TensorProto::FLOAT}});
  auto* trees = ml_node(model, "TreeEnsembleRegressor", {"X"}, {"variable"});
  constexpr int kBranches = 64;
  std::vector<int64_t> zeros(kBranches + 1, 0), ids, next;
  std::vector<std::string> modes(kBranches, "BRANCH_LEQ");
  modes.push_back("LEAF");
  for (int i = 0; i <= kBranches; ++i) ids.push_back(i), next.push_back(i < kBranches ? i + 1 : 0);
  ints(trees, "nodes_treeids", zeros);
  ints(trees, "nodes_nodeids", ids);
  ints(trees, "nodes_featureids", zeros);
  strings(trees, "nodes_modes", modes);
  floats(trees, "nodes_values", std::vector<float>(kBranches + 1, 0));
  ints(trees, "nodes_truenodeids", next);
  ints(trees, "nodes_falsenodeids", next);
  ints(trees, "target_treeids", {0});
  ints(trees, "target_nodeids", {kBranches});
  ints(trees, "target_ids", {0});
  floats(trees, "target_weights", {3});
  const auto r = run(model, host::FloatArray{{1, 2}, {1, 2}});
  ASSERT_EQ(r.exit_code, 0) << failure_text(r);
  EXPECT_EQ(outputs().at("variable").data, (std::vector<float>{3}));
}

// What the cpu device cannot hold or read is named, with what to do.
TEST_F(ScikitLearn, StringLabelsAndBrokenTreesAreNamed) {
  auto labelled = ml_model({{"label", onnx::TensorProto::STRING}, {"probabilities", onnx::TensorProto::FLOAT}});
  auto* linear = ml_node(labelled, "LinearClassifier", {"X"}, {"label", "probabilities"});
  floats(linear, "coefficients", {1, 2, 3, 4});
  floats(linear, "intercepts", {0, 0});
  strings(linear, "classlabels_strings", {"cat", "dog"});
  auto r = run(labelled, host::FloatArray{{1, 2}, {1, 2}});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("output 'label'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("strings"), std::string::npos) << r.err;

  auto broken = ml_model({{"variable", onnx::TensorProto::FLOAT}});
  auto* trees = ml_node(broken, "TreeEnsembleRegressor", {"X"}, {"variable"});
  ints(trees, "nodes_treeids", {0, 0});
  ints(trees, "nodes_nodeids", {0, 1});
  ints(trees, "nodes_featureids", {0, 0});
  strings(trees, "nodes_modes", {"BRANCH_LEQ", "LEAF"});
  floats(trees, "nodes_values", {0, 0});
  ints(trees, "nodes_truenodeids", {1, 0});
  ints(trees, "nodes_falsenodeids", {7, 0});
  ints(trees, "target_treeids", {0});
  ints(trees, "target_nodeids", {1});
  ints(trees, "target_ids", {0});
  floats(trees, "target_weights", {1});
  r = run(broken, host::FloatArray{{1, 2}, {1, 2}});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("names child 7, which the tree lacks"), std::string::npos) << r.err;

  // Node 1 names itself: a walk reaching it would never end.
  auto looped = ml_model({{"variable", onnx::TensorProto::FLOAT}});
  trees = ml_node(looped, "TreeEnsembleRegressor", {"X"}, {"variable"});
  ints(trees, "nodes_treeids", {0, 0, 0});
  ints(trees, "nodes_nodeids", {0, 1, 2});
  ints(trees, "nodes_featureids", {0, 1, 0});
  strings(trees, "nodes_modes", {"BRANCH_LEQ", "BRANCH_LEQ", "LEAF"});
  floats(trees, "nodes_values", {0, 0, 0});
  ints(trees, "nodes_truenodeids", {1, 1, 0});
  ints(trees, "nodes_falsenodeids", {2, 2, 0});
  ints(trees, "target_treeids", {0});
  ints(trees, "target_nodeids", {2});
  ints(trees, "target_ids", {0});
  floats(trees, "target_weights", {1});
  r = run(looped, host::FloatArray{{1, 2}, {1, 2}});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("a path through its trees comes back to a node it passed"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace aoe::test
