// DFT and STFT (opset 17) as the cube runs them: a product by the DFT
// matrix, each frequency's real and imaginary parts two of its columns,
// a complex input's two parts two of its rows. For DFT the rows are every
// position off its axis; for STFT every frame of every signal, read from
// the signal as the frames overlap, the window folded into the matrix
// (a constant). So each is the MatMul the cube tiles and tunes.
#pragma once

#include <string>

#include "aoe/sdk/op_task.h"
#include "soc.h"

namespace aoe::sim {

bool is_spectral_op(const std::string& op_type);

// The MatMul task a DFT or STFT runs as. Throws invalid_argument naming the
// op for an axis out of range, a last dim other than 1 or 2, or an output
// whose shape is unknown or disagrees.
sdk::OpTask spectral_as_matmul(const sdk::OpTask& task, const Soc& soc);

}  // namespace aoe::sim
