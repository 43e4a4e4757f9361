// An expression in Python's syntax as Kernel Tuner's problem files write
// them: a condition such as
//   "use_shmem == 0 or (block_size_x*tile_size_x + 14) * block_size_y < 12*1024"
// or a size such as
//   "(ProblemSize[0]+max(filter_width)-1) * (ProblemSize[1]+max(filter_height)-1)".
// Numbers (int or float), names, True/False, parentheses, + - * / // % **
// (Python's floor division and modulo), unary -, +, not, chained
// comparisons < <= > >= == !=, and, or; NAME[i] of a sequence and max(NAME),
// min(NAME) of a parameter's values, where the names allow them.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace aoe::replay {

// A Python number: an int stays exact, a float does not.
struct Number {
  bool is_int = true;
  int64_t i = 0;
  double f = 0;

  static Number of(int64_t v) { return {true, v, static_cast<double>(v)}; }
  static Number of(double v) { return {false, 0, v}; }
  double real() const { return is_int ? static_cast<double>(i) : f; }
  bool truthy() const { return is_int ? i != 0 : f != 0; }
};

// What the names of an expression stand for.
struct ExpressionNames {
  // Values given at each evaluation, by position: the tuning parameters.
  std::vector<std::string> variables;
  // NAME[i], a constant: T1's ProblemSize.
  std::map<std::string, std::vector<Number>> sequences;
  // max(NAME), min(NAME), a constant: over a tuning parameter's values, as
  // Kernel Tuner evaluates a T1 argument's Size with the parameters as lists.
  std::map<std::string, std::vector<Number>> domains;
};

class Expression {
 public:
  // Parses `text`. Throws sdk::Error(invalid_argument) naming `where` (the
  // file and the key), `what` it is ("condition", "expression"), the text and
  // what it could not read.
  Expression(std::string text, const ExpressionNames& names, const std::string& where,
             const std::string& what = "expression");
  ~Expression();
  Expression(Expression&&) noexcept;
  Expression& operator=(Expression&&) noexcept;

  // `values` follow names.variables. Throws sdk::Error(invalid_argument)
  // naming `where` and the expression when Python would raise (a division by
  // zero), or when an integer passes 64 bits.
  Number evaluate(const std::vector<Number>& values) const;
  const std::string& text() const { return text_; }
  // Which variables it reads, by position.
  const std::vector<size_t>& uses() const { return uses_; }

  struct Node;

 private:
  std::string text_;
  std::string where_;
  std::string what_;
  std::unique_ptr<Node> root_;
  std::vector<size_t> uses_;
};

}  // namespace aoe::replay
