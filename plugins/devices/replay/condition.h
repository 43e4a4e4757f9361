// A constraint of a kernel description (BAT/T4 "Conditions"): a Python
// expression over tuning parameters, such as
//   "use_shmem == 0 or (block_size_x*tile_size_x + 14) * block_size_y < 12*1024"
//   "32 <= block_size_x * block_size_y <= 1024"
// Numbers (int or float), parameter names, True/False, parentheses,
// + - * / // % ** (Python's floor division and modulo), unary -, +, not,
// chained comparisons < <= > >= == !=, and, or.
#pragma once

#include <cstdint>
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

class Condition {
 public:
  // Parses `text` over `parameters`; a config gives the parameters' values
  // in that order. Throws sdk::Error(invalid_argument) naming `where` (the
  // file), the expression and what it could not read.
  Condition(std::string text, const std::vector<std::string>& parameters, const std::string& where);
  ~Condition();
  Condition(Condition&&) noexcept;
  Condition& operator=(Condition&&) noexcept;

  // Throws sdk::Error(invalid_argument) naming the expression when Python
  // would raise (a division by zero).
  bool holds(const std::vector<Number>& values) const;
  const std::string& text() const { return text_; }
  // Which parameters it reads, by position.
  const std::vector<size_t>& uses() const { return uses_; }

  struct Node;

 private:
  std::string text_;
  std::unique_ptr<Node> root_;
  std::vector<size_t> uses_;
};

}  // namespace aoe::replay
