// The feature transforms of ai.onnx.ml a scikit-learn pipeline exports as,
// as ONNX Runtime runs them, over X's last axis (its features):
//   Normalizer: each row divided by its MAX, L1 or L2 norm (a row whose norm is 0 kept);
//   Scaler: (x - offset) * scale, each a value per feature or one for all;
//   Binarizer: 1 where x > threshold, else 0;
//   Imputer: x equal to the replaced value (or NaN where that is NaN) becomes
//     the imputed value of its feature (or the one for all);
//   ArrayFeatureExtractor: the features a constant list of indices picks;
//   OneHotEncoder: each value a row of the integer categories (cats_int64s),
//     1 at its category's place; a value of none all 0 (ONNX Runtime fails
//     there when zeros is 0).
#include "op_factories.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "held_dtype.h"
#include "ml_outputs.h"
#include "op_util.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

enum class Transform { normalize_max, normalize_l1, normalize_l2, scale, binarize, impute, extract, one_hot };

Transform transform_of(const sdk::OpTask& task, const std::string& who) {
  const std::string& t = task.op_type;
  if (t == "Scaler") return Transform::scale;
  if (t == "Binarizer") return Transform::binarize;
  if (t == "Imputer") return Transform::impute;
  if (t == "ArrayFeatureExtractor") return Transform::extract;
  if (t == "OneHotEncoder") return Transform::one_hot;
  const std::string norm = string_attr(task.attrs, "norm", "MAX");
  if (norm == "MAX") return Transform::normalize_max;
  if (norm == "L1") return Transform::normalize_l1;
  if (norm == "L2") return Transform::normalize_l2;
  invalid(who + ": norm '" + norm + "' is none of MAX, L1 and L2");
}

// A list of one value for every feature, or of `features` values, as `values`; empty is `fallback`.
std::vector<double> per_feature(std::vector<double> values, int64_t features, double fallback, const std::string& what) {
  if (values.empty()) values = {fallback};
  if (values.size() == 1) values.assign(static_cast<size_t>(features), values[0]);
  if (static_cast<int64_t>(values.size()) != features)
    invalid(what + " holds " + std::to_string(values.size()) + " values for " + std::to_string(features) + " features");
  return values;
}

class FeatureTransformOp final : public ThreadedOp {
 public:
  FeatureTransformOp(const sdk::OpTask& task, const HostCpu& host) {
    const std::string who = task.op_type + " '" + task.name + "'";
    t_ = transform_of(task, who);
    const bool extract = t_ == Transform::extract;
    require_plain(task, extract ? 2 : 1, extract ? 2 : 1, {}, Takes::held);
    const Shape x = task.inputs[0].shape;
    if (x.empty()) invalid(who + " takes a tensor of rank 1 or more");
    const bool normalize = t_ == Transform::normalize_max || t_ == Transform::normalize_l1 || t_ == Transform::normalize_l2;
    if (normalize) ml_rows(task, who);  // [N, F] or [F]
    features_ = x.back();
    rows_ = features_ > 0 ? elements(x) / features_ : 0;
    Shape out = x;
    const std::string attribute = who + ": attribute ";
    switch (t_) {
      case Transform::scale:
        offset_ = per_feature(floats_attr(task.attrs, "offset"), features_, 0.0, attribute + "offset");
        scale_ = per_feature(floats_attr(task.attrs, "scale"), features_, 1.0, attribute + "scale");
        break;
      case Transform::binarize: threshold_ = float_attr(task.attrs, "threshold", 0.0); break;
      case Transform::impute: read_imputer(task, who); break;
      case Transform::extract: {
        picked_ = folded_ints(task, 1, "indices");
        for (int64_t i : picked_)
          if (i < 0 || i >= features_)
            invalid(who + ": index " + std::to_string(i) + " is outside X's " + std::to_string(features_) + " features");
        if (out.size() == 1) out.insert(out.begin(), 1);
        out.back() = static_cast<int64_t>(picked_.size());
        break;
      }
      case Transform::one_hot: {
        if (!strings_attr(task.attrs, "cats_strings").empty())
          unsupported(who + " has string categories (cats_strings): the cpu device holds numbers only; "
                            "encode the column as integers first");
        const auto cats = ints_attr(task.attrs, "cats_int64s", {});
        if (cats.empty()) invalid(who + " has no categories (cats_int64s)");
        for (size_t i = 0; i < cats.size(); ++i) category_.emplace(cats[i], static_cast<int64_t>(i));
        categories_ = static_cast<int64_t>(cats.size());
        out.push_back(categories_);
        break;
      }
      default: break;
    }
    if (task.outputs.size() != 1) invalid(who + " gives one output");
    require_dtype(task, 0, true, normalize || t_ == Transform::scale ? Takes::f32 : Takes::held);
    if (task.outputs[0].fully_known() && task.outputs[0].shape != out)
      invalid(who + ": output is " + to_string(task.outputs[0].shape) + ", expected " + to_string(out));
    set_shapes(task, {out}, host, static_cast<double>(elements(x)));
  }

