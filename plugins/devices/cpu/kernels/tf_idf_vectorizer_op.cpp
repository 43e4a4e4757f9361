// TfIdfVectorizer: counts, in each row of integer ids (1-D [C] or 2-D
// [N, C]), the n-grams of `pool_int64s`, n from min_gram_length to
// max_gram_length, their items up to max_skip_count apart (a unigram is
// counted once per position), each into its output slot (`ngram_indexes`);
// then TF (the count), IDF (its weight where counted) or TFIDF (count times
// weight), the weights by output slot, 1 without `weights`.
#include "op_factories.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "op_util.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

int64_t id_of(float v) { return std::llround(v); }

class TfIdfVectorizerOp final : public ThreadedOp {
 public:
  TfIdfVectorizerOp(const sdk::OpTask& task, const HostCpu& host) {
    const std::string who = "TfIdfVectorizer '" + task.name + "'";
    if (!task.fused_ops.empty()) unsupported("the cpu device fuses no ops after TfIdfVectorizer");
    require_inputs(task, 1, 1);
    require_dtype(task, 0, false, Takes::integral);
    require_dtype(task, 0, true, Takes::f32);
    if (task.attrs.contains("pool_strings"))
      unsupported(who + ": the cpu device holds no strings; it counts n-grams of integer ids (pool_int64s)");
    const std::string mode = string_attr(task.attrs, "mode", "");
    if (mode == "TF") mode_ = kTf;
    else if (mode == "IDF") mode_ = kIdf;
    else if (mode == "TFIDF") mode_ = kTfIdf;
    else invalid(who + ": mode is '" + mode + "'; it takes TF, IDF or TFIDF");
    min_n_ = int_attr(task.attrs, "min_gram_length", 0);
    max_n_ = int_attr(task.attrs, "max_gram_length", 0);
    max_skip_ = int_attr(task.attrs, "max_skip_count", 0);
    if (min_n_ < 1 || max_n_ < min_n_ || max_skip_ < 0)
      invalid(who + ": min_gram_length " + std::to_string(min_n_) + ", max_gram_length " + std::to_string(max_n_) +
              ", max_skip_count " + std::to_string(max_skip_) + "; it takes 1 <= min <= max and a skip >= 0");
    const auto pool = ints_attr(task.attrs, "pool_int64s", {});
    const auto starts = ints_attr(task.attrs, "ngram_counts", {});
    const auto slots = ints_attr(task.attrs, "ngram_indexes", {});
    // ngram_counts[k] is where the (k+1)-grams start in the pool.
    for (size_t k = 0; k < starts.size(); ++k) {
      const int64_t n = static_cast<int64_t>(k) + 1, begin = starts[k];
      const int64_t end = k + 1 < starts.size() ? starts[k + 1] : static_cast<int64_t>(pool.size());
      if (begin < 0 || end < begin || end > static_cast<int64_t>(pool.size()) || (end - begin) % n != 0)
        invalid(who + ": ngram_counts " + std::to_string(begin) + ".." + std::to_string(end) + " of the " +
                std::to_string(n) + "-grams do not split pool_int64s (" + std::to_string(pool.size()) +
                " ids) into whole " + std::to_string(n) + "-grams");
      for (int64_t at = begin; at < end; at += n) ngrams_.emplace_back(pool.begin() + at, pool.begin() + at + n);
    }
    if (ngrams_.size() != slots.size())
      invalid(who + ": the pool holds " + std::to_string(ngrams_.size()) + " n-grams, ngram_indexes " +
              std::to_string(slots.size()) + " slots; it takes one slot per n-gram");
    for (size_t g = 0; g < ngrams_.size(); ++g) {
      if (slots[g] < 0) invalid(who + ": ngram_indexes holds " + std::to_string(slots[g]) + "; slots are >= 0");
      if (!slot_by_ngram_.emplace(ngrams_[g], slots[g]).second)
        invalid(who + ": pool_int64s lists n-gram " + std::to_string(g) + " twice");
      slots_ = std::max(slots_, slots[g] + 1);
    }
    slot_of_ = slots;
    weights_.assign(static_cast<size_t>(slots_), 1.0);
    if (task.attrs.contains("weights")) {
      const auto& w = task.attrs.at("weights");
      if (!w.is_array() || static_cast<int64_t>(w.size()) < slots_)
        invalid(who + ": weights must be a list of a float per output slot (" + std::to_string(slots_) + ")");
      for (size_t s = 0; s < weights_.size(); ++s) {
        if (!w[s].is_number()) invalid(who + ": weight " + std::to_string(s) + " is not a number");
        weights_[s] = w[s].get<double>();
      }
    }
    if (!pool.empty()) {
      const auto [lo, hi] = std::minmax_element(pool.begin(), pool.end());
      range_ = {static_cast<float>(*lo) - 0.5f, static_cast<float>(*hi) + 0.5f};
    }
    const Shape& x = task.inputs[0].shape;
    if (x.empty() || x.size() > 2) invalid(who + ": X is " + to_string(x) + "; it takes [C] or [N, C]");
    rows_ = x.size() == 2 ? x[0] : 1;
    cols_ = x.back();
    const Shape y = x.size() == 2 ? Shape{rows_, slots_} : Shape{slots_};
    require_output_shape(task, y);
    const double per_row = static_cast<double>(cols_ * (max_n_ - min_n_ + 1) * (max_skip_ + 1)) * 20;
    set_shapes(task, {y}, host, static_cast<double>(rows_) * per_row);
  }
  // Ids around the pool's, so random rows hold some of its n-grams.
  ValueRange input_range(size_t) const override { return range_; }

