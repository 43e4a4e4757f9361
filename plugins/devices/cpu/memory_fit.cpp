#include "memory_fit.h"

#include <unistd.h>

#include <optional>
#include <string>

#include "aoe/sdk/error.h"
#include "aoe/sdk/tensor_size.h"

namespace aoe::cpu {

int64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 0;
  return sdk::checked_mul(pages, page).value_or(0);
}

void require_fits_memory(const sdk::OpTask& task, int64_t memory_bytes) {
  if (memory_bytes <= 0) return;
  // Every tensor runs as fp32 here, whatever the model's dtype.
  std::vector<sdk::TensorDesc> buffers;
  for (const auto& t : task.inputs) buffers.push_back(t);
  for (int copy = 0; copy < 2; ++copy)  // the outputs, and the reference they are checked against
    for (const auto& t : task.outputs) buffers.push_back(t);
  for (auto& t : buffers) {
    t.dtype = sdk::DType::f32;
    if (!t.fully_known()) t.shape.clear();  // unknown: the op's own checks say so
  }
  const auto bytes = sdk::checked_total_bytes(buffers);
  if (bytes && *bytes <= memory_bytes) return;
  const std::string need = bytes ? sdk::bytes_text(*bytes) + " (" + std::to_string(*bytes) + " bytes)"
                                 : std::string("more bytes than a 64-bit count holds");
  throw sdk::Error(sdk::StatusCode::invalid_argument,
                   "cpu cannot run op '" + task.name + "' (" + task.op_type + "): its inputs, outputs and reference "
                       "outputs take " + need + " as fp32, more than this machine's " + sdk::bytes_text(memory_bytes) +
                       " (" + std::to_string(memory_bytes) + " bytes) of memory; tune it with smaller shapes "
                       "(--input_shape)");
}

}  // namespace aoe::cpu
