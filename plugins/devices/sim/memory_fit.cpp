#include "memory_fit.h"

#include <string>
#include <vector>

#include "aoe/sdk/error.h"
#include "aoe/sdk/tensor_size.h"

namespace aoe::sim {

void require_fits_memory(const Soc& soc, const sdk::OpTask& task) {
  if (soc.hbm_bytes <= 0) return;
  std::vector<sdk::TensorDesc> tensors;
  for (const auto* list : {&task.inputs, &task.outputs})
    for (const auto& t : *list)
      if (t.fully_known()) tensors.push_back(t);
  // fp16 is what the cube computes in; a tensor of unknown dtype is counted as such.
  const auto bytes = sdk::checked_total_bytes(tensors, 2);
  if (bytes && *bytes <= soc.hbm_bytes) return;
  const std::string need = bytes ? sdk::bytes_text(*bytes) + " (" + std::to_string(*bytes) + " bytes)"
                                 : std::string("more bytes than a 64-bit count holds");
  throw sdk::Error(sdk::StatusCode::invalid_argument,
                   soc.target + " cannot hold op '" + task.name + "' (" + task.op_type + "): its inputs and outputs take " +
                       need + ", more than the SoC's " + sdk::bytes_text(soc.hbm_bytes) + " (" +
                       std::to_string(soc.hbm_bytes) +
                       " bytes) of memory (hbm_bytes); tune it with smaller shapes (--input_shape)");
}

}  // namespace aoe::sim
