// Einsum: each output element the sum, over the labels the equation leaves
// out of the output, of the product of the operands' elements its labels
// pick. Any number of operands; explicit (`->`) and implicit output (the
// labels used once, in ASCII order, after the ellipsis' dims); an ellipsis
// standing for the leading dims, broadcast numpy's way across operands; a
// label repeated within one operand reads its diagonal. Any dtype the device
// holds.
#include "op_factories.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <string>
#include <vector>

#include "op_util.h"
#include "reference.h"
#include "threaded_op.h"

namespace aoe::cpu {
namespace {

// Labels: the letters in ASCII order (A-Z, then a-z), so the implicit
// output's order is the labels'; the ellipsis' dims after them.
constexpr int kLetters = 52;
constexpr int kEllipsis = -1;  // where "..." stands in a parsed term

int letter_label(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
  return -1;
}

char label_letter(int label) { return static_cast<char>(label < 26 ? 'A' + label : 'a' + (label - 26)); }

// A term's labels, kEllipsis where "..." stands (at most once).
std::vector<int> parse_term(const std::string& term, const std::string& who) {
  std::vector<int> out;
  for (size_t i = 0; i < term.size();) {
    if (term.compare(i, 3, "...") == 0) {
      if (std::count(out.begin(), out.end(), kEllipsis)) invalid(who + ": term '" + term + "' has two ellipses");
      out.push_back(kEllipsis);
      i += 3;
      continue;
    }
    const int label = letter_label(term[i]);
    if (label < 0)
      invalid(who + ": '" + std::string(1, term[i]) + "' in term '" + term + "' is neither a letter nor part of '...'");
    out.push_back(label);
    ++i;
  }
  return out;
}

// Moves `index` one step in row-major order over the first `axes` of
// `extents`, each operand's offset (strides[operand][axis]) with it.
void step(std::vector<int64_t>& index, const Shape& extents, size_t axes,
          const std::vector<std::vector<int64_t>>& strides, std::vector<int64_t>& offsets) {
  for (size_t a = axes; a-- > 0;) {
    ++index[a];
    for (size_t n = 0; n < offsets.size(); ++n) offsets[n] += strides[n][a];
    if (index[a] < extents[a]) return;
    for (size_t n = 0; n < offsets.size(); ++n) offsets[n] -= extents[a] * strides[n][a];
    index[a] = 0;
  }
}

// The sum over k < count of the operands' product at offsets + k x step.
float product_sum(const std::vector<const float*>& in, const std::vector<int64_t>& at, const std::vector<int64_t>& stride,
                  int64_t count) {
  if (in.size() == 2) {
    const float* a = in[0] + at[0];
    const float* b = in[1] + at[1];
    if (stride[0] == 1 && stride[1] == 1) return dot8(a, b, count);
    float sum = 0;
    for (int64_t k = 0; k < count; ++k) sum += a[k * stride[0]] * b[k * stride[1]];
    return sum;
  }
  if (in.size() == 1 && stride[0] == 1) return sum8(in[0] + at[0], count);
  float sum = 0;
  for (int64_t k = 0; k < count; ++k) {
    float p = 1;
    for (size_t n = 0; n < in.size(); ++n) p *= in[n][at[n] + k * stride[n]];
    sum += p;
  }
  return sum;
}

class EinsumOp final : public ThreadedOp {
 public:
  EinsumOp(const sdk::OpTask& task, const HostCpu& host) {
    const std::string who = "Einsum '" + task.name + "'";
    require_plain(task, 1, std::max<size_t>(1, task.inputs.size()), {}, Takes::held);
    std::string eq;
    for (const char c : string_attr(task.attrs, "equation", ""))
      if (!std::isspace(static_cast<unsigned char>(c))) eq += c;
    if (eq.empty()) invalid(who + ": attribute 'equation' is missing or empty");
    const auto arrow = eq.find("->");
    std::vector<std::string> terms(1);
    for (const char c : eq.substr(0, arrow)) {
      if (c == ',') terms.emplace_back();
      else terms.back().push_back(c);
    }
    const size_t operands = task.inputs.size();
    if (terms.size() != operands)
      invalid(who + ": equation '" + eq + "' names " + std::to_string(terms.size()) + " operands, the op has " +
              std::to_string(operands) + " inputs");

    // The ellipsis stands for as many dims as the most any operand's "..." covers, right-aligned.
    std::vector<std::vector<int>> parsed;
    size_t ellipsis_rank = 0;
    for (size_t n = 0; n < operands; ++n) {
      parsed.push_back(parse_term(terms[n], who));
      const size_t rank = task.inputs[n].shape.size();
      const bool ellipsis = std::count(parsed[n].begin(), parsed[n].end(), kEllipsis) > 0;
      const size_t letters = parsed[n].size() - (ellipsis ? 1 : 0);
      if (ellipsis ? letters > rank : letters != rank)
        invalid(who + ": term '" + terms[n] + "' labels " + std::to_string(letters) + " dims of input " + std::to_string(n) +
                " '" + task.inputs[n].name + "', which is " + to_string(task.inputs[n].shape));
      if (ellipsis) ellipsis_rank = std::max(ellipsis_rank, rank - letters);
    }
    extents_.assign(kLetters + ellipsis_rank, -1);  // -1: no dim has the label
    std::vector<int> uses(extents_.size(), 0);
    for (size_t n = 0; n < operands; ++n) {
      const Shape& shape = task.inputs[n].shape;
      const size_t covered = shape.size() + 1 - parsed[n].size();  // dims the operand's "..." covers, if it has one
      auto& labels = dim_labels_.emplace_back();
      for (const int item : parsed[n]) {
        if (item != kEllipsis) labels.push_back(item);
        else
          for (size_t j = 0; j < covered; ++j) labels.push_back(kLetters + static_cast<int>(ellipsis_rank - covered + j));
      }
      for (size_t d = 0; d < shape.size(); ++d) {
        const int label = labels[d];
        int64_t& extent = extents_[static_cast<size_t>(label)];
        ++uses[static_cast<size_t>(label)];
        if (label < kLetters) {
          if (extent >= 0 && extent != shape[d])
            invalid(who + ": label '" + std::string(1, label_letter(label)) + "' is " + std::to_string(extent) +
                    " long in one place and " + std::to_string(shape[d]) + " in input " + std::to_string(n) + " '" +
                    task.inputs[n].name + "' " + to_string(shape));
          extent = shape[d];
        } else if (extent < 0 || extent == 1) {
          extent = shape[d];
        } else if (shape[d] != 1 && shape[d] != extent) {
          invalid(who + ": the dims '...' stands for do not broadcast: input " + std::to_string(n) + " '" +
                  task.inputs[n].name + "' " + to_string(shape) + " has " + std::to_string(shape[d]) + " against " +
                  std::to_string(extent));
        }
      }
    }

    const auto ellipsis_labels = [&] {
      for (size_t j = 0; j < ellipsis_rank; ++j) out_labels_.push_back(kLetters + static_cast<int>(j));
    };
    if (arrow != std::string::npos) {
      bool ellipsis = false;
      for (const int item : parse_term(eq.substr(arrow + 2), who)) {
        if (item == kEllipsis) {
          ellipsis = true;
          ellipsis_labels();
          continue;
        }
        const std::string letter(1, label_letter(item));
        if (extents_[static_cast<size_t>(item)] < 0) invalid(who + ": output label '" + letter + "' labels no input dim");
        if (std::count(out_labels_.begin(), out_labels_.end(), item)) invalid(who + ": output label '" + letter + "' is repeated");
        out_labels_.push_back(item);
      }
      if (ellipsis_rank > 0 && !ellipsis)
        invalid(who + ": the output of '" + eq + "' leaves out '...', which stands for dims of its inputs");
    } else {
      // Implicit: the ellipsis' dims, then the letters used once, in ASCII order.
      ellipsis_labels();
      for (int label = 0; label < kLetters; ++label)
        if (uses[static_cast<size_t>(label)] == 1) out_labels_.push_back(label);
    }
    for (int label = 0; label < static_cast<int>(extents_.size()); ++label)
      if (extents_[static_cast<size_t>(label)] >= 0 && !std::count(out_labels_.begin(), out_labels_.end(), label))
        summed_labels_.push_back(label);

    Shape out;
    for (const int label : out_labels_) out.push_back(extents_[static_cast<size_t>(label)]);
    require_output_shape(task, out);
    // Each operand's strides along the output's and the summed labels.
    for (size_t n = 0; n < operands; ++n) {
      const Shape& shape = task.inputs[n].shape;
      const auto strides = strides_of(shape);
      const auto along = [&](const std::vector<int>& labels) {
        std::vector<int64_t> out_strides(labels.size(), 0);
        for (size_t i = 0; i < labels.size(); ++i)
          for (size_t d = 0; d < shape.size(); ++d)
            if (dim_labels_[n][d] == labels[i] && shape[d] == extents_[static_cast<size_t>(labels[i])])
              out_strides[i] += strides[d];
        return out_strides;
      };
      out_strides_.push_back(along(out_labels_));
      summed_strides_.push_back(along(summed_labels_));
    }
    int64_t summed = 1;
    for (const int label : summed_labels_) summed *= extents_[static_cast<size_t>(label)];
    set_shapes(task, {out}, host, static_cast<double>(elements(out)) * static_cast<double>(summed * static_cast<int64_t>(operands) + 1));
  }