  ValueRange input_range(size_t i) const override {
    if (i != 1) return {};
    std::vector<float> values(picked_.begin(), picked_.end());
    return ValueRange{.whole = true, .values = values};
  }

  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    parallel_runs(pool, threads, rows_, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, features_)),
                  [&](int64_t begin, int64_t end) { run_rows<float>(in[0], out[0], begin, end); }, 1);
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    run_rows<double>(in[0], out[0], 0, rows_);
  }

 private:
  void read_imputer(const sdk::OpTask& task, const std::string& who) {
    const bool integers = is_integral(task.inputs[0].dtype);
    std::vector<double> imputed = integers ? std::vector<double>() : floats_attr(task.attrs, "imputed_value_floats");
    if (integers)
      for (int64_t v : ints_attr(task.attrs, "imputed_value_int64s", {})) imputed.push_back(static_cast<double>(v));
    if (imputed.empty())
      invalid(who + " has no " + (integers ? "imputed_value_int64s" : "imputed_value_floats") + " for its " +
              (integers ? "integer" : "float") + " input");
    imputed_ = per_feature(imputed, features_, 0.0, who + ": the imputed values");
    // JSON, which carries the attributes, has no NaN: a NaN replaced value (SimpleImputer's default) arrives as null.
    const bool nan = task.attrs.is_object() && task.attrs.contains("replaced_value_float") &&
                     task.attrs.at("replaced_value_float").is_null();
    replaced_ = integers ? static_cast<double>(int_attr(task.attrs, "replaced_value_int64", 0))
                : nan    ? std::nan("")
                         : float_attr(task.attrs, "replaced_value_float", 0.0);
  }

  template <typename T>
  void run_rows(const float* x, float* y, int64_t begin, int64_t end) const {
    const int64_t f = features_;
    for (int64_t r = begin; r < end; ++r) {
      const float* in = x + r * f;
      if (t_ == Transform::extract) {
        const auto n = static_cast<int64_t>(picked_.size());
        for (int64_t i = 0; i < n; ++i) y[r * n + i] = in[picked_[static_cast<size_t>(i)]];
        continue;
      }
      if (t_ == Transform::one_hot) {
        float* rows = y + r * f * categories_;
        std::fill(rows, rows + f * categories_, 0.0f);
        for (int64_t i = 0; i < f; ++i) {
          // A float is read as the integer it truncates to, as ONNX Runtime casts it.
          if (!std::isfinite(in[i])) continue;
          const auto it = category_.find(static_cast<int64_t>(in[i]));
          if (it != category_.end()) rows[i * categories_ + it->second] = 1.0f;
        }
        continue;
      }
      float* out = y + r * f;
      T norm = 0;
      if (t_ == Transform::normalize_max) {
        norm = -std::numeric_limits<T>::max();
        for (int64_t i = 0; i < f; ++i) norm = std::max<T>(norm, in[i]);
      } else if (t_ == Transform::normalize_l1) {
        for (int64_t i = 0; i < f; ++i) norm += std::abs(static_cast<T>(in[i]));
      } else if (t_ == Transform::normalize_l2) {
        for (int64_t i = 0; i < f; ++i) norm += static_cast<T>(in[i]) * static_cast<T>(in[i]);
        norm = std::sqrt(norm);
      }
      for (int64_t i = 0; i < f; ++i) {
        const T v = in[i];
        const auto k = static_cast<size_t>(i);
        T o = v;
        switch (t_) {
          case Transform::normalize_max:
          case Transform::normalize_l1:
          case Transform::normalize_l2: o = norm != 0 ? v / norm : v; break;
          case Transform::scale: o = (v - static_cast<T>(offset_[k])) * static_cast<T>(scale_[k]); break;
          case Transform::binarize: o = v > static_cast<T>(threshold_) ? T(1) : T(0); break;
          case Transform::impute:
            if (std::isnan(replaced_) ? std::isnan(v) : v == static_cast<T>(replaced_)) o = static_cast<T>(imputed_[k]);
            break;
          case Transform::extract:
          case Transform::one_hot: break;
        }
        out[i] = static_cast<float>(o);
      }
    }
  }

  Transform t_ = Transform::scale;
  int64_t rows_ = 0, features_ = 0;
  std::vector<double> offset_, scale_, imputed_;
  double threshold_ = 0, replaced_ = 0;
  std::vector<int64_t> picked_;
  std::map<int64_t, int64_t> category_;  // category -> its place
  int64_t categories_ = 0;
};

}  // namespace

std::unique_ptr<CpuOp> make_feature_transform_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<FeatureTransformOp>(task, host);
}

}  // namespace aoe::cpu
