// TreeEnsembleClassifier and TreeEnsembleRegressor (ai.onnx.ml), as ONNX
// Runtime runs them. Each row of X ([N, F], or [F] as one row) walks every
// tree from its root (a node no other node of its tree names as a child):
// at a branch, X[feature] against the node's value by its mode (BRANCH_LEQ,
// LT, GTE, GT, EQ, NEQ), a NaN going the true way where
// nodes_missing_value_tracks_true says so. The leaf's weights add to their
// targets or classes (the regressor's aggregate_function: SUM, AVERAGE over
// the trees, MIN or MAX), then base_values and post_transform.
// The classifier's label is the class of the largest score; with two labels
// it follows ONNX Runtime's binary rules (`binary_scores`), but gives the
// labels themselves where ONNX Runtime gives 1 and 0 for integer labels.
// Thresholds as tensors (the *_as_tensor attributes of ai.onnx.ml 3) are refused.
#include "op_factories.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "held_dtype.h"
#include "ml_outputs.h"
#include "ml_scores.h"
#include "op_util.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

enum class Mode { leq, lt, gte, gt, eq, neq, leaf };
enum class Aggregate { sum, average, min, max };

Mode mode_of(const std::string& name, const std::string& who) {
  static const std::map<std::string, Mode> modes = {{"BRANCH_LEQ", Mode::leq}, {"BRANCH_LT", Mode::lt},
                                                    {"BRANCH_GTE", Mode::gte}, {"BRANCH_GT", Mode::gt},
                                                    {"BRANCH_EQ", Mode::eq},   {"BRANCH_NEQ", Mode::neq},
                                                    {"LEAF", Mode::leaf}};
  const auto it = modes.find(name);
  if (it == modes.end()) invalid(who + ": node mode '" + name + "' is not one of ONNX's");
  return it->second;
}

Aggregate aggregate_of(const std::string& name, const std::string& who) {
  if (name == "SUM") return Aggregate::sum;
  if (name == "AVERAGE") return Aggregate::average;
  if (name == "MIN") return Aggregate::min;
  if (name == "MAX") return Aggregate::max;
  invalid(who + ": aggregate_function '" + name + "' is none of SUM, AVERAGE, MIN and MAX");
}

// 24 bytes, the weights apart: a walk reads one node per level.
struct TreeNode {
  Mode mode = Mode::leaf;
  bool missing_true = false;
  int32_t feature = 0;
  float value = 0;
  int32_t yes = -1, no = -1;            // children, by index
  int32_t weights = 0, weight_count = 0;  // a leaf's, in weights_
};

struct LeafWeight {
  int64_t target;  // or class
  double weight;
};

// (tree id, node id) -> the node's index, while the attributes are read.
using NodeIndex = std::map<std::pair<int64_t, int64_t>, int32_t>;