  // Runs of output elements shared out; each element's sum over the summed
  // labels, the last of them the inner loop (a dot product where both
  // operands run contiguously along it).
  void compute(const std::vector<const float*>& in, const std::vector<float*>& out, ThreadPool& pool,
               int threads) const override {
    Shape out_extents, summed_extents;
    for (const int label : out_labels_) out_extents.push_back(extents_[static_cast<size_t>(label)]);
    for (const int label : summed_labels_) summed_extents.push_back(extents_[static_cast<size_t>(label)]);
    const int64_t total = elements(out_extents);
    const int64_t summed = elements(summed_extents);
    if (summed == 0) {  // an empty sum
      std::fill(out[0], out[0] + total, 0.0f);
      return;
    }
    const size_t operands = in.size(), kept = out_labels_.size();
    // The inner loop's count and each operand's step along it (one step of none where nothing is summed).
    const int64_t inner = summed_extents.empty() ? 1 : summed_extents.back();
    const size_t outer_axes = summed_extents.empty() ? 0 : summed_extents.size() - 1;
    std::vector<int64_t> inner_stride(operands, 0);
    if (!summed_extents.empty())
      for (size_t n = 0; n < operands; ++n) inner_stride[n] = summed_strides_[n].back();
    const int64_t grain = std::max<int64_t>(1, 16384 / (summed * static_cast<int64_t>(operands)));
    parallel_runs(
        pool, threads, total, grain,
        [&](int64_t begin, int64_t end) {
          std::vector<int64_t> index(kept), base(operands, 0);
          int64_t rest = begin;
          for (size_t i = kept; i-- > 0;) {
            index[i] = rest % out_extents[i];
            rest /= out_extents[i];
            for (size_t n = 0; n < operands; ++n) base[n] += index[i] * out_strides_[n][i];
          }
          std::vector<int64_t> summed_index(outer_axes), at(operands);
          for (int64_t o = begin; o < end; ++o) {
            float sum = 0;
            at = base;
            std::fill(summed_index.begin(), summed_index.end(), 0);
            for (int64_t s = 0; s < summed / inner; ++s) {
              sum += product_sum(in, at, inner_stride, inner);
              step(summed_index, summed_extents, outer_axes, summed_strides_, at);
            }
            out[0][o] = sum;
            step(index, out_extents, kept, out_strides_, base);
          }
        },
        1);
  }

