// SVMClassifier and SVMRegressor (ai.onnx.ml), as ONNX Runtime runs them.
// The kernel K(x, v): LINEAR x.v, POLY (gamma x.v + coef0)^degree, RBF
// exp(-gamma |x - v|^2), SIGMOID tanh(gamma x.v + coef0) (kernel_params:
// gamma, coef0, degree).
//   SVMRegressor: sum of coefficients[v] K(x, v) over the support vectors,
//   plus rho; without support vectors, x.coefficients + rho; one_class gives
//   its sign, 1 or -1.
//   SVMClassifier with support vectors (libsvm's SVC): for each pair of
//   classes i < j, the decision sum of both classes' vectors' coefficients
//   times their kernels plus rho of the pair; each pair votes for i where
//   it is above 0, else for j, and the label is the first class of most
//   votes. The scores are the pairs' decisions (two columns, [-d, d], for
//   two classes), or with prob_a and prob_b each class's probability,
//   Platt's sigmoid per pair coupled as libsvm couples them.
//   SVMClassifier without support vectors (liblinear): a score per class,
//   x.coefficients[c] + rho, the label the class of the largest.
// Then post_transform over two scores or more. Labels are integers.
#include "op_factories.h"

#include <algorithm>
#include <cmath>
#include <memory>
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

enum class SvmKernel { linear, poly, rbf, sigmoid };

SvmKernel svm_kernel_of(const std::string& name, const std::string& who) {
  if (name == "LINEAR") return SvmKernel::linear;
  if (name == "POLY") return SvmKernel::poly;
  if (name == "RBF") return SvmKernel::rbf;
  if (name == "SIGMOID") return SvmKernel::sigmoid;
  invalid(who + ": kernel_type '" + name + "' is none of LINEAR, POLY, RBF and SIGMOID");
}

// libsvm's coupling of the pairs' probabilities r (class x class, r[i][j]
// the chance of i over j) into each class's, iterated as ONNX Runtime does.
template <typename T>
void couple(int64_t classes, const std::vector<T>& r, T* p) {
  const auto k = static_cast<size_t>(classes);
  std::vector<T> q(k * k, 0), qp(k, 0);
  const T eps = T(0.005) / static_cast<T>(classes);
  for (size_t i = 0; i < k; ++i) {
    p[i] = T(1) / static_cast<T>(classes);
    for (size_t j = 0; j < i; ++j) {
      q[i * k + i] += r[j * k + i] * r[j * k + i];
      q[i * k + j] = q[j * k + i];
    }
    for (size_t j = i + 1; j < k; ++j) {
      q[i * k + i] += r[j * k + i] * r[j * k + i];
      q[i * k + j] = -r[j * k + i] * r[i * k + j];
    }
  }
  for (int loop = 0; loop < 100; ++loop) {
    T pqp = 0;
    for (size_t i = 0; i < k; ++i) {
      qp[i] = 0;
      for (size_t j = 0; j < k; ++j) qp[i] += q[i * k + j] * p[j];
      pqp += p[i] * qp[i];
    }
    T max_error = 0;
    for (size_t i = 0; i < k; ++i) max_error = std::max(max_error, std::abs(qp[i] - pqp));
    if (max_error < eps) break;
    for (size_t i = 0; i < k; ++i) {
      const T diff = (-qp[i] + pqp) / q[i * k + i];
      p[i] += diff;
      pqp = (pqp + diff * (diff * q[i * k + i] + 2 * qp[i])) / (1 + diff) / (1 + diff);
      for (size_t j = 0; j < k; ++j) {
        qp[j] = (qp[j] + diff * q[i * k + j]) / (1 + diff);
        p[j] /= (1 + diff);
      }
    }
  }
}

