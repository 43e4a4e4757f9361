// What the classifiers and regressors of ai.onnx.ml share about shapes:
// X is [N, F], or [F] read as one row; a classifier gives a label [N] (an
// integer) and scores [N, columns], a regressor its values [N, columns].
#pragma once

#include <string>
#include <vector>

#include "aoe/sdk/op_task.h"
#include "held_dtype.h"
#include "op_util.h"
#include "shape.h"

namespace aoe::cpu {

struct MlRows {
  int64_t rows = 1, features = 0;
};

inline MlRows ml_rows(const sdk::OpTask& task, const std::string& who) {
  const Shape& x = task.inputs[0].shape;
  if (x.empty() || x.size() > 2) invalid(who + ": X has rank " + std::to_string(x.size()) + "; it needs [N, F] or [F]");
  return {x.size() == 2 ? x[0] : 1, x.back()};
}

// The outputs' shapes, checked against the task's dtypes and the shapes it states.
inline std::vector<Shape> ml_outputs(const sdk::OpTask& task, const std::string& who, bool classifier, int64_t rows,
                                     int64_t columns) {
  std::vector<Shape> outputs;
  if (classifier) outputs.push_back({rows});
  outputs.push_back({rows, columns});
  if (task.outputs.size() != outputs.size()) invalid(who + " gives " + std::to_string(outputs.size()) + " outputs");
  for (size_t i = 0; i < outputs.size(); ++i) {
    require_dtype(task, i, true, classifier && i == 0 ? Takes::integral : Takes::f32);
    if (task.outputs[i].fully_known() && task.outputs[i].shape != outputs[i])
      invalid(who + ": output " + std::to_string(i) + " is " + to_string(task.outputs[i].shape) + ", expected " +
              to_string(outputs[i]));
  }
  return outputs;
}

}  // namespace aoe::cpu
