// Ops without a layout choice of their own that run on the channel-blocked
// layout as readily as on NCHW, so a model's tensors stay blocked through
// them between blocked convolutions: elementwise ops (their broadcast
// operands per channel, per pixel or scalar), Concat and Split along the
// channels in whole channel blocks, and reductions over the whole map.
#pragma once

#include <functional>
#include <string>

#include "aoe/sdk/op_task.h"

namespace aoe::cpu {

// Marks the task's activations "NCHWc" where its op follows a blocked input
// of `lanes` lanes: when one of the inputs it would take blocked is stored
// so (`stored_blocked(name)`), it takes all of them blocked and leaves its
// outputs so (a reduction's output, one value per channel, is the same in
// either layout and stays unmarked). Returns whether it marked any.
bool follow_blocked_layout(sdk::OpTask& task, int lanes,
                           const std::function<bool(const std::string& tensor)>& stored_blocked);

}  // namespace aoe::cpu
