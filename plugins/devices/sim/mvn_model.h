// MeanVarianceNormalization, (x - mean) / sqrt(mean of x^2 - mean^2) over
// `axes` (default N, H and W), as CANN's MVN runs it: the two statistics
// (a ReduceMean and a ReduceSumSquare over the axes), then the subtraction
// and the division, broadcast back over the map; one launch, each part
// with its knobs ("square_", "sub_", "div_" before the later parts').
#pragma once

#include <memory>

#include "aoe/sdk/op_task.h"
#include "op_model.h"
#include "soc.h"

namespace aoe::sim {

// Throws invalid_argument naming the op for an axis out of range or an
// input not float16 or float32.
std::unique_ptr<OpModel> mvn_model(const Soc& soc, const sdk::OpTask& task);

}  // namespace aoe::sim
