// Output shapes of the classic machine-learning ops (domain ai.onnx.ml), as
// ONNX Runtime sizes them: libonnx 1.12 infers their dtypes only, so a
// scikit-learn export (skl2onnx) would reach the devices with unknown dims.
// X is [N, F], or [F] read as one row:
//   LinearClassifier, TreeEnsembleClassifier: label [N]; scores [N, classes]
//     (LinearClassifier: one column per intercept, two for one intercept
//     and two labels);
//   SVMClassifier: label [N]; scores [N, classes] (liblinear, or libsvm
//     with prob_a), else a decision per pair of classes ([N, 2] for two);
//   LinearRegressor [N, targets], TreeEnsembleRegressor [N, n_targets], SVMRegressor [N, 1];
//   Normalizer, Scaler: X's shape, float; Binarizer, Imputer: X's shape and dtype;
//   ArrayFeatureExtractor: X's shape with its last dim the count of indices
//     ([1, count] for a rank-1 X);
//   OneHotEncoder: X's shape and one more dim, the count of categories.
// Dtypes are libonnx's; a dim it cannot know stays unknown.
#pragma once

#include <onnx/defs/shape_inference.h>

#include <string>

namespace aoe::host {

// The inference of ai.onnx.ml op `op_type`, or nullptr for one it leaves to libonnx.
onnx::InferenceFunction ml_shape_inference(const std::string& op_type);

}  // namespace aoe::host