class SvmOp final : public ThreadedOp {
 public:
  SvmOp(const sdk::OpTask& task, const HostCpu& host) : who_(task.op_type + " '" + task.name + "'") {
    classifier_ = task.op_type == "SVMClassifier";
    require_plain(task, 1, 1, {}, Takes::held);
    const auto [rows, features] = ml_rows(task, who_);
    rows_ = rows, features_ = features;
    kernel_ = svm_kernel_of(string_attr(task.attrs, "kernel_type", "LINEAR"), who_);
    const auto params = floats_attr(task.attrs, "kernel_params");
    if (!params.empty() && params.size() != 3) invalid(who_ + ": kernel_params holds gamma, coef0 and degree, not " + std::to_string(params.size()) + " values");
    if (params.size() == 3) gamma_ = params[0], coef0_ = params[1], degree_ = params[2];
    coefficients_ = floats_attr(task.attrs, "coefficients");
    vectors_ = floats_attr(task.attrs, "support_vectors");
    rho_ = floats_attr(task.attrs, "rho");
    transform_ = post_transform_of(string_attr(task.attrs, "post_transform", "NONE"), who_);
    if (coefficients_.empty() || rho_.empty()) invalid(who_ + " needs coefficients and rho");
    if (classifier_) read_classes(task); else read_regressor(task);
    if (svc_ && static_cast<int64_t>(vectors_.size()) != vector_count_ * features_)
      invalid(who_ + ": support_vectors hold " + std::to_string(vectors_.size()) + " values; " +
              std::to_string(vector_count_) + " vectors of X's " + std::to_string(features_) + " features need " +
              std::to_string(vector_count_ * features_));
    const double vectors = static_cast<double>(svc_ ? vector_count_ : std::max<int64_t>(classes_, 1));
    set_shapes(task, ml_outputs(task, who_, classifier_, rows_, columns_), host, static_cast<double>(rows_ * features_) * vectors);
  }

  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    parallel_runs(pool, threads, rows_, 4, [&](int64_t begin, int64_t end) { run_rows<float>(in[0], out, begin, end); }, 1);
  }

  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    run_rows<double>(in[0], out, 0, rows_);
  }

 private:
  void read_regressor(const sdk::OpTask& task) {
    vector_count_ = int_attr(task.attrs, "n_supports", 0);
    svc_ = vector_count_ > 0;
    one_class_ = int_attr(task.attrs, "one_class", 0) != 0;
    const int64_t want = svc_ ? vector_count_ : features_;
    if (static_cast<int64_t>(coefficients_.size()) != want)
      invalid(who_ + ": coefficients hold " + std::to_string(coefficients_.size()) + " values for " + std::to_string(want) +
              (svc_ ? " support vectors" : " features"));
    if (!svc_) kernel_ = SvmKernel::linear;
    columns_ = 1;
  }

  void read_classes(const sdk::OpTask& task) {
    if (!strings_attr(task.attrs, "classlabels_strings").empty())
      unsupported(who_ + " has string class labels (classlabels_strings): the cpu device holds numbers only; "
                         "export the classifier with integer labels");
    labels_ = ints_attr(task.attrs, "classlabels_ints", {});
    classes_ = static_cast<int64_t>(labels_.size());
    if (classes_ < 2) invalid(who_ + " needs two class labels or more");
    const auto per_class = ints_attr(task.attrs, "vectors_per_class", {});
    for (int64_t n : per_class) {
      if (n < 0) invalid(who_ + ": vectors_per_class holds " + std::to_string(n));
      first_vector_.push_back(vector_count_);
      vector_count_ += n;
    }
    svc_ = vector_count_ > 0;
    pairs_ = classes_ * (classes_ - 1) / 2;
    prob_a_ = floats_attr(task.attrs, "prob_a");
    prob_b_ = floats_attr(task.attrs, "prob_b");
    if (prob_a_.size() != prob_b_.size()) invalid(who_ + ": prob_a and prob_b differ in length");
    probabilities_ = svc_ && !prob_a_.empty();
    if (svc_) {
      if (static_cast<int64_t>(per_class.size()) != classes_)
        invalid(who_ + ": vectors_per_class lists " + std::to_string(per_class.size()) + " classes of " + std::to_string(classes_));
      if (static_cast<int64_t>(coefficients_.size()) != (classes_ - 1) * vector_count_)
        invalid(who_ + ": coefficients hold " + std::to_string(coefficients_.size()) + " values; " +
                std::to_string(classes_ - 1) + " rows of " + std::to_string(vector_count_) + " support vectors need " +
                std::to_string((classes_ - 1) * vector_count_));
      if (static_cast<int64_t>(rho_.size()) < pairs_) invalid(who_ + ": rho needs a value per pair of classes, " + std::to_string(pairs_));
      if (probabilities_ && static_cast<int64_t>(prob_a_.size()) < pairs_)
        invalid(who_ + ": prob_a and prob_b need a value per pair of classes, " + std::to_string(pairs_));
      if (!probabilities_ && classes_ == 2 && transform_ == PostTransform::probit)
        unsupported(who_ + ": PROBIT on two classes' one decision leaves ONNX Runtime's second column unwritten");
      columns_ = probabilities_ ? classes_ : std::max<int64_t>(pairs_, 2);
    } else {
      kernel_ = SvmKernel::linear;
      if (static_cast<int64_t>(coefficients_.size()) != classes_ * features_)
        invalid(who_ + ": coefficients hold " + std::to_string(coefficients_.size()) + " values; " + std::to_string(classes_) +
                " classes of " + std::to_string(features_) + " features need " + std::to_string(classes_ * features_));
      columns_ = classes_;
    }
    all_positive_ = std::all_of(coefficients_.begin(), coefficients_.end(), [](double c) { return c >= 0; });
  }

  template <typename T>
  T kernel(const float* x, const double* v) const {
    T acc = 0;
    if (kernel_ == SvmKernel::rbf) {
      for (int64_t f = 0; f < features_; ++f) {
        const T d = static_cast<T>(x[f]) - static_cast<T>(v[f]);
        acc += d * d;
      }
      return std::exp(-static_cast<T>(gamma_) * acc);
    }
    for (int64_t f = 0; f < features_; ++f) acc += static_cast<T>(x[f]) * static_cast<T>(v[f]);
    if (kernel_ == SvmKernel::linear) return acc;
    const T inner = static_cast<T>(gamma_) * acc + static_cast<T>(coef0_);
    return kernel_ == SvmKernel::poly ? std::pow(inner, static_cast<T>(degree_)) : std::tanh(inner);
  }

  template <typename T>
  void run_rows(const float* x, const std::vector<float*>& out, int64_t begin, int64_t end) const {
    std::vector<T> k(static_cast<size_t>(std::max<int64_t>(vector_count_, 1)));
    std::vector<T> s(static_cast<size_t>(std::max<int64_t>({columns_, pairs_, 1})));
    float* z = out[classifier_ ? 1 : 0];
    for (int64_t r = begin; r < end; ++r) {
      const float* row = x + r * features_;
      for (int64_t v = 0; v < vector_count_; ++v) k[static_cast<size_t>(v)] = kernel<T>(row, vectors_.data() + v * features_);
      if (!classifier_) {
        T y = static_cast<T>(rho_[0]);
        if (svc_) {
          for (int64_t v = 0; v < vector_count_; ++v) y += static_cast<T>(coefficients_[static_cast<size_t>(v)]) * k[static_cast<size_t>(v)];
        } else {
          y += kernel<T>(row, coefficients_.data());
        }
        z[r] = static_cast<float>(one_class_ ? (y > 0 ? T(1) : T(-1)) : y);
        continue;
      }
      const int64_t label = svc_ ? pairwise(k, s) : per_class(row, s);
      out[0][r] = static_cast<float>(label);
      for (int64_t c = 0; c < columns_; ++c) z[r * columns_ + c] = static_cast<float>(s[static_cast<size_t>(c)]);
    }
  }

  // libsvm's one-against-one: each pair's decision and vote; returns the label.
  template <typename T>
  int64_t pairwise(const std::vector<T>& k, std::vector<T>& s) const {
    std::vector<int64_t> votes(static_cast<size_t>(classes_), 0);
    std::vector<T> d(static_cast<size_t>(pairs_));
    size_t pair = 0;
    for (int64_t i = 0; i < classes_ - 1; ++i)
      for (int64_t j = i + 1; j < classes_; ++j, ++pair) {
        T sum = 0;
        for (const auto& [cls, row] : {std::pair{i, j - 1}, std::pair{j, i}}) {
          const int64_t first = first_vector_[static_cast<size_t>(cls)];
          const int64_t last = cls + 1 < classes_ ? first_vector_[static_cast<size_t>(cls + 1)] : vector_count_;
          for (int64_t v = first; v < last; ++v)
            sum += static_cast<T>(coefficients_[static_cast<size_t>(row * vector_count_ + v)]) * k[static_cast<size_t>(v)];
        }
        d[pair] = sum + static_cast<T>(rho_[pair]);
        ++votes[static_cast<size_t>(d[pair] > 0 ? i : j)];
      }
    const auto best = std::max_element(votes.begin(), votes.end()) - votes.begin();
    if (probabilities_) {
      const auto n = static_cast<size_t>(classes_);
      std::vector<T> r(n * n, 0);
      pair = 0;
      for (size_t i = 0; i + 1 < n; ++i)
        for (size_t j = i + 1; j < n; ++j, ++pair) {
          // Platt's sigmoid, 1 - logistic(d A + B), kept within [1e-7, 1 - 1e-7].
          const T p = T(1) - logistic(d[pair] * static_cast<T>(prob_a_[pair]) + static_cast<T>(prob_b_[pair]));
          const T kept = std::min(std::max(p, T(1e-7)), T(1) - T(1e-7));
          r[i * n + j] = kept;
          r[j * n + i] = T(1) - kept;
        }
      couple(classes_, r, s.data());
      transform_row(s.data(), classes_, transform_);
    } else if (pairs_ == 1) {
      // Two classes: one decision, written as ONNX Runtime writes it.
      two_scores(d[0], transform_ == PostTransform::none ? SecondClass::negated : SecondClass::complement,
                 PostTransform::none, s.data());
    } else {
      std::copy(d.begin(), d.end(), s.begin());
      transform_row(s.data(), pairs_, transform_);
    }
    return labels_[static_cast<size_t>(best)];
  }

  // liblinear: a score per class; two labels follow ONNX Runtime's binary rules.
  template <typename T>
  int64_t per_class(const float* row, std::vector<T>& s) const {
    for (int64_t c = 0; c < classes_; ++c)
      s[static_cast<size_t>(c)] = kernel<T>(row, coefficients_.data() + c * features_) + static_cast<T>(rho_[0]);
    const auto best = static_cast<size_t>(std::max_element(s.begin(), s.begin() + classes_) - s.begin());
    int64_t label = labels_[best];
    if (classes_ == 2) {
      const T top = s[best];
      if ((all_positive_ && top >= T(0.5)) || (!all_positive_ && top > 0)) label = labels_[1];
    }
    transform_row(s.data(), classes_, transform_);
    return label;
  }

  std::string who_;
  bool classifier_ = false, svc_ = false, one_class_ = false, probabilities_ = false, all_positive_ = true;
  int64_t rows_ = 1, features_ = 0, classes_ = 0, pairs_ = 0, vector_count_ = 0, columns_ = 1;
  SvmKernel kernel_ = SvmKernel::linear;
  double gamma_ = 0, coef0_ = 0, degree_ = 0;
  std::vector<double> coefficients_, vectors_, rho_, prob_a_, prob_b_;
  std::vector<int64_t> labels_, first_vector_;
  PostTransform transform_ = PostTransform::none;
};

}  // namespace

std::unique_ptr<CpuOp> make_svm_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<SvmOp>(task, host);
}

}  // namespace aoe::cpu
