// TfIdfVectorizer: counts, in each row of integer ids (1-D [C] or 2-D
// [N, C]), the n-grams of `pool_int64s`, n from min_gram_length to
// max_gram_length, their items up to max_skip_count apart (a unigram is
// counted once per position), each into its output slot (`ngram_indexes`);
// then TF (the count), IDF (its weight where counted) or TFIDF (count times
// weight), the weights by output slot, 1 without `weights`.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "threaded_op.h"

namespace aoe::cpu {

class TfIdfVectorizerOp final : public ThreadedOp {
 public:
  TfIdfVectorizerOp(const sdk::OpTask& task, const HostCpu& host);
  // Ids around the pool's, so random rows hold some of its n-grams.
  ValueRange input_range(size_t) const override { return range_; }
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;
  void reference(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) const override;

 private:
  enum Mode { kTf, kIdf, kTfIdf };
  // Counts of one row, in slots, weighted by the mode.
  void weigh(const std::vector<double>& counts, float* y) const;

  Mode mode_ = kTf;
  int64_t rows_ = 1, cols_ = 0, slots_ = 0, min_n_ = 1, max_n_ = 1, max_skip_ = 0;
  std::vector<std::vector<int64_t>> ngrams_;            // the pool's, in order
  std::vector<int64_t> slot_of_;                        // each pool n-gram's output slot
  std::map<std::vector<int64_t>, int64_t> slot_by_ngram_;  // the first slot of each distinct n-gram
  std::vector<double> weights_;                         // per slot
  ValueRange range_;
};

}  // namespace aoe::cpu
