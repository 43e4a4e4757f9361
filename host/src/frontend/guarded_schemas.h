// ONNX's shape inference, as libonnx 1.12 ships it, trusts some inputs of a
// model it is handed: a Conv whose weights have another rank than its input,
// or a pooling op whose strides list another number of axes, reads past the
// end of a vector and crashes the process; a Shape whose input's type is
// unknown reads through a null pointer. The schemas given to it here check
// those inputs first, so such a node fails its inference instead (and its
// outputs stay unknown, which the loader then reports). STFT's inference,
// wrong in that version for a onesided STFT, is replaced (stft_shape_inference.h).
#pragma once

#include <onnx/defs/schema.h>

namespace aoe::host {

const onnx::ISchemaRegistry& guarded_schemas();

}  // namespace aoe::host