  // Every output element as the sum, over every value of the summed labels,
  // of the product of each operand's element at its labels' values, in double.
  void reference(const std::vector<const float*>& in, const std::vector<float*>& outs) const override {
    Shape out_extents, summed_extents;
    for (const int label : out_labels_) out_extents.push_back(extents_[static_cast<size_t>(label)]);
    for (const int label : summed_labels_) summed_extents.push_back(extents_[static_cast<size_t>(label)]);
    std::vector<int64_t> value(extents_.size(), 0);  // each label's value
    for_each_index(out_extents, [&](const std::vector<int64_t>& o, int64_t flat) {
      for (size_t i = 0; i < o.size(); ++i) value[static_cast<size_t>(out_labels_[i])] = o[i];
      double sum = 0;
      for_each_index(summed_extents, [&](const std::vector<int64_t>& s, int64_t) {
        for (size_t i = 0; i < s.size(); ++i) value[static_cast<size_t>(summed_labels_[i])] = s[i];
        double product = 1;
        for (size_t n = 0; n < in.size(); ++n) {
          const Shape& shape = inputs_[n];
          int64_t at = 0;
          for (size_t d = 0; d < shape.size(); ++d)
            at = at * shape[d] + (shape[d] == 1 ? 0 : value[static_cast<size_t>(dim_labels_[n][d])]);
          product *= in[n][at];
        }
        sum += product;
      });
      outs[0][flat] = static_cast<float>(sum);
    });
  }

 private:
  // Every label's extent: the letters', then the ellipsis' dims.
  std::vector<int64_t> extents_;
  // Per operand, the label of each of its dims.
  std::vector<std::vector<int>> dim_labels_;
  std::vector<int> out_labels_, summed_labels_;
  // Per operand, its stride along each output and each summed label: the
  // sum of its dims' strides where it repeats the label, 0 where it lacks
  // the label or broadcasts it.
  std::vector<std::vector<int64_t>> out_strides_, summed_strides_;
};

}  // namespace

std::unique_ptr<CpuOp> make_einsum_op(const sdk::OpTask& task, const HostCpu& host) {
  return std::make_unique<EinsumOp>(task, host);
}

}  // namespace aoe::cpu
