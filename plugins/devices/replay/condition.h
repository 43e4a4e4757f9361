// A constraint of a kernel description (BAT/T4 "Conditions"): a Python
// expression over tuning parameters (see expression.h), such as
//   "32 <= block_size_x * block_size_y <= 1024"
// that a valid configuration makes true.
#pragma once

#include <string>
#include <vector>

#include "expression.h"

namespace aoe::replay {

class Condition {
 public:
  // Parses `text` over `parameters`; a config gives the parameters' values
  // in that order. Throws sdk::Error(invalid_argument) naming `where` (the
  // file), the expression and what it could not read.
  Condition(std::string text, const std::vector<std::string>& parameters, const std::string& where)
      : expression_(std::move(text), ExpressionNames{parameters, {}, {}}, where, "condition") {}

  // Throws sdk::Error(invalid_argument) naming the expression when Python
  // would raise (a division by zero).
  bool holds(const std::vector<Number>& values) const { return expression_.evaluate(values).truthy(); }
  const std::string& text() const { return expression_.text(); }
  // Which parameters it reads, by position.
  const std::vector<size_t>& uses() const { return expression_.uses(); }

 private:
  Expression expression_;
};

}  // namespace aoe::replay