class TreeEnsembleOp final : public ThreadedOp {
 public:
  TreeEnsembleOp(const sdk::OpTask& task, const HostCpu& host) : who_(task.op_type + " '" + task.name + "'") {
    classifier_ = task.op_type == "TreeEnsembleClassifier";
    require_plain(task, 1, 1, {}, Takes::held);
    for (const char* name : {"nodes_values_as_tensor", "nodes_hitrates_as_tensor", "base_values_as_tensor",
                             "class_weights_as_tensor", "target_weights_as_tensor"})
      if (task.attrs.is_object() && task.attrs.contains(name))
        unsupported(who_ + " holds " + name + ": the cpu device reads float thresholds and weights only; export with "
                           "ai.onnx.ml opset 1 or 2, or float32 values");
    const auto [rows, features] = ml_rows(task, who_);
    rows_ = rows, features_ = features;
    NodeIndex index;
    read_nodes(task.attrs, index);
    const char* prefix = classifier_ ? "class_" : "target_";
    if (classifier_) {
      if (!strings_attr(task.attrs, "classlabels_strings").empty())
        unsupported(who_ + " has string class labels (classlabels_strings): the cpu device holds numbers only; "
                           "export the classifier with integer labels");
      labels_ = ints_attr(task.attrs, "classlabels_int64s", {});
      targets_ = static_cast<int64_t>(labels_.size());
    } else {
      targets_ = int_attr(task.attrs, "n_targets", 1);
      aggregate_ = aggregate_of(string_attr(task.attrs, "aggregate_function", "SUM"), who_);
    }
    if (targets_ < 1) invalid(who_ + (classifier_ ? " has no class labels" : " has n_targets below 1"));
    read_weights(task.attrs, prefix, index);
    base_ = floats_attr(task.attrs, "base_values");
    transform_ = post_transform_of(string_attr(task.attrs, "post_transform", "NONE"), who_);
    set_shapes(task, ml_outputs(task, who_, classifier_, rows_, targets_), host, static_cast<double>(rows_) * static_cast<double>(roots_.size()) * 16.0);
  }

  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    parallel_runs(pool, threads, rows_, 16, [&](int64_t begin, int64_t end) { run_rows<float>(in[0], out, begin, end); }, 1);
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    run_rows<double>(in[0], out, 0, rows_);
  }

 private:
  void read_nodes(const nlohmann::json& attrs, NodeIndex& index) {
    const auto trees = ints_attr(attrs, "nodes_treeids", {}), ids = ints_attr(attrs, "nodes_nodeids", {}),
               features = ints_attr(attrs, "nodes_featureids", {}), yes = ints_attr(attrs, "nodes_truenodeids", {}),
               no = ints_attr(attrs, "nodes_falsenodeids", {}),
               missing = ints_attr(attrs, "nodes_missing_value_tracks_true", {});
    const auto values = floats_attr(attrs, "nodes_values");
    const auto modes = strings_attr(attrs, "nodes_modes");
    const size_t n = trees.size();
    if (n == 0) invalid(who_ + " has no nodes");
    for (const auto& [name, size] : {std::pair{"nodes_nodeids", ids.size()}, {"nodes_featureids", features.size()},
                                     {"nodes_truenodeids", yes.size()}, {"nodes_falsenodeids", no.size()},
                                     {"nodes_values", values.size()}, {"nodes_modes", modes.size()}})
      if (size != n) invalid(who_ + ": " + name + " holds " + std::to_string(size) + " values for " + std::to_string(n) + " nodes");
    if (!missing.empty() && missing.size() != n)
      invalid(who_ + ": nodes_missing_value_tracks_true holds " + std::to_string(missing.size()) + " values for " +
              std::to_string(n) + " nodes");
    for (size_t i = 0; i < n; ++i)
      if (!index.emplace(std::pair{trees[i], ids[i]}, static_cast<int32_t>(i)).second)
        invalid(who_ + ": tree " + std::to_string(trees[i]) + " has two nodes " + std::to_string(ids[i]));
    nodes_.resize(n);
    std::vector<char> is_child(n, 0);
    for (size_t i = 0; i < n; ++i) {
      TreeNode& node = nodes_[i];
      node.mode = mode_of(modes[i], who_);
      node.value = static_cast<float>(values[i]);
      node.missing_true = !missing.empty() && missing[i] != 0;
      if (node.mode == Mode::leaf) continue;
      if (features[i] < 0 || features[i] >= features_)
        invalid(who_ + ": node " + std::to_string(ids[i]) + " of tree " + std::to_string(trees[i]) + " reads feature " +
                std::to_string(features[i]) + " of X's " + std::to_string(features_));
      node.feature = static_cast<int32_t>(features[i]);
      node.yes = child(index, trees[i], yes[i], ids[i]);
      node.no = child(index, trees[i], no[i], ids[i]);
      is_child[static_cast<size_t>(node.yes)] = is_child[static_cast<size_t>(node.no)] = 1;
    }
    for (size_t i = 0; i < n; ++i)
      if (!is_child[i]) roots_.push_back(static_cast<int32_t>(i));
    uniform_ = uniform_mode();
    if (roots_.empty()) invalid(who_ + ": every node is another's child; a tree has no root");
    require_acyclic();
  }

  // The one mode every branch has, where no branch sends a NaN the true way
  // and the mode is an order (EQ and NEQ take the general walk).
  std::optional<Mode> uniform_mode() const {
    std::optional<Mode> mode;
    for (const TreeNode& node : nodes_) {
      if (node.mode == Mode::leaf) continue;
      if (node.missing_true || node.mode == Mode::eq || node.mode == Mode::neq || (mode && *mode != node.mode))
        return std::nullopt;
      mode = node.mode;
    }
    return mode;
  }

  int32_t child(const NodeIndex& index, int64_t tree, int64_t id, int64_t parent) const {
    const auto it = index.find({tree, id});
    if (it == index.end())
      invalid(who_ + ": node " + std::to_string(parent) + " of tree " + std::to_string(tree) + " names child " +
              std::to_string(id) + ", which the tree lacks");
    return it->second;
  }

  // A walk ends: no path from a root comes back to a node on it. A depth-first
  // search from the roots, each node searched once, so a malformed ensemble
  // whose branches share children costs no more than its nodes.
  void require_acyclic() const {
    enum : char { unseen, on_path, done };
    std::vector<char> state(nodes_.size(), unseen);
    std::vector<std::pair<int32_t, int>> stack;  // node, children pushed: 0 before, 1 after
    for (int32_t root : roots_) {
      stack.push_back({root, 0});
      while (!stack.empty()) {
        auto& [i, pushed] = stack.back();
        const auto at = static_cast<size_t>(i);
        if (pushed || state[at] == done) {  // its subtree searched, or reached again by another branch
          state[at] = done;
          stack.pop_back();
          continue;
        }
        pushed = 1;
        state[at] = on_path;
        const TreeNode& node = nodes_[at];
        if (node.mode == Mode::leaf) continue;
        for (const int32_t next : {node.yes, node.no}) {
          if (state[static_cast<size_t>(next)] == on_path)
            invalid(who_ + ": a path through its trees comes back to a node it passed");
          if (state[static_cast<size_t>(next)] == unseen) stack.push_back({next, 0});
        }
      }
    }
  }

  void read_weights(const nlohmann::json& attrs, const std::string& prefix, const NodeIndex& index) {
    const auto trees = ints_attr(attrs, (prefix + "treeids").c_str(), {}),
               ids = ints_attr(attrs, (prefix + "nodeids").c_str(), {}),
               targets = ints_attr(attrs, (prefix + "ids").c_str(), {});
    const auto weights = floats_attr(attrs, (prefix + "weights").c_str());
    if (ids.size() != trees.size() || targets.size() != trees.size() || weights.size() != trees.size())
      invalid(who_ + ": " + prefix + "treeids, nodeids, ids and weights hold " + std::to_string(trees.size()) + ", " +
              std::to_string(ids.size()) + ", " + std::to_string(targets.size()) + " and " + std::to_string(weights.size()) +
              " values");
    std::set<int64_t> classes;
    std::vector<std::vector<LeafWeight>> by_node(nodes_.size());
    for (size_t i = 0; i < trees.size(); ++i) {
      const auto it = index.find({trees[i], ids[i]});
      if (it == index.end())
        invalid(who_ + ": a weight names node " + std::to_string(ids[i]) + " of tree " + std::to_string(trees[i]) +
                ", which is not among its nodes");
      if (targets[i] < 0 || targets[i] >= targets_)
        invalid(who_ + ": a weight goes to " + (classifier_ ? "class " : "target ") + std::to_string(targets[i]) + " of " +
                std::to_string(targets_));
      by_node[static_cast<size_t>(it->second)].push_back({targets[i], weights[i]});
      classes.insert(targets[i]);
      all_positive_ = all_positive_ && weights[i] >= 0;
    }
    for (size_t i = 0; i < nodes_.size(); ++i) {
      nodes_[i].weights = static_cast<int32_t>(weights_.size());
      nodes_[i].weight_count = static_cast<int32_t>(by_node[i].size());
      weights_.insert(weights_.end(), by_node[i].begin(), by_node[i].end());
    }
    binary_case_ = classifier_ && targets_ == 2 && classes.size() == 1;
  }

  // The leaf a row reaches from node `i`, each branch compared by its own mode.
  const TreeNode& walk(int32_t i, const float* row) const {
    const TreeNode* node = &nodes_[static_cast<size_t>(i)];
    while (node->mode != Mode::leaf) {
      const float v = row[node->feature], t = node->value;
      bool yes = false;
      switch (node->mode) {
        case Mode::leq: yes = v <= t; break;
        case Mode::lt: yes = v < t; break;
        case Mode::gte: yes = v >= t; break;
        case Mode::gt: yes = v > t; break;
        case Mode::eq: yes = v == t; break;
        case Mode::neq: yes = v != t; break;
        case Mode::leaf: break;
      }
      if (!yes && node->missing_true && std::isnan(v)) yes = true;
      node = &nodes_[static_cast<size_t>(yes ? node->yes : node->no)];
    }
    return *node;
  }

  // The same walk where every branch has one mode and none sends a NaN the
  // true way (scikit-learn's trees: all BRANCH_LEQ): no per-node dispatch.
  template <typename Compare>
  const TreeNode& walk_by(int32_t i, const float* row, Compare yes) const {
    const TreeNode* node = &nodes_[static_cast<size_t>(i)];
    while (node->mode != Mode::leaf)
      node = &nodes_[static_cast<size_t>(yes(row[node->feature], node->value) ? node->yes : node->no)];
    return *node;
  }

  template <typename T>
  void run_rows(const float* x, const std::vector<float*>& out, int64_t begin, int64_t end) const {
    const auto by = [&](auto yes) {
      run_rows_by<T>(x, out, begin, end, [&](int32_t root, const float* row) -> const TreeNode& { return walk_by(root, row, yes); });
    };
    switch (uniform_.value_or(Mode::leaf)) {
      case Mode::leq: return by([](float v, float t) { return v <= t; });
      case Mode::lt: return by([](float v, float t) { return v < t; });
      case Mode::gte: return by([](float v, float t) { return v >= t; });
      case Mode::gt: return by([](float v, float t) { return v > t; });
      default:
        run_rows_by<T>(x, out, begin, end, [&](int32_t root, const float* row) -> const TreeNode& { return walk(root, row); });
    }
  }

  // Rows a block at a time, each tree walked by every row of the block in
  // turn while its nodes are in cache (a large forest is more than the cache
  // holds, and walking it whole row by row reloads it for each row). Each
  // row still adds its trees in their order.
  template <typename T, typename Walk>
  void run_rows_by(const float* x, const std::vector<float*>& out, int64_t begin, int64_t end, Walk walk_to_leaf) const {
    constexpr int64_t kBlock = 64;
    const auto n = static_cast<size_t>(targets_);
    std::vector<T> score(static_cast<size_t>(kBlock) * n);
    std::vector<char> has(score.size());
    float* scores_out = out[classifier_ ? 1 : 0];
    for (int64_t first = begin; first < end; first += kBlock) {
      const int64_t rows = std::min(kBlock, end - first);
      std::fill(score.begin(), score.end(), T(0));
      std::fill(has.begin(), has.end(), 0);
      for (int32_t root : roots_)
        for (int64_t r = 0; r < rows; ++r)
          add_leaf(walk_to_leaf(root, x + (first + r) * features_), &score[static_cast<size_t>(r) * n],
                   &has[static_cast<size_t>(r) * n]);
      for (int64_t r = 0; r < rows; ++r) {
        T* s = &score[static_cast<size_t>(r) * n];
        char* h = &has[static_cast<size_t>(r) * n];
        const int64_t row = first + r;
        if (classifier_) out[0][row] = static_cast<float>(targets_ > 2 ? many_classes(s, h) : binary_scores(s, h));
        else regression(s, h);
        for (size_t c = 0; c < n; ++c) scores_out[row * targets_ + static_cast<int64_t>(c)] = static_cast<float>(s[c]);
      }
    }
  }

  // A leaf's weights into the row's scores, by the aggregate function.
  template <typename T>
  void add_leaf(const TreeNode& leaf, T* score, char* has) const {
    for (int32_t k = leaf.weights; k < leaf.weights + leaf.weight_count; ++k) {
      const auto [target, w] = weights_[static_cast<size_t>(k)];
      T& s = score[static_cast<size_t>(target)];
      const T v = static_cast<T>(w);
      const bool first = !has[static_cast<size_t>(target)];
      if (aggregate_ == Aggregate::min) s = first || v < s ? v : s;
      else if (aggregate_ == Aggregate::max) s = first || v > s ? v : s;
      else s += v;
      has[static_cast<size_t>(target)] = 1;
    }
  }

  template <typename T>
  void regression(T* score, const char* has) const {
    const auto n = static_cast<size_t>(targets_);
    const bool per_target = base_.size() == n;
    const T trees = static_cast<T>(roots_.size());
    for (size_t t = 0; t < n; ++t) {
      // One target takes a single base value alone, as ONNX Runtime reads it.
      const T base = static_cast<T>(per_target ? base_[t] : n == 1 && base_.size() == 1 ? base_[0] : 0.0);
      const T s = aggregate_ == Aggregate::average ? score[t] / trees : has[t] ? score[t] : T(0);
      score[t] = s + base;
    }
    if (n > 1) transform_row(score, targets_, transform_);
    else if (transform_ == PostTransform::probit) score[0] = static_cast<T>(probit(score[0]));
  }

  template <typename T>
  int64_t many_classes(T* score, char* has) const {
    const auto n = static_cast<size_t>(targets_);
    for (size_t k = 0; k < base_.size() && k < n; ++k) {
      score[k] = has[k] ? score[k] + static_cast<T>(base_[k]) : static_cast<T>(base_[k]);
      has[k] = 1;
    }
    int64_t best = -1;
    for (size_t k = 0; k < n; ++k)
      if (has[k] && (best < 0 || score[k] > score[static_cast<size_t>(best)])) best = static_cast<int64_t>(k);
    transform_row(score, targets_, transform_);
    return labels_[static_cast<size_t>(std::max<int64_t>(best, 0))];
  }

  // Two classes, by ONNX Runtime's rules: where class 1 has no score the one
  // score of class 0 is the positive class's, made two as the weights say
  // (all positive: probabilities, [1 - s, s], label above 0.5; else margins,
  // [-s, s] or their logistics, label above 0); where ONNX Runtime leaves a
  // column unwritten, it holds 0.
  template <typename T>
  int64_t binary_scores(T* score, char* has) const {
    bool one = false;  // only class 0's score stands
    bool margins_if_one = false;
    if (base_.size() == 2) {
      if (has[1]) {
        score[1] = static_cast<T>(base_[1]) + score[0];
        score[0] = -score[1];
      } else {
        score[1] += static_cast<T>(base_[1]);
        score[0] += static_cast<T>(base_[0]);
      }
    } else if (base_.size() == 1) {
      score[0] += static_cast<T>(base_[0]);
      one = !has[1];
    } else if (base_.empty()) {
      margins_if_one = true;
      one = !has[1];
    }
    const T positive = !one && has[1] ? score[1] : has[0] ? score[0] : T(0);
    int64_t label;
    std::optional<SecondClass> second;
    if (binary_case_ && all_positive_) {
      label = positive > T(0.5) ? labels_[1] : labels_[0];
      second = SecondClass::complement;
    } else if (binary_case_) {
      label = positive > 0 ? labels_[1] : labels_[0];
      second = SecondClass::negated;
    } else {
      label = positive > 0 ? labels_[1] : labels_[0];
      if (margins_if_one) second = SecondClass::negated;
    }
    if (!one) {
      transform_row(score, 2, transform_);
    } else if (transform_ == PostTransform::probit || !second) {
      score[0] = transform_ == PostTransform::probit ? static_cast<T>(probit(score[0])) : score[0];
      score[1] = 0;
    } else {
      two_scores(score[0], *second, transform_, score);
    }
    return label;
  }

  std::string who_;
  bool classifier_ = false, binary_case_ = false, all_positive_ = true;
  int64_t rows_ = 1, features_ = 0, targets_ = 0;
  std::vector<TreeNode> nodes_;
  std::vector<LeafWeight> weights_;
  std::vector<int32_t> roots_;
  std::optional<Mode> uniform_;  // every branch's mode, where walk_by serves them
  std::vector<int64_t> labels_;
  std::vector<double> base_;
  Aggregate aggregate_ = Aggregate::sum;
  PostTransform transform_ = PostTransform::none;
};

}  // namespace

std::unique_ptr<CpuOp> make_tree_ensemble_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<TreeEnsembleOp>(task, host);
}

}  // namespace aoe::cpu
