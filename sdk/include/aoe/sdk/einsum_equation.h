// SPDX-License-Identifier: Apache-2.0
// Einsum's equation as ONNX defines it, read against its operands' dims:
// which label each dim carries, each label's extent, the output's labels
// (explicit after `->`, or implicit: the ellipsis' dims, then the letters
// used once in ASCII order) and the labels summed over. The host infers an
// Einsum's output shape by it (libonnx infers only its rank) and a device
// sizes and runs the op by it, so both read an equation alike.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace aoe::sdk {

struct EinsumLabels {
  // Labels 0-51 are the letters A-Z then a-z; from kLetters on, the dims the
  // ellipsis stands for, right-aligned across the operands.
  static constexpr int kLetters = 52;
  std::vector<int64_t> extents;               // per label; -1 where unknown (a dim of -1) or unused
  std::vector<int> uses;                      // per label, the operands' dims that carry it
  std::vector<std::vector<int>> dim_labels;   // per operand, the label of each of its dims
  std::vector<int> out_labels, summed_labels;

  std::vector<int64_t> output_dims() const {
    std::vector<int64_t> dims;
    for (const int label : out_labels) dims.push_back(extents[static_cast<size_t>(label)]);
    return dims;
  }
};

namespace einsum_detail {

inline int letter_label(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
  return -1;
}

constexpr int kEllipsis = -1;  // where "..." stands in a parsed term

// A term's labels, kEllipsis where "..." stands; nullopt with `why` set where it is malformed.
inline std::optional<std::vector<int>> parse_term(const std::string& term, std::string& why) {
  std::vector<int> out;
  for (size_t i = 0; i < term.size();) {
    if (term.compare(i, 3, "...") == 0) {
      if (std::count(out.begin(), out.end(), kEllipsis)) {
        why = "term '" + term + "' has two ellipses";
        return std::nullopt;
      }
      out.push_back(kEllipsis);
      i += 3;
      continue;
    }
    const int label = letter_label(term[i]);
    if (label < 0) {
      why = "'" + std::string(1, term[i]) + "' in term '" + term + "' is neither a letter nor part of '...'";
      return std::nullopt;
    }
    out.push_back(label);
    ++i;
  }
  return out;
}

inline char label_letter(int label) { return static_cast<char>(label < 26 ? 'A' + label : 'a' + (label - 26)); }

inline std::string dims_text(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + (dims[i] < 0 ? std::string("?") : std::to_string(dims[i]));
  return s + "]";
}

}  // namespace einsum_detail

