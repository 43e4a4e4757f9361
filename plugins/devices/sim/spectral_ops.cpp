#include "spectral_ops.h"

#include <vector>

#include "aoe/sdk/tensor_size.h"
#include "kernel_sequence.h"
#include "op_model.h"
#include "vector_model.h"

namespace aoe::sim {
namespace {

using Shape = std::vector<int64_t>;

// The product `m` x `k` by the constant `k` x `n` matrix, in x's dtype.
sdk::OpTask product(const sdk::OpTask& task, int64_t m, int64_t k, int64_t n) {
  const auto dtype = task.inputs[0].dtype;
  return part_task(task, "MatMul", {{"", {m, k}, dtype, "ND", false}, {"", {k, n}, dtype, "ND", true}},
                   {"", {m, n}, dtype, "ND", false});
}

int64_t parts_of(const sdk::OpTask& task, const Shape& s, const char* what) {
  if (s.empty() || (s.back() != 1 && s.back() != 2))
    malformed(task, std::string(what) + " is " + shape_text(s) + "; its last dim must be 1 (real) or 2 (complex)");
  return s.back();
}

// DFT (input, dft_length; axis, inverse, onesided): a row per position off the axis.
sdk::OpTask dft(const sdk::OpTask& task) {
  const Shape& in = task.inputs[0].shape;
  const Shape& out = output_shape(task);
  const auto rank = static_cast<int64_t>(in.size());
  const int64_t parts = parts_of(task, in, "input");
  int64_t axis = attr_int(task.attrs, "axis", 1);
  if (axis < -rank || axis > rank - 2 || (axis < 0 && axis > -2))
    malformed(task, "axis " + std::to_string(axis) + " is not a signal axis of input " + shape_text(in));
  if (axis < 0) axis += rank;
  if (out.size() != in.size() || out.back() != 2) malformed(task, "output " + shape_text(out) + " is not the input's rank, complex");
  int64_t rows = 1;
  for (int64_t d = 0; d + 1 < rank; ++d)
    if (d != axis) rows *= in[static_cast<size_t>(d)];
  return product(task, rows, in[static_cast<size_t>(axis)] * parts, out[static_cast<size_t>(axis)] * 2);
}

// STFT (signal, frame_step, window, frame_length; onesided): a row per frame.
sdk::OpTask stft(const sdk::OpTask& task) {
  const Shape& signal = task.inputs[0].shape;
  const Shape& out = output_shape(task);
  const int64_t parts = parts_of(task, signal, "signal");
  if (signal.size() != 3) malformed(task, "signal is " + shape_text(signal) + ", not batch x length x 1 or 2");
  if (out.size() != 4 || out[0] != signal[0] || out.back() != 2)
    malformed(task, "output " + shape_text(out) + " is not batch x frames x bins x 2");
  // The frame's length: the window's, else what the bins say (a one-sided
  // transform of n values gives n / 2 + 1 bins).
  const bool onesided = attr_int(task.attrs, "onesided", 1) != 0;
  int64_t frame = onesided ? 2 * (out[2] - 1) : out[2];
  // The inputs present, in order: which of them is the window (slot 2).
  const auto slots = attr_ints(task.attrs, "input_slots", {0, 1, 2, 3});
  for (size_t i = 0; i < slots.size() && i < task.inputs.size(); ++i)
    if (slots[i] == 2 && task.inputs[i].shape.size() == 1) frame = task.inputs[i].shape[0];
  if (frame < 1 || frame > signal[1])
    malformed(task, "frames of " + std::to_string(frame) + " values do not fit a signal of " + std::to_string(signal[1]));
  return product(task, out[0] * out[1], frame * parts, out[2] * 2);
}

}  // namespace

bool is_spectral_op(const std::string& op_type) { return op_type == "DFT" || op_type == "STFT"; }

sdk::OpTask spectral_as_matmul(const sdk::OpTask& task, const Soc& soc) {
  if (!is_spectral_op(task.op_type)) not_modelled(soc, task.op_type);
  require_unfused(task, soc);
  require_known_inputs(task.inputs, 1, task.op_type);
  auto t = task.op_type == "DFT" ? dft(task) : stft(task);
  for (const auto& d : {t.inputs[0].shape, t.inputs[1].shape, t.outputs[0].shape})
    if (!within_any_memory(d)) malformed(task, "its product " + shape_text(d) + " holds more than 2^40 elements");
  return t;
}

}  // namespace aoe::sim
