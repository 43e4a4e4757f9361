// LinearClassifier and LinearRegressor (ai.onnx.ml), as ONNX Runtime runs
// them: scores = X coefficients^T + intercepts over X's rows ([N, F], or [F]
// as one row), then post_transform (ml_scores.h).
//   LinearClassifier: the label is the class of the largest raw score, or for
//   one score (binary) the second label where it is above 0, the first where
//   not; one score and two labels give two columns, [1 - s, s] of the raw s
//   (ONNX Runtime applies no transform there). Labels are integers;
//   multi_class is read as ONNX Runtime reads it, not at all.
//   LinearRegressor: `targets` columns; a transform needs two or more, but
//   PROBIT, which applies to one.
#include "op_factories.h"

#include <memory>
#include <string>
#include <vector>

#include "held_dtype.h"
#include "ml_outputs.h"
#include "ml_scores.h"
#include "op_util.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

class LinearModelOp final : public ThreadedOp {
 public:
  LinearModelOp(const sdk::OpTask& task, const HostCpu& host) {
    const std::string who = task.op_type + " '" + task.name + "'";
    classifier_ = task.op_type == "LinearClassifier";
    require_plain(task, 1, 1, {}, Takes::held);
    const auto [rows, features] = ml_rows(task, who);
    rows_ = rows, features_ = features;
    coefficients_ = floats_attr(task.attrs, "coefficients");
    intercepts_ = floats_attr(task.attrs, "intercepts");
    const int64_t given = classifier_ ? static_cast<int64_t>(intercepts_.size()) : int_attr(task.attrs, "targets", 1);
    scores_ = given > 0 ? given : features_ > 0 ? static_cast<int64_t>(coefficients_.size()) / features_ : 0;
    if (scores_ < 1 || static_cast<int64_t>(coefficients_.size()) != scores_ * features_)
      invalid(who + ": coefficients hold " + std::to_string(coefficients_.size()) + " values; " +
              std::to_string(scores_) + " scores of " + std::to_string(features_) + " features need " +
              std::to_string(scores_ * features_));
    if (intercepts_.empty()) intercepts_.assign(static_cast<size_t>(scores_), 0.0);
    if (static_cast<int64_t>(intercepts_.size()) != scores_)
      invalid(who + ": intercepts hold " + std::to_string(intercepts_.size()) + " values for " + std::to_string(scores_) + " targets");
    transform_ = post_transform_of(string_attr(task.attrs, "post_transform", "NONE"), who);
    columns_ = scores_;
    if (classifier_) {
      if (!strings_attr(task.attrs, "classlabels_strings").empty())
        unsupported(who + " has string class labels (classlabels_strings): the cpu device holds numbers only; "
                          "export the classifier with integer labels");
      labels_ = ints_attr(task.attrs, "classlabels_ints", {});
      if (scores_ > 1 && static_cast<int64_t>(labels_.size()) != scores_)
        invalid(who + ": " + std::to_string(labels_.size()) + " class labels for " + std::to_string(scores_) + " intercepts");
      second_class_ = scores_ == 1 && labels_.size() == 2;
      if (second_class_ && transform_ == PostTransform::probit)
        unsupported(who + ": PROBIT on one score of two classes leaves ONNX Runtime's second column unwritten");
      if (second_class_) columns_ = 2;
    }
    set_shapes(task, ml_outputs(task, who, classifier_, rows_, columns_), host, static_cast<double>(rows_ * features_ * scores_));
  }

  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    parallel_runs(pool, threads, rows_, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, features_ * scores_)),
                  [&](int64_t begin, int64_t end) { run_rows<float>(in[0], out, begin, end); }, 1);
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    run_rows<double>(in[0], out, 0, rows_);
  }

 private:
  template <typename T>
  void run_rows(const float* x, const std::vector<float*>& out, int64_t begin, int64_t end) const {
    std::vector<T> s(static_cast<size_t>(columns_));
    float* z = out[classifier_ ? 1 : 0];
    for (int64_t r = begin; r < end; ++r) {
      const float* row = x + r * features_;
      for (int64_t c = 0; c < scores_; ++c) {
        T acc = static_cast<T>(intercepts_[static_cast<size_t>(c)]);
        const double* w = coefficients_.data() + c * features_;
        for (int64_t f = 0; f < features_; ++f) acc += static_cast<T>(w[f]) * static_cast<T>(row[f]);
        s[static_cast<size_t>(c)] = acc;
      }
      if (classifier_) out[0][r] = static_cast<float>(label(s.data()));
      finish(s.data());
      for (int64_t c = 0; c < columns_; ++c) z[r * columns_ + c] = static_cast<float>(s[static_cast<size_t>(c)]);
    }
  }

  // The class of the raw scores: the first largest, or the sign of one.
  template <typename T>
  int64_t label(const T* s) const {
    if (scores_ == 1) {
      const bool two = labels_.size() == 2;
      return s[0] > 0 ? (two ? labels_[1] : 1) : (two ? labels_[0] : 0);
    }
    int64_t best = 0;
    for (int64_t c = 1; c < scores_; ++c)
      if (s[c] > s[best]) best = c;
    return labels_[static_cast<size_t>(best)];
  }

  // The post transform; one score of a binary classifier made two.
  template <typename T>
  void finish(T* s) const {
    if (second_class_) return two_scores(s[0], SecondClass::complement, transform_, s);
    if (scores_ > 1) return transform_row(s, scores_, transform_);
    if (transform_ == PostTransform::probit) s[0] = static_cast<T>(probit(s[0]));
  }

  bool classifier_ = false, second_class_ = false;
  int64_t rows_ = 1, features_ = 0, scores_ = 0, columns_ = 0;
  std::vector<double> coefficients_, intercepts_;  // [scores, features], [scores]
  std::vector<int64_t> labels_;
  PostTransform transform_ = PostTransform::none;
};

}  // namespace

std::unique_ptr<CpuOp> make_linear_model_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<LinearModelOp>(task, host);
}

}  // namespace aoe::cpu