// `equation` read for operands of `shapes` (a dim of -1 unknown); nullopt
// where ONNX gives no result, with `why` (when given) saying what is wrong.
inline std::optional<EinsumLabels> einsum_labels(const std::string& equation,
                                                 const std::vector<std::vector<int64_t>>& shapes,
                                                 std::string* why = nullptr) {
  using namespace einsum_detail;
  std::string reason;
  const auto refuse = [&](std::string r) -> std::optional<EinsumLabels> {
    if (why) *why = std::move(r);
    return std::nullopt;
  };
  std::string eq;
  for (const char c : equation)
    if (!std::isspace(static_cast<unsigned char>(c))) eq += c;
  if (eq.empty()) return refuse("attribute 'equation' is missing or empty");
  const auto arrow = eq.find("->");
  std::vector<std::string> terms(1);
  for (const char c : eq.substr(0, arrow)) {
    if (c == ',') terms.emplace_back();
    else terms.back().push_back(c);
  }
  const size_t operands = shapes.size();
  if (terms.size() != operands)
    return refuse("equation '" + eq + "' names " + std::to_string(terms.size()) + " operands, the op has " +
                  std::to_string(operands) + " inputs");

  // The ellipsis stands for as many dims as the most any operand's "..." covers.
  std::vector<std::vector<int>> parsed;
  size_t ellipsis_rank = 0;
  for (size_t n = 0; n < operands; ++n) {
    auto term = parse_term(terms[n], reason);
    if (!term) return refuse(reason);
    parsed.push_back(std::move(*term));
    const size_t rank = shapes[n].size();
    const bool ellipsis = std::count(parsed[n].begin(), parsed[n].end(), kEllipsis) > 0;
    const size_t letters = parsed[n].size() - (ellipsis ? 1 : 0);
    if (ellipsis ? letters > rank : letters != rank)
      return refuse("term '" + terms[n] + "' labels " + std::to_string(letters) + " dims of input " + std::to_string(n) +
                    ", which is " + dims_text(shapes[n]));
    if (ellipsis) ellipsis_rank = std::max(ellipsis_rank, rank - letters);
  }
  EinsumLabels e;
  e.extents.assign(EinsumLabels::kLetters + ellipsis_rank, -1);
  e.uses.assign(e.extents.size(), 0);
  for (size_t n = 0; n < operands; ++n) {
    const auto& shape = shapes[n];
    const size_t covered = shape.size() + 1 - parsed[n].size();  // dims the operand's "..." covers, if it has one
    auto& labels = e.dim_labels.emplace_back();
    for (const int item : parsed[n]) {
      if (item != kEllipsis) labels.push_back(item);
      else
        for (size_t j = 0; j < covered; ++j) labels.push_back(EinsumLabels::kLetters + static_cast<int>(ellipsis_rank - covered + j));
    }
    for (size_t d = 0; d < shape.size(); ++d) {
      const auto label = static_cast<size_t>(labels[d]);
      int64_t& extent = e.extents[label];
      const int64_t dim = shape[d] < 0 ? -1 : shape[d];
      const bool letter = labels[d] < EinsumLabels::kLetters;
      if (e.uses[label]++ == 0 || (letter && extent < 0)) {
        extent = dim;
      } else if (letter) {
        if (dim >= 0 && dim != extent)
          return refuse("label '" + std::string(1, label_letter(labels[d])) + "' is " + std::to_string(extent) +
                        " long in one place and " + std::to_string(dim) + " in input " + std::to_string(n) + " " +
                        dims_text(shape));
      } else if (dim == 1 || dim == extent) {
        // the ellipsis' dims broadcast numpy's way: a 1 takes the other's extent
      } else if (dim < 0) {
        if (extent == 1) extent = -1;
      } else if (extent < 0 || extent == 1) {
        extent = dim;
      } else {
        return refuse("the dims '...' stands for do not broadcast: input " + std::to_string(n) + " " + dims_text(shape) +
                      " has " + std::to_string(dim) + " against " + std::to_string(extent));
      }
    }
  }

  const auto ellipsis_labels = [&] {
    for (size_t j = 0; j < ellipsis_rank; ++j) e.out_labels.push_back(EinsumLabels::kLetters + static_cast<int>(j));
  };
  if (arrow != std::string::npos) {
    bool ellipsis = false;
    auto out = parse_term(eq.substr(arrow + 2), reason);
    if (!out) return refuse(reason);
    for (const int item : *out) {
      if (item == kEllipsis) {
        ellipsis = true;
        ellipsis_labels();
        continue;
      }
      const std::string letter(1, label_letter(item));
      if (e.uses[static_cast<size_t>(item)] == 0) return refuse("output label '" + letter + "' labels no input dim");
      if (std::count(e.out_labels.begin(), e.out_labels.end(), item)) return refuse("output label '" + letter + "' is repeated");
      e.out_labels.push_back(item);
    }
    if (ellipsis_rank > 0 && !ellipsis)
      return refuse("the output of '" + eq + "' leaves out '...', which stands for dims of its inputs");
  } else {
    ellipsis_labels();
    for (int label = 0; label < EinsumLabels::kLetters; ++label)
      if (e.uses[static_cast<size_t>(label)] == 1) e.out_labels.push_back(label);
  }
  for (int label = 0; label < static_cast<int>(e.extents.size()); ++label)
    if (e.uses[static_cast<size_t>(label)] > 0 && !std::count(e.out_labels.begin(), e.out_labels.end(), label))
      e.summed_labels.push_back(label);
  return e;
}

}  // namespace aoe::sdk