  // A task per row: each n-gram the row holds looked up in the pool's map.
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    pool.run(rows_, threads, [&](int64_t r, int) {
      const float* x = in[0] + r * cols_;
      std::vector<double> counts(static_cast<size_t>(slots_), 0.0);
      std::vector<int64_t> key;
      for (int64_t n = min_n_; n <= max_n_; ++n)
        for (int64_t skip = 0; skip <= (n == 1 ? 0 : max_skip_); ++skip) {
          const int64_t span = (n - 1) * (skip + 1);
          for (int64_t i = 0; i + span < cols_; ++i) {
            key.clear();
            for (int64_t k = 0; k < n; ++k) key.push_back(id_of(x[i + k * (skip + 1)]));
            if (const auto it = slot_by_ngram_.find(key); it != slot_by_ngram_.end()) counts[static_cast<size_t>(it->second)] += 1;
          }
        }
      weigh(counts, out[0] + r * slots_);
    });
  }

  // Each pool n-gram of a counted length matched at every start and skip.
  void reference(const std::vector<const float*>& in, const std::vector<float*>& out) const override {
    for (int64_t r = 0; r < rows_; ++r) {
      const float* x = in[0] + r * cols_;
      std::vector<double> counts(static_cast<size_t>(slots_), 0.0);
      for (size_t g = 0; g < ngrams_.size(); ++g) {
        const auto& gram = ngrams_[g];
        const auto n = static_cast<int64_t>(gram.size());
        if (n < min_n_ || n > max_n_) continue;
        for (int64_t skip = 0; skip <= (n == 1 ? 0 : max_skip_); ++skip)
          for (int64_t i = 0; i + (n - 1) * (skip + 1) < cols_; ++i) {
            bool match = true;
            for (int64_t k = 0; k < n && match; ++k) match = id_of(x[i + k * (skip + 1)]) == gram[static_cast<size_t>(k)];
            if (match) counts[static_cast<size_t>(slot_of_[g])] += 1;
          }
      }
      weigh(counts, out[0] + r * slots_);
    }
  }

 private:
  enum Mode { kTf, kIdf, kTfIdf };

  // Counts of one row, in slots, weighted by the mode.
  void weigh(const std::vector<double>& counts, float* y) const {
    for (int64_t s = 0; s < slots_; ++s) {
      const double c = counts[static_cast<size_t>(s)], w = weights_[static_cast<size_t>(s)];
      y[s] = static_cast<float>(mode_ == kTf ? c : mode_ == kIdf ? (c > 0 ? w : 0.0) : c * w);
    }
  }

  Mode mode_ = kTf;
  int64_t rows_ = 1, cols_ = 0, slots_ = 0, min_n_ = 1, max_n_ = 1, max_skip_ = 0;
  std::vector<std::vector<int64_t>> ngrams_;            // the pool's, in order
  std::vector<int64_t> slot_of_;                        // each pool n-gram's output slot
  std::map<std::vector<int64_t>, int64_t> slot_by_ngram_;  // the first slot of each distinct n-gram
  std::vector<double> weights_;                         // per slot
  ValueRange range_;
};

}  // namespace

std::unique_ptr<CpuOp> make_tf_idf_vectorizer_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<TfIdfVectorizerOp>(task, host);
}

}  // namespace aoe::cpu
