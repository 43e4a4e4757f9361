// Ops that move slices of the data at offsets worked out from the indices
// (GatherElements/ScatterElements: slices of one element; GatherND/
// ScatterND: slices of the trailing axes): once, when the op is made, where
// the indices are the model's constants, else from input 1 at each run (a
// TopK's or an ArgMax's indices, as floats holding whole numbers). A gather copies the slices out
// in order; a scatter writes the updates (input 2) into a copy of the data
// there, in order: a later update of the same place wins, or adds, or
// multiplies (`reduction`), as ONNX applies them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "threaded_op.h"

namespace aoe::cpu {

class IndexedSlicesOp : public ThreadedOp {
 public:
  enum class Reduction { none, add, mul };

  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override;

 protected:
  explicit IndexedSlicesOp(bool scatter) : scatter_(scatter) {}
  // The indices the op is made with: the model's constants, folded into
  // attribute "indices", their offsets_ worked out (after set_slice_shapes);
  // none where they are fed as the model runs, which sets runtime_.
  std::vector<int64_t> bind_indices(const sdk::OpTask& task);
  // Input 1's values at a run, floored; one no int64 holds fails the run naming its position.
  std::vector<int64_t> indices_at_run(const float* fed) const;
  // Each slice's first element in the data, for `indices`; an index out of
  // range fails, naming its position.
  virtual std::vector<int64_t> offsets_of(const std::vector<int64_t>& indices) const = 0;
  // The task's `reduction` attribute; `who` names the op in the complaint.
  static Reduction read_reduction(const sdk::OpTask& task, const std::string& who);
  // The shapes, once the offsets are known: in, the data and the indices,
  // and for a scatter the updates, of the gathered shape; out, the gathered
  // slices, or for a scatter the data. Threads for `work` per output element.
  void set_slice_shapes(const sdk::OpTask& task, const HostCpu& host, const Shape& data, const Shape& indices,
                        const Shape& gathered, double work);
  // An update applied to the value already there.
  double reduce(double at, double update) const {
    return reduction_ == Reduction::add ? at + update : reduction_ == Reduction::mul ? at * update : update;
  }
  // The references' move of element i of the gathered shape: a gather's
  // from data offset `at` into y[i], a scatter's update i onto y[at]. Their
  // own, as the references share no code with compute().
  void reference_move(const std::vector<const float*>& in, int64_t at, size_t i, std::vector<double>& y) const {
    const auto to = static_cast<size_t>(at);
    if (!scatter_) y[i] = in[0][at];
    else if (reduction_ == Reduction::add) y[to] += in[2][i];
    else if (reduction_ == Reduction::mul) y[to] *= in[2][i];
    else y[to] = in[2][i];
  }

  const bool scatter_;
  std::string who_;       // the op's type and name, for complaints
  bool runtime_ = false;  // indices read from input 1 at each run
  int64_t index_count_ = 0;
  Reduction reduction_ = Reduction::none;
  int64_t slice_ = 1;             // elements per slice
  std::vector<int64_t> offsets_;  // per slice: its first element in the data (constant indices)
};

}  // namespace aoe::cpu
