// Loop and Scan whose number of iterations is known before the model runs,
// unrolled into copies of their bodies, as onnx-simplifier and TensorRT's
// parser do: a device then runs the plain ops and never the control flow.
#pragma once

#include <cstdint>

namespace onnx {
class GraphProto;
}

namespace aoe::host {

// A Loop or Scan whose copies would add more nodes than this is left as it is.
inline constexpr int64_t kMaxUnrolledNodes = 4096;

// A Loop whose trip count is a constant, whose condition is absent or a
// constant (false: no iteration) and whose body passes its condition through
// (or makes it a constant true), so that every iteration runs: its body copied once per
// iteration (`<loop>/iter<i>/<name>`), iteration_num a constant per copy,
// the loop-carried values threaded from copy to copy, each scan output the
// copies' values Unsqueeze'd on axis 0 and Concat'ed. A Loop of no iterations
// with scan outputs is left (their shape is not known). Returns how many went.
int64_t unroll_constant_loop(onnx::GraphProto& graph, int64_t opset);

// A Scan (opset 9 on) whose sequence length its first scan input's shape
// tells: each scan input's step t taken with a Gather on its axis (from the
// end where its direction is reverse), the body copied per step, the state
// variables threaded, each scan output Unsqueeze'd and Concat'ed on its axis
// (in reverse where its direction says). Opset 8's batched Scan is unrolled
// where its batch is 1 and it has no sequence_lens. Returns how many went.
int64_t unroll_scan(onnx::GraphProto& graph, int64_t opset);

}  // namespace aoe::host
